"""The composition root: the provider the settings ask for, the first-request sweep, the push receiver's on_push."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.live import LiveServer, settings_for

from reference_server.agent.openai_compat import OpenAICompatibleProvider
from reference_server.agent.scripted import ScriptedProvider
from reference_server.model.caller import Workspace
from reference_server.process.app import default_provider_for
from reference_server.settings import Settings
from reference_server.workspace.inbox import DOWNLOAD_PREFIX, DOWNLOAD_SUFFIX, inbox_of


def test_the_scripted_provider_is_the_default(tmp_path: Path) -> None:
    assert isinstance(default_provider_for(Settings())(tmp_path), ScriptedProvider)


def test_a_provider_base_url_selects_the_openai_compatible_provider(tmp_path: Path) -> None:
    settings = Settings(provider_base_url="http://127.0.0.1:9", provider_model="m", provider_api_key="sk-secret")
    provider = default_provider_for(settings)(tmp_path)
    assert isinstance(provider, OpenAICompatibleProvider)
    assert "sk-secret" not in repr(provider) and "sk-secret" not in repr(settings)


def test_a_workspaces_first_request_removes_the_leftovers_of_interrupted_writes(tmp_path: Path) -> None:
    """Nothing of a workspace is read at start (a host of many owners starts at once); its first request removes
    the temp files a kill -9 left between write and rename, and the unfinished downloads, before it is served."""
    workspace = Workspace(tmp_path / "ws")
    tasks = workspace.tasks_dir
    tasks.mkdir(parents=True)
    task_id = "3f1c9a52-8d7e-4b6a-9c0d-1e2f3a4b5c6d"
    (tasks / f"{task_id}.json").write_text("{}")
    (tasks / f".{task_id}.abc123.tmp").write_text('{"half": ')
    (tasks / "notes.tmp").write_text("not ours")
    inbox = inbox_of(workspace)
    inbox.mkdir()
    (inbox / f"{DOWNLOAD_PREFIX}0a1b{DOWNLOAD_SUFFIX}").write_bytes(b"half a file")
    workspace.callers_file.write_text(json.dumps([{"name": "travel-bot", "key": "k_travel-bot-key"}]))
    leftovers = sorted(p.name for p in [*tasks.iterdir(), *inbox.iterdir()])
    server = LiveServer(settings_for())
    server.workspaces.add(workspace)
    server.start()
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            assert sorted(p.name for p in [*tasks.iterdir(), *inbox.iterdir()]) == leftovers  # nothing read yet
            answer = client.get("/a2a/v1/extendedAgentCard",
                                headers={"X-API-Key": "k_travel-bot-key", "A2A-Version": "1.0"})
            assert answer.status_code == 200
        assert sorted(p.name for p in [*tasks.iterdir(), *inbox.iterdir()]) == sorted(["notes.tmp", f"{task_id}.json"])
    finally:
        server.stop()


class RecordingOnPush:
    """An on_push that records its calls and answers as told (raises when told to)."""

    def __init__(self, answer: bool | Exception) -> None:
        self.answer = answer
        self.calls: list[tuple[str, str | None, Any]] = []

    async def __call__(self, watch_id: str, token: str | None, body: Any) -> bool:
        self.calls.append((watch_id, token, body))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@contextmanager
def serving(on_push: RecordingOnPush | None) -> Iterator[httpx.Client]:
    server = LiveServer(settings_for(), on_push_for=lambda _: on_push).start()
    try:
        with httpx.Client(base_url=server.url + server.push_prefix, timeout=10) as client:
            yield client
    finally:
        server.stop()


def test_on_push_gets_the_watch_the_token_header_and_the_parsed_body() -> None:
    on_push = RecordingOnPush(True)
    with serving(on_push) as client:
        assert client.post("/w-1", json={"task": {"id": "t1"}},
                           headers={"X-A2A-Notification-Token": "t1"}).status_code == 204
        assert client.post("/w-1", json=[1, 2.5, None]).status_code == 204  # no token, no caller key needed
        assert client.post("/w-1", json={}, headers={"X-A2A-Notification-Token": ""}).status_code == 204
    assert on_push.calls == [("w-1", "t1", {"task": {"id": "t1"}}), ("w-1", None, [1, 2.5, None]), ("w-1", None, {})]


def test_a_refused_push_and_a_token_sent_twice_are_not_found() -> None:
    on_push = RecordingOnPush(False)
    with serving(on_push) as client:
        refused = client.post("/w-1", json={})
        twice = client.post("/w-1", json={}, headers=[("X-A2A-Notification-Token", "a"),
                                                      ("X-A2A-Notification-Token", "b")])
    assert refused.status_code == twice.status_code == 404
    not_found = {"error": {"code": 404, "status": "NOT_FOUND", "message": "Watch not found"}}
    assert refused.json() == twice.json() == not_found
    assert len(on_push.calls) == 1  # the token sent twice never reached on_push


def test_without_on_push_every_push_is_not_found() -> None:
    with serving(None) as client:
        answer = client.post("/w-1", json={}, headers={"X-A2A-Notification-Token": "t1"})
    assert answer.status_code == 404 and answer.json()["error"]["message"] == "Watch not found"


def test_an_on_push_that_fails_is_an_internal_error_and_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    with serving(RecordingOnPush(OSError("disk full"))) as client:
        answer = client.post("/w-1", json={}, headers={"X-A2A-Notification-Token": "t_secret"})
    assert answer.status_code == 500 and answer.json()["error"]["message"] == "Internal error"
    assert "disk full" not in answer.text
    assert "on_push failed for watch w-1" in caplog.text and "t_secret" not in caplog.text


def test_a_session_that_cannot_be_opened_fails_its_task_after_the_first_event(tmp_path: Path) -> None:
    """The session opens after a stream's first event (the back lane): a failure there fails the task, as any
    unexpected failure of a run does, and the context is free again."""
    workspace = Workspace(tmp_path / "ws")
    workspace.callers_file.parent.mkdir(parents=True)
    workspace.callers_file.write_text('[{"name": "bot", "key": "k_session-test"}]')

    def no_provider(_: Path) -> ScriptedProvider:
        raise RuntimeError("no provider for this workspace")

    server = LiveServer(settings_for(), provider_for=no_provider)
    server.workspaces.add(workspace)
    server.start()
    try:
        headers = {"X-API-Key": "k_session-test", "A2A-Version": "1.0"}

        def send(method: str, text: str) -> httpx.Response:
            return httpx.post(f"{server.url}/a2a", headers=headers, timeout=10, json={
                "jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": {
                    "messageId": text, "role": "ROLE_USER", "parts": [{"text": text}], "contextId": "ctx-1"}}})

        streamed = [line for line in send("SendStreamingMessage", "one").text.splitlines() if line.startswith("data:")]
        states = [json.loads(line[5:])["result"] for line in streamed]
        assert states[0]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
        assert states[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_FAILED"
        answer = send("SendMessage", "two").json()["result"]["task"]  # the same context: it was freed
        assert answer["status"]["state"] == "TASK_STATE_FAILED"
        assert answer["status"]["message"]["parts"] == [{"text": "The run failed unexpectedly."}]
    finally:
        server.stop()
