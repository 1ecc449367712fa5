"""clientcheck/behaviours.py, proven both ways: a small client of ours that behaves holds every behaviour, one that
does not breaks every one, each finding naming its exchanges; against a live recording server, with the faults the
clients ask for themselves."""

from __future__ import annotations

import json
import secrets
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.live import LiveServer, settings_for

from reference_server.clientcheck import report
from reference_server.clientcheck.behaviours import BEHAVIOURS, RECOVERY_SECONDS, RUN_ENDED, _tasks_in
from reference_server.clientcheck.recorder import RecordingApplication
from reference_server.model.caller import Workspace

CALLERS = ("good", "bad")


@dataclass
class Bench:
    server: LiveServer
    records: Path
    keys: dict[str, str]

    def report_of(self, caller: str) -> dict[str, Any]:
        app = self.server.app
        assert isinstance(app, RecordingApplication)
        app.recorder.flush()
        folder = Path(tempfile.mkdtemp(prefix="a2a-behaviours-"))
        shutil.copy(self.records / f"desk--{caller}.jsonl", folder)
        return report.build(folder, now=RUN_ENDED)  # the client's run is over: it will send nothing more


@pytest.fixture(scope="module")
def bench() -> Iterator[Bench]:
    root = Path(tempfile.mkdtemp(prefix="a2a-behaviours-"))
    workspace = Workspace(root / "desk", owner_id="desk", scope_prefix="behaviours")
    keys = {name: "k_" + secrets.token_hex(16) for name in CALLERS}
    workspace.a2a_dir.mkdir(parents=True)
    workspace.callers_file.write_text(json.dumps([{"name": n, "key": k} for n, k in keys.items()]))
    server = LiveServer(settings_for(record=root / "records")).start()
    server.workspaces.add(workspace)
    try:
        yield Bench(server, root / "records", keys)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


