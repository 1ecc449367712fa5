"""The client check proven with real clients: the official SDKs give a clean report, broken requests are named.

A recording server (A2A__Record) serves the official a2a-sdk 1.3 Python client on both 1.0 bindings and both 0.3
ones, and @a2a-js/sdk 1.3 (scripts/bench_kit/js, pinned by its lock file) through `reference-server client-check`, the
script behind `make client-check`. Their runs give zero violations and a coverage matrix showing what they did.
Deliberately broken requests are each reported with the check that names the mistake, and the server answers
them exactly as a server that does not record.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.types import (
    CancelTaskRequest,
    GetExtendedAgentCardRequest,
    GetTaskRequest,
    ListTasksRequest,
    SubscribeToTaskRequest,
)
from support.live import LiveServer, settings_for

from interop.test_python_sdk import (
    ECHO_TEXT,
    Agent,
    Wire,
    push_config_round_trip,
    run,
    sdk_client,
    send,
    send_for_task,
    v03_client,
)
from interop.test_python_sdk_v03_rest import v03_rest_client
from reference_server.clientcheck import report
from reference_server.clientcheck.exchange import OPERATIONS
from reference_server.clientcheck.recorder import RecordingApplication
from reference_server.model.caller import Workspace

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
JS_KIT = ROOT / "scripts" / "bench_kit" / "js"
CALLERS = ("sdk-client", "broken-client")


@dataclass
class Recording:
    server: LiveServer
    records: Path
    keys: dict[str, str]

    def agent(self, caller: str) -> Agent:
        return Agent(self.server.url, self.keys[caller])

    def report_of(self, caller: str) -> dict[str, Any]:
        """The report of one caller's records (the server's recorder flushed first)."""
        app = self.server.app
        assert isinstance(app, RecordingApplication)
        app.recorder.flush()
        folder = Path(tempfile.mkdtemp(prefix="a2a-report-"))
        shutil.copy(self.records / f"desk--{caller}.jsonl", folder)
        return report.build(folder)

    def records_of(self, caller: str) -> list[dict[str, Any]]:
        app = self.server.app
        assert isinstance(app, RecordingApplication)
        app.recorder.flush()
        return [json.loads(line) for line in (self.records / f"desk--{caller}.jsonl").read_text().splitlines()]


def serve(workspace: Workspace, **settings: Any) -> LiveServer:
    server = LiveServer(settings_for(**settings)).start()
    server.workspaces.add(workspace)
    return server


@pytest.fixture(scope="module")
def desk() -> Iterator[tuple[Workspace, dict[str, str]]]:
    root = Path(tempfile.mkdtemp(prefix="a2a-client-check-"))
    workspace = Workspace(root / "desk", owner_id="desk", scope_prefix="client-check")
    keys = {name: "k_" + secrets.token_hex(16) for name in CALLERS}
    workspace.a2a_dir.mkdir(parents=True)
    workspace.callers_file.write_text(json.dumps([{"name": n, "key": k, "mode": "isolated"} for n, k in keys.items()]))
    try:
        yield workspace, keys
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def recording(desk: tuple[Workspace, dict[str, str]]) -> Iterator[Recording]:
    workspace, keys = desk
    records = Path(tempfile.mkdtemp(prefix="a2a-records-"))
    server = serve(workspace, record=records)
    try:
        yield Recording(server, records, keys)
    finally:
        server.stop()
        shutil.rmtree(records, ignore_errors=True)


@pytest.fixture(scope="module")
def plain(desk: tuple[Workspace, dict[str, str]]) -> Iterator[Agent]:
    """The same workspace on a server that does not record: the answers to compare with."""
    workspace, keys = desk
    server = serve(workspace)
    try:
        yield Agent(server.url, keys["broken-client"])
    finally:
        server.stop()


# --- the official Python client: a clean run on every binding and version


async def every_operation(agent: Agent, binding: str) -> None:
    """Each A2A 1.0 operation at least once, with the conventions: history, non-blocking, paging, subscribe, push."""
    wire = Wire()
    async with sdk_client(agent, binding, wire, streaming=False) as client:
        done = await send_for_task(client, ECHO_TEXT)
        await client.get_task(GetTaskRequest(id=done.id, history_length=1))
        page = await client.list_tasks(ListTasksRequest(page_size=1))
        await client.list_tasks(ListTasksRequest(page_size=1, page_token=page.next_page_token))
        long = await send_for_task(client, "sleep 30", return_immediately=True)
        await client.cancel_task(CancelTaskRequest(id=long.id))
        asked = await send_for_task(client, "ask: Which city?")
        await push_config_round_trip(client, asked.id)
        await client.get_extended_agent_card(GetExtendedAgentCardRequest())
        short = await send_for_task(client, "sleep 2", return_immediately=True)
    async with sdk_client(agent, binding, wire) as client:
        [event async for event in client.subscribe(SubscribeToTaskRequest(id=short.id))]
        await send(client, ECHO_TEXT)


async def every_v03_operation(agent: Agent, binding: str) -> None:
    """The same through the SDK's 0.3 transports (0.3 has no ListTasks)."""
    wire = Wire()
    open_client = v03_client if binding == "JSONRPC" else v03_rest_client
    async with open_client(agent, wire) as client:
        done = await send_for_task(client, ECHO_TEXT)
        await client.get_task(GetTaskRequest(id=done.id, history_length=1))
        long = await send_for_task(client, "sleep 30", return_immediately=True)
        await client.cancel_task(CancelTaskRequest(id=long.id))
        if binding == "JSONRPC":  # REAL-CLIENTS §7.10: the 0.3 REST push routes are tested in their own module
            asked = await send_for_task(client, "ask: Which city?")
            await push_config_round_trip(client, asked.id)
        await client.get_extended_agent_card(GetExtendedAgentCardRequest())
        short = await send_for_task(client, "sleep 2", return_immediately=True)
    async with open_client(agent, wire, streaming=True) as client:
        [event async for event in client.subscribe(SubscribeToTaskRequest(id=short.id))]
        await send(client, ECHO_TEXT)


