"""The client checks over single exchanges: what real clients send passes, each deliberate mistake is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reference_server.bindings.operations import V03_OPERATIONS, V03_REST_OPERATIONS, V1_OPERATIONS
from reference_server.clientcheck.checks import CHECKS, CONVENTIONS, CallerState, check
from reference_server.clientcheck.exchange import (
    OPERATIONS,
    V03_JSONRPC_NAMES,
    V03_REST_NAMES,
    Exchange,
    classify,
)

V1_JSON = {"content-type": "application/json", "a2a-version": "1.0"}
V03_JSON = {"content-type": "application/json", "a2a-version": "0.3"}
MESSAGE = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}
V03_MESSAGE = {"kind": "message", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": "hello"}]}


def exchange(method: str = "POST", path: str = "/a2a", body: Any = None, headers: dict[str, str] | None = None,
             query: str = "", raw: bytes | None = None) -> Exchange:
    data = raw if raw is not None else b"" if body is None else json.dumps(body).encode()
    return Exchange(time=0.0, method=method, path=path, query=query,
                    headers=tuple((headers if headers is not None else V1_JSON).items()), body=data,
                    caller="desk/c", status=200)


def rpc(method: str, params: Any, request_id: Any = "r-1", **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params, **extra}


def found(ex: Exchange, state: CallerState | None = None) -> list[str]:
    return [v.check for v in check(classify(ex), ex, state or CallerState()).violations]


# --- what the official clients send (REAL-CLIENTS §4) passes every check

CLEAN = {
    "python jsonrpc 1.0 send": exchange(body=rpc("SendMessage", {"message": MESSAGE, "configuration": {}})),
    "js jsonrpc 1.0 send, integer id": exchange(body=rpc("SendMessage", {"message": MESSAGE}, 1)),
    "jsonrpc 1.0 extended card without params": exchange(body={"jsonrpc": "2.0", "id": 6,
                                                               "method": "GetExtendedAgentCard"}),
    "rest 1.0 send, application/json": exchange(path="/a2a/v1/message:send", body={"message": MESSAGE}),
    "rest 1.0 send, application/a2a+json": exchange(
        path="/a2a/v1/message:send", body={"message": MESSAGE, "configuration": {"returnImmediately": True}},
        headers={"content-type": "application/a2a+json; charset=utf-8", "a2a-version": "1.0"}),
    "rest 1.0 list with every filter": exchange(
        "GET", "/a2a/v1/tasks", query="pageSize=10&status=TASK_STATE_WORKING&historyLength=2&includeArtifacts=true"
        "&pageToken=abc&contextId=c1&statusTimestampAfter=2026-01-01T00:00:00Z"),
    "rest 1.0 get with the version as a query parameter": exchange(
        "GET", "/a2a/v1/tasks/t-1", query="historyLength=10&A2A-Version=1.0", headers={}),
    "js rest 1.0 cancel with an empty body": exchange(path="/a2a/v1/tasks/t-1:cancel"),
    "python rest 1.0 cancel with the id": exchange(path="/a2a/v1/tasks/t-1:cancel", body={"id": "t-1"}),
    "rest 1.0 push config create": exchange(
        path="/a2a/v1/tasks/t-1/pushNotificationConfigs",
        body={"taskId": "t-1", "url": "https://hooks.example.com/n", "token": "tok"}),
    "python jsonrpc 0.3 send": exchange(body=rpc("message/send", {"configuration": {"blocking": True},
                                                                  "message": V03_MESSAGE}), headers=V03_JSON),
    "jsonrpc 0.3 without A2A-Version": exchange(body=rpc("tasks/get", {"id": "t-1", "historyLength": 1}),
                                                headers={"content-type": "application/json"}),
    "jsonrpc 0.3 push config set": exchange(body=rpc("tasks/pushNotificationConfig/set", {
        "taskId": "t-1", "pushNotificationConfig": {"url": "https://hooks.example.com/n", "token": "tok"}}),
        headers=V03_JSON),
    "python rest 0.3 send (proto names)": exchange(
        path="/a2a/v1/message:send", headers=V03_JSON,
        body={"request": {"message_id": "m-1", "role": "ROLE_USER", "content": [{"text": "hello"}]},
              "configuration": {"blocking": True}}),
    "js rest 0.3 send": exchange(
        path="/a2a/v1/message:send", headers=V03_JSON,
        body={"message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "hello"}]},
              "configuration": {"blocking": True}}),
    "the public card": exchange("GET", "/.well-known/agent-card.json", headers={}),
}


@pytest.mark.parametrize("name", CLEAN)
def test_what_the_official_clients_send_passes(name: str) -> None:
    assert found(CLEAN[name]) == []


def test_the_schema_check_ran_on_a_clean_request() -> None:
    ex = CLEAN["python jsonrpc 1.0 send"]
    assert check(classify(ex), ex, CallerState()).schema_checked


# --- each deliberate mistake is reported with the check that names it

V03_PARTS_IN_V1 = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"kind": "text", "text": "hello"}]}
BROKEN: dict[str, tuple[Exchange, str]] = {
    "0.3 part kind with A2A-Version 1.0": (
        exchange(body=rpc("SendMessage", {"message": V03_PARTS_IN_V1})), "field-other-version"),
    "0.3 blocking with A2A-Version 1.0": (
        exchange(path="/a2a/v1/message:send", body={"message": MESSAGE, "configuration": {"blocking": True}}),
        "field-other-version"),
    "0.3 pushNotificationConfig in a 1.0 send": (
        exchange(body=rpc("SendMessage", {"message": MESSAGE, "configuration": {
            "pushNotificationConfig": {"url": "https://hooks.example.com/n"}}})), "field-other-version"),
    "1.0 part shape in 0.3 JSON-RPC": (
        exchange(body=rpc("message/send", {"message": {**V03_MESSAGE, "parts": [{"text": "hi"}]}}),
                 headers=V03_JSON), "field-other-version"),
    "1.0 parts in 0.3 HTTP+JSON": (
        exchange(path="/a2a/v1/message:send", body={"message": MESSAGE}, headers=V03_JSON), "field-other-version"),
    "a numeric role": (
        exchange(path="/a2a/v1/message:send", body={"message": {**MESSAGE, "role": 1}}), "enum-spelling"),
    "a 0.3 role spelling in 1.0": (
        exchange(body=rpc("SendMessage", {"message": {**MESSAGE, "role": "user"}})), "enum-spelling"),
    "a 1.0 role spelling in 0.3 JSON-RPC": (
        exchange(body=rpc("message/send", {"message": {**V03_MESSAGE, "role": "ROLE_USER"}}), headers=V03_JSON),
        "enum-spelling"),
    "a numeric status filter": (exchange("GET", "/a2a/v1/tasks", query="status=2"), "enum-spelling"),
    "a float JSON-RPC id": (exchange(body=rpc("GetTask", {"id": "t-1"}, 1.5)), "jsonrpc-id"),
    "a null JSON-RPC id": (exchange(body=rpc("GetTask", {"id": "t-1"}, None)), "jsonrpc-id"),
    "no JSON-RPC id": (exchange(body={"jsonrpc": "2.0", "method": "GetTask", "params": {"id": "t-1"}}),
                       "jsonrpc-id"),
    "jsonrpc 1.0": (exchange(body={**rpc("GetTask", {"id": "t-1"}), "jsonrpc": "1.0"}), "jsonrpc-envelope"),
    "params as a list": (exchange(body=rpc("GetTask", ["t-1"])), "jsonrpc-envelope"),
    "JSON-RPC with GET": (exchange("GET", "/a2a"), "jsonrpc-envelope"),
    "no A2A-Version on a 1.0 REST body": (
        exchange(path="/a2a/v1/message:send", body={"message": MESSAGE}, headers={"content-type": "application/json"}),
        "version-header"),
    "no A2A-Version on ListTasks": (exchange("GET", "/a2a/v1/tasks", headers={}), "version-header"),
    "no A2A-Version on a 1.0 JSON-RPC method": (
        exchange(body=rpc("SendMessage", {"message": MESSAGE}), headers={"content-type": "application/json"}),
        "version-header"),
    "a patch number in A2A-Version": (
        exchange(body=rpc("GetTask", {"id": "t-1"}), headers={**V1_JSON, "a2a-version": "1.0.0"}), "version-value"),
    "an unserved A2A-Version": (
        exchange(body=rpc("GetTask", {"id": "t-1"}), headers={**V1_JSON, "a2a-version": "2.0"}), "version-value"),
    "a made-up A2A-Version": (
        exchange(body=rpc("GetTask", {"id": "t-1"}), headers={**V1_JSON, "a2a-version": "latest"}), "version-value"),
    "JSON-RPC as text/plain": (
        exchange(body=rpc("GetTask", {"id": "t-1"}), headers={**V1_JSON, "content-type": "text/plain"}),
        "content-type"),
    "a REST body without a content type": (
        exchange(path="/a2a/v1/message:send", body={"message": MESSAGE}, headers={"a2a-version": "1.0"}),
        "content-type"),
    "a body that is not JSON": (exchange(raw=b'{"jsonrpc": "2.0", '), "json-body"),
    # what the server's request reader refuses as a parse error is not JSON for the report either
    "a body with NaN": (exchange(raw=b'{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"x": NaN}}'),
                        "json-body"),
    "a body nested too deep": (exchange(raw=b"[" * 65 + b"]" * 65), "json-body"),
    "a 0.3 method with A2A-Version 1.0": (
        exchange(body=rpc("message/send", {"message": V03_MESSAGE})), "method-version"),
    "a 0.3-only route with A2A-Version 1.0": (exchange("GET", "/a2a/v1/card"), "method-version"),
    "an unknown method": (exchange(body=rpc("tasks/list", {})), "method-unknown"),
    "an unknown route": (exchange("POST", "/a2a/v1/messages", body={}), "method-unknown"),
    "a path outside A2A": (exchange("POST", "/v1/message:send", body={}), "method-unknown"),
    "snake_case names in 1.0": (
        exchange(body=rpc("SendMessage", {"message": {"message_id": "m-1", "role": "ROLE_USER",
                                                      "parts": [{"text": "hi"}]}})), "field-case"),
    "a message without parts": (
        exchange(body=rpc("SendMessage", {"message": {"messageId": "m-1", "role": "ROLE_USER"}})), "schema"),
    "an unknown field": (exchange(body=rpc("GetTask", {"id": "t-1", "depth": 3})), "schema"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_each_mistake_is_reported_with_its_check(name: str) -> None:
    ex, expected = BROKEN[name]
    assert expected in found(ex), name


def test_every_check_is_shown_to_fire() -> None:
    assert {expected for _, expected in BROKEN.values()} | {"message-id-unique"} == set(CHECKS)


def test_a_reused_message_id_is_reported_once_the_message_differs() -> None:
    state = CallerState()
    first = exchange(body=rpc("SendMessage", {"message": MESSAGE}))
    again = exchange(body=rpc("SendMessage", {"message": MESSAGE}, "r-2"))
    other = exchange(body=rpc("SendMessage", {"message": {**MESSAGE, "parts": [{"text": "other"}]}}, "r-3"))
    assert found(first, state) == []
    assert found(again, state) == []  # the same message again (a retry) keeps its id
    assert found(other, state) == ["message-id-unique"]
    assert found(other, CallerState()) == []  # another caller's ids are its own


def test_a_mistake_explained_by_a_specific_check_is_not_repeated_by_the_schema() -> None:
    ex = BROKEN["0.3 part kind with A2A-Version 1.0"][0]
    violations = check(classify(ex), ex, CallerState()).violations
    assert [(v.check, v.path) for v in violations] == [("field-other-version", "message.parts[0].kind")]


def test_the_schema_still_reports_what_no_specific_check_explains() -> None:
    ex = exchange(body=rpc("SendMessage", {"message": {**V03_PARTS_IN_V1, "role": "ROLE_USER", "extra": 1}}))
    checks = [(v.check, v.path) for v in check(classify(ex), ex, CallerState()).violations]
    assert ("field-other-version", "message.parts[0].kind") in checks
    assert ("schema", "message.extra") in checks


def test_every_mistake_of_a_request_is_reported_not_the_first() -> None:
    """A snake_case name and an unknown field in one message are two mistakes: the unknown one is not hidden
    behind the field-case finding, and the schema does not report the snake_case name a second time."""
    message = {"message_id": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}], "colour": "red", "size": 3}
    ex = exchange(body=rpc("SendMessage", {"message": message}))
    violations = check(classify(ex), ex, CallerState()).violations
    assert [(v.check, v.path) for v in violations] == [
        ("field-case", "message.message_id"), ("schema", "message.colour"), ("schema", "message.size")]
    assert violations[1].message == "message: `colour` is not a field of this version's schema (A2A §5.7)"


@pytest.mark.parametrize(("ex", "uses"), [
    (exchange(body=rpc("GetTask", {"id": "t", "historyLength": 2})), ["historyLength"]),
    (exchange(body=rpc("SendMessage", {"message": MESSAGE, "configuration": {"returnImmediately": True}})),
     ["returnImmediately"]),
    (exchange(body=rpc("message/send", {"message": V03_MESSAGE, "configuration": {"blocking": False}}),
              headers=V03_JSON), ["returnImmediately"]),
    (exchange(path="/a2a/v1/message:send", headers=V03_JSON, body={
        "message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}]}, "configuration": {}}),
     ["returnImmediately"]),  # the 0.3 proto's `bool blocking`: absent is false
    (exchange(path="/a2a/v1/message:send", headers=V03_JSON, body={
        "message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}]}}), []),
    (exchange("GET", "/a2a/v1/tasks", query="pageSize=1&pageToken=abc"), ["cursorPaging"]),
    (exchange("POST", "/a2a/v1/tasks/t-1:subscribe"), ["subscribe"]),
    (exchange(body=rpc("tasks/resubscribe", {"id": "t"}), headers=V03_JSON), ["subscribe"]),
    (exchange(body=rpc("ListTaskPushNotificationConfigs", {"taskId": "t"})), ["pushConfig"]),
    (exchange(body=rpc("SendMessage", {"message": MESSAGE, "configuration": {
        "taskPushNotificationConfig": {"url": "https://h.example.com/"}}})), ["pushConfig"]),
    (exchange(body=rpc("SendMessage", {"message": MESSAGE})), []),
])
def test_the_conventions_a_request_uses(ex: Exchange, uses: list[str]) -> None:
    assert check(classify(ex), ex, CallerState()).uses == uses


def test_the_0_3_names_are_those_of_the_bindings_tables() -> None:
    assert set(V03_JSONRPC_NAMES) == set(V03_OPERATIONS)
    assert set(V03_REST_NAMES) == set(V03_REST_OPERATIONS)
    assert set(V03_JSONRPC_NAMES.values()) | set(V03_REST_NAMES.values()) <= set(OPERATIONS) == set(V1_OPERATIONS)


def test_every_check_cites_its_source() -> None:
    for item in CHECKS.values():
        assert item.section.startswith(("A2A §", "A2A App.", "a2a.proto")), item
        assert item.title.endswith("."), item


def test_a_body_that_is_not_an_object_is_reported_once() -> None:
    assert found(BROKEN["params as a list"][0]) == ["jsonrpc-envelope"]
    assert found(exchange(path="/a2a/v1/message:send", body=[MESSAGE])) == ["schema"]


def test_every_check_and_convention_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "client-testing.md").read_text()
    rows = {line.split("|")[1].strip(): line for line in doc.splitlines() if line.startswith("| `")}
    for item in [*CHECKS.values(), *CONVENTIONS]:
        assert f"`{item.id}`" in rows, f"docs/client-testing.md has no row for {item.id}"
        assert rows[f"`{item.id}`"].rstrip().endswith(f"| {item.section} |"), item.id
