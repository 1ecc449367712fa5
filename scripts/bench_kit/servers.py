"""The servers under test: start one on 127.0.0.1 and a free port, wait for its card, read its RSS, stop it by PID."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench_kit import load

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
JS = HERE / "js"
CARD = "/.well-known/agent-card.json"
V1 = {"A2A-Version": "1.0"}
KEYS = {"bench": "k_bench", "other": "k_other"}


@dataclass
class Server:
    """A running server: its process, port, JSON-RPC path, the headers every A2A call needs."""

    name: str
    process: subprocess.Popen[bytes]
    port: int
    rpc_path: str
    headers: dict[str, str]
    log: Path
    lag_report: Path | None = None
    notes: list[str] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((load.HOST, 0))
        return int(sock.getsockname()[1])


def rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def pinned(argv: list[str], cpu: int | None) -> list[str]:
    """argv run on this CPU only: a shim sets the affinity, then execs argv (same PID, inherited by its threads)."""
    if cpu is None:
        return argv
    shim = "import os, sys; os.sched_setaffinity(0, {int(sys.argv[1])}); os.execv(sys.argv[2], sys.argv[2:])"
    return [sys.executable, "-c", shim, str(cpu), *argv]


async def start(name: str, argv: list[str], port: int, rpc_path: str, headers: dict[str, str], log: Path,
                cpu: int | None, env: dict[str, str] | None = None, lag_report: Path | None = None,
                card: str = CARD, cwd: Path = ROOT) -> Server | None:
    """Start a server process (in cwd) and wait (at most 60 s) until it serves its public card at the path `card`;
    None when it does not."""
    os.sync()  # files written before (generated tasks, an earlier server's) reach the disk now, not as write-back
    #            competing with the CPU and the fsyncs of the server measured next
    with log.open("wb") as out:
        process = subprocess.Popen(pinned(argv, cpu), cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    server = Server(name, process, port, rpc_path, headers, log, lag_report)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            status, _, _ = await load.call(port, "GET", card, {})
            if status == 200:
                return server
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError):
            pass
        await asyncio.sleep(0.1)
    stop(server)
    tail = log.read_text(errors="replace").strip().splitlines()[-15:]
    print(f"  {name} did not start (exit {process.returncode}); its log ends with:\n    " + "\n    ".join(tail))
    return None


def stop(server: Server) -> None:
    """SIGTERM, then SIGKILL after 10 s; only this server's own PID."""
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(10)


def task_document(i: int, start: datetime) -> dict[str, Any]:
    """Task file number i, in the shape our server writes after a one-message exchange (new ids and timestamps)."""
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    stamp = (start + timedelta(seconds=i)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {"id": task_id, "contextId": context_id, "status": {"state": "TASK_STATE_COMPLETED", "timestamp": stamp},
            "artifacts": [{"artifactId": "response", "name": "response", "parts": [{"text": "hello"}]}],
            "history": [{"messageId": f"m-{i}", "contextId": context_id, "taskId": task_id, "role": "ROLE_USER",
                         "parts": [{"text": "hello"}]}],
            "caller": "bench" if i % 2 == 0 else "other", "pushConfigs": []}


def prepare_workspace(workspace: Path, task_files: int) -> None:
    """callers.json with "bench" and "other", and `task_files` completed tasks, half of them each caller's."""
    a2a = workspace / ".volcanic" / "a2a"
    (a2a / "tasks").mkdir(parents=True)
    (a2a / "callers.json").write_text(json.dumps([{"name": name, "key": key} for name, key in KEYS.items()]))
    start = datetime.now(UTC) - timedelta(seconds=task_files + 60)
    for i in range(task_files):
        task = task_document(i, start)
        (a2a / "tasks" / f"{task['id']}.json").write_text(json.dumps(task, indent=2))


def same_shape(workspace: Path, task_id: str) -> str | None:
    """None when the file the server wrote for task_id has the generated files' keys, else what differs."""
    try:
        written = json.loads((workspace / ".volcanic" / "a2a" / "tasks" / f"{task_id}.json").read_text())
    except (OSError, ValueError) as error:
        return f"cannot read the task file the server wrote ({error})"
    ours = task_document(0, datetime.now(UTC))
    if set(written) != set(ours) or set(written.get("status") or {}) != set(ours["status"]):
        return f"the server writes task files with keys {sorted(written)}, the bench generated {sorted(ours)}"
    return None


async def start_ours(tmp: Path, task_files: int, cpu: int | None, *, probed: bool, flags: tuple[str, ...] = ()
                     ) -> Server | None:
    """Our server on a workspace holding task_files task files; probed: with the loop-lag probe and the
    callback timer (their cost stays out of the throughput figures, which come from an unprobed run)."""
    workspace = tmp / "workspace"
    prepare_workspace(workspace, task_files)
    port, report = free_port(), tmp / "lag.json"
    env = {name: value for name, value in os.environ.items()  # no A2A__ settings: the scripted echo, no real model
           if not name.replace(":", "__").lower().startswith("a2a__")}
    argv = [sys.executable, str(HERE / "serve_ours.py"), "--workspace", str(workspace), "--host", load.HOST,
            "--port", str(port), *(["--lag-report", str(report)] if probed else []), *flags]
    return await start("ours", argv, port, "/a2a", {**V1, "X-API-Key": KEYS["bench"]}, tmp / "ours.log", cpu,
                       env, report if probed else None)


async def start_sdk(tmp: Path, cpu: int | None) -> Server | None:
    port = free_port()
    argv = [sys.executable, str(HERE / "sdk_echo.py"), "--port", str(port)]
    return await start("a2a-sdk", argv, port, "/", dict(V1), tmp / "sdk.log", cpu)


def npm_ready() -> str | None:
    """None when node_modules is there (installing it with `npm ci` on first use), else why the JS peer is skipped."""
    if shutil.which("node") is None:
        return "node is not installed"
    if (JS / "node_modules" / "@a2a-js" / "sdk").is_dir():
        return None
    if shutil.which("npm") is None:
        return "npm is not installed"
    print("  installing the JS peer (npm ci in scripts/bench_kit/js, once) ...")
    try:
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=JS, capture_output=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "npm ci did not finish in 10 minutes"
    if done.returncode != 0:
        return "npm ci failed: " + done.stderr.decode(errors="replace").strip()[-300:]
    return None


def js_env() -> dict[str, str]:
    """A JS peer's environment, as deployed: NODE_ENV=production (Express shows no stack trace in an error page)."""
    return {**os.environ, "NODE_ENV": "production"}


async def start_js(tmp: Path, cpu: int | None) -> Server | None:
    port = free_port()
    argv = [shutil.which("node") or "node", str(JS / "echo.mjs"), str(port)]
    return await start("js", argv, port, "/a2a/jsonrpc", dict(V1), tmp / "js.log", cpu, js_env())