class Client:
    """A small A2A 1.0 client over HTTP+JSON, and JSON-RPC for GetTask, that does only what it is told."""

    def __init__(self, url: str, key: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=30,
                                 headers={"X-API-Key": key, "A2A-Version": "1.0"})

    @staticmethod
    def message(text: str, **fields: Any) -> dict[str, Any]:
        return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}], **fields}

    def send(self, message: dict[str, Any]) -> httpx.Response:
        return self.http.post("/a2a/v1/message:send", json={"message": message})

    def task(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = self.send(message)
        assert answer.status_code == 200, answer.text
        return answer.json()["task"]  # type: ignore[no-any-return]

    def stream(self, path: str, body: dict[str, Any] | None = None) -> tuple[list[dict[str, Any]], bool]:
        """The events of a stream, and whether it broke before its end."""
        found: list[dict[str, Any]] = []
        try:
            with self.http.stream("POST", path, json=body or {}) as answer:
                for line in answer.iter_lines():
                    if line.startswith("data: "):
                        found.append(json.loads(line[6:]))
        except httpx.RemoteProtocolError:
            return found, True
        return found, False

    def get(self, task_id: str) -> dict[str, Any]:
        answer = self.http.post("/a2a", json={"jsonrpc": "2.0", "id": 1, "method": "GetTask",
                                              "params": {"id": task_id}})
        return answer.json()["result"]  # type: ignore[no-any-return]

    def pages(self, follow: bool) -> int:
        token, seen = None, 0
        while True:
            answer = self.http.get("/a2a/v1/tasks", params={"pageSize": 1, **({"pageToken": token} if token else {})})
            seen += 1
            token = answer.json()["nextPageToken"]
            if not token or not follow:
                return seen


def run_good(client: Client) -> None:
    events, broke = client.stream("/a2a/v1/message:stream", {"message": client.message("cut after 2 events")})
    assert broke and len(events) == 2
    task_id = events[0]["task"]["id"]
    rest, broke = client.stream(f"/a2a/v1/tasks/{task_id}:subscribe")  # back for the task at once
    assert not broke and rest[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"

    refused = client.message("refuse 429, retry after 1")
    first = client.send(refused)
    assert first.status_code == 429
    time.sleep(int(first.headers["retry-after"]))  # what Retry-After asks of a client: the behaviour under test
    assert client.send(refused).status_code == 200

    asked = client.task(client.message("ask: Which city?"))
    assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    answered = client.task(client.message("Lyon", taskId=asked["id"], contextId=asked["contextId"]))
    assert answered["id"] == asked["id"] and answered["status"]["state"] == "TASK_STATE_COMPLETED"

    assert client.get(answered["id"])["status"]["state"] == "TASK_STATE_COMPLETED"  # once, then no more
    assert client.pages(follow=True) >= 3


def run_bad(client: Client) -> None:
    _events, broke = client.stream("/a2a/v1/message:stream", {"message": client.message("cut after 2 events")})
    assert broke  # and never comes back for the task

    refused = client.message("refuse 503, retry after 1")
    assert client.send(refused).status_code == 503
    assert client.send(refused).status_code == 200  # at once

    asked = client.task(client.message("ask: Which city?"))
    follow_up = client.task(client.message("Lyon", contextId=asked["contextId"]))  # no taskId: another task
    assert follow_up["id"] != asked["id"]

    for _ in range(3):
        client.get(follow_up["id"])  # terminal from the first, and polled twice more

    assert client.pages(follow=False) == 1

    reused = client.message("hello")
    client.task(reused)
    client.task({**reused, "parts": [{"text": "another message, the same id"}]})


def statuses(built: dict[str, Any]) -> dict[str, str]:
    return {b["id"]: b["status"] for b in built["behaviours"]}


def test_a_client_that_behaves_holds_every_behaviour(bench: Bench) -> None:
    client = Client(bench.server.url, bench.keys["good"])
    with client.http:
        run_good(client)
    built = bench.report_of("good")
    assert statuses(built) == dict.fromkeys(BEHAVIOURS, "held"), report.summary_text(built)
    assert not report.failed(built)


def test_a_client_that_does_not_breaks_every_behaviour_and_names_the_exchanges(bench: Bench) -> None:
    client = Client(bench.server.url, bench.keys["bad"])
    with client.http:
        run_bad(client)
    built = bench.report_of("bad")
    assert statuses(built) == dict.fromkeys(BEHAVIOURS, "broken"), report.summary_text(built)
    assert report.failed(built) and built["summary"]["behavioursBroken"] == len(BEHAVIOURS)
    findings = {b["id"]: b["findings"] for b in built["behaviours"]}
    assert "did not come back for the task" in findings["stream-recovered"][0]["message"]
    assert "refused with 503 and Retry-After: 1, and retried after 0." in findings["retry-after-honoured"][0][
        "message"]
    assert "carried no taskId, so it started another task" in findings["input-required-continued"][0]["message"]
    assert "got it 2 more time(s)" in findings["no-polling-after-terminal"][0]["message"]
    assert "stopped with nextPageToken" in findings["pages-followed"][0]["message"]
    assert "was already used by this caller" in findings["message-id-fresh"][0]["message"]
    for behaviour in findings.values():
        for found in behaviour:
            assert found["where"] and all(w.startswith("desk--bad.jsonl:") for w in found["where"])
            assert len(found["exchanges"]) == len(found["where"]) and found["exchanges"][0]["request"]
    text = report.summary_text(built)
    assert "broken        retry-after-honoured" in text
    page = report.render(built)
    assert page.count('<td class="countN">broken</td>') == len(BEHAVIOURS)


def test_a_run_without_those_moments_exercises_nothing(tmp_path: Path) -> None:
    built = report.build(tmp_path)
    assert statuses(built) == dict.fromkeys(BEHAVIOURS, "not exercised")
    assert not report.failed(built)


CUT_AT = 1_780_000_000.0  # 2026-05-28T20:26:40Z, when the cut stream was asked for


def record(at: float, operation: str, path: str, body: Any, response: dict[str, Any], **extra: Any) -> str:
    """One record line as the recorder writes it, for an A2A 1.0 HTTP+JSON call by desk/c."""
    time_text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at)) + f".{round(at % 1 * 1000):03d}Z"
    return json.dumps({"time": time_text, "caller": "desk/c", "binding": "rest", "version": "1.0",
                       "operation": operation, "method": f"POST {path}",
                       "request": {"method": "POST", "path": path, "headers": {}, "body": body},
                       "response": {"status": 200, **response}, **extra,
                       "checks": {"violations": [], "uses": [], "schemaChecked": True}})


