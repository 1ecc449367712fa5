"""docs/scripted-agent.md, "Faults and timing", tells the truth: what goes over the wire for each fault, on each
binding and version, is what the live server sends.

Each `<!-- faults: COMMAND -->` block holds one line per binding and version: the command sent as a new message
(twice or more for a refusal or a reset, the same messageId each time), summed up as it went over the wire. A
delay is checked as a lower bound only. A2A_UPDATE_DOCS=1 rewrites the lines from the live server instead.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import secrets
import shutil
import socket
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

from reference_server.agent.script import parse_script
from reference_server.agent.scripted import DEFAULT_SCRIPT
from reference_server.model.caller import Workspace

DOC = Path(__file__).resolve().parents[1] / "docs" / "scripted-agent.md"
UPDATE = os.environ.get("A2A_UPDATE_DOCS") == "1"
SECTION = re.compile(r"^## Faults and timing for testing a client\n(.*?)^## ", re.S | re.M)
TABLE_ROW = re.compile(r"^\| `([^`]+)` \| `([^`]+)` \|", re.M)
BLOCK = re.compile(r"<!-- faults: (?P<command>.+?) -->\n```text\n(?P<body>.*?)```", re.S)
PROTOCOLS = [("jsonrpc", "1.0"), ("rest", "1.0"), ("jsonrpc", "0.3"), ("rest", "0.3")]
NAMES = {"jsonrpc": "JSON-RPC", "rest": "HTTP+JSON"}
# the lower bounds a line claims: the first byte after N s, events N s apart
SLOW_START = re.compile(r"^slow start (\S+)$")
DRIP = re.compile(r"^drip (\S+)$")
STREAMING = ("cut after", "drip", "bad frame")
ATTEMPTS = re.compile(r"^(?:refuse \S+|reset)(?: (\d+) times?)?")


def section() -> str:
    found = SECTION.search(DOC.read_text(encoding="utf-8"))
    assert found, "docs/scripted-agent.md has no section 'Faults and timing for testing a client'"
    return found.group(1)


def blocks() -> dict[str, list[str]]:
    return {m["command"]: m["body"].splitlines() for m in BLOCK.finditer(section())}


def rewrite(command: str, lines: list[str]) -> None:
    text = DOC.read_text(encoding="utf-8")
    marker = f"<!-- faults: {command} -->\n```text\n"
    start = text.index(marker) + len(marker)
    end = text.index("```", start)
    DOC.write_text(text[:start] + "".join(line + "\n" for line in lines) + text[end:], encoding="utf-8")


@dataclass
class Desk:
    server: LiveServer
    key: str


@pytest.fixture(scope="module")
def desk() -> Iterator[Desk]:
    root = Path(tempfile.mkdtemp(prefix="a2a-faults-doc-"))
    workspace = Workspace(root, owner_id="owner-1", scope_prefix="faults-doc")
    key = "k_" + secrets.token_hex(16)
    workspace.callers_file.parent.mkdir(parents=True, exist_ok=True)
    workspace.callers_file.write_text(json.dumps([{"name": "travel-bot", "key": key, "mode": "isolated"}]))
    server = LiveServer(settings_for()).start()
    server.workspaces.add(workspace)
    yield Desk(server, key)
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


def request(binding: str, version: str, streaming: bool, text: str, message_id: str) -> tuple[str, str, Any]:
    """The operation's wire name, its path and its body, as a client of that binding and version sends it."""
    if binding == "jsonrpc":
        if version == "1.0":
            method = "SendStreamingMessage" if streaming else "SendMessage"
            message: dict[str, Any] = {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]}
        else:
            method = "message/stream" if streaming else "message/send"
            message = {"kind": "message", "messageId": message_id, "role": "user",
                       "parts": [{"kind": "text", "text": text}]}
        return method, "/a2a", {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": message}}
    route = "message:stream" if streaming else "message:send"
    content = "parts" if version == "1.0" else "content"
    return route, f"/a2a/v1/{route}", {"message": {"messageId": message_id, "role": "ROLE_USER",
                                                   content: [{"text": text}]}}


def summed(binding: str, version: str, value: Any) -> str:
    """One JSON value of an answer, by kind: an error by its code or status, a task or event by its state or text."""
    if binding == "jsonrpc":
        if "error" in value:
            return f'error {value["error"]["code"]} "{value["error"]["message"]}"'
        value = value["result"]
    if "error" in value:
        return f'error {value["error"]["status"]} "{value["error"]["message"]}"'
    if version == "0.3" and binding == "jsonrpc":
        kind = value["kind"]
        body = value
    else:
        kind, body = next(iter(value.items()))
    if "status" in body:
        return f"{kind} {body['status']['state'].removeprefix('TASK_STATE_').lower()}"
    artifact = body.get("artifact")
    parts = (artifact or body).get("parts") or (artifact or body).get("content") or []
    return f"{kind} " + json.dumps("".join(part.get("text", "") for part in parts))


def exchange(desk: Desk, binding: str, version: str, streaming: bool, text: str, message_id: str) -> str:
    """One attempt, as it went over the wire, with the times it took (checked, not shown)."""
    _, path, body = request(binding, version, streaming, text, message_id)
    headers = {"X-API-Key": desk.key, "A2A-Version": version}
    started = time.monotonic()
    try:
        with httpx.Client(base_url=desk.server.url, timeout=30) as http, http.stream(
                "POST", path, headers=headers, json=body) as response:
            first_byte = time.monotonic() - started
            head = f"{response.status_code} {response.headers.get('content-type', '').split(';')[0]}"
            if "retry-after" in response.headers:
                head += f", Retry-After: {response.headers['retry-after']}"
            frames, times, end = [], [], "then the stream ends"
            try:
                for chunk in response.iter_text():
                    frames.append(chunk)
                    times.append(time.monotonic())
            except httpx.RemoteProtocolError:
                end = "then the connection closes, before the body's end"
    except (httpx.ReadError, httpx.RemoteProtocolError) as error:
        assert "reset" in str(error).lower() or "disconnected" in str(error).lower(), error
        return "no answer: the connection is reset"
    whole = "".join(frames)
    if not head.split(", ")[0].endswith("text/event-stream"):
        try:
            value = json.loads(whole)
        except ValueError:
            assert whole.startswith('{"'), whole[:40]
            return f"{head}: a body that is not JSON (the first half of the answer)"
        return f"{head}: {summed(binding, version, value)}" + timing(text, first_byte, [])
    events = []
    for frame in (f for f in whole.split("\n\n") if f.strip()):
        data = frame.split("data: ", 1)[1]
        try:
            events.append(summed(binding, version, json.loads(data)))
        except ValueError:
            events.append("(a frame that is not JSON)")
    return f"{head}: {', '.join(events)}; {end}" + timing(text, first_byte, times)


def timing(text: str, first_byte: float, times: list[float]) -> str:
    if found := SLOW_START.match(text):
        seconds = float(found.group(1))
        return f" (the first byte after {seconds:g} s or more)" if first_byte >= seconds else " (too soon)"
    if found := DRIP.match(text):
        seconds = float(found.group(1))
        gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
        # read on this side, an event that arrives late makes the next gap look short by as much, never the span
        apart = bool(gaps) and min(gaps) >= seconds / 2 and times[-1] - times[0] >= len(gaps) * seconds - 0.1
        return f" (events {seconds:g} s apart)" if apart else " (too close)"
    return ""


def wire_lines(desk: Desk, command: str) -> list[str]:
    streaming = command.startswith(STREAMING)
    found = ATTEMPTS.match(command)
    attempts = (int(found.group(1) or 1) + 1) if found else 1
    lines = []
    for binding, version in PROTOCOLS:
        operation = request(binding, version, streaming, command, "")[0]
        message_id = str(uuid.uuid4())
        seen = [exchange(desk, binding, version, streaming, command, message_id) for _ in range(attempts)]
        said = seen[0] if attempts == 1 else "; ".join(f"attempt {n}: {line}" for n, line in enumerate(seen, 1))
        lines.append(f"{operation}, {NAMES[binding]} {version}: {said}")
    return lines


def test_every_fault_command_has_its_wire_block_and_its_prefix_rule() -> None:
    rows = TABLE_ROW.findall(section())
    assert len(rows) == 7
    documented = blocks()
    prefixes = [r.message_id_prefix or (r.message_id_pattern.pattern if r.message_id_pattern else "")
                for r in parse_script(DEFAULT_SCRIPT.read_text(encoding="utf-8")) if r.fault and not r.turns]
    for command, prefix in rows:
        head = command.split(" <")[0].split(" [")[0]
        assert any(c.startswith(head) for c in documented), f"no wire block for {command}"
        fixed = prefix.split("<")[0]
        assert any(p.lstrip("^").startswith(fixed) for p in prefixes), f"no prefix rule for {prefix}"


@pytest.mark.parametrize("command", list(blocks()))
def test_the_documented_wire_is_what_the_server_sends(desk: Desk, command: str) -> None:
    sent = wire_lines(desk, command)
    if UPDATE:
        rewrite(command, sent)
    assert blocks()[command] == sent


@pytest.mark.parametrize("command", ["cut after 0 events", "refuse 200"])
def test_the_quoted_refusals_are_the_servers_words(desk: Desk, command: str) -> None:
    line = exchange(desk, "rest", "1.0", False, command, str(uuid.uuid4()))
    message = re.search(r'"(.*)"$', line)
    assert message and line.startswith("400 "), line
    said = message.group(1).removeprefix("The fault this message asks for cannot be carried out: ")
    said = said.split(" (script")[0] if command == "refuse 200" else message.group(1)
    assert said in " ".join(section().split()), said


def test_a_reset_is_a_reset(desk: Desk) -> None:
    """The connection of a reset attempt gets an RST, not a FIN: the client's read fails with ECONNRESET."""
    _, path, body = request("rest", "1.0", False, "reset", str(uuid.uuid4()))
    raw = json.dumps(body).encode()
    host, port = desk.server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {desk.key}\r\nA2A-Version: 1.0\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {len(raw)}\r\n\r\n".encode() + raw)
        with pytest.raises(ConnectionResetError):
            sock.recv(1024)
