"""docs/owner-host.md tells the truth: its walkthrough, run command by command, gives the outputs it shows."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cli import free_port

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "owner-host.md").read_text(encoding="utf-8")
DOC_ROOT, DOC_HOST_PORT, DOC_TELEGRAM_PORT = "/tmp/a2a-owners", "8080", "8081"


def blocks() -> dict[str, str]:
    """The walkthrough's fenced blocks by the name of the marker before each."""
    found = re.findall(r"<!-- walkthrough: ([a-z ]+) -->\n```[a-z]*\n(.*?)```", DOC, re.S)
    return dict(found)


class Walk:
    """The walkthrough's commands with this test's root, ports and Python in place of the doc's."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path.resolve() / "a2a-owners"
        self.host_port, self.telegram_port = str(free_port()), str(free_port())
        self.tmp = tmp_path
        self.processes: list[subprocess.Popen[str]] = []

    def text(self, block: str) -> str:
        text = blocks()[block]
        text = text.replace(DOC_ROOT, str(self.root))
        text = text.replace(f"127.0.0.1:{DOC_TELEGRAM_PORT}", f"127.0.0.1:{self.telegram_port}")
        text = text.replace(f"--port {DOC_TELEGRAM_PORT}", f"--port {self.telegram_port}")
        text = text.replace(f"127.0.0.1:{DOC_HOST_PORT}", f"127.0.0.1:{self.host_port}")
        text = text.replace(f"--port {DOC_HOST_PORT}", f"--port {self.host_port}")
        commands = {".venv/bin/reference-server": f"{sys.executable} -m reference_server",
                    ".venv/bin/python": sys.executable}
        return re.sub(r"\.venv/bin/(?:reference-server|python)", lambda m: commands[m.group(0)], text)

    def run(self, block: str) -> str:
        result = subprocess.run(["bash", "-c", self.text(block)], capture_output=True, text=True, timeout=60,
                                cwd=ROOT)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def start(self, block: str, ready: str) -> Path:
        """The block as a background process whose output goes to a file; waits for `ready` in it."""
        log = self.tmp / f"{block.replace(' ', '-')}.log"
        with log.open("w") as out:
            process = subprocess.Popen(["bash", "-c", "exec " + self.text(block).replace("\\\n", " ")], cwd=ROOT,
                                       stdout=out, stderr=subprocess.STDOUT, text=True,
                                       env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.processes.append(process)
        deadline = time.monotonic() + 20
        while ready not in log.read_text():
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)  # polling the log for start-up, with a deadline
        return log

    def stop(self) -> None:
        for process in self.processes:
            process.send_signal(signal.SIGINT)  # the doc's Ctrl-C
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


@pytest.fixture
def walk(tmp_path: Path) -> Iterator[Walk]:
    walk = Walk(tmp_path)
    yield walk
    walk.stop()


def masked(text: str) -> str:
    """The command's text output with its ages and task ids (which change from run to run) masked."""
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<task>", text)
    return re.sub(r"  \d+[smhd] *  ", "  <age>  ", text)  # the column widens with the age


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_walkthrough_runs_as_written(walk: Walk) -> None:
    shown = {name: walk.text(name) for name in blocks()}
    walk.run("folders")
    chat = walk.start("fake telegram", "fake Telegram Bot API on")
    host = walk.start("host", "Application startup complete")
    assert shown["banner"] in host.read_text()

    assert walk.run("refused").strip() == shown["refused answer"].strip()  # carol is not listed

    answer = json.loads(walk.run("notify"))
    assert answer["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert answer["task"]["artifacts"][0]["parts"][0]["text"] == "I passed your note to my owner (delivered)."
    assert shown["chat"].strip() in chat.read_text()  # the fake printed what alice's chat got

    assert masked(walk.run("command alice")) == masked(shown["command alice output"])
    assert json.loads(walk.run("command bob")) == json.loads(shown["command bob output"])
    walk.stop()
    log = host.read_text()
    assert re.search(r"a2a task \S+ owner=alice caller=travel-bot state=completed in ", log)
    assert "fake-token" not in log and "k_alice_travel_7f3a9c" not in log


def test_every_notifier_and_new_setting_is_in_the_doc() -> None:
    for words in ("`log` (default)", "`webhook`", "`telegram`", "`none`", "A2A__Webhook__Url",
                  "A2A__Webhook__Token", "A2A__Telegram__BotToken", "A2A__Telegram__ApiUrl", "A2A__Owners",
                  "A2A__Enabled=false", "--json"):
        assert words in DOC, words
