"""bindings/requestlog.py: one line per exchange, as documented in docs/configuration.md, never a secret."""

from __future__ import annotations

import json
import logging
import re
import secrets
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.live import LiveServer, settings_for

from reference_server.bindings import requestlog
from reference_server.model.caller import Workspace

ROOT = Path(__file__).resolve().parents[1]
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
SECRET_TEXT = "the text of a message, never logged"
PUSH_TOKEN = "tok-never-logged"
LOGGER = "reference_server.requests"


def documented(kind: str) -> list[str]:
    """The lines of the docs/configuration.md block marked `<!-- request log: kind -->`, each without indent."""
    found = re.search(rf"<!-- request log: {kind} -->\n\s*```text\n(.*?)\n\s*```", CONFIGURATION, re.S)
    assert found, f"docs/configuration.md has no request log block for {kind}"
    return [line.strip() for line in found.group(1).splitlines()]


def masked_text(line: str) -> str:
    """A text line without its time prefix and with its duration named."""
    message = line.split(f"{LOGGER}: ", 1)[-1]
    return re.sub(r"in \d+\.\d ms", "in <ms> ms", message)


def masked_json(line: str) -> dict[str, Any]:
    record = json.loads(line)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record.pop("time"))
    assert isinstance(record.pop("ms"), int | float)
    return record  # type: ignore[no-any-return]


class Desk:
    def __init__(self, server: LiveServer, key: str) -> None:
        self.server, self.key = server, key

    def exchanges(self) -> None:
        """One of each kind of line of the documentation, plus the secrets that must never show."""
        v1 = {"X-API-Key": self.key, "A2A-Version": "1.0"}
        message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": SECRET_TEXT}]}
        with httpx.Client(base_url=self.server.url, timeout=30) as http:
            http.get("/.well-known/agent-card.json")
            sent = http.post("/a2a", headers=v1, json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                                                       "params": {"message": message}}).json()
            task_id = sent["result"]["task"]["id"]
            http.post("/a2a", headers=v1, json={"jsonrpc": "2.0", "id": 2, "method": "GetTask",
                                                "params": {"id": str(uuid.uuid4())}})
            http.post("/a2a/v1/message:stream", headers=v1,
                      json={"message": {**message, "messageId": str(uuid.uuid4())}})
            http.get(f"/a2a/v1/tasks/{task_id}", headers={"X-API-Key": "k_not-a-key", "A2A-Version": "1.0"})
            http.get("/a2a/v1/tasks", headers={"A2A-Version": "1.0"})
            http.get("/a2a/v1/tasks", headers={**v1, "Authorization": "Bearer k_another"})
            http.get(f"/a2a/v1/tasks/{task_id}?key={self.key}", headers={**v1, "A2A-Version": "2.0"})
            http.post(f"/a2a/v1/tasks/{task_id}/pushNotificationConfigs", headers=v1,
                      json={"url": "https://example.com/hook", "token": PUSH_TOKEN})


@pytest.fixture(scope="module")
def workspace() -> Iterator[tuple[Workspace, str]]:
    root = Path(tempfile.mkdtemp(prefix="a2a-requestlog-"))
    key = "k_" + secrets.token_hex(16)
    workspace = Workspace(root, owner_id="owner-1", scope_prefix="requestlog")
    workspace.callers_file.parent.mkdir(parents=True)
    workspace.callers_file.write_text(json.dumps([{"name": "travel-bot", "key": key}]))
    yield workspace, key
    shutil.rmtree(root, ignore_errors=True)


def desk(workspace: tuple[Workspace, str], mode: str) -> Iterator[Desk]:
    server = LiveServer(settings_for(request_log=mode)).start()
    server.workspaces.add(workspace[0])
    try:
        yield Desk(server, workspace[1])
    finally:
        server.stop()


@pytest.fixture(params=["text", "json", "off"])
def served(request: pytest.FixtureRequest, workspace: tuple[Workspace, str]) -> Iterator[tuple[str, Desk]]:
    for one in desk(workspace, request.param):
        yield request.param, one


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == LOGGER]


def test_each_exchange_is_one_line_as_documented_and_never_a_secret(
        served: tuple[str, Desk], caplog: pytest.LogCaptureFixture) -> None:
    mode, one = served
    caplog.set_level(logging.INFO, logger=LOGGER)
    one.exchanges()
    one.server.stop()  # every answer has left, every stream has ended
    written = lines(caplog)
    if mode == "off":
        assert written == []
        return
    assert len(written) == 9
    if mode == "text":
        seen = [masked_text(line) for line in written]
        for line in documented("text"):
            assert masked_text(line) in seen, line
        reasons = [line.rsplit("(", 1)[-1] for line in seen if "status=401" in line]
        assert reasons == ["unknown key)", "no key)", "conflicting credentials)"]
    else:
        records = [masked_json(line) for line in written]
        for line in documented("json"):
            assert masked_json(line) in records, line
    for line in written:
        for secret in (one.key, "k_not-a-key", "k_another", SECRET_TEXT, PUSH_TOKEN, "example.com", "key="):
            assert secret not in line


def test_an_ambiguous_key_is_named_as_such(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    key = "k_" + secrets.token_hex(16)
    server = LiveServer(settings_for(request_log="text")).start()
    for owner in ("owner-1", "owner-2"):
        workspace = Workspace(tmp_path / owner, owner_id=owner, scope_prefix=owner)
        workspace.callers_file.parent.mkdir(parents=True)
        workspace.callers_file.write_text(json.dumps([{"name": "travel-bot", "key": key}]))
        server.workspaces.add(workspace)
    caplog.set_level(logging.INFO, logger=LOGGER)
    try:
        status = httpx.get(f"{server.url}/a2a/v1/tasks", headers={"X-API-Key": key, "A2A-Version": "1.0"}).status_code
    finally:
        server.stop()
    assert status == 401
    [line] = lines(caplog)
    assert masked_text(line) == "rest - - caller=(no key) status=401 in <ms> ms error=Unauthenticated (ambiguous key)"
    assert key not in line


def test_a_stream_is_written_once_it_ends(workspace: tuple[Workspace, str], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    for one in desk(workspace, "text"):
        message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "sleep 1"}]}
        headers = {"X-API-Key": one.key, "A2A-Version": "1.0"}
        with httpx.Client(base_url=one.server.url, timeout=30) as http, http.stream(
                "POST", "/a2a/v1/message:stream", headers=headers, json={"message": message}) as stream:
            chunks = stream.iter_bytes()
            assert b"TASK_STATE_SUBMITTED" in next(chunks)
            assert lines(caplog) == []  # the stream is open: its exchange has not ended
            rest = b"".join(chunks)
        assert b"TASK_STATE_COMPLETED" in rest
        one.server.stop()
    [line] = lines(caplog)
    assert masked_text(line) == ("rest 1.0 SendStreamingMessage owner=owner-1 caller=travel-bot status=200 "
                                 "in <ms> ms")


def test_json_lines_are_written_bare() -> None:
    log = logging.getLogger(LOGGER)
    before = (list(log.handlers), log.propagate, log.level)
    try:
        requestlog.configure("json")
        [handler] = [h for h in log.handlers if h not in before[0]]
        assert handler.format(logging.makeLogRecord({"msg": '{"status":200}', "levelname": "INFO"})) == \
            '{"status":200}'
        assert log.propagate is False and log.isEnabledFor(logging.INFO)
    finally:
        log.handlers[:] = before[0]
        log.propagate, log.level = before[1], before[2]
