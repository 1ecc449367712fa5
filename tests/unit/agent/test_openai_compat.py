"""OpenAICompatibleProvider against a fake server on loopback: streaming, tool calls, errors, the key."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest

from reference_server.a2a.events import (
    Aborted,
    MessageEnd,
    RunFailed,
    Settled,
    TextDelta,
    ToolEnd,
    ToolStart,
)
from reference_server.a2a.ports import Prompt
from reference_server.agent.openai_compat import OpenAICompatibleProvider
from reference_server.agent.provider import ProviderError, ProviderEvent, ProviderRequest, TextChunk, ToolCall
from reference_server.agent.tools import workspace_tools

from .fake_openai import FakeOpenAI, Status, Stream, text_chunk, tool_chunks
from .helpers import events_of, open_session, run

KEY = "sk-test-7f3a9c1e5b"


def _request(workspace: Path) -> ProviderRequest:
    messages = [{"role": "user", "content": "hi"}]
    return ProviderRequest("You are helpful.", messages, workspace_tools(workspace), None, workspace)


async def _stream(provider: OpenAICompatibleProvider, request: ProviderRequest) -> list[ProviderEvent]:
    return [e async for e in provider.stream(request)]


def test_streams_text_and_a_tool_call(workspace: Path) -> None:
    async def scenario() -> tuple[list[ProviderEvent], FakeOpenAI]:
        call = tool_chunks("call_1", "list_files", '{"path": "."}')
        chunks = [text_chunk("Let me "), text_chunk("look."), *call]
        async with FakeOpenAI([Stream(chunks)]) as fake:
            provider = OpenAICompatibleProvider(fake.base_url + "/", "tiny-model", KEY)
            return await _stream(provider, _request(workspace)), fake

    events, fake = run(scenario())

    assert events == [TextChunk("Let me "), TextChunk("look."),
                      ToolCall("call_1", "list_files", {"path": "."})]
    sent = fake.received[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert (sent.body["model"], sent.body["stream"]) == ("tiny-model", True)
    assert sent.body["messages"] == [{"role": "system", "content": "You are helpful."},
                                     {"role": "user", "content": "hi"}]
    tools = [t["function"]["name"] for t in sent.body["tools"]]
    assert tools == ["read_file", "write_file", "list_files", "send"]


def test_session_runs_a_tool_and_sends_its_result_back(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (workspace / "a.txt").write_text("a")
    (workspace / ".volcanic").mkdir()  # as in every served workspace (callers.json lives there)
    caplog.set_level(logging.DEBUG)

    async def scenario() -> tuple[list[Any], FakeOpenAI]:
        first = Stream([text_chunk("Looking."), *tool_chunks("call_1", "list_files", "{}")])
        second = Stream([text_chunk("You have "), text_chunk("a.txt.")])
        async with FakeOpenAI([first, second]) as fake:
            session = open_session(workspace, OpenAICompatibleProvider(fake.base_url, "m", KEY))
            return await events_of(session, "what is here?"), fake

    events, fake = run(scenario())

    assert events == [TextDelta("Looking."), MessageEnd("Looking."),
                      ToolStart("call_1", "list_files", {}),
                      ToolEnd("call_1", "list_files", ".volcanic/\na.txt", False),
                      TextDelta("You have "), TextDelta("a.txt."), MessageEnd("You have a.txt."), Settled()]
    replay = fake.received[1].body["messages"]
    assert replay[2] == {"role": "assistant", "content": "Looking.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "list_files", "arguments": "{}"}}]}
    assert replay[3] == {"role": "tool", "tool_call_id": "call_1", "content": ".volcanic/\na.txt"}
    _assert_key_never_logged(caplog)


def test_a_prompts_preamble_reaches_the_model_before_its_text(workspace: Path) -> None:
    async def scenario() -> FakeOpenAI:
        async with FakeOpenAI([Stream([text_chunk("ok")])]) as fake:
            session = open_session(workspace, OpenAICompatibleProvider(fake.base_url, "m", KEY))
            await events_of(session, Prompt("Plan a trip", "[A2A message from \"bot\"]"))
            return fake

    fake = run(scenario())
    assert fake.received[0].body["messages"][1] == {"role": "user",
                                                    "content": '[A2A message from "bot"]\n\nPlan a trip'}


def test_http_error_fails_the_run_with_a_redacted_message(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)

    async def scenario() -> list[Any]:
        error = Status(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})
        async with FakeOpenAI([error]) as fake:
            session = open_session(workspace, OpenAICompatibleProvider(fake.base_url, "m", KEY))
            return await events_of(session, "hi")

    events = run(scenario())

    assert events == [RunFailed("the provider answered HTTP 401: Incorrect API key provided: ***")]
    _assert_key_never_logged(caplog)


def test_error_inside_the_stream_fails_with_its_message(workspace: Path) -> None:
    async def scenario() -> list[ProviderEvent]:
        async with FakeOpenAI([Stream([text_chunk("Hi"), {"error": {"message": "overloaded"}}])]) as fake:
            return await _stream(OpenAICompatibleProvider(fake.base_url, "m", None), _request(workspace))

    with pytest.raises(ProviderError, match="the provider reported an error: overloaded"):
        run(scenario())


def test_unreachable_provider_is_a_provider_error(workspace: Path) -> None:
    async def scenario() -> None:
        async with FakeOpenAI([]) as fake:
            url = fake.base_url
        await _stream(OpenAICompatibleProvider(url, "m", KEY), _request(workspace))  # the server is gone

    with pytest.raises(ProviderError, match=r"the request to the provider failed \(ConnectError\)"):
        run(scenario())


def test_unparsable_tool_arguments_become_an_arguments_error(workspace: Path) -> None:
    async def scenario() -> list[ProviderEvent]:
        async with FakeOpenAI([Stream(tool_chunks("call_9", "read_file", '{"path": '))]) as fake:
            return await _stream(OpenAICompatibleProvider(fake.base_url, "m", None), _request(workspace))

    events = run(scenario())

    assert events == [ToolCall("call_9", "read_file", {}, "the tool arguments were not a JSON object")]


def test_abort_stops_a_stalled_stream_promptly(workspace: Path) -> None:
    async def scenario() -> tuple[list[Any], float]:
        stalling = Stream([text_chunk("Thinking"), text_chunk("never sent")], stall=True)
        async with FakeOpenAI([stalling]) as fake:
            session = open_session(workspace, OpenAICompatibleProvider(fake.base_url, "m", KEY))
            events: list[Any] = []
            aborted_at = 0.0
            async for event in session.run("hi"):
                events.append(event)
                if isinstance(event, TextDelta):
                    aborted_at = time.monotonic()
                    session.abort()
            return events, time.monotonic() - aborted_at

    events, took = run(scenario())

    assert events == [TextDelta("Thinking"), Aborted()]
    assert took < 1.0


def test_repr_does_not_show_the_key() -> None:
    assert KEY not in repr(OpenAICompatibleProvider("http://127.0.0.1:1/v1", "m", KEY))


def _assert_key_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    assert caplog.records, "expected some log records (httpx logs each request)"
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in str(record.args)
