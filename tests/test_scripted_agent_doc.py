"""docs/scripted-agent.md tells the truth: every shape's documented answer is what the live server sends.

Each row of "Shapes for testing a client" is sent as its command (a behaviour without one: its name alone), by its
behaviour's messageId prefix (the TCK's way) and by its behaviour as the first word of the text (ACTS's way), over both
bindings in A2A 1.0 and 0.3, with SendMessage and SendStreamingMessage (and, for the behaviours whose example takes
more than one exchange, the exchanges FLOWS gives); the answers, ids and times named, must be the documented lines
and the same for the three. A2A_UPDATE_DOCS=1 rewrites the documented lines from the live server instead.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.live import LiveServer, settings_for
from support.shapes import Masker

from reference_server.agent.script import parse_script
from reference_server.agent.scripted import DEFAULT_SCRIPT
from reference_server.conformance.support.client import A2AClient
from reference_server.model.caller import Workspace

DOC = Path(__file__).resolve().parents[1] / "docs" / "scripted-agent.md"
UPDATE = os.environ.get("A2A_UPDATE_DOCS") == "1"
SHAPES_SECTION = re.compile(r"^## Shapes for testing a client\n(.*?)^## ", re.S | re.M)
TABLE_ROW = re.compile(r"^\| (?:`([^`]+)`|\u2013) \| `([^`]+)` \|", re.M)  # \u2013: no command
BLOCK = re.compile(r"<!-- events: (?P<command>.+?) · (?P<version>1\.0|0\.3) -->\n```jsonc\n(?P<body>.*?)```", re.S)

# the protocols of each version's block, and how its comment lines name each operation
GROUPS = {"1.0": ["1.0"], "0.3": ["jsonrpc-0.3", "rest-0.3"]}
PROTOCOLS = {"1.0": [("jsonrpc", "1.0"), ("rest", "1.0")], "jsonrpc-0.3": [("jsonrpc", "0.3")],
             "rest-0.3": [("rest", "0.3")]}
NAMES = {
    "1.0": {"SendMessage": "SendMessage", "SendStreamingMessage": "SendStreamingMessage", "CancelTask": "CancelTask"},
    "jsonrpc-0.3": {"SendMessage": "JSON-RPC message/send", "SendStreamingMessage": "JSON-RPC message/stream",
                    "CancelTask": "JSON-RPC tasks/cancel"},
    "rest-0.3": {"SendMessage": "HTTP+JSON message:send", "SendStreamingMessage": "HTTP+JSON message:stream",
                 "CancelTask": "HTTP+JSON tasks/{id}:cancel"},
}


@dataclass(frozen=True)
class Exchange:
    """One exchange of an example: the first of a flow sends the row's message, a later one goes on with its task
    (answers it with a text, or cancels it); `said` is what its comment line adds to the operation's name."""

    operation: str
    answer: str | None = None
    wait: bool = True
    cancel_after: int | None = None  # a stream: the task is canceled once this many events came
    said: str = ""


SIMPLE = [[Exchange("SendMessage")], [Exchange("SendStreamingMessage")]]
FLOWS = {
    "tck-multi-turn": [
        [Exchange(operation), Exchange(operation, "more input", said=', to the task: "more input"'),
         Exchange(operation, "done", said=', to the task: "done"')]
        for operation in ("SendMessage", "SendStreamingMessage")],
    "tck-cancel": [
        [Exchange("SendMessage", wait=False, said=", without waiting"), Exchange("CancelTask")],
        [Exchange("SendStreamingMessage", cancel_after=2, said=", canceled after its second event")]],
}


def vocabulary() -> list[tuple[str, str]]:
    """(command, behaviour) of every row of the shapes table; a behaviour without a command has its name as one."""
    found = SHAPES_SECTION.search(DOC.read_text(encoding="utf-8"))
    assert found, "docs/scripted-agent.md has no section 'Shapes for testing a client'"
    return [(command or behaviour, behaviour) for command, behaviour in TABLE_ROW.findall(found.group(1))]


def documented(command: str, version: str) -> dict[str, list[Any]]:
    """The documented lines of a block, by section comment, each line parsed as JSON."""
    blocks = [m for m in BLOCK.finditer(DOC.read_text(encoding="utf-8"))
              if (m["command"], m["version"]) == (command, version)]
    assert len(blocks) == 1, f"docs/scripted-agent.md has {len(blocks)} blocks for {command!r} in {version}"
    sections: dict[str, list[Any]] = {}
    current: list[Any] | None = None
    for line in blocks[0]["body"].splitlines():
        if line.startswith("//"):
            current = sections.setdefault(line.strip(), [])
        elif line.strip():
            assert current is not None, f"{command} {version}: a value before any section comment: {line}"
            current.append(json.loads(line))
    return sections


def rewrite(command: str, version: str, sections: dict[str, list[Any]]) -> None:
    body = "".join(f"{name}\n" + "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values)
                   for name, values in sections.items())
    text = DOC.read_text(encoding="utf-8")
    marker = f"<!-- events: {command} · {version} -->\n```jsonc\n"
    start = text.index(marker) + len(marker)
    end = text.index("```", start)
    DOC.write_text(text[:start] + body + text[end:], encoding="utf-8")


@pytest.fixture(scope="module")
def live() -> Iterator[tuple[LiveServer, str]]:
    root = Path(tempfile.mkdtemp(prefix="a2a-doc-"))
    workspace = Workspace(root, owner_id="owner-1", scope_prefix="doc")
    key = "k_" + secrets.token_hex(16)
    workspace.callers_file.parent.mkdir(parents=True, exist_ok=True)
    workspace.callers_file.write_text(json.dumps([{"name": "travel-bot", "key": key, "mode": "isolated"}]))
    server = LiveServer(settings_for()).start()
    server.workspaces.add(workspace)
    yield server, key
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


