"""What the official clients do under each fault (docs/client-testing.md, "The official SDKs under faults").

The a2a-sdk 1.3 Python client and @a2a-js/sdk 1.3 (tests/interop/js/driver.mjs) are sent each fault of
docs/scripted-agent.md, over both 1.0 bindings, and what each did is summed up in one line: what the caller got
(the events before an error too), what was raised, how many requests the SDK sent (a retry would show), and,
after a cut stream, whether SubscribeToTask through the same SDK brings the task to its end. A finding about an
SDK is a result: this test keeps the documented lines true for the pinned versions, it does not judge them.
A2A_UPDATE_DOCS=1 rewrites the lines from the clients instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from a2a.types import SendMessageConfiguration, SendMessageRequest, SubscribeToTaskRequest, TaskState

from interop.desk import interop_desk
from interop.test_js_sdk import Driver, installed_sdk
from interop.test_python_sdk import BINDINGS, Agent, Wire, run, sdk_client, user_message

pytestmark = pytest.mark.interop

DOC = Path(__file__).resolve().parents[2] / "docs" / "client-testing.md"
UPDATE = os.environ.get("A2A_UPDATE_DOCS") == "1"
BLOCK = re.compile(r"<!-- sdk faults: (?P<sdk>\S+) -->\n```text\n(?P<body>.*?)```", re.S)
# (the command, whether it is streamed): every fault, streamed where it changes a stream, and a refusal both ways
CASES = [("cut after 2 events", True), ("slow start 1", False), ("drip 0.1", True), ("refuse 429", False),
         ("refuse 503", True), ("reset", False), ("reset", True), ("bad frame", True), ("not json", False)]
# what varies from run to run in an error's words: ids, ports, and where in a JSON text a parser stopped
VOLATILE = [(re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
            (re.compile(r"127\.0\.0\.1:\d+"), "<server>"),
            (re.compile(r"(line|column|char|position) \d+"), r"\1 <n>"),
            (re.compile(r'(event data: )".*?\.\.\."'), r'\1"<the frame, cut>"')]


def documented(sdk: str) -> list[str]:
    found = [m for m in BLOCK.finditer(DOC.read_text(encoding="utf-8")) if m["sdk"] == sdk]
    assert len(found) == 1, f"docs/client-testing.md has {len(found)} blocks for {sdk}"
    return found[0]["body"].splitlines()


def rewrite(sdk: str, lines: list[str]) -> None:
    text = DOC.read_text(encoding="utf-8")
    marker = f"<!-- sdk faults: {sdk} -->\n```text\n"
    start = text.index(marker) + len(marker)
    end = text.index("```", start)
    DOC.write_text(text[:start] + "".join(line + "\n" for line in lines) + text[end:], encoding="utf-8")


def words(message: str) -> str:
    """An error's message on one line, what varies named, cut at 160 characters."""
    text = " ".join(message.split())
    for pattern, name in VOLATILE:
        text = pattern.sub(name, text)
    return text if len(text) <= 160 else text[:157] + "..."


def line(binding: str, command: str, streamed: bool, got: list[str], error: str | None, requests: int,
         recovered: str | None) -> str:
    said = f"{binding} {'stream' if streamed else 'send'} {command!r}: "
    said += f"got {', '.join(got) if got else 'nothing'}"
    said += f"; raised {error}" if error else ""
    said += f"; {requests} request(s)"
    return said + (f"; then SubscribeToTask: {recovered}" if recovered else "")


# --- the Python SDK


async def python_case(agent: Agent, binding: str, command: str, streamed: bool) -> str:
    wire = Wire()
    async with sdk_client(agent, binding, wire, streaming=streamed) as client:
        before = len(wire.requests)
        request = SendMessageRequest(message=user_message(command), configuration=SendMessageConfiguration())
        got: list[str] = []
        task_id, error = "", None
        try:
            async for event in client.send_message(request):
                kind = event.WhichOneof("payload")
                got.append(kind or "?")
                task_id = task_id or (event.task.id if kind == "task" else "")
        except Exception as raised:  # what the SDK raises is the finding
            error = f"{type(raised).__name__} \"{words(str(raised))}\""
        requests = len(wire.requests) - before
        recovered = None
        if error and task_id and command.startswith("cut"):  # the stream broke with its task still running
            try:
                states = [event async for event in client.subscribe(SubscribeToTaskRequest(id=task_id))]
            except Exception as raised:
                recovered = f"raised {type(raised).__name__} \"{words(str(raised))}\""
            else:
                last = states[-1]
                state = last.status_update.status.state if last.HasField("status_update") else last.task.status.state
                recovered = f"the task {TaskState.Name(state).removeprefix('TASK_STATE_').lower()}"
    return line(binding, command, streamed, got, error, requests, recovered)


@pytest.fixture(scope="module")
def python_lines() -> list[str]:
    with interop_desk("sdk-faults", scope_prefix="sdk-faults") as desk:
        agent = Agent(desk.url, desk.key)
        lines: list[str] = []
        for binding in BINDINGS:
            for command, streamed in CASES:
                async def case(binding: str = binding, command: str = command, streamed: bool = streamed) -> None:
                    lines.append(await python_case(agent, binding, command, streamed))

                run(case)
        return lines


def test_what_the_python_sdk_does_under_each_fault(python_lines: list[str]) -> None:
    if UPDATE:
        rewrite("a2a-sdk", python_lines)
    assert documented("a2a-sdk") == python_lines


# --- the JS SDK


@pytest.fixture(scope="module")
def js() -> Iterator[Driver]:
    installed_sdk()
    with interop_desk("js-faults", scope_prefix="js-faults") as desk:
        driver = Driver(desk.url, desk.key)
        try:
            yield driver
        finally:
            driver.close()


def js_case(js: Driver, mode: str, command: str, streamed: bool) -> str:
    answer = js.call(mode, "stream" if streamed else "send", text=command)
    events: list[dict[str, Any]] = (answer.result or []) if streamed and answer.ok else answer.error.get("events", [])
    if not streamed and answer.ok:
        events = [answer.result]
    got = [next(iter(event)) for event in events]
    error = None if answer.ok else f"{answer.error['name']} \"{words(answer.error['message'])}\""
    recovered = None
    if error and command.startswith("cut") and events and "task" in events[0]:
        after = js.call(mode, "subscribe", id=events[0]["task"]["id"])
        if after.ok:
            state = after.result[-1].get("statusUpdate", after.result[-1].get("task", {}))["status"]["state"]
            recovered = f"the task {state.removeprefix('TASK_STATE_').lower()}"
        else:
            recovered = f"raised {after.error['name']} \"{words(after.error['message'])}\""
    return line(mode.split("-")[0], command, streamed, got, error, len(answer.wire), recovered)


def test_what_the_js_sdk_does_under_each_fault(js: Driver) -> None:
    lines = [js_case(js, mode, command, streamed)
             for mode in ("jsonrpc-1.0", "rest-1.0") for command, streamed in CASES]
    if UPDATE:
        rewrite("@a2a-js/sdk", lines)
    assert documented("@a2a-js/sdk") == lines


def test_neither_sdk_waits_out_a_refusal_by_itself() -> None:
    """The finding the report's retry-after-honoured check rests on: the SDKs raise at once, with one request."""
    for sdk in ("a2a-sdk", "@a2a-js/sdk"):
        refusals = [text for text in documented(sdk) if "'refuse " in text]
        assert refusals and all("; 1 request(s)" in text and "raised" in text for text in refusals), refusals
