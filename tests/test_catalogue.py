"""The catalogue of operations (reference_server/a2a/catalogue.py) is the one list the bindings, the client bench
and the schema check read: every handler table has exactly its operations, and every name it gives is one the
vendored schemas define."""

from __future__ import annotations

import json
from pathlib import Path

from reference_server.a2a.catalogue import BY_NAME, CATALOGUE, NAMES, ROUTES, V03_METHODS, V03_REST_NAMES
from reference_server.bindings.operations import V03_OPERATIONS, V03_REST_OPERATIONS, V1_OPERATIONS

SCHEMAS = Path(__file__).resolve().parents[1] / "spec" / "schemas"


def test_every_binding_has_a_handler_for_each_operation_of_its_version_and_no_other() -> None:
    assert list(V1_OPERATIONS) == list(NAMES)
    assert set(V03_OPERATIONS) == set(V03_METHODS)
    assert set(V03_REST_OPERATIONS) == set(V03_REST_NAMES)


def test_every_route_names_an_operation_in_each_version_it_serves() -> None:
    for route in ROUTES:
        assert route.v1 is not None or route.v03 is not None, route
        assert route.v1 is None or route.v1 in BY_NAME, route
        assert route.v03 is None or route.v03 in V03_REST_NAMES, route
    served = {(route.verb, route.path) for route in ROUTES}
    assert len(served) == len(ROUTES), "a verb and path are served twice"
    assert {route.v1 for route in ROUTES} - {None} == set(NAMES), "an operation without an HTTP+JSON route"


def test_every_request_definition_is_in_the_vendored_schemas() -> None:
    v1 = json.loads((SCHEMAS / "a2a-v1.json").read_text())["$defs"]
    v03 = json.loads((SCHEMAS / "a2a-v0.3.json").read_text())["definitions"]
    v03_proto = json.loads((SCHEMAS / "a2a-v0.3-proto.json").read_text())["$defs"]
    for op in CATALOGUE:
        assert op.request in v1, op
        assert op.v03_request is None or op.v03_request in v03, op
        assert op.v03_rest_body is None or op.v03_rest_body in v03_proto, op
        # an operation that carries a message is one of the two message methods in 0.3
        assert not op.sends or op.v03_method in ("message/send", "message/stream"), op
