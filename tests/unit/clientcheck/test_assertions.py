"""clientcheck/assertions.py: the texts of the pytest kit's failed assertions, from a report of recorded exchanges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reference_server.clientcheck import report
from reference_server.clientcheck.assertions import (
    EXCERPT_CHARS,
    behaviour_text,
    called_text,
    violations_text,
)
from reference_server.clientcheck.behaviours import RUN_ENDED
from reference_server.clientcheck.exchange import Exchange
from reference_server.clientcheck.recorder import Recorder

OUT = Path("/reports/of/this/test")


def recorded(tmp_path: Path, *exchanges: tuple[bytes, int] | tuple[bytes, int, bytes]
             ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The report and the records of JSON-RPC 1.0 requests (body, answer's status[, answer's body]) by desk/c."""
    recorder = Recorder(tmp_path)
    for n, (body, status, *answer) in enumerate(exchanges):
        recorder.submit(Exchange(time=1_780_000_000.0 + n, method="POST", path="/a2a", query="", body=body,
                                 headers=(("content-type", "application/json"), ("a2a-version", "1.0")),
                                 caller="desk/c", status=status,
                                 response_headers=(("content-type", "application/json"),),
                                 response_body=answer[0] if answer else b"{}"))
    recorder.close()
    records = [json.loads(line) for line in (tmp_path / "desk--c.jsonl").read_text().splitlines()]
    return report.build(tmp_path, now=RUN_ENDED), records


def rpc(method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


def test_nothing_to_say_when_the_client_behaved(tmp_path: Path) -> None:
    built, records = recorded(tmp_path, (rpc("GetTask", {"id": "t-1"}), 200))
    assert violations_text(built, OUT) is None
    assert called_text(built, records, OUT, "GetTask", "jsonrpc", "1.0", ok=True) is None
    assert behaviour_text(built, OUT, "pages-followed", "not exercised") is None


def test_a_violation_is_shown_with_its_section_its_exchange_cut_short_and_the_report(tmp_path: Path) -> None:
    long_text = "x" * 400
    built, _ = recorded(tmp_path, (rpc("GetTask", {"id": "t-1", "note": long_text}), 200),
                        (b'{"jsonrpc": ', 400))
    text = violations_text(built, OUT)
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == ("the client broke 2 rule(s) and 0 behaviour(s); report: /reports/of/this/test/"
                        "client-report.html (client-report.json beside it)")
    assert lines[1].startswith("- schema [A2A §5.7; a2a.proto (1.0), the 0.3 JSON Schema and the 0.3 proto] at "
                               "note: the parameters: `note` is not a field")
    assert lines[2] == "    POST /a2a GetTask (JSON-RPC 1.0) -> 200"
    assert lines[3].startswith('    body: {"jsonrpc":"2.0","id":1,"method":"GetTask"') and lines[3].endswith(" …")
    assert len(lines[3]) == len("    body: ") + EXCERPT_CHARS + len(" …")
    assert lines[4].startswith("- json-body [A2A §9.1, §14.1.1]: the body is not JSON")
    assert lines[6] == "    body: 12 bytes, not JSON"  # what is not JSON cannot be masked: only its size is kept


def test_an_operation_never_called_lists_what_was(tmp_path: Path) -> None:
    built, records = recorded(tmp_path, (rpc("GetTask", {"id": "t-1"}), 200))
    assert called_text(built, records, OUT, "GetTask", "rest", None, ok=False) == (
        "the client never called GetTask over HTTP+JSON; report: /reports/of/this/test/client-report.html "
        "(client-report.json beside it)\nwhat it called: GetTask JSON-RPC 1.0 1/1")
    with pytest.raises(ValueError, match="'grpc' is not a binding: one of jsonrpc, rest"):
        called_text(built, records, OUT, "GetTask", "grpc", None, ok=True)


def test_a_behaviour_not_as_asserted_says_what_it_is_and_why(tmp_path: Path) -> None:
    message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "one"}]}
    built, _ = recorded(tmp_path, (rpc("SendMessage", {"message": message}), 200),
                        (rpc("SendMessage", {"message": {**message, "parts": [{"text": "two"}]}}), 200))
    text = behaviour_text(built, OUT, "message-id-fresh", "held")
    assert text is not None
    assert text.startswith("message-id-fresh is broken, not held (2 seen); report: ")
    assert "\n- message-id-fresh broken [a2a.proto Message.message_id; A2A §3.3.1]: messageId 'm-1' was already" in text
    assert text.count("    POST /a2a SendMessage -> 200") == 2  # the first use of the id, and its reuse
    with pytest.raises(ValueError, match="'done' is not a behaviour's status: one of held, broken, pending"):
        behaviour_text(built, OUT, "message-id-fresh", "done")


def test_an_operation_answered_with_errors_only_shows_each_error(tmp_path: Path) -> None:
    error = json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "Task t-9 was not found"}})
    built, records = recorded(tmp_path, (rpc("GetTask", {"id": "t-9"}), 200, error.encode()))
    text = called_text(built, records, OUT, "GetTask", None, None, ok=True)
    assert text is not None and text.splitlines()[1:] == [
        "    POST /a2a GetTask (JSON-RPC 1.0) -> 200, error -32001: Task t-9 was not found",
        '    body: {"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t-9"}}']
    assert called_text(built, records, OUT, "GetTask", None, None, ok=False) is None
