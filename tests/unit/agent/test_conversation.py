"""Conversation records and the messages a provider sees."""

from __future__ import annotations

from reference_server.a2a.ports import Prompt
from reference_server.agent.conversation import (
    INTERRUPTED,
    as_written,
    assistant_record,
    provider_messages,
    tool_record,
    user_record,
)
from reference_server.agent.provider import ToolCall


def test_records_become_chat_messages_without_bookkeeping_fields() -> None:
    call = ToolCall("c1", "list_files", {"path": "."})
    records = [{**user_record(Prompt("hi"), "m1"), "ts": "t"}, {**assistant_record("", [call]), "ts": "t"},
               {**tool_record(call, "a.txt", False), "ts": "t"}, assistant_record("done", [])]

    assert provider_messages(records) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "list_files", "arguments": '{"path": "."}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
        {"role": "assistant", "content": "done"},
    ]


def test_tool_call_left_without_a_result_gets_one() -> None:
    # a process that died mid-tool leaves an assistant message whose call has no result
    one, two = ToolCall("c1", "read_file", {}), ToolCall("c2", "list_files", {})
    records = [user_record(Prompt("hi"), None), assistant_record("", [one, two]), tool_record(one, "x", False),
               user_record(Prompt("again"), None)]

    messages = provider_messages(records)

    assert messages[3] == {"role": "tool", "tool_call_id": "c2", "content": INTERRUPTED}
    assert messages[4] == {"role": "user", "content": "again"}
    assert provider_messages(records[:2])[2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": INTERRUPTED},
        {"role": "tool", "tool_call_id": "c2", "content": INTERRUPTED},
    ]


def test_a_prompts_preamble_stays_beside_its_text_and_is_one_content_once_written() -> None:
    text = "x" * 1000
    record = user_record(Prompt(text, "[A2A message from \"bot\" ...]"), "m1")
    assert record["content"] is text  # the caller's own string, not a copy
    assert provider_messages([record]) == [{"role": "user", "content": text, "preamble": record["preamble"]}]
    assert as_written(record) == {"role": "user", "content": f"{record['preamble']}\n\n{text}", "messageId": "m1"}
    assert as_written(user_record(Prompt("plain"), None)) == {"role": "user", "content": "plain"}