def cells(built: dict[str, Any]) -> dict[tuple[str, str, str], int]:
    return {(c["operation"], c["binding"], c["version"]): c["requests"] for c in built["coverage"]["cells"]}


def test_the_python_sdk_gives_a_clean_report_covering_what_it_did(recording: Recording) -> None:
    agent = recording.agent("sdk-client")
    for binding in ("JSONRPC", "HTTP+JSON"):
        run(lambda binding=binding: every_operation(agent, binding))  # type: ignore[misc]
        run(lambda binding=binding: every_v03_operation(agent, binding))  # type: ignore[misc]
    built = recording.report_of("sdk-client")
    assert built["violations"] == [], report.summary_text(built)
    exercised = cells(built)
    for operation in OPERATIONS:
        assert exercised[(operation, "jsonrpc", "1.0")] and exercised[(operation, "rest", "1.0")], operation
        if operation != "ListTasks":
            assert exercised[(operation, "jsonrpc", "0.3")], operation
    assert exercised[("SendMessage", "rest", "0.3")] and exercised[("SubscribeToTask", "rest", "0.3")]
    assert [c["id"] for c in built["conventions"] if not c["used"]] == []
    # every 1.0 request and every 0.3 send was checked against its schema too
    checked = [(r["version"], r["operation"], r["checks"]["schemaChecked"]) for r in recording.records_of("sdk-client")]
    assert all(ran for version, operation, ran in checked if version == "1.0" or operation == "SendMessage"), checked
    # and the records hold no credentials: the key and the push token are masked
    text = (recording.records / "desk--sdk-client.jsonl").read_text()
    assert '"x-api-key":"***"' in text
    assert recording.keys["sdk-client"] not in text
    assert "tok-interop" not in text  # the push token of push_config_round_trip


# --- deliberately broken requests, each named by its check


V1 = {"A2A-Version": "1.0"}
MESSAGE = {"role": "ROLE_USER", "parts": [{"text": ECHO_TEXT}]}


def message(**fields: Any) -> dict[str, Any]:
    return {"messageId": str(uuid.uuid4()), **MESSAGE, **fields}


