"""The request schemas of each A2A version and binding, from spec/schemas/ (read once, offline).

The schemas are the contract the test suite validates every answer against; a recording server checks the
requests against the same files: spec/schemas/ in a checkout (an editable install), and their copy inside the
package in a wheel (setup.py). Without them the schema check reports that it did not run.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reference_server.a2a.catalogue import CATALOGUE, V0_3, V1_0
from reference_server.spec_files import SCHEMAS

if TYPE_CHECKING:  # jsonschema takes seconds to import: only a recording server pays for it, on first use
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

SCHEMA_DIR = SCHEMAS  # in the package of a wheel, in spec/ of a checkout (spec_files.py)
V1_FILE, V03_FILE, V03_PROTO_FILE = "a2a-v1.json", "a2a-v0.3.json", "a2a-v0.3-proto.json"
V03_ID = "urn:a2a:v0.3"  # the vendored 0.3 JSON Schema has no $id (it is byte-for-byte upstream)

# the request definitions of each version and binding, from the catalogue (a2a/catalogue.py)
V1_REQUESTS: dict[str, str] = {op.name: op.request for op in CATALOGUE}  # A2A 1.0, both bindings (a2a.proto)
# A2A 0.3 JSON-RPC: the JSON-RPC request definition of each method, whose `params` are checked
V03_REQUESTS: dict[str, str] = {op.v03_method: op.v03_request for op in CATALOGUE if op.v03_method and op.v03_request}
# A2A 0.3 HTTP+JSON: the bodies that are a 0.3 proto request message (the other routes carry only path ids)
V03_REST_BODIES: dict[str, str] = {op.name: op.v03_rest_body for op in CATALOGUE if op.v03_rest_body}


def request_ref(binding: str, version: str, operation: str, method: str, body: Any = None) -> str | None:
    """The schema the operation's parameters must match; None when there is none to check."""
    if version == V1_0:
        return f"urn:a2a:v1#/$defs/{V1_REQUESTS[operation]}"
    if version == V0_3 and binding == "jsonrpc" and method in V03_REQUESTS:
        return f"{V03_ID}#/definitions/{V03_REQUESTS[method]}/properties/params"
    if version == V0_3 and binding == "rest" and operation in V03_REST_BODIES:
        name = V03_REST_BODIES[operation]
        if operation == "CreateTaskPushNotificationConfig" and isinstance(body, dict) and "config" not in body:
            # the 0.3 proto's HTTP rule is `body: "config"`: the body may be the config itself (what @a2a-js/sdk
            # sends) as well as the whole request (what the a2a-sdk sends); the server reads both (REAL-CLIENTS §7.10)
            name = "TaskPushNotificationConfig"
        return f"urn:a2a:v0.3-proto#/$defs/{name}"
    return None


def available() -> bool:
    return all((SCHEMA_DIR / name).is_file() for name in (V1_FILE, V03_FILE, V03_PROTO_FILE))


def _resource(path: Path) -> tuple[str, Resource]:
    from referencing.jsonschema import DRAFT7, DRAFT202012

    contents = json.loads(path.read_text(encoding="utf-8"))
    if path.name == V03_FILE:
        return V03_ID, DRAFT7.create_resource(contents)  # draft-07, `definitions` (as conformance/support/schemas.py)
    return contents["$id"], DRAFT202012.create_resource(contents)


@cache
def _registry() -> Registry:
    from referencing import Registry

    # no `retrieve` function: an unknown $ref fails, never a network fetch
    return Registry().with_resources(_resource(SCHEMA_DIR / name) for name in (V1_FILE, V03_FILE, V03_PROTO_FILE))


@cache
def validator(ref: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    # no format checker: `format` is an annotation here, as A2A's receivers read it
    return Draft202012Validator({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": ref},
                                registry=_registry())


@cache
def definition(ref: str) -> dict[str, Any]:
    """The schema object at ref (for the property types a query string is read with)."""
    uri, _, pointer = ref.partition("#")
    resolved = _registry().resolver().lookup(f"{uri}#{pointer}")
    contents: dict[str, Any] = resolved.contents
    return contents
