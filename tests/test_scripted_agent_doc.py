"""docs/scripted-agent.md tells the truth: every shape's documented answer is what the live server sends.

Each command of "Shapes for testing a client" is sent, as text and by its messageId prefix, over both bindings in
A2A 1.0 and 0.3, with SendMessage and SendStreamingMessage; the answers, ids and times named, must be the
documented lines. A2A_UPDATE_DOCS=1 rewrites the documented lines from the live server instead.
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
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.client import A2AClient
from support.live import LiveServer, settings_for
from support.shapes import Masker

from reference_server.agent.script import parse_script
from reference_server.agent.scripted import DEFAULT_SCRIPT
from reference_server.domain.callers import Workspace

DOC = Path(__file__).resolve().parents[1] / "docs" / "scripted-agent.md"
UPDATE = os.environ.get("A2A_UPDATE_DOCS") == "1"
SHAPES_SECTION = re.compile(r"^## Shapes for testing a client\n(.*?)^## ", re.S | re.M)
TABLE_ROW = re.compile(r"^\| `([^`]+)` \| `([^`]+)` \|", re.M)
BLOCK = re.compile(r"<!-- events: (?P<command>.+?) · (?P<version>1\.0|0\.3) -->\n```jsonc\n(?P<body>.*?)```", re.S)

# what each documented block holds, section by section: (comment line, binding, version, operation)
SECTIONS = {
    "1.0": [("// SendMessage", "1.0", "SendMessage"), ("// SendStreamingMessage", "1.0", "SendStreamingMessage")],
    "0.3": [("// JSON-RPC message/send", "jsonrpc-0.3", "SendMessage"),
            ("// JSON-RPC message/stream", "jsonrpc-0.3", "SendStreamingMessage"),
            ("// HTTP+JSON message:send", "rest-0.3", "SendMessage"),
            ("// HTTP+JSON message:stream", "rest-0.3", "SendStreamingMessage")],
}
PROTOCOLS = {"1.0": [("jsonrpc", "1.0"), ("rest", "1.0")], "jsonrpc-0.3": [("jsonrpc", "0.3")],
             "rest-0.3": [("rest", "0.3")]}


def vocabulary() -> list[tuple[str, str]]:
    """(command, messageId prefix) of every row of the shapes table."""
    found = SHAPES_SECTION.search(DOC.read_text(encoding="utf-8"))
    assert found, "docs/scripted-agent.md has no section 'Shapes for testing a client'"
    return TABLE_ROW.findall(found.group(1))


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


def answers(server: LiveServer, key: str, binding: str, version: str, operation: str, text: str,
            message_id: str, shown: str) -> list[Any]:
    """The raw values of one exchange (JSON-RPC results, HTTP+JSON bodies or events), named as in the docs."""
    message = {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]}
    with httpx.Client(base_url=server.url, timeout=30) as http:
        client = A2AClient(http, binding=binding, version=version, key=key)  # validates every answer
        if operation == "SendMessage":
            reply = client.call(operation, {"message": message})
            assert reply.error is None, reply.error
            values = [reply.raw["result"] if binding == "jsonrpc" else reply.raw]
        else:
            stream = client.stream(operation, {"message": message})
            assert stream.error is None, stream.error
            values = [raw["result"] if binding == "jsonrpc" else raw for raw in stream.raw_events]
    return Masker({message_id: "<messageId>", text: shown})(values)  # type: ignore[no-any-return]


def live_sections(server: LiveServer, key: str, command: str, prefix: str, version: str) -> dict[str, list[Any]]:
    """What the server sends for the command, for each section of the block; the prefix must send the same."""
    sections = {}
    for name, protocols, operation in SECTIONS[version]:
        seen = []
        for binding, protocol_version in PROTOCOLS[protocols]:
            seen.append(answers(server, key, binding, protocol_version, operation, command, str(uuid.uuid4()),
                                command))
            # the prefix drives the same answer whatever the text says
            any_text = f"anything {uuid.uuid4()}"
            seen.append(answers(server, key, binding, protocol_version, operation, any_text,
                                f"{prefix}-{uuid.uuid4()}", command))
        assert all(values == seen[0] for values in seen), f"{command} {name}: the answers differ:\n{seen}"
        sections[name] = seen[0]
    return sections


def test_the_shapes_table_lists_every_shape_rule_of_the_default_script() -> None:
    rules = parse_script(DEFAULT_SCRIPT.read_text(encoding="utf-8"))
    prefixes = [rule.message_id_prefix for rule in rules if rule.message_id_prefix is not None and not rule.fault]
    table = vocabulary()

    assert len(table) >= 14
    assert sorted(prefix for _, prefix in table) == sorted(prefixes)
    for command, _ in table:
        matching = [rule for rule in rules if rule.pattern is not None and rule.pattern.search(command)]
        assert matching and matching[0].pattern is not None and matching[0].pattern.pattern != "", command


@pytest.mark.parametrize("version", ["1.0", "0.3"])
@pytest.mark.parametrize(("command", "prefix"), vocabulary(), ids=[c for c, _ in vocabulary()])
def test_the_documented_answer_is_what_the_server_sends(live: tuple[LiveServer, str], command: str, prefix: str,
                                                        version: str) -> None:
    server, key = live
    sent = live_sections(server, key, command, prefix, version)
    if UPDATE:
        rewrite(command, version, sent)
    assert documented(command, version) == sent
