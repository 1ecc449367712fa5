"""The A2A-session-only tools: request_input and notify_owner (design "Session-only tools")."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from reference_server.a2a.ports import OwnerNotifier
from reference_server.agent.tools import Tool, ToolContext, ToolError, object_schema, string_arg

log = logging.getLogger("reference_server.owner")

QUESTION_SENT = "The question was sent; your turn ends now."
_QUESTION = object_schema({"question": "the question for the external agent"})  # built once, shared
_TEXT = object_schema({"text": "the message for your owner"})


def a2a_tools(
    *, on_request_input: Callable[[str], None], notifier: OwnerNotifier | None, owner_id: str, caller: str
) -> list[Tool]:
    """request_input always; notify_owner only when there is a notifier (design: absent = not registered)."""

    async def request_input(args: dict[str, Any], ctx: ToolContext) -> str:
        on_request_input(string_arg(args, "question"))
        return QUESTION_SENT

    tools = [
        Tool("request_input", "Ask the external agent a question and wait for its answer. Ends your turn.",
             _QUESTION, request_input,
             ends_turn=True),
    ]
    if notifier is not None:
        tools.append(_notify_owner(notifier, owner_id, caller))
    return tools


def _notify_owner(notifier: OwnerNotifier, owner_id: str, caller: str) -> Tool:
    async def notify_owner(args: dict[str, Any], ctx: ToolContext) -> str:
        text = string_arg(args, "text")
        try:
            await notifier.notify(owner_id, caller, text)
        except Exception as error:  # design "Error handling summary": notifier fails -> error result
            reason = str(error) or type(error).__name__
            # the notifier's words (NotifierError) carry no secret; the task goes on either way
            log.warning("notify_owner for owner %s from %s failed: %s", owner_id, caller, reason)
            raise ToolError(reason) from error
        return "delivered"

    return Tool("notify_owner", "Send a short message to your owner.",
                _TEXT, notify_owner)
