"""The rules an answer is held to (fuzz/rules.py), each able to fail and each holding only where A2A asks."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference_server.conformance.support.raw import RawAnswer

from .rules import Limits, judge, sse_data
from .strategies import NO_ENVELOPE, ODD_PATH, UNKNOWN_METHOD, Focus, FuzzRequest, requests
from .surface import Secrets, for_reference_server

SECRETS = Secrets.made_up("k_rules-caller")
LIMITS = Limits(timeout=2.0, amplification=20.0, amplification_floor=10_000)
JSON = {"content-type": "application/json"}


def request(binding: str = "jsonrpc", *, version: str = "1.0", operation: str = "GetTask", endpoint: bool = True,
            body: bytes = b'{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}}',
            headers: list[tuple[str, str]] | None = None) -> FuzzRequest:
    sent = headers if headers is not None else [("X-API-Key", SECRETS.key)]
    return FuzzRequest(binding, "POST", "/a2a", sent, body, [], f"{binding}-{version}", operation, endpoint,
                       "http://127.0.0.1:1")


def rules(req: FuzzRequest, answer: RawAnswer) -> list[str]:
    return [breach.rule for breach in judge(req, answer, SECRETS, LIMITS)]


def test_delivery_failures() -> None:
    assert rules(request(), RawAnswer(500, {"content-type": "text/plain"}, b"oops")) == ["server-error"]
    assert rules(request(), RawAnswer(0, {}, b"", failure="timeout")) == ["hang"]
    assert rules(request(), RawAnswer(0, {}, b"", failure="closed")) == ["server-error"]
    assert rules(request(), RawAnswer(200, JSON, b'{"jsonr', failure="closed")) == ["malformed-answer"]
    assert rules(request(), RawAnswer(0, {}, b"", failure="not http")) == ["malformed-answer"]
    # a stream cut at the bound after its first event is a long task, not a hang
    stream = {"content-type": "text/event-stream"}
    assert rules(request(), RawAnswer(200, stream, b'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n', cut=True)) == []


@pytest.mark.parametrize(("status", "body", "broken"), [
    (200, b'{"jsonrpc": "2.0", "id": 1, "result": {}}', False),
    (200, b'{"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "Task not found"}}', False),
    (200, b'{"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}}', True),
    (200, b'{"jsonrpc": "2.0", "id": 1, "error": {"code": true, "message": "m"}}', True),
    (200, b'{"jsonrpc": "2.0", "result": {}}', True),  # no id
    (200, b'{"task": {}}', True),  # a 200 that is not JSON-RPC
    (200, b'{"jsonrpc": "2.0", "id": 1, "result": NaN}', True),
    (401, b'{"detail": "unauthorized"}', False),  # refused before JSON-RPC was read: the status says it
    (401, b"Unauthorized", True),
    (200, b'[{"jsonrpc": "2.0", "id": 1, "result": {}}]', False),  # a batch's answer
])
def test_the_json_rpc_shape(status: int, body: bytes, broken: bool) -> None:
    assert rules(request(), RawAnswer(status, JSON, body)) == (["malformed-answer"] if broken else [])


def test_a_notification_may_get_no_body() -> None:
    notification = request(body=b'{"jsonrpc": "2.0", "method": "GetTask", "params": {}}')
    assert rules(notification, RawAnswer(204, {}, b"")) == []
    assert rules(request(), RawAnswer(200, JSON, b"")) == ["malformed-answer"]


@pytest.mark.parametrize(("version", "status", "body", "broken"), [
    ("1.0", 400, b'{"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "bad"}}', False),
    ("1.0", 400, b'{"detail": "bad"}', True),
    ("1.0", 404, b"<html><title>404</title></html>", True),
    ("0.3", 400, b'{"detail": "bad"}', False),  # 0.3 named no error body: JSON is all it asks
    ("0.3", 400, b"Bad Request", True),
    ("1.0", 200, b"{}", False),
    ("1.0", 204, b"", False),
    ("1.0", 200, b"ok", True),
])
def test_the_http_json_shape(version: str, status: int, body: bytes, broken: bool) -> None:
    rest = request("rest", version=version, body=b"{}")
    assert rules(rest, RawAnswer(status, JSON, body)) == (["malformed-answer"] if broken else [])


def test_a_path_of_no_route_is_held_to_no_shape_but_to_no_5xx() -> None:
    odd = request("rest", operation=ODD_PATH, endpoint=False, body=b"")
    assert rules(odd, RawAnswer(404, {"content-type": "text/plain"}, b"Not Found")) == []
    assert rules(odd, RawAnswer(502, {"content-type": "text/plain"}, b"Bad Gateway")) == ["server-error"]


def test_each_event_of_a_stream_is_json() -> None:
    stream = {"content-type": "text/event-stream"}
    good = b'data: {"jsonrpc":"2.0","id":1,"result":{"task":{}}}\r\rdata: {"jsonrpc":"2.0","id":1,"result":{}}\r\r'
    assert rules(request(), RawAnswer(200, stream, good)) == []
    assert rules(request(), RawAnswer(200, stream, b"data: {not json}\n\n")) == ["malformed-answer"]
    assert rules(request(), RawAnswer(200, stream, b'data: {"task": {}}\n\n')) == ["malformed-answer"]
    assert rules(request("rest", body=b"{}"), RawAnswer(200, stream, b'data: {"task": {}}\n\n')) == []
    assert sse_data(b"data: a\ndata: b\n\ndata: c") == ["a\nb", "c"]


def test_a_leak_is_a_credential_of_the_request_in_an_error_or_a_header() -> None:
    wrong = request(headers=[("X-API-Key", SECRETS.wrong_key)])
    echoed = json.dumps({"error": f"unknown key {SECRETS.wrong_key}"}).encode()
    breaches = judge(wrong, RawAnswer(401, JSON, echoed), SECRETS, LIMITS)
    assert [(b.rule, b.says) for b in breaches] == [("leak", "the error body echoes a made-up API key, sent in the "
                                                             "request")]
    assert SECRETS.wrong_key not in breaches[0].says
    # in a header, on any answer
    assert rules(request(), RawAnswer(200, {**JSON, "x-caller": SECRETS.key}, b'{"jsonrpc": "2.0", "id": 1, '
                                                                              b'"result": {}}')) == ["leak"]
    # a credential in a success's body (a push config read back) is its answer, not a leak
    token = request(body=json.dumps({"token": SECRETS.push_token}).encode())
    assert rules(token, RawAnswer(200, JSON, json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
        "token": SECRETS.push_token}}).encode())) == []
    # a credential the request did not carry is not its leak
    assert rules(request(), RawAnswer(401, JSON, echoed)) == []
    # a key too short to tell from chance is not looked for
    short = Secrets.made_up("k1")
    assert all(value != "k1" for _, value in short.named())


def test_amplification_is_a_large_answer_to_a_small_send() -> None:
    send = request(operation="SendMessage", body=b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage"}')
    large = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"padding": "x" * 20_000}}).encode()
    assert rules(send, RawAnswer(200, JSON, large)) == ["amplification"]
    assert rules(request(), RawAnswer(200, JSON, large)) == []  # a read answers with what earlier sends stored


@settings(max_examples=200, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_the_requests_stay_on_the_surface_and_in_their_focus(data: st.DataObject) -> None:
    surface = for_reference_server("http://127.0.0.1:1", SECRETS)
    req = data.draw(requests(surface))
    assert req.origin == "http://127.0.0.1:1" and req.target.startswith("/")
    if req.operation == ODD_PATH:
        assert not req.endpoint and req.interface == ""
    elif req.binding == "jsonrpc":
        assert req.endpoint == (req.target == "/a2a") and req.verb == "POST"
    elif req.endpoint:
        assert req.target.startswith("/a2a/v1/")
    assert req.well_formed == (not req.notes)
    focused = data.draw(requests(surface, Focus("rest-0.3", "CancelTask")))
    assert (focused.interface, focused.operation) == ("rest-0.3", "CancelTask")
    unknown = data.draw(requests(surface, Focus("jsonrpc-1.0", UNKNOWN_METHOD)))
    assert unknown.interface == "jsonrpc-1.0" and unknown.operation in (UNKNOWN_METHOD, NO_ENVELOPE)