def run_flow(server: LiveServer, key: str, binding: str, version: str, flow: list[Exchange], text: str,
             message_id: str, shown: str) -> list[list[Any]]:
    """The raw values of each exchange of a flow (JSON-RPC results, HTTP+JSON bodies or events), named as in the
    docs: one task, so one Masker for the whole flow."""
    masker = Masker({message_id: "<messageId>", text: shown})
    task: dict[str, Any] = {}
    found: list[list[Any]] = []
    with httpx.Client(base_url=server.url, timeout=30) as http, \
            httpx.Client(base_url=server.url, timeout=30) as side:
        client = A2AClient(http, binding=binding, version=version, key=key)  # validates every answer
        for exchange in flow:
            if exchange.operation == "CancelTask":
                reply = client.call("CancelTask", {"id": task["id"]})
                assert reply.error is None, reply.error
                found.append(masker([reply.raw["result"] if binding == "jsonrpc" else reply.raw]))
                continue
            message: dict[str, Any] = {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]}
            if exchange.answer is not None:
                message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": exchange.answer}],
                           "taskId": task["id"], "contextId": task["contextId"]}
            params: dict[str, Any] = {"message": message}
            if not exchange.wait:
                params["configuration"] = {"returnImmediately": True}
            if exchange.operation == "SendMessage":
                reply = client.call("SendMessage", params)
                assert reply.error is None, reply.error
                task = reply.body.get("task", task)
                values = [reply.raw["result"] if binding == "jsonrpc" else reply.raw]
            else:
                stream = streamed(client, A2AClient(side, binding=binding, version=version, key=key), params,
                                  exchange.cancel_after)
                task = stream.events[0].get("task", task)
                values = [raw["result"] if binding == "jsonrpc" else raw for raw in stream.raw_events]
            found.append(masker(values))
    return found


def streamed(client: A2AClient, canceler: A2AClient, params: dict[str, Any], cancel_after: int | None) -> Any:
    """A SendStreamingMessage read to its end; its task canceled by the other client once cancel_after events came
    (the stream is read on: the cancel's answer is not the example)."""
    seen: list[dict[str, Any]] = []

    def on_event(event: dict[str, Any]) -> None:
        seen.append(event)
        if len(seen) == cancel_after:
            assert canceler.call("CancelTask", {"id": seen[0]["task"]["id"]}).error is None

    stream = client.stream("SendStreamingMessage", params, on_event=on_event)
    assert stream.error is None, stream.error
    return stream


def live_sections(server: LiveServer, key: str, command: str, behaviour: str, version: str) -> dict[str, list[Any]]:
    """What the server sends for the row, for each section of the block: the command, the behaviour by messageId and
    the behaviour by text must send the same. Every flow runs at once (tck-long-running takes 3 seconds each)."""
    flows = FLOWS.get(behaviour, SIMPLE)
    asked = [(group, binding, protocol_version, flow, how)
             for group in GROUPS[version] for binding, protocol_version in PROTOCOLS[group]
             for flow in flows for how in ("command", "messageId", "text")]

    def run(group: str, binding: str, protocol_version: str, flow: list[Exchange], how: str) -> list[list[Any]]:
        anything = f"anything {uuid.uuid4()}"
        text, message_id = {"command": (command, str(uuid.uuid4())),
                            "messageId": (anything, f"{behaviour}-{uuid.uuid4()}"),
                            "text": (f"{behaviour} {anything}", str(uuid.uuid4()))}[how]
        return run_flow(server, key, binding, protocol_version, flow, text, message_id, command)

    with ThreadPoolExecutor(max_workers=len(asked)) as pool:
        results = list(pool.map(lambda a: run(*a), asked))
    sections: dict[str, list[Any]] = {}
    for (group, _, _, flow, how), values in zip(asked, results, strict=True):
        for exchange, exchanged in zip(flow, values, strict=True):
            name = f"// {NAMES[group][exchange.operation]}{exchange.said}"
            if name not in sections:
                sections[name] = exchanged
            assert exchanged == sections[name], f"{command} {name} ({how}): the answers differ:\n{exchanged}\n" \
                f"{sections[name]}"
    return sections


def test_the_shapes_table_lists_every_behaviour_of_the_default_script() -> None:
    rules = parse_script(DEFAULT_SCRIPT.read_text(encoding="utf-8"))
    behaviours = [rule.behaviour for rule in rules if rule.behaviour is not None]
    table = vocabulary()

    assert len(table) >= 20
    assert sorted(behaviour for _, behaviour in table) == sorted(behaviours)
    for command, behaviour in table:
        if command == behaviour:
            continue
        matching = [rule for rule in rules if rule.pattern is not None and rule.pattern.search(command)]
        assert matching and matching[0].pattern is not None and matching[0].pattern.pattern != "", command


@pytest.mark.parametrize("version", ["1.0", "0.3"])
@pytest.mark.parametrize(("command", "behaviour"), vocabulary(), ids=[c for c, _ in vocabulary()])
def test_the_documented_answer_is_what_the_server_sends(live: tuple[LiveServer, str], command: str, behaviour: str,
                                                        version: str) -> None:
    server, key = live
    sent = live_sections(server, key, command, behaviour, version)
    if UPDATE:
        rewrite(command, version, sent)
    assert documented(command, version) == sent
