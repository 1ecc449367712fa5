"""The server process really stopped and started again (design: "Lazy restart recovery", "Files").

`python -m reference_server` runs as a subprocess on 127.0.0.1 and a free port, over a temp workspace. Every
process started here is killed by its PID when the test ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from reference_server.conformance.support.client import A2AClient
from reference_server.conformance.support.schemas import assert_valid

ROOT = Path(__file__).resolve().parents[1]
KEY = "k_" + "5" * 32
CALLER = "travel-bot"
START_SECONDS = 20.0
TEMP_FILE = re.compile(r"^\.[0-9a-f-]{36}\..+\.tmp$")  # task_store.py: mkstemp(prefix=".<id>.", suffix=".tmp")


@dataclass
class ServerProcess:
    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def log_tail(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-3000:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    callers = folder / ".volcanic" / "a2a" / "callers.json"
    callers.parent.mkdir(parents=True)
    callers.write_text(json.dumps([{"name": CALLER, "key": KEY, "mode": "isolated"}]), encoding="utf-8")
    return folder


@pytest.fixture
def start_server(workspace: Path, tmp_path: Path) -> Iterator[Callable[[], ServerProcess]]:
    """Starts `python -m reference_server` on the workspace; every process is killed by its PID at the end."""
    started: list[ServerProcess] = []
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("A2A__")}  # settings by flags only

    def start() -> ServerProcess:
        port = free_port()
        log = tmp_path / f"server-{len(started) + 1}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "reference_server", "--workspace", str(workspace), "--port", str(port),
                 "--host", "127.0.0.1"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            )
        server = ServerProcess(process, f"http://127.0.0.1:{port}", log)
        started.append(server)
        wait_until_serving(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            if server.process.poll() is None:
                os.kill(server.process.pid, signal.SIGKILL)
            server.process.wait(timeout=10)


def wait_until_serving(server: ServerProcess) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise AssertionError(f"the server exited with {server.process.returncode}:\n{server.log_tail()}")
        try:
            if httpx.get(server.url + "/.well-known/agent-card.json", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"the server did not answer within {START_SECONDS:.0f}s:\n{server.log_tail()}")


def stop(server: ServerProcess, sig: signal.Signals) -> None:
    os.kill(server.process.pid, sig)
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the server ignored {sig.name}:\n{server.log_tail()}") from None


def client(server: ServerProcess, http: httpx.Client) -> A2AClient:
    http.base_url = httpx.URL(server.url)
    return A2AClient(http, binding="jsonrpc", version="1.0", key=KEY)


def send(a2a: A2AClient, text: str, *, task_id: str | None = None, context_id: str | None = None,
         wait: bool = True) -> dict[str, Any]:
    message: dict[str, Any] = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    if task_id:
        message["taskId"] = task_id
    if context_id:
        message["contextId"] = context_id
    reply = a2a.call("SendMessage", {"message": message, "configuration": {"returnImmediately": not wait}})
    assert reply.error is None, reply.error
    return reply.body["task"]  # type: ignore[no-any-return]


def get(a2a: A2AClient, task_id: str) -> dict[str, Any]:
    reply = a2a.call("GetTask", {"id": task_id})
    assert reply.error is None, reply.error
    return reply.body  # type: ignore[no-any-return]


def status_text(task: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in task["status"]["message"]["parts"])


def read_file(workspace: Path, task_id: str) -> dict[str, Any]:
    path = workspace / ".volcanic" / "a2a" / "tasks" / f"{task_id}.json"
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_input_required_survives_a_restart_and_a_working_run_reads_as_failed(
    workspace: Path, start_server: Callable[[], ServerProcess], sig: signal.Signals
) -> None:
    first = start_server()
    with httpx.Client(timeout=30) as http:
        a2a = client(first, http)
        asked = send(a2a, "ask: Which dates suit you?")
        assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        sleeping = send(a2a, "sleep 30", wait=False)
        assert sleeping["status"]["state"] == "TASK_STATE_WORKING"

        stop(first, sig)
        assert read_file(workspace, sleeping["id"])["status"]["state"] == "TASK_STATE_WORKING"

        second = start_server()
        # design: no scan at startup, the file is only rewritten when it is read
        assert read_file(workspace, sleeping["id"])["status"]["state"] == "TASK_STATE_WORKING"
        a2a = client(second, http)

        recovered = get(a2a, sleeping["id"])
        assert recovered["status"]["state"] == "TASK_STATE_FAILED"
        assert status_text(recovered) == "server restarted"
        on_disk = read_file(workspace, sleeping["id"])
        assert on_disk["status"]["state"] == "TASK_STATE_FAILED" and status_text(on_disk) == "server restarted"

        still_asking = get(a2a, asked["id"])
        assert still_asking["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        assert status_text(still_asking) == "Which dates suit you?"
        answered = send(a2a, "May 3 to May 9", task_id=asked["id"], context_id=asked["contextId"])
        assert answered["id"] == asked["id"]
        assert answered["status"]["state"] == "TASK_STATE_COMPLETED", answered["status"]
        response = next(a for a in answered["artifacts"] if a["artifactId"] == "response")
        assert response["parts"] == [{"text": "May 3 to May 9"}]

    # the session resumed from its JSONL: one conversation holds the question and the answer
    session = workspace / ".volcanic" / "sessions" / f"reference-a2a-{CALLER}_{asked['contextId']}.jsonl"
    records = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    prompts = [r["content"] for r in records if r["role"] == "user"]
    assert [p.rsplit("\n\n", 1)[-1] for p in prompts] == ["ask: Which dates suit you?", "May 3 to May 9"]


def test_a_kill_during_a_burst_of_sends_leaves_only_whole_task_files(
    workspace: Path, start_server: Callable[[], ServerProcess]
) -> None:
    server = start_server()
    tasks_dir = workspace / ".volcanic" / "a2a" / "tasks"

    def one_send(n: int) -> None:
        # the server is killed under some of these requests
        with httpx.Client(timeout=30) as http, contextlib.suppress(httpx.TransportError):
            send(client(server, http), "think" if n % 2 else f"hello {n}")

    with ThreadPoolExecutor(max_workers=16) as pool:
        futures = [pool.submit(one_send, n) for n in range(40)]
        deadline = time.monotonic() + 20
        while len(list(tasks_dir.glob("*.json"))) < 10:  # kill while the burst is writing task files
            assert time.monotonic() < deadline, f"no burst of task files:\n{server.log_tail()}"
            time.sleep(0.005)
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=10)
        for future in futures:
            future.result(timeout=60)

    task_files = []
    for path in sorted(tasks_dir.iterdir()):
        if path.name.endswith(".json"):
            assert not path.name.startswith("."), f"{path.name}: a temp file looks like a task file"
            stored = json.loads(path.read_text(encoding="utf-8"))  # whole, never torn
            assert_valid(stored, "urn:reference-server:task-file")
            assert path.name == f"{stored['id']}.json" and stored["caller"] == CALLER
            task_files.append(stored["id"])
        else:
            assert TEMP_FILE.match(path.name), f"{path.name} is neither a task file nor a temp file"
    assert len(task_files) >= 10

    # after a restart every task is listed, and none of them is still running
    restarted = start_server()
    with httpx.Client(timeout=30) as http:
        reply = client(restarted, http).call("ListTasks", {"pageSize": 100})
    assert reply.error is None, reply.error
    listed = {task["id"]: task["status"]["state"] for task in reply.body["tasks"]}
    assert sorted(listed) == sorted(task_files)
    running = {"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"}
    assert not running & set(listed.values()), listed
