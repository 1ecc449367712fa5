"""Tests for reference_server.codecs.v03: the A2A 0.3 JSON-RPC shapes, decoded to and encoded from the model."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from reference_server.a2a.broadcast import ends_subscription
from reference_server.codecs import v03
from reference_server.conformance.support.schemas import assert_valid
from reference_server.model.errors import InvalidParams
from reference_server.model.types import (
    Artifact,
    AuthenticationInfo,
    Message,
    Part,
    PushConfig,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

V03 = "urn:a2a:v0.3#/definitions/"
STAMP = datetime(2026, 11, 30, 2, 6, 33, 726000, tzinfo=UTC)


def violations(decode: Callable[[Any], Any], params: Any) -> dict[str, str]:
    with pytest.raises(InvalidParams) as caught:
        decode(params)
    return {v.field: v.description for v in caught.value.violations}


def send(*parts: Any, **config: Any) -> dict[str, Any]:
    message = {"kind": "message", "messageId": "m1", "role": "user", "parts": list(parts)}
    return {"message": message, "configuration": config}


# --- decoding


def test_python_sdk_body() -> None:
    # REAL-CLIENTS §4.5, byte for byte
    params = {
        "configuration": {"blocking": True},
        "message": {
            "kind": "message",
            "messageId": "0a70",
            "parts": [{"kind": "text", "text": "hello"}],
            "role": "user",
        },
    }
    request = v03.decode_send_params(params)
    assert request.message == Message("0a70", Role.USER, [Part(text="hello")])
    assert request.configuration.return_immediately is False


def test_js_sdk_body() -> None:
    params = {
        "message": {
            "kind": "message",
            "messageId": "8659",
            "role": "user",
            "parts": [{"kind": "text", "text": "hello"}],
        },
        "configuration": {"blocking": True, "acceptedOutputModes": []},
    }
    request = v03.decode_send_params(params)
    assert request.message.parts == [Part(text="hello")]
    assert request.configuration.accepted_output_modes == []


@pytest.mark.parametrize(("config", "return_immediately"), [({}, False), ({"blocking": False}, True)])
def test_blocking(config: dict[str, Any], return_immediately: bool) -> None:
    request = v03.decode_send_params(send({"kind": "text", "text": "x"}, **config))
    assert request.configuration.return_immediately is return_immediately


def test_every_part_kind_and_field() -> None:
    params = send(
        {"kind": "text", "text": "t", "metadata": {"a": 1}},
        {"kind": "file", "file": {"bytes": "AP9iaW4=", "name": "b.bin", "mimeType": "application/x"}},
        {"kind": "file", "file": {"uri": "https://x/doc.pdf"}},
        {"kind": "data", "data": {"k": 1}},
        historyLength=2,
        pushNotificationConfig={
            "id": "p1",
            "url": "https://hook",
            "token": "tok",
            "authentication": {"schemes": ["Bearer", "Basic"], "credentials": "secret"},
        },
    )
    params["message"].update(contextId="c1", taskId="t1", metadata={"x": 1}, referenceTaskIds=["t0"])
    params["metadata"] = {"top": 1}
    request = v03.decode_send_params(params)
    assert request.message.parts == [
        Part(text="t", metadata={"a": 1}),
        Part(raw=b"\x00\xffbin", filename="b.bin", media_type="application/x"),
        Part(url="https://x/doc.pdf"),
        Part.of_data({"k": 1}),
    ]
    assert (request.message.context_id, request.message.task_id) == ("c1", "t1")
    assert request.message.reference_task_ids == ["t0"]
    assert request.configuration.history_length == 2
    assert request.configuration.push_config == PushConfig(
        url="https://hook", id="p1", token="tok", authentication=AuthenticationInfo("Bearer", "secret"),
        a2a_version="0.3",
    )
    assert request.metadata == {"top": 1}


def test_missing_message() -> None:
    assert violations(v03.decode_send_params, {"configuration": {}}) == {"message": "is required"}


def test_message_violations_together() -> None:
    params = {"message": {"kind": "task", "messageId": "", "role": "ROLE_USER", "parts": []}}
    assert violations(v03.decode_send_params, params) == {
        "message.kind": 'must be "message"',
        "message.messageId": "must not be empty",
        "message.role": "must be one of user, agent",
        "message.parts": "must not be empty",
    }


def test_part_violations() -> None:
    params = send(
        {"kind": "text"},
        {"kind": "file", "file": {"bytes": "AA==", "uri": "https://x"}},
        {"kind": "file", "file": {"bytes": "%%"}},
        {"kind": "file"},
        {"kind": "data", "data": [1]},
        {"kind": "data"},
        {"kind": "image"},
        {"text": "1.0 style"},
        {"mimeType": "text/plain"},
        pushNotificationConfig={"authentication": {"schemes": []}},
        blocking="no",
    )
    assert violations(v03.decode_send_params, params) == {
        "message.parts[0].text": "is required",
        "message.parts[1].file": "must have exactly one of bytes, uri (found: bytes, uri)",
        "message.parts[2].file.bytes": "is not valid base64",
        "message.parts[3].file": "is required",
        "message.parts[4].data": "must be an object",
        "message.parts[5].data": "is required",
        "message.parts[6].kind": "must be one of text, file, data",
        "message.parts[7].kind": (
            "is required (this looks like an A2A 1.0 part; send A2A-Version: 1.0 or add kind text/file/data)"
        ),
        "message.parts[8].kind": "is required",
        "configuration.pushNotificationConfig.url": "is required",
        "configuration.pushNotificationConfig.authentication.schemes": "must not be empty",
        "configuration.blocking": "must be true or false",
    }


def test_push_authentication_schemes_must_be_a_list() -> None:
    params = {"taskId": "t1", "pushNotificationConfig": {"url": "u", "authentication": {"schemes": "Bearer"}}}
    with pytest.raises(InvalidParams) as caught:
        v03.decode_set_push_config(params)
    assert [(v.field, v.description) for v in caught.value.violations] == [
        ("pushNotificationConfig.authentication.schemes", "must be a list of strings")
    ]


def test_message_kind_is_optional_on_input() -> None:
    params = {"message": {"messageId": "m1", "role": "agent", "parts": [{"kind": "text", "text": "x"}]}}
    assert v03.decode_send_params(params).message.role is Role.AGENT


def test_task_and_push_params() -> None:
    assert v03.decode_task_query({"id": "t1", "historyLength": 3, "metadata": {}}) == ("t1", 3)
    assert v03.decode_task_query({"id": "t1"}) == ("t1", None)
    assert violations(v03.decode_task_query, {"historyLength": -1}) == {
        "id": "is required",
        "historyLength": "must not be negative",
    }
    assert v03.decode_task_id_params({"id": "t1"}) == "t1"
    assert violations(v03.decode_task_id_params, {"id": 1}) == {"id": "must be a string"}
    assert v03.decode_get_push_config({"id": "t1"}) == ("t1", None)
    assert v03.decode_get_push_config({"id": "t1", "pushNotificationConfigId": "p1"}) == ("t1", "p1")
    assert v03.decode_list_push_config({"id": "t1"}) == "t1"
    assert v03.decode_delete_push_config({"id": "t1", "pushNotificationConfigId": "p1"}) == ("t1", "p1")
    assert violations(v03.decode_delete_push_config, {"id": "t1"}) == {
        "pushNotificationConfigId": "is required"
    }


def test_set_push_config() -> None:
    params = {
        "taskId": "t1",
        "pushNotificationConfig": {"url": "https://hook", "authentication": {"schemes": ["Bearer"]}},
    }
    assert v03.decode_set_push_config(params) == PushConfig(
        url="https://hook", task_id="t1", authentication=AuthenticationInfo("Bearer"), a2a_version="0.3"
    )
    assert violations(v03.decode_set_push_config, {}) == {
        "taskId": "is required",
        "pushNotificationConfig": "is required",
    }
    assert violations(
        v03.decode_set_push_config,
        {"taskId": "t1", "pushNotificationConfig": {"url": "u", "authentication": {}}},
    ) == {"pushNotificationConfig.authentication.schemes": "is required"}


# --- encoding


def sample_task() -> Task:
    agent = Message("m2", Role.AGENT, [Part.of_text("which?")], context_id="c1", task_id="t1")
    return Task(
        id="t1",
        context_id="c1",
        status=TaskStatus(TaskState.INPUT_REQUIRED, message=agent, timestamp=STAMP),
        artifacts=[
            Artifact(
                "a1",
                [
                    Part(text="hello", media_type="text/plain"),
                    Part(raw=b"\x00\xff", filename="b.bin", media_type="application/octet-stream"),
                    Part(url="https://x/doc.pdf"),
                    Part.of_data({"k": 1}),
                    Part.of_data([1, 2]),
                    Part.of_data(None),
                ],
                name="echo",
            )
        ],
        history=[
            Message("h1", Role.USER, [Part.of_text("one")], context_id="c1", task_id="t1"),
            Message("h2", Role.USER, [Part.of_text("two")], context_id="c1", task_id="t1"),
        ],
    )


def test_encode_task() -> None:
    encoded = v03.encode_task(sample_task())
    assert encoded["kind"] == "task"
    assert encoded["status"]["state"] == "input-required"
    assert encoded["status"]["timestamp"] == "2026-11-30T02:06:33.726Z"
    assert encoded["status"]["message"]["kind"] == "message"
    assert encoded["status"]["message"]["role"] == "agent"
    assert encoded["artifacts"][0]["parts"] == [
        {"kind": "text", "text": "hello"},
        {"kind": "file", "file": {"bytes": "AP8=", "name": "b.bin", "mimeType": "application/octet-stream"}},
        {"kind": "file", "file": {"uri": "https://x/doc.pdf"}},
        {"kind": "data", "data": {"k": 1}},
        {"kind": "data", "data": {"value": [1, 2]}},
        {"kind": "data", "data": {"value": None}},
    ]
    assert encoded["history"][0] == {
        "kind": "message",
        "messageId": "h1",
        "role": "user",
        "parts": [{"kind": "text", "text": "one"}],
        "contextId": "c1",
        "taskId": "t1",
    }
    assert_valid(encoded, V03 + "Task")


@pytest.mark.parametrize(("history_length", "expected"), [(None, ["h1", "h2"]), (1, ["h2"]), (0, None)])
def test_encode_task_history_length(history_length: int | None, expected: list[str] | None) -> None:
    encoded = v03.encode_task(sample_task(), history_length=history_length)
    history = encoded.get("history")
    assert (history and [m["messageId"] for m in history]) == expected


def test_every_state_name() -> None:
    names = [v03.STATE_NAMES[state] for state in TaskState]
    assert sorted(names) == sorted(
        [
            "submitted",
            "working",
            "input-required",
            "completed",
            "canceled",
            "failed",
            "rejected",
            "auth-required",
        ]
    )
    for state in TaskState:
        task = Task("t1", "c1", TaskStatus(state))
        assert_valid(v03.encode_task(task), V03 + "Task")


def test_encode_send_result() -> None:
    message = Message("m1", Role.AGENT, [Part.of_text("hi")], context_id="c1")
    assert v03.encode_send_result(message) == {
        "kind": "message",
        "messageId": "m1",
        "role": "agent",
        "parts": [{"kind": "text", "text": "hi"}],
        "contextId": "c1",
    }
    assert_valid(v03.encode_send_result(message), V03 + "Message")
    assert v03.encode_send_result(sample_task(), history_length=0) == v03.encode_task(
        sample_task(), history_length=0
    )


@pytest.mark.parametrize(
    ("state", "final", "final_in_subscription"),
    [
        (TaskState.WORKING, False, False),
        (TaskState.COMPLETED, True, True),
        (TaskState.FAILED, True, True),
        (TaskState.INPUT_REQUIRED, True, False),  # a subscription goes on through input-required (A2A §3.1.6)
        (TaskState.AUTH_REQUIRED, True, False),
    ],
)
def test_status_update_final(state: TaskState, final: bool, final_in_subscription: bool) -> None:
    event = TaskStatusUpdateEvent("t1", "c1", TaskStatus(state, timestamp=STAMP))
    encoded = v03.encode_stream_event(event)
    assert v03.encode_stream_event(event, ends_subscription)["final"] is final_in_subscription
    assert encoded == {
        "kind": "status-update",
        "taskId": "t1",
        "contextId": "c1",
        "status": {"state": v03.STATE_NAMES[state], "timestamp": "2026-11-30T02:06:33.726Z"},
        "final": final,
    }
    assert_valid(encoded, V03 + "TaskStatusUpdateEvent")


def test_artifact_update_and_other_stream_events() -> None:
    event = TaskArtifactUpdateEvent("t1", "c1", Artifact("a1", [Part.of_text("hi ")]))
    encoded = v03.encode_stream_event(event)
    assert encoded == {
        "kind": "artifact-update",
        "taskId": "t1",
        "contextId": "c1",
        "artifact": {"artifactId": "a1", "parts": [{"kind": "text", "text": "hi "}]},
        "append": False,
        "lastChunk": False,
    }
    assert_valid(encoded, V03 + "TaskArtifactUpdateEvent")
    assert v03.encode_stream_event(sample_task()) == v03.encode_task(sample_task())
    message = Message("m1", Role.AGENT, [Part.of_text("x")], context_id="c1")
    assert v03.encode_stream_event(message) == v03.encode_message(message)


def test_encode_push_config() -> None:
    config = PushConfig(
        url="https://hook",
        id="p1",
        task_id="t1",
        token="tok",
        authentication=AuthenticationInfo("Bearer", "secret"),
        a2a_version="0.3",
    )
    encoded = v03.encode_push_config(config)
    assert encoded == {
        "taskId": "t1",
        "pushNotificationConfig": {
            "id": "p1",
            "url": "https://hook",
            "token": "tok",
            "authentication": {"schemes": ["Bearer"], "credentials": "secret"},
        },
    }
    assert_valid(encoded, V03 + "TaskPushNotificationConfig")
    assert v03.decode_set_push_config(encoded) == config
    assert v03.encode_push_config_list([config, config]) == [encoded, encoded]
    assert v03.encode_push_config_list([]) == []
