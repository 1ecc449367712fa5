"""AgentSession and SessionFactory: system prompt, JSONL resume, run events, tools, abort."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from reference_server.a2a.events import (
    Aborted,
    Crashed,
    MessageEnd,
    RunFailed,
    Settled,
    TextDelta,
    ToolEnd,
    ToolStart,
)
from reference_server.agent.a2a_tools import a2a_tools
from reference_server.agent.conversation import INTERRUPTED
from reference_server.agent.provider import ProviderEvent, ProviderRequest, TextChunk, ToolCall
from reference_server.agent.session import MAX_STEPS, SessionBusy
from reference_server.agent.tools import Tool, ToolContext, ToolError, object_schema

from .helpers import Recording, collect, kinds, open_session, run, write_script


def test_context_files_land_in_the_system_prompt(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("Agents rules here.")
    (workspace / "CLAUDE.md").write_text("Claude rules here.")
    (workspace / "PERSONA.md").write_text("I am Eugene's assistant.")
    (workspace / "MEMORY.md").write_text("Eugene likes tea.")

    prompt = open_session(workspace).system_prompt()

    assert "Agents rules here." in prompt
    assert "Claude rules here." not in prompt  # AGENTS.md wins
    assert "I am Eugene's assistant." in prompt
    assert "Eugene likes tea." in prompt


def test_claude_md_is_used_without_agents_md(workspace: Path) -> None:
    (workspace / "CLAUDE.md").write_text("Claude rules here.")

    assert "Claude rules here." in open_session(workspace).system_prompt()


def test_context_files_are_read_when_each_run_starts(workspace: Path) -> None:
    provider = Recording()
    session = open_session(workspace, provider)
    (workspace / "PERSONA.md").write_text("first persona")
    collect(session, "hello")
    (workspace / "PERSONA.md").write_text("second persona")
    collect(session, "hello again")

    assert "first persona" in provider.requests[0].system_prompt
    assert "second persona" in provider.requests[1].system_prompt


def test_echo_run_streams_deltas_then_message_end_then_settles(workspace: Path) -> None:
    events = collect(open_session(workspace), "the quick brown fox jumps")

    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == "the quick brown fox jumps"
    assert events[-2:] == [MessageEnd("the quick brown fox jumps"), Settled()]


def test_conversation_is_appended_to_the_jsonl_file(workspace: Path) -> None:
    session = open_session(workspace, scope="owner-a2a-bot_c1")
    collect(session, "hello", message_id="m-1")

    lines = (workspace / ".volcanic" / "sessions" / "owner-a2a-bot_c1.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [(r["role"], r["content"]) for r in records] == [("user", "hello"), ("assistant", "hello")]
    assert records[0]["messageId"] == "m-1"
    assert all("ts" in r for r in records)


def test_reopened_session_resumes_the_conversation(workspace: Path) -> None:
    collect(open_session(workspace), "remember me")
    provider = Recording()
    resumed = open_session(workspace, provider)

    collect(resumed, "and now?")

    assert [m["content"] for m in provider.requests[0].messages] == ["remember me", "remember me", "and now?"]
    assert len(resumed.history()) == 4


def test_failing_tool_returns_an_error_result_and_the_run_continues(workspace: Path) -> None:
    async def boom(args: dict[str, Any], ctx: ToolContext) -> str:
        raise RuntimeError("disk on fire")

    async def refuse(args: dict[str, Any], ctx: ToolContext) -> str:
        raise ToolError("not today")

    write_script(workspace, {"rules": [{"match": "", "turns": [
        [{"tool": "boom"}, {"tool": "refuse"}, {"tool": "nosuchtool"}], [{"say": "still here"}]]}]})
    tools = [Tool("boom", "fails", object_schema({}), boom),
             Tool("refuse", "refuses", object_schema({}), refuse)]

    events = collect(open_session(workspace), "go", extra_tools=tools)

    ends = [e for e in events if isinstance(e, ToolEnd)]
    assert [(e.name, e.is_error) for e in ends] == [("boom", True), ("refuse", True), ("nosuchtool", True)]
    assert "disk on fire" in ends[0].result
    assert ends[1].result == "not today"
    assert ends[2].result == "unknown tool 'nosuchtool'"
    assert events[-2:] == [MessageEnd("still here"), Settled()]


def test_tool_events_come_in_order_with_sent(workspace: Path) -> None:
    events = collect(open_session(workspace), "file notes.txt")

    assert kinds(events)[:7] == ["MessageEnd", "ToolStart", "ToolEnd",  # write_file
                                 "ToolStart", "Sent", "ToolEnd",  # send
                                 "TextDelta"]
    assert isinstance(events[-1], Settled)


def test_request_input_ends_the_turn_without_calling_the_provider_again(workspace: Path) -> None:
    questions: list[str] = []
    write_script(workspace, {"rules": [{"match": "", "turns": [
        [{"tool": "request_input", "args": {"question": "Which city?"}}], [{"say": "never said"}]]}]})
    provider = Recording()
    tools = a2a_tools(on_request_input=questions.append, notifier=None, owner_id="o", caller="bot")

    events = collect(open_session(workspace, provider), "book a trip", extra_tools=tools)

    assert questions == ["Which city?"]
    assert len(provider.requests) == 1
    assert kinds(events) == ["MessageEnd", "ToolStart", "ToolEnd", "Settled"]


def test_provider_error_fails_the_run_with_its_message(workspace: Path) -> None:
    events = collect(open_session(workspace), "fail: the model is down")

    assert events[-1] == RunFailed("the model is down")


def test_unexpected_exception_crashes_the_run(workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    events = collect(open_session(workspace), "crash")

    assert isinstance(events[-1], Crashed)
    assert "crashed on purpose" in events[-1].detail
    assert "crashed" in caplog.text


def test_unusable_tool_arguments_are_an_error_result(workspace: Path) -> None:
    bad = ToolCall("c1", "list_files", {}, "the tool arguments were not a JSON object")
    provider = _Provider([[bad], []])

    events = collect(open_session(workspace, provider), "go")

    assert ToolEnd("c1", "list_files", "the tool arguments were not a JSON object", True) in events
    assert isinstance(events[-1], Settled)


def test_a_model_that_never_stops_calling_tools_fails_the_run(workspace: Path) -> None:
    provider = _Provider([[ToolCall(f"c{i}", "list_files", {})] for i in range(MAX_STEPS + 1)])

    events = collect(open_session(workspace, provider), "loop")

    assert isinstance(events[-1], RunFailed)
    assert len(provider.requests) == MAX_STEPS


def test_session_events_are_published_on_the_bus(workspace: Path) -> None:
    session = open_session(workspace, scope="p-a2a-bot_c")
    seen: list[tuple[str, dict[str, Any]]] = []

    def recorder(name: str) -> Callable[[dict[str, Any]], None]:
        return lambda payload: seen.append((name, payload))

    for name in ("text_delta", "message_end", "agent_settled"):
        session.bus.subscribe(name, recorder(name))

    collect(session, "hi")

    assert seen == [("text_delta", {"scope": "p-a2a-bot_c", "text": "hi"}),
                    ("message_end", {"scope": "p-a2a-bot_c", "text": "hi"}),
                    ("agent_settled", {"scope": "p-a2a-bot_c"})]


def test_abort_stops_a_paused_run_promptly(workspace: Path) -> None:
    session = open_session(workspace)

    async def scenario() -> tuple[list[Any], float]:
        events: list[Any] = []
        started = 0.0
        async for event in session.run("sleep 30"):
            events.append(event)
            if isinstance(event, TextDelta) and started == 0.0:
                started = time.monotonic()
                session.abort()
        return events, time.monotonic() - started

    events, took = run(scenario())

    assert events[-1] == Aborted()
    assert took < 1.0
    assert not session.running
    assert session.history()[-1]["content"].startswith("Sleeping")  # the text already streamed is kept


def test_abort_stops_a_run_mid_stream(workspace: Path) -> None:
    session = open_session(workspace, _Stalling())

    events = run(_abort_after(session, "go", TextDelta))

    assert kinds(events) == ["TextDelta", "Aborted"]


def test_abort_stops_a_run_mid_tool(workspace: Path) -> None:
    async def forever(args: dict[str, Any], ctx: ToolContext) -> str:
        await asyncio.Event().wait()
        return "unreachable"

    write_script(workspace, {"rules": [{"match": "", "turns": [[{"tool": "forever"}]]}]})
    session = open_session(workspace)
    tool = Tool("forever", "never returns", object_schema({}), forever)

    events = run(_abort_after(session, "go", ToolStart, extra_tools=[tool]))

    assert kinds(events) == ["MessageEnd", "ToolStart", "Aborted"]
    last = session.history()[-1]
    assert (last["role"], last["content"], last["is_error"]) == ("tool", INTERRUPTED, True)


def test_abort_before_the_run_took_its_first_step(workspace: Path) -> None:
    session = open_session(workspace)

    async def scenario() -> list[Any]:
        events = session.run("hi")
        first = asyncio.ensure_future(anext(events))
        await asyncio.sleep(0)  # one loop step: run() has created its task, which has not started yet
        session.abort()
        return [await first, *[e async for e in events]]

    assert run(scenario()) == [Aborted()]


def test_abort_when_idle_is_a_no_op(workspace: Path) -> None:
    session = open_session(workspace)

    session.abort()

    assert collect(session, "hi")[-1] == Settled()


def test_a_second_run_while_running_is_refused(workspace: Path) -> None:
    session = open_session(workspace)

    async def scenario() -> None:
        first = session.run("sleep 30")
        await anext(first)
        with pytest.raises(SessionBusy):
            await anext(session.run("hi"))
        session.abort()
        assert [e async for e in first][-1] == Aborted()

    run(scenario())


def test_scope_that_cannot_name_a_file_is_refused(workspace: Path) -> None:
    with pytest.raises(ValueError, match="scope"):
        open_session(workspace, scope="../escape")


async def _abort_after(session: Any, prompt: str, trigger: type, **kwargs: Any) -> list[Any]:
    """Run prompt, abort at the first event of type trigger, and check the abort was prompt."""
    events: list[Any] = []
    aborted_at = 0.0
    async for event in session.run(prompt, **kwargs):
        events.append(event)
        if isinstance(event, trigger) and not aborted_at:
            aborted_at = time.monotonic()
            session.abort()
    assert time.monotonic() - aborted_at < 1.0
    return events


class _Provider:
    """Plays one list of events per call, then empty messages; records the requests."""

    def __init__(self, messages: list[list[ProviderEvent]]) -> None:
        self.messages = messages
        self.requests: list[ProviderRequest] = []

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        index = len(self.requests) - 1
        for event in self.messages[index] if index < len(self.messages) else []:
            yield event


class _Stalling:
    """Streams one chunk, then waits forever."""

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        yield TextChunk("partial")
        await asyncio.Event().wait()
