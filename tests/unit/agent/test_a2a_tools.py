"""The A2A-session-only tools and the owner notifier."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from reference_server.a2a.events import Sent
from reference_server.agent.a2a_tools import QUESTION_SENT, a2a_tools
from reference_server.agent.notifier import LoggingNotifier, Notification
from reference_server.agent.tools import Tool, ToolContext, ToolError

from .helpers import run


class _NoChannel:
    async def deliver(self, item: Sent) -> None:
        raise AssertionError("no delivery expected")


def _call(tool: Tool, **args: str) -> str:
    return run(tool.execute(args, ToolContext(Path("."), _NoChannel(), "c1")))


def _by_name(tools: list[Tool]) -> dict[str, Tool]:
    return {t.name: t for t in tools}


def test_notify_owner_is_absent_without_a_notifier() -> None:
    tools = _by_name(a2a_tools(on_request_input=lambda q: None, notifier=None, owner_id="o", caller="bot"))

    assert set(tools) == {"request_input"}


def test_request_input_hands_over_the_question_and_ends_the_turn() -> None:
    questions: list[str] = []
    tools = _by_name(a2a_tools(on_request_input=questions.append, notifier=None, owner_id="o", caller="bot"))
    tool = tools["request_input"]

    assert _call(tool, question="Which dates?") == QUESTION_SENT
    assert questions == ["Which dates?"]
    assert tool.ends_turn
    assert tool.description == "Ask the external agent a question and wait for its answer. Ends your turn."


def test_notify_owner_reaches_the_notifier_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    notifier = LoggingNotifier()
    tool = _by_name(a2a_tools(on_request_input=lambda q: None, notifier=notifier, owner_id="42",
                              caller="travel-bot"))["notify_owner"]

    with caplog.at_level(logging.INFO, logger="reference_server.owner"):
        result = _call(tool, text="Flights booked")

    assert result == "delivered"
    assert notifier.sent == [Notification("42", "travel-bot", "Flights booked")]
    assert caplog.records[-1].name == "reference_server.owner"
    assert caplog.records[-1].getMessage() == "owner 42 notified by travel-bot: Flights booked"
    assert tool.description == "Send a short message to your owner."
    assert not tool.ends_turn


def test_failing_notifier_gives_an_error_result() -> None:
    class Broken:
        async def notify(self, owner_id: str, caller: str, text: str) -> None:
            raise ConnectionError("chat unreachable")

    tool = _by_name(a2a_tools(on_request_input=lambda q: None, notifier=Broken(), owner_id="o",
                              caller="bot"))["notify_owner"]

    with pytest.raises(ToolError, match="chat unreachable"):
        _call(tool, text="hello")
