"""The fuzz suite: hostile requests on both bindings and both versions against a live server.

The properties: never a 5xx; every answer's body is valid JSON (every SSE event too), and every error is in
its binding's error shape; the server stays healthy afterwards. `make test` runs FUZZ_EXAMPLES (default
1,000) derandomized examples; `make fuzz` runs 10,000 random ones and prints the counts.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator

import h11
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.live import LiveServer, one_caller_server

from reference_server.conformance.support.raw import RawAnswer, raw_request, timed_request
from reference_server.conformance.support.schemas import errors

from .rules import Limits, judge, sse_data, strict_json
from .strategies import FuzzRequest, requests
from .surface import Secrets, Surface, for_reference_server

KEY = "k_fuzz-caller"
SECRETS = Secrets.made_up(KEY)
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "1000"))
RANDOM = os.environ.get("FUZZ_RANDOM") == "1"  # make fuzz: new examples every run; make test: the same ones
WIRE = "urn:reference-server:wire-errors#/$defs/"
LIMITS = Limits(timeout=10.0, amplification=20.0, amplification_floor=256 * 1024)
COUNTS: Counter[str] = Counter()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = one_caller_server(tmp_path_factory.mktemp("fuzz"), "fuzz-bot", KEY, max_body_bytes=1024 * 1024)
    yield live
    live.stop()
    total = sum(COUNTS.values())
    print(f"\nfuzz: {total} requests, {COUNTS['5xx']} server errors (5xx); "
          + ", ".join(f"{k}: {v}" for k, v in sorted(COUNTS.items()) if k != "5xx"))


@pytest.fixture(scope="module")
def surface(server: LiveServer) -> Surface:
    answer = send_json(server, {"message": {"messageId": "m-fuzz", "role": "ROLE_USER", "parts": [{"text": "hi"}]}})
    assert answer.status == 200, answer.body
    return for_reference_server(server.url, SECRETS, str(answer.json()["task"]["id"]))


def send_json(server: LiveServer, body: dict[str, object]) -> RawAnswer:
    headers = {"X-API-Key": KEY, "A2A-Version": "1.0", "Content-Type": "application/json"}
    return raw_request(server.url, "POST", "/a2a/v1/message:send", headers, json.dumps(body).encode())


def check(request: FuzzRequest, answer: RawAnswer) -> None:
    """The properties of one answer: the rules any server is held to (fuzz/rules.py), and this server's own error
    bodies, to the letter of spec/schemas/wire-errors.json, wherever the request went."""
    breaches = judge(request, answer, SECRETS, LIMITS)
    assert not breaches, f"{breaches} for {request}: {answer.body[:500]!r}"
    if answer.stream:
        for data in sse_data(answer.body):
            strict_json(data.encode())
        return
    payload = strict_json(answer.body)
    assert isinstance(payload, dict), payload
    if "jsonrpc" in payload:
        shape = "JsonRpcError" if "error" in payload else "JsonRpcSuccess"
        assert errors(payload, WIRE + shape) == [], (request, payload)
    elif answer.status >= 400:
        assert errors(payload, WIRE + "RestError") == [], (request, payload)


@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not RANDOM,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_request_gets_a_server_error_or_an_answer_that_is_not_json(surface: Surface, data: st.DataObject) -> None:
    request = data.draw(requests(surface))
    try:
        answer = timed_request(request.origin, request.verb, request.target, request.headers, request.body,
                               timeout=LIMITS.timeout, max_answer=16 * 1024 * 1024)
    except h11.LocalProtocolError:
        assume(False)  # the client library itself refuses to send it (a header with a line break, ...)
        return
    COUNTS[f"{answer.status // 100}xx"] += 1
    check(request, answer)


def test_the_server_is_healthy_after_the_fuzzing(server: LiveServer) -> None:
    answer = send_json(server, {"message": {"messageId": "m-after", "role": "ROLE_USER", "parts": [{"text": "ok?"}]}})
    assert answer.status == 200 and answer.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED", answer.body
    card = raw_request(server.url, "GET", "/.well-known/agent-card.json")
    assert card.status == 200


def test_the_checks_catch_a_server_error() -> None:
    # the property must be able to fail
    request = FuzzRequest("rest", "GET", "/", [])
    with pytest.raises(AssertionError):
        check(request, RawAnswer(500, {"content-type": "application/json"}, b'{"error": {}}'))
    with pytest.raises(ValueError):
        check(request, RawAnswer(200, {"content-type": "application/json"}, b'{"x": NaN}'))
    with pytest.raises(AssertionError):
        check(request, RawAnswer(400, {"content-type": "application/json"}, b'{"error": "no shape"}'))