def cut_stream(folder: Path, *later: str) -> Path:
    """A stream cut after 2 events, its task still working, and what the client sent after it."""
    task = {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}
    working = {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}}
    cut = record(CUT_AT, "SendStreamingMessage", "/a2a/v1/message:stream",
                 {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "cut after 2 events"}]}},
                 {"contentType": "text/event-stream", "events": [{"data": {"task": task}},
                                                                 {"data": {"statusUpdate": working}}]},
                 fault={"cutAfter": 2})
    folder.mkdir(exist_ok=True)
    (folder / "desk--c.jsonl").write_text("\n".join([cut, *later]) + "\n")
    return folder


def test_a_cut_stream_is_pending_while_its_window_is_open_and_broken_once_it_has_passed(tmp_path: Path) -> None:
    folder = cut_stream(tmp_path)
    early = report.build(folder, now=CUT_AT + 5)
    assert statuses(early)["stream-recovered"] == "pending", report.summary_text(early)
    assert (early["summary"]["behavioursBroken"], early["summary"]["behavioursPending"]) == (0, 1)
    assert not report.failed(early)
    [waiting] = next(b for b in early["behaviours"] if b["id"] == "stream-recovered")["waiting"]
    assert waiting["where"] == ["desk--c.jsonl:1"] and "5.0 s ago" in waiting["message"]
    assert "behaviour(s) broken (1 pending)" in report.summary_text(early)
    assert '<span class="pending">stream-recovered pending</span>' in report.render(early)
    for late in (CUT_AT + RECOVERY_SECONDS + 0.5, RUN_ENDED):  # the window has passed, or the run is over
        built = report.build(folder, now=late)
        assert statuses(built)["stream-recovered"] == "broken" and report.failed(built)


def test_a_cut_stream_the_client_came_back_for_in_time_holds_whenever_the_report_is_made(tmp_path: Path) -> None:
    back = record(CUT_AT + 3, "SubscribeToTask", "/a2a/v1/tasks/t-1:subscribe", None,
                  {"contentType": "text/event-stream", "events": []})
    folder = cut_stream(tmp_path, back)
    for now in (CUT_AT + 5, RUN_ENDED):
        assert statuses(report.build(folder, now=now))["stream-recovered"] == "held"


@pytest.mark.parametrize(("answer", "expected"), [
    ({"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_INPUT_REQUIRED"},
               "history": [{"taskId": "t", "status": {"state": "x"}}]}}, [("t", "c", "input-required")]),
    ({"jsonrpc": "2.0", "result": {"statusUpdate": {"taskId": "t", "contextId": "c",
                                                    "status": {"state": "TASK_STATE_WORKING"}}}},
     [("t", "c", "working")]),
    ({"jsonrpc": "2.0", "result": {"kind": "status-update", "taskId": "t", "contextId": "c",
                                   "status": {"state": "completed"}, "final": True}}, [("t", "c", "completed")]),
    ({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_CANCELLED"}, "final": True}},
     [("t", None, "canceled")]),  # the 0.3 proto's spelling
    ({"tasks": [{"id": "a", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}},
                {"id": "b", "contextId": "c", "status": {"state": "TASK_STATE_FAILED"}}], "nextPageToken": ""},
     [("a", "c", "completed"), ("b", "c", "failed")]),
    ({"message": {"messageId": "m", "contextId": "c"}}, []),
])
def test_the_tasks_an_answer_shows_in_every_version(answer: Any, expected: list[Any]) -> None:
    assert list(_tasks_in(answer)) == expected