def jsonrpc(method: str, params: Any, request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


Request = Callable[[httpx.Client], httpx.Response]
REPEATED_ID = str(uuid.uuid4())
UNKNOWN_TASK = str(uuid.uuid4())

BROKEN: dict[str, tuple[list[Request], str]] = {
    "0.3 field names with A2A-Version 1.0": ([lambda c: c.post("/a2a", headers=V1, json=jsonrpc("SendMessage", {
        "message": message(kind="message", parts=[{"kind": "text", "text": ECHO_TEXT}]),
        "configuration": {"blocking": True}}))], "field-other-version"),
    "a numeric enum": ([lambda c: c.post("/a2a/v1/message:send", headers=V1, json={"message": message(role=1)})],
                       "enum-spelling"),
    "a numeric status filter": ([lambda c: c.get("/a2a/v1/tasks", headers=V1, params={"status": "3"})],
                                "enum-spelling"),
    "a float JSON-RPC id": ([lambda c: c.post("/a2a", headers=V1, json=jsonrpc("SendMessage", {
        "message": message()}, 2.5))], "jsonrpc-id"),
    "a repeated messageId": ([
        lambda c: c.post("/a2a", headers=V1, json=jsonrpc("SendMessage", {"message": message(messageId=REPEATED_ID)})),
        lambda c: c.post("/a2a", headers=V1, json=jsonrpc("SendMessage", {"message": message(
            messageId=REPEATED_ID, parts=[{"text": "another message"}])}))], "message-id-unique"),
    "no A2A-Version on HTTP+JSON": ([lambda c: c.post("/a2a/v1/message:send", json={"message": message()})],
                                    "version-header"),
    "a 0.3 method with A2A-Version 1.0": ([lambda c: c.post("/a2a", headers=V1, json=jsonrpc("message/send", {
        "message": message(kind="message", role="user", parts=[{"kind": "text", "text": "hi"}])}))],
        "method-version"),
    "JSON-RPC sent as text/plain": ([lambda c: c.post(
        "/a2a", headers={**V1, "Content-Type": "text/plain"},
        content=json.dumps(jsonrpc("GetTask", {"id": UNKNOWN_TASK})))], "content-type"),
}


def outcome(response: httpx.Response) -> tuple[int, Any]:
    """What must not change: the status, and the error when the answer is one (ids and times differ per task)."""
    body = response.json() if response.headers.get("content-type", "").endswith("json") else response.text
    error = body.get("error") if isinstance(body, dict) else body
    return response.status_code, error


@pytest.mark.parametrize("name", BROKEN)
def test_each_broken_request_is_reported_and_answered_as_usual(recording: Recording, plain: Agent,
                                                               name: str) -> None:
    requests, expected = BROKEN[name]
    agent = recording.agent("broken-client")
    with httpx.Client(base_url=agent.url, headers={"X-API-Key": agent.key}, timeout=10) as recorded, \
            httpx.Client(base_url=plain.url, headers={"X-API-Key": plain.key}, timeout=10) as unrecorded:
        for send_one in requests:
            assert outcome(send_one(recorded)) == outcome(send_one(unrecorded))
    record = recording.records_of("broken-client")[-1]
    assert expected in [v["check"] for v in record["checks"]["violations"]], record["checks"]


# --- `reference-server client-check` (make client-check): the JS SDK, and its exit codes


def client_check(command: str, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reference_server", "client-check", command, "--out", str(out),
                           "--timeout", "120"], capture_output=True, text=True, timeout=240, cwd=ROOT)


def js_sdk_installed() -> bool:
    """The pinned @a2a-js/sdk (package-lock.json), installed with `npm ci` when it is missing."""
    if shutil.which("node") is None:
        return False
    if not (JS_KIT / "node_modules" / "@a2a-js" / "sdk").is_dir():
        if shutil.which("npm") is None:
            return False
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=JS_KIT, capture_output=True, timeout=300)
        return done.returncode == 0
    return True


def test_the_js_sdk_gives_a_clean_report(tmp_path: Path) -> None:
    if not js_sdk_installed():
        pytest.skip("node, or npm to install the pinned @a2a-js/sdk into scripts/bench_kit/js, is not available")
    done = client_check("node scripts/bench_kit/js/client_check.mjs", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Violations: none" in done.stdout
    built = json.loads((tmp_path / report.JSON_NAME).read_text())
    assert built["summary"]["violations"] == 0
    exercised = cells(built)
    for operation in OPERATIONS:
        assert exercised[(operation, "jsonrpc", "1.0")] and exercised[(operation, "rest", "1.0")], operation
        if operation != "ListTasks":
            assert exercised[(operation, "jsonrpc", "0.3")], operation
    assert (tmp_path / report.HTML_NAME).is_file()


PY_CLIENT = """
import httpx, os, uuid
c = httpx.Client(base_url=os.environ["A2A_URL"], headers={"X-API-Key": os.environ["A2A_KEY"], "A2A-Version": "1.0"})
message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "hello"}]}
assert c.post("/a2a/v1/message:send", json={"message": message}).status_code == 200
"""


@pytest.mark.parametrize(("client", "code", "printed"), [
    (PY_CLIENT, 0, r"Violations: none"),
    (PY_CLIENT.replace('"role": "ROLE_USER"', '"role": 1'), 1, r"Violations \(1\):\n  enum-spelling \[A2A §5\.5\]"),
    (PY_CLIENT + "\nraise SystemExit(5)\n", 2, r"the command failed \(exit code 5\)"),
    (PY_CLIENT.replace('"hello"', '"refuse 429, retry after 5"').replace("== 200", "== 429")
     + 'assert c.post("/a2a/v1/message:send", json={"message": message}).status_code == 200\n', 1,
     r"0 violation\(s\); 1 behaviour\(s\) broken.*\n(.*\n)*  broken +retry-after-honoured"),
], ids=["clean", "violations", "command-failed", "behaviour-broken"])
def test_client_check_exit_codes(tmp_path: Path, client: str, code: int, printed: str) -> None:
    script = tmp_path / "client.py"
    script.write_text(client)
    done = client_check(f"{sys.executable} {script}", tmp_path / "out")
    assert done.returncode == code, done.stdout + done.stderr
    assert re.search(printed, done.stdout + done.stderr), done.stdout + done.stderr
    assert "SendMessage                       0/0" not in done.stdout
    assert re.search(r"^SendMessage\s+-\s+1/[12]", done.stdout, re.MULTILINE), done.stdout
