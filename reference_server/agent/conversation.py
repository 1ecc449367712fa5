"""Conversation records (OpenAI chat shape) and the messages a provider sees."""

from __future__ import annotations

import json
from typing import Any

from reference_server.a2a.ports import Prompt
from reference_server.agent.provider import ToolCall

INTERRUPTED = "The run ended before this tool call finished."
# a user message's preamble (Prompt.preamble) travels beside its content, in memory and to the provider
_CHAT_KEYS = ("role", "content", "preamble", "tool_calls", "tool_call_id")


def user_record(prompt: Prompt, message_id: str | None) -> dict[str, Any]:
    """The record of a user prompt; messageId when the prompt came from a message that had one."""
    record: dict[str, Any] = {"role": "user", "content": prompt.text}
    if prompt.preamble:
        record["preamble"] = prompt.preamble
    if message_id is not None:
        record["messageId"] = message_id
    return record


def as_written(record: dict[str, Any]) -> dict[str, Any]:
    """A record as its session file holds it: a user prompt's preamble and text are one content there."""
    if "preamble" not in record:
        return record
    written = {k: v for k, v in record.items() if k != "preamble"}
    written["content"] = Prompt(record["content"], record["preamble"]).whole()
    return written


def assistant_record(text: str, calls: list[ToolCall]) -> dict[str, Any]:
    """The record of an assistant message with its tool calls."""
    record: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        record["tool_calls"] = [
            {"id": c.call_id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
            for c in calls
        ]
    return record


def tool_record(call: ToolCall, result: str, is_error: bool) -> dict[str, Any]:
    """The record of a tool call's result."""
    return {"role": "tool", "tool_call_id": call.call_id, "name": call.name, "content": result,
            "is_error": is_error}


def provider_messages(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records in chat shape; a tool call left without a result (a crash mid-tool) gets one."""
    messages: list[dict[str, Any]] = []
    unanswered: list[str] = []
    for record in records:
        if record["role"] != "tool":
            messages += [_interrupted(call_id) for call_id in unanswered]
            unanswered = []
        messages.append({k: record[k] for k in _CHAT_KEYS if k in record})
        if record["role"] == "assistant":
            calls = record.get("tool_calls") or ()
            unanswered = [c["id"] for c in calls if isinstance(c, dict) and "id" in c]
        elif record.get("tool_call_id") in unanswered:
            unanswered.remove(record["tool_call_id"])
    return messages + [_interrupted(call_id) for call_id in unanswered]


def _interrupted(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": INTERRUPTED}
