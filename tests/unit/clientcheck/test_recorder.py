"""The recorder: one JSONL file per caller, credentials masked, SSE answers as events, nothing when it is off."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
from blacksheep import Application
from support.live import LiveServer, settings_for

from reference_server.clientcheck.exchange import Exchange
from reference_server.clientcheck.recorder import (
    Recorder,
    RecordingApplication,
    file_name,
    sse_events,
)
from reference_server.model.caller import Workspace
from reference_server.process.app import create_app
from reference_server.settings import Settings

KEY = "k_secret_key_1234"
PUSH = {"taskId": "t-1", "url": "https://hooks.example.com/n", "token": "tok-secret",
        "authentication": {"scheme": "Bearer", "credentials": "cred-secret"}}


def exchange(body: Any, response: Any = None, *, caller: str | None = "desk/c", path: str = "/a2a",
             headers: dict[str, str] | None = None, response_type: str = "application/json",
             raw_response: bytes | None = None) -> Exchange:
    sent = {"content-type": "application/json", "a2a-version": "1.0", "x-api-key": KEY,
            "authorization": f"Bearer {KEY}", "x-a2a-notification-token": "tok-header", "cookie": "c=1",
            **(headers or {})}
    answer = raw_response if raw_response is not None else json.dumps(response or {}).encode()
    return Exchange(time=1_780_000_000.25, method="POST", path=path, query="", headers=tuple(sent.items()),
                    body=json.dumps(body).encode(), caller=caller, status=200,
                    response_headers=(("content-type", response_type),), response_body=answer)


def test_a_line_holds_the_exchange_and_its_checks(tmp_path: Path) -> None:
    body = {"jsonrpc": "2.0", "id": 1.5, "method": "GetTask", "params": {"id": "t-1"}}
    line = json.loads(Recorder(tmp_path).line(exchange(body, {"jsonrpc": "2.0", "id": None, "error": {}})))
    assert line["time"] == "2026-05-28T20:26:40.250Z"
    assert (line["caller"], line["binding"], line["version"], line["operation"], line["method"]) == (
        "desk/c", "jsonrpc", "1.0", "GetTask", "GetTask")
    assert line["request"]["body"] == body
    assert line["response"] == {"status": 200, "contentType": "application/json",
                                "body": {"jsonrpc": "2.0", "id": None, "error": {}}}
    assert [v["check"] for v in line["checks"]["violations"]] == ["jsonrpc-id"]
    assert line["checks"]["violations"][0]["section"].startswith("A2A §9.1")


def test_credentials_are_masked_in_headers_request_and_response(tmp_path: Path) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "CreateTaskPushNotificationConfig", "params": PUSH}
    text = Recorder(tmp_path).line(exchange(body, {"jsonrpc": "2.0", "id": 1, "result": {**PUSH, "id": "p1"}}))
    for secret in (KEY, "tok-secret", "cred-secret", "tok-header"):
        assert secret not in text
    line = json.loads(text)
    assert line["request"]["headers"] == {"content-type": "application/json", "a2a-version": "1.0",
                                          "x-api-key": "***", "authorization": "Bearer ***",
                                          "x-a2a-notification-token": "***"}  # and no cookie: not kept
    assert line["request"]["body"]["params"]["token"] == "***"
    assert line["request"]["body"]["params"]["authentication"] == {"scheme": "Bearer", "credentials": "***"}
    assert line["response"]["body"]["result"]["token"] == "***"
    assert line["checks"]["violations"] == []  # the checks saw the real values


def test_sse_answers_are_recorded_as_events() -> None:
    body = (b'data: {"result":{"task":{"id":"t"}}}\r\n\r\n: keep-alive\n\n'
            b'event: error\ndata: {"error":{"code":-32603}}\n\ndata: not json\n\n')
    assert sse_events(body) == [{"data": {"result": {"task": {"id": "t"}}}},
                                {"data": {"error": {"code": -32603}}, "event": "error"},
                                {"dataBytes": 8}]


def test_a_stream_is_recorded_masked_and_a_body_that_is_not_json_by_its_size(tmp_path: Path) -> None:
    stream = exchange({"message": {}}, path="/a2a/v1/message:stream", response_type="text/event-stream",
                      raw_response=b'data: {"task":{"id":"t","token":"x"}}\n\n')
    assert json.loads(Recorder(tmp_path).line(stream))["response"]["events"] == [
        {"data": {"task": {"id": "t", "token": "***"}}}]
    broken = Exchange(time=0, method="POST", path="/a2a", query="", headers=(), body=b"{not json", caller=None,
                      status=400, response_headers=(("content-type", "text/plain"),), response_body=b"oops")
    line = json.loads(Recorder(tmp_path).line(broken))
    # what is not JSON cannot be searched for a secret: its size stays, its text does not
    assert line["request"]["bodyBytes"] == 9 and "body" not in line["request"]
    assert line["response"] == {"status": 400, "contentType": "text/plain", "bodyBytes": 4}


def test_a_query_keeps_the_operations_parameters_and_masks_every_other_value(tmp_path: Path) -> None:
    listing = Exchange(time=0, method="GET", path="/a2a/v1/tasks", caller="desk/c", body=b"",
                       query="pageSize=5&A2A-Version=1.0&key=k_in_the_query&api_key=k2&historyLength=1",
                       headers=(("a2a-version", "1.0"),), status=200)
    assert json.loads(Recorder(tmp_path).line(listing))["request"]["query"] == (
        "pageSize=5&A2A-Version=1.0&key=***&api_key=***&historyLength=1")
    rpc = Exchange(time=0, method="POST", path="/a2a", caller=None, query="token=tok&A2A-Version=1.0",
                   headers=(), body=b'{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}')
    assert json.loads(Recorder(tmp_path).line(rpc))["request"]["query"] == "token=***&A2A-Version=1.0"


def test_one_file_per_caller_and_one_for_the_unauthenticated(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path)
    body = {"jsonrpc": "2.0", "id": "r", "method": "GetTask", "params": {"id": "t-1"}}
    for caller in ("desk/alice", "desk/bob", "desk/alice", None):
        recorder.submit(exchange(body, caller=caller))
    recorder.close()
    lines = {path.name: path.read_text().splitlines() for path in tmp_path.iterdir()}
    assert {name: len(found) for name, found in lines.items()} == {
        "desk--alice.jsonl": 2, "desk--bob.jsonl": 1, "_unauthenticated.jsonl": 1}
    assert json.loads(lines["_unauthenticated.jsonl"][0])["caller"] is None


def test_an_exchange_is_recorded_before_its_answer_ends(tmp_path: Path) -> None:
    """A client can ask for its report (a flush) as soon as it has its last answer: that answer's exchange was
    handed to the recorder before the answer's last bytes were."""
    app = create_app(Settings(record=tmp_path), lambda: [])
    on_disk_at_the_end: list[int] = []

    async def call() -> None:
        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                app.recorder.flush()
                on_disk_at_the_end.append(len((tmp_path / "_unauthenticated.jsonl").read_text().splitlines()))

        await app.start()
        scope = {"type": "http", "method": "GET", "path": "/a2a/v1/tasks", "raw_path": b"/a2a/v1/tasks",
                 "query_string": b"", "headers": [(b"host", b"localhost")], "scheme": "http",
                 "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "http_version": "1.1", "root_path": ""}
        await app(scope, receive, send)
        await app.stop()

    asyncio.run(call())
    app.recorder.close()
    assert on_disk_at_the_end == [1]


def test_the_message_ids_are_remembered_per_caller(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path)

    def send(text: str, caller: str) -> list[str]:
        message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
        return [v["check"] for v in json.loads(recorder.line(exchange(body, caller=caller)))["checks"]["violations"]]

    assert send("one", "desk/alice") == []
    assert send("one", "desk/bob") == []
    assert send("two", "desk/alice") == ["message-id-unique"]


def test_file_names_are_safe() -> None:
    assert file_name("owner/client") == "owner--client.jsonl"
    assert file_name("o w/../x") == "o_w--.._x.jsonl"
    assert file_name(None) == "_unauthenticated.jsonl"


def test_without_record_the_app_is_not_wrapped(tmp_path: Path) -> None:
    plain = create_app(Settings(), lambda: [])
    recording = create_app(Settings(record=tmp_path / "records"), lambda: [])
    assert type(plain) is Application
    assert isinstance(recording, RecordingApplication)
    assert recording.recorder.folder == tmp_path / "records"


def test_an_exchange_that_ends_after_the_recorder_closed_is_dropped_quietly(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path)
    body = {"jsonrpc": "2.0", "id": "r", "method": "GetTask", "params": {"id": "t-1"}}
    recorder.submit(lambda: exchange(body))  # the app hands over a function: the bodies are joined off the loop
    recorder.close()
    recorder.submit(exchange(body))
    assert len((tmp_path / "desk--c.jsonl").read_text().splitlines()) == 1


def test_no_credential_reaches_the_record_files(tmp_path: Path) -> None:
    """Issue 16: every place a credential travels (header, bearer, query, push token, push authentication), in
    every kind of body (JSON-RPC, HTTP+JSON, not JSON at all), on a live recording server."""
    key = "k_live_secret_0001"
    workspace = Workspace(tmp_path / "ws")
    workspace.callers_file.parent.mkdir(parents=True)
    workspace.callers_file.write_text(json.dumps([{"name": "rec-bot", "key": key}]))
    records = tmp_path / "records"
    live = LiveServer(settings_for(record=records))
    live.workspaces.add(workspace)
    live.start()
    secrets = [key, "tok-live-secret", "cred-live-secret", "k_query_secret"]
    config = {"url": "https://hooks.example.com/n", "token": "tok-live-secret",
              "authentication": {"scheme": "Bearer", "credentials": "cred-live-secret"}}
    try:
        with httpx.Client(base_url=live.url, timeout=10, headers={"A2A-Version": "1.0"}) as client:
            sent = client.post("/a2a", headers={"X-API-Key": key}, json={
                "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "ask: Why?"}]}}})
            task_id = sent.json()["result"]["task"]["id"]
            for headers, query in [({"X-API-Key": key}, ""), ({"Authorization": f"Bearer {key}"}, ""),
                                   ({}, f"?key={key}&api_key=k_query_secret")]:
                client.post("/a2a" + query, headers=headers, json={
                    "jsonrpc": "2.0", "id": 2, "method": "CreateTaskPushNotificationConfig",
                    "params": {"taskId": task_id, **config}})
                client.post(f"/a2a/v1/tasks/{task_id}/pushNotificationConfigs" + query, headers=headers,
                            json={"taskId": task_id, **config})
                client.get(f"/a2a/v1/tasks/{task_id}/pushNotificationConfigs" + query, headers=headers)
                # not JSON: the same secrets in a body that cannot be parsed, so cannot be masked field by field
                broken = json.dumps({"taskId": task_id, **config})[:-1] + ",,"
                client.post("/a2a" + query, headers={**headers, "Content-Type": "application/json"},
                            content=broken)
                client.post(f"/a2a/v1/tasks/{task_id}/pushNotificationConfigs" + query,
                            headers={**headers, "Content-Type": "application/json"}, content=broken)
    finally:
        live.stop()
    written = "\n".join(path.read_text() for path in sorted(records.iterdir()))
    assert written.count("\n") >= 16, written[:500]  # every exchange is there
    assert "CreateTaskPushNotificationConfig" in written and '"bodyBytes"' in written
    for secret in secrets:
        assert secret not in written, secret
