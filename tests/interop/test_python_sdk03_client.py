"""The a2a-sdk 0.3.x Python client, a 0.3-era client, against a live server over 0.3 JSON-RPC.

The project's environment has a2a-sdk 1.x, so the 0.3 client lives in a venv of its own: `.cache/sdk03-venv` at
the repository root (ignored by git), made by `sdk03_python()` on first use from the exact versions in
`tests/interop/sdk03/requirements.txt` (`pip install --no-deps`: the whole environment is pinned), and kept
while that file is unchanged (a stamp in the venv holds the file's hash). Making it takes some seconds on a
clean machine and needs the package index; when the index cannot be reached the tests skip and say so, and
any other install failure fails them.

This process starts the server (a LiveServer on loopback with the hybrid card, which is what 0.3 clients read
from /.well-known/agent-card.json); the venv's python runs `sdk03/drive.py` once against it, which builds the
client as a 0.3 user would (A2ACardResolver, ClientFactory, the key as a default header) and prints what the
SDK handed back in each scenario, or the exception it raised. The tests below read that report.

What it proves (issue 10): an error found before a stream's first event reaches the 0.3 client's user as the
SDK's A2AClientJSONRPCError with the A2A code, not as "Invalid SSE response" (docs/protocol.md, A6); and a
resubscribe to a task waiting for input follows it through the answer to completed (A2A §3.1.6).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from interop.desk import interop_desk

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
KIT = Path(__file__).parent / "sdk03"
REQUIREMENTS = KIT / "requirements.txt"
VENV = ROOT / ".cache" / "sdk03-venv"
STAMP = VENV / "requirements.sha256"  # the hash of the requirements the venv was made from, written last
# what pip prints when it cannot reach the package index (as opposed to a real install failure)
UNREACHABLE = re.compile(r"from versions: none|NewConnectionError|Failed to establish a new connection|"
                         r"Temporary failure in name resolution|Name or service not known|Network is unreachable|"
                         r"Max retries exceeded|ConnectTimeout|ProxyError")
DRIVE_SECONDS = 180  # the whole drive.py run; each of its scenarios has its own 20 s bound


def isolated_env() -> dict[str, str]:
    """This process's environment without what would mix the project's packages into the 0.3 venv."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def sdk03_python() -> Path:
    """The python of the 0.3 client's venv, made (or remade, when the requirements changed) if needed."""
    wanted = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    python = VENV / "bin" / "python"
    if python.exists() and STAMP.is_file() and STAMP.read_text() == wanted:
        return python
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True, env=isolated_env(),
                   timeout=300)
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--retries", "2", "--timeout", "30", "-r", str(REQUIREMENTS)],
        capture_output=True, text=True, env=isolated_env(), timeout=600,
    )
    output = installed.stdout + installed.stderr
    if installed.returncode != 0:
        shutil.rmtree(VENV, ignore_errors=True)
        if UNREACHABLE.search(output):
            pytest.skip(f"the package index is unreachable, so the a2a-sdk 0.3 client cannot be installed: "
                        f"{output.strip().splitlines()[-1]}")
        pytest.fail(f"installing {REQUIREMENTS.relative_to(ROOT)} failed:\n{output}")
    STAMP.write_text(wanted)
    return python


@pytest.fixture(scope="module")
def report() -> Iterator[dict[str, Any]]:
    """What the 0.3 client saw in each scenario of drive.py, against a server of this module."""
    python = sdk03_python()
    with interop_desk("sdk03-client", card=False, hybrid_card=True) as desk:
        ran = subprocess.run([str(python), str(KIT / "drive.py"), desk.url, desk.key], capture_output=True,
                             text=True, env=isolated_env(), timeout=DRIVE_SECONDS)
        assert ran.returncode == 0, f"drive.py failed:\n{ran.stdout}\n{ran.stderr}"
        found = json.loads(ran.stdout)
        assert found["card"] == {"url": desk.url + "/a2a", "transport": "JSONRPC"}, found["card"]
        yield found


def outcome(report: dict[str, Any], scenario: str) -> Any:
    entry = report[scenario]
    assert "result" in entry, f"{scenario} crashed in drive.py:\n{entry.get('crashed')}"
    return entry["result"]


def assert_sdk_error(found: Any, code: int, text: str) -> None:
    """The SDK raised its JSON-RPC error type with the A2A code: its user sees the A2A error itself."""
    assert isinstance(found, dict), f"the SDK raised nothing, it yielded {found}"
    assert "Invalid SSE response" not in found["text"], found["text"]
    assert found["raised"] == "a2a.client.errors.A2AClientJSONRPCError", found
    assert found["code"] == code and text in found["message"], found


def test_message_stream_yields_the_task_then_its_updates_to_completed(report: dict[str, Any]) -> None:
    events = outcome(report, "stream")
    assert events[0] == {"kind": "task", "state": "submitted"}, events
    assert events[1] == {"kind": "status-update", "state": "working", "final": False}, events
    assert events[-1] == {"kind": "status-update", "state": "completed", "final": True}, events
    chunks = [event["text"] for event in events if event["kind"] == "artifact-update"]
    assert "".join(chunks) == "interop over the 0.3 client", chunks


def test_resubscribe_to_an_unknown_task_raises_task_not_found(report: dict[str, Any]) -> None:
    assert_sdk_error(outcome(report, "resubscribe_unknown"), -32001, "was not found")


def test_resubscribe_to_a_finished_task_raises_unsupported_operation(report: dict[str, Any]) -> None:
    assert_sdk_error(outcome(report, "resubscribe_terminal"), -32004, "terminal task")


def test_message_stream_to_a_finished_task_raises_unsupported_operation(report: dict[str, Any]) -> None:
    assert_sdk_error(outcome(report, "stream_to_terminal"), -32004, "terminal task")


def test_resubscribe_follows_a_task_waiting_for_input_to_completed(report: dict[str, Any]) -> None:
    found = outcome(report, "follow_through_input")
    assert found["asked"] == "input-required" and found["answered"] == [{"kind": "task", "state": "completed"}]
    events = found["subscription"]
    assert events[0] == {"kind": "task", "state": "input-required"}, events
    assert events[1] == {"kind": "status-update", "state": "working", "final": False}, events
    assert events[-1] == {"kind": "status-update", "state": "completed", "final": True}, events
    assert "".join(e["text"] for e in events if e["kind"] == "artifact-update") == "Lisbon", events
