"""`reference-server report DIR`: the coverage matrix, the conventions and the violations of recorded exchanges."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from reference_server.cli import main
from reference_server.clientcheck import report
from reference_server.clientcheck.checks import CHECKS, CONVENTIONS
from reference_server.clientcheck.exchange import OPERATIONS, Exchange
from reference_server.clientcheck.recorder import Recorder

MESSAGE = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}
# a 0.3 message with 1.0 parts (no kind), and text that must reach the page escaped
V03_WITHOUT_KINDS = {"kind": "message", "messageId": "m-2", "role": "user",
                     "parts": [{"text": "<script>alert(1)</script>"}]}
TASK = {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}


def exchange(method: str, path: str, body: Any = None, answer: Any = None, *, status: int = 200,
             version: str = "1.0", query: str = "", stream: bytes | None = None) -> Exchange:
    response_type = "text/event-stream" if stream is not None else "application/json"
    return Exchange(time=1_780_000_000.0, method=method, path=path, query=query,
                    headers=(("content-type", "application/json"), ("a2a-version", version)),
                    body=b"" if body is None else json.dumps(body).encode(), caller="desk/c", status=status,
                    response_headers=(("content-type", response_type),),
                    response_body=stream if stream is not None else json.dumps(answer or {}).encode())


def rpc(method: str, params: Any, request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


@pytest.fixture
def records(tmp_path: Path) -> Path:
    folder = tmp_path / "records"
    recorder = Recorder(folder)
    for recorded in (
        exchange("GET", "/.well-known/agent-card.json"),
        exchange("POST", "/a2a", rpc("SendMessage", {"message": MESSAGE}), {"jsonrpc": "2.0", "id": 1,
                                                                            "result": {"task": TASK}}),
        exchange("POST", "/a2a", rpc("GetTask", {"id": "t-1", "historyLength": 1}, 2),
                 {"jsonrpc": "2.0", "id": 2, "error": {"code": -32001, "message": "Task not found"}}),
        exchange("GET", "/a2a/v1/tasks", query="pageSize=1&pageToken=abc", answer={"tasks": []}),
        exchange("POST", "/a2a/v1/tasks/t-1:subscribe", stream=b'data: {"task":{}}\n\nevent: error\ndata: {}\n\n'),
        exchange("POST", "/a2a", rpc("message/send", {"message": V03_WITHOUT_KINDS}, 3),
                 {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602}}, version="0.3"),
    ):
        recorder.submit(recorded)
    recorder.close()
    return folder


def cell(built: dict[str, Any], operation: str, binding: str, version: str) -> dict[str, Any]:
    return next(c for c in built["coverage"]["cells"]
                if (c["operation"], c["binding"], c["version"]) == (operation, binding, version))


def test_the_coverage_matrix_counts_requests_and_answers_without_error(records: Path) -> None:
    built = report.build(records)
    assert built["coverage"]["operations"] == list(OPERATIONS)
    assert [c["title"] for c in built["coverage"]["columns"]] == ["JSON-RPC 1.0", "HTTP+JSON 1.0", "JSON-RPC 0.3",
                                                                  "HTTP+JSON 0.3"]
    assert cell(built, "SendMessage", "jsonrpc", "1.0") == {
        "operation": "SendMessage", "binding": "jsonrpc", "version": "1.0", "applicable": True, "requests": 1,
        "ok": 1}
    assert (cell(built, "GetTask", "jsonrpc", "1.0")["requests"], cell(built, "GetTask", "jsonrpc", "1.0")["ok"]) \
        == (1, 0)  # a JSON-RPC error is not ok
    assert cell(built, "SubscribeToTask", "rest", "1.0")["ok"] == 0  # nor an error event in a stream
    assert cell(built, "ListTasks", "rest", "1.0")["ok"] == 1
    assert cell(built, "SendMessage", "jsonrpc", "0.3")["requests"] == 1
    assert not cell(built, "ListTasks", "jsonrpc", "0.3")["applicable"]
    summary = built["summary"]
    assert (summary["exchanges"], summary["cardFetches"], summary["callers"]) == (5, 1, ["desk/c"])
    assert (summary["cellsExercised"], summary["cellsApplicable"]) == (5, 42)


def test_a_refused_request_counts_in_the_cell_of_the_operation_it_named(tmp_path: Path) -> None:
    """A 1.0 method or route sent without A2A-Version is read as 0.3 and refused: it is still the client's try at
    that operation, sent and not answered, beside its violation; a request that names no operation is counted too."""
    recorder = Recorder(tmp_path)
    refused = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}
    for recorded in (
        exchange("POST", "/a2a", rpc("SendMessage", {"message": MESSAGE}), refused, version=""),
        exchange("GET", "/a2a/v1/tasks", status=400, answer={"error": {"code": 400}}, version=""),
        exchange("POST", "/a2a", rpc("message/send", {"message": V03_WITHOUT_KINDS}), refused),  # 0.3's, sent as 1.0
        exchange("POST", "/a2a/v1/messages", {"message": MESSAGE}, status=404),
    ):
        recorder.submit(recorded)
    recorder.close()
    built = report.build(tmp_path)
    assert [v["check"] for v in built["violations"]] == ["version-header", "version-header", "method-version",
                                                         "method-unknown"]
    assert {(c["operation"], c["binding"], c["version"]): (c["ok"], c["requests"])
            for c in built["coverage"]["cells"] if c["requests"]} == {
        ("SendMessage", "jsonrpc", "1.0"): (0, 1), ("ListTasks", "rest", "1.0"): (0, 1),
        ("SendMessage", "jsonrpc", "0.3"): (0, 1)}
    assert built["coverage"]["noOperation"] == 1 and built["summary"]["exchanges"] == 4
    text = report.summary_text(built)
    assert re.search(r"^SendMessage\s+0/1\s+-\s+0/1\s+-$", text, re.MULTILINE), text
    assert "(1 request(s) named no A2A operation: see the violations)" in text
    assert "1 request(s) named no A2A operation" in report.render(built)


def test_the_conventions_used_and_not_used(records: Path) -> None:
    conventions = {c["id"]: c for c in report.build(records)["conventions"]}
    assert [c.id for c in CONVENTIONS] == list(conventions)
    assert {name for name, c in conventions.items() if c["used"]} == {"historyLength", "cursorPaging", "subscribe"}
    assert conventions["historyLength"]["first"] == "desk--c.jsonl:3"


def test_every_violation_comes_with_its_section_and_exchange(records: Path) -> None:
    built = report.build(records)
    assert [(v["check"], v["where"], v["path"]) for v in built["violations"]] == [
        ("field-other-version", "desk--c.jsonl:6", "message.parts[0]")]
    found = built["violations"][0]
    assert found["section"] == CHECKS["field-other-version"].section
    assert found["exchange"]["request"]["body"]["method"] == "message/send"
    assert found["exchange"]["response"]["body"]["error"] == {"code": -32602}
    assert {c["id"]: c["violations"] for c in built["checks"]}["field-other-version"] == 1


def test_the_summary_prints_the_matrix_the_conventions_and_the_violations(records: Path) -> None:
    text = report.summary_text(report.build(records))
    assert "5 A2A requests from desk/c; 1 violation(s); 0 behaviour(s) broken; 5 of 42" in text
    assert re.search(r"^SendMessage\s+1/1\s+-\s+0/1\s+-$", text, re.MULTILINE), text
    assert re.search(r"^ListTasks\s+-\s+1/1\s+n/a\s+n/a$", text, re.MULTILINE), text
    assert "[x] cursorPaging" in text and "[ ] pushConfig" in text
    assert "field-other-version [A2A App. A.2] desk--c.jsonl:6 message/send JSON-RPC 0.3 at message.parts[0]" in text


def test_the_page_is_self_contained_and_escapes_what_clients_sent(records: Path) -> None:
    built = report.build(records)
    page = report.render(built)
    assert "<script" not in page and "&lt;script&gt;" in page
    assert not re.search(r"""(src|href)=["']?https?:""", page)  # nothing is loaded from elsewhere
    for name in [*OPERATIONS, *CHECKS, *(c.id for c in CONVENTIONS)]:
        assert f">{name}<" in page
    assert "field-other-version</span>" in page and "desk--c.jsonl:6" in page


def test_the_command_writes_both_files_and_prints_the_summary(records: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(records), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "Client check: 5 A2A requests" in printed and str(tmp_path / "out" / "client-report.html") in printed
    written = json.loads((tmp_path / "out" / "client-report.json").read_text())
    assert written["summary"]["violations"] == 1
    assert (tmp_path / "out" / "client-report.html").read_text().startswith("<!doctype html>")
    assert main(["report", str(records)]) == 0  # default: into the records folder
    assert (records / report.JSON_NAME).is_file() and (records / report.HTML_NAME).is_file()


def test_the_command_refuses_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_unreadable_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "x--y.jsonl").write_text('not json\n[1]\n{"binding": "jsonrpc", "version": "1.0", '
                                         '"operation": "GetTask", "response": {"status": 200}}\n')
    built = report.build(tmp_path)
    assert built["summary"]["unreadableLines"] == 2
    assert cell(built, "GetTask", "jsonrpc", "1.0") == {"operation": "GetTask", "binding": "jsonrpc",
                                                             "version": "1.0", "applicable": True, "requests": 1,
                                                             "ok": 1}
