"""Validate payloads against the JSON Schemas in spec/schemas/, offline, by $id and JSON pointer."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7, DRAFT202012

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "spec" / "schemas"

# The vendored 0.3 schema has no $id (it is byte-for-byte upstream); it is registered under this URI.
V03_FILE = "a2a-v0.3.json"
V03_ID = "urn:a2a:v0.3"


def _resource(path: Path) -> tuple[str, Resource]:
    contents = json.loads(path.read_text(encoding="utf-8"))
    if path.name == V03_FILE:
        # draft-07 with `definitions`. Its subschemas are checked by the 2020-12 validator class, which is
        # safe: the file uses only keywords that mean the same in both drafts (no array-form `items`,
        # and its `$ref` siblings are annotations).
        return V03_ID, DRAFT7.create_resource(contents)
    if "$id" not in contents:
        raise ValueError(f"{path.name} has no $id; every schema in spec/schemas needs one")
    return contents["$id"], DRAFT202012.create_resource(contents)


@cache
def load_registry() -> Registry:
    """Every spec/schemas/*.json, registered by its $id (the 0.3 file as urn:a2a:v0.3).

    A Registry without a `retrieve` function fails any lookup it does not hold, so an unknown $ref is an
    error, never a network fetch.
    """
    resources = [_resource(path) for path in sorted(SCHEMA_DIR.glob("*.json"))]
    return Registry().with_resources(resources).crawl()


@cache
def validator(ref: str) -> Draft202012Validator:
    """A validator for the schema at ref: "urn:a2a:v1#/$defs/Task", "urn:a2a:v0.3#/definitions/Task"..."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": ref}
    return Draft202012Validator(schema, registry=load_registry(), format_checker=FormatChecker())


def errors(instance: Any, ref: str) -> list[str]:
    """Every validation error as "<json path>: <message>", in path order."""
    found = sorted(
        validator(ref).iter_errors(instance), key=lambda error: [str(p) for p in error.absolute_path]
    )
    return [f"{error.json_path}: {error.message}" for error in found]


def assert_valid(instance: Any, ref: str) -> None:
    """Raise AssertionError listing every error when instance does not match the schema at ref."""
    found = errors(instance, ref)
    if found:
        raise AssertionError(f"not valid against {ref}:\n" + "\n".join(found))
