"""Tests for reference_server.codecs.v1: A2A 1.0 ProtoJSON decoding (with field violations) and encoding."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from reference_server.codecs import v1
from reference_server.conformance.support.schemas import assert_valid
from reference_server.model.errors import InvalidParams
from reference_server.model.types import (
    Artifact,
    AuthenticationInfo,
    ListTasksQuery,
    Message,
    Part,
    PushConfig,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskPage,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

V1 = "urn:a2a:v1#/$defs/"
STAMP = datetime(2026, 11, 30, 2, 6, 33, 726000, tzinfo=UTC)


def violations(decode: Callable[..., Any], params: Any, **kwargs: Any) -> dict[str, str]:
    """field -> reason for every violation decode reports (it must raise InvalidParams)."""
    with pytest.raises(InvalidParams) as caught:
        decode(params, **kwargs)
    return {v.field: v.description for v in caught.value.violations}


def send(*parts: Any, **message: Any) -> dict[str, Any]:
    return {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": list(parts), **message}}


def user_message(text: str, message_id: str = "m1") -> Message:
    return Message(message_id=message_id, role=Role.USER, parts=[Part.of_text(text)], context_id="c1")


def full_task() -> Task:
    agent = Message("m2", Role.AGENT, [Part.of_text("ok")], context_id="c1", task_id="t1")
    return Task(
        id="t1",
        context_id="c1",
        status=TaskStatus(TaskState.COMPLETED, message=agent, timestamp=STAMP),
        artifacts=[
            Artifact(
                "a1",
                [
                    Part(text="hello", media_type="text/plain"),
                    Part(raw=b"\x00\xffbin", filename="b.bin", media_type="application/octet-stream"),
                    Part(url="https://x/doc.pdf", metadata={"k": 1}),
                    Part.of_data(None),
                    Part.of_data({"k": [1, 2]}, media_type="application/json"),
                ],
                name="echo",
                description="d",
                metadata={"m": True},
                extensions=["urn:x"],
            )
        ],
        history=[user_message("one", "h1"), user_message("two", "h2"), user_message("three", "h3")],
        metadata={"owner": "me"},
    )


# --- SendMessage


def test_send_request_as_real_clients_send_it() -> None:
    # REAL-CLIENTS §4.1
    params = {
        "message": {"messageId": "586c", "role": "ROLE_USER", "parts": [{"text": "hello"}]},
        "configuration": {},
    }
    request = v1.decode_send_request(params)
    assert request.message == Message("586c", Role.USER, [Part(text="hello")])
    assert request.configuration.return_immediately is False
    assert request.configuration.push_config is None
    assert request.metadata is None


def test_send_request_reads_every_field() -> None:
    params = send(
        {"text": "t", "metadata": {"a": 1}},
        {"raw": "AP9iaW4=", "filename": "b.bin", "mediaType": "application/octet-stream"},
        {"url": "https://x/doc.pdf"},
        {"data": None},
        {"data": [1, "two"]},
        contextId="c1",
        taskId="t1",
        metadata={"x": 1},
        extensions=["urn:e"],
        referenceTaskIds=["t0"],
    )
    params["configuration"] = {
        "acceptedOutputModes": ["text/plain"],
        "taskPushNotificationConfig": {
            "url": "https://hook",
            "token": "tok",
            "authentication": {"scheme": "Bearer", "credentials": "secret"},
        },
        "historyLength": 3,
        "returnImmediately": True,
    }
    params["metadata"] = {"top": True}
    params["tenant"] = "ignored"
    request = v1.decode_send_request(params)
    message = request.message
    assert [p.kind for p in message.parts] == ["text", "raw", "url", "data", "data"]
    assert message.parts[0].metadata == {"a": 1}
    assert message.parts[1] == Part(
        raw=b"\x00\xffbin", filename="b.bin", media_type="application/octet-stream"
    )
    assert message.parts[3].has_data and message.parts[3].data is None
    assert message.parts[4].data == [1, "two"]
    assert (message.context_id, message.task_id, message.metadata) == ("c1", "t1", {"x": 1})
    assert (message.extensions, message.reference_task_ids) == (["urn:e"], ["t0"])
    config = request.configuration
    assert config.accepted_output_modes == ["text/plain"]
    assert config.push_config == PushConfig(
        url="https://hook", token="tok", authentication=AuthenticationInfo("Bearer", "secret")
    )
    assert (config.history_length, config.return_immediately) == (3, True)
    assert request.metadata == {"top": True}


def test_send_request_accepts_protojson_alternatives() -> None:
    # snake_case proto names, enum numbers, int32 as a decimal string, url-safe unpadded base64
    params = {
        "message": {"message_id": "m1", "role": 1, "parts": [{"raw": "AP9i", "media_type": "x/y"}]},
        "configuration": {"history_length": "2", "return_immediately": True},
    }
    request = v1.decode_send_request(params)
    assert request.message.message_id == "m1"
    assert request.message.role is Role.USER
    assert request.message.parts[0] == Part(raw=b"\x00\xffb", media_type="x/y")
    assert request.configuration.history_length == 2
    assert request.configuration.return_immediately is True
    assert v1.decode_send_request(send({"raw": "_-8"})).message.parts[0].raw == b"\xff\xef"


def test_send_request_ignores_unknown_fields() -> None:
    params = send({"text": "hi", "extra": 1}, unknown="x")
    params["future"] = {"a": 1}
    assert v1.decode_send_request(params).message.parts == [Part(text="hi")]


def test_missing_message() -> None:
    assert violations(v1.decode_send_request, {"configuration": {}}) == {"message": "is required"}


@pytest.mark.parametrize("params", [[], "x", 3])
def test_params_must_be_an_object(params: Any) -> None:
    assert violations(v1.decode_send_request, params) == {"params": "must be an object"}


def test_message_must_be_an_object() -> None:
    assert violations(v1.decode_send_request, {"message": "hello"}) == {"message": "must be an object"}


def test_empty_parts() -> None:
    assert violations(v1.decode_send_request, send()) == {"message.parts": "must not be empty"}


def test_missing_message_fields() -> None:
    assert violations(v1.decode_send_request, {"message": {}}) == {
        "message.messageId": "is required",
        "message.role": "is required",
        "message.parts": "is required",
    }


def test_a_part_with_two_members() -> None:
    assert violations(v1.decode_send_request, send({"text": "a"}, {"text": "b", "url": "u"})) == {
        "message.parts[1]": "must have exactly one of text, raw, url, data (found: text, url)"
    }


def test_a_part_with_no_member() -> None:
    assert violations(v1.decode_send_request, send({"mediaType": "text/plain"})) == {
        "message.parts[0]": "must have exactly one of text, raw, url, data"
    }


def test_a_part_with_a_null_member_has_no_content() -> None:
    assert violations(v1.decode_send_request, send({"text": None})) == {
        "message.parts[0]": "must have exactly one of text, raw, url, data"
    }


@pytest.mark.parametrize(
    "part",
    [
        {"kind": "file", "file": {"uri": "https://x"}},
        {"kind": "data", "dat": {}},
        {"file": {"bytes": "AA=="}},
    ],
)
def test_a_03_part_gets_a_hint(part: dict[str, Any]) -> None:
    assert violations(v1.decode_send_request, send(part)) == {
        "message.parts[0]": "looks like an A2A 0.3 part; send A2A-Version: 0.3 or use text/raw/url/data"
    }


def test_a_03_text_part_reads_as_text() -> None:
    # `text` is a 1.0 member too, and unknown fields (`kind`) are ignored (A2A §5.7)
    part = v1.decode_send_request(send({"kind": "text", "text": "hi"})).message.parts[0]
    assert part == Part(text="hi")


@pytest.mark.parametrize("raw", ["not base64!", "A", "AAAAA"])
def test_bad_base64(raw: str) -> None:
    assert violations(v1.decode_send_request, send({"raw": raw})) == {
        "message.parts[0].raw": "is not valid base64"
    }


def test_wrong_types_are_all_reported_together() -> None:
    params = {
        "message": {
            "messageId": 7,
            "role": "user",
            "parts": [{"text": 1}, "x", {"url": ""}, {"data": 1, "metadata": []}],
            "contextId": 5,
            "extensions": ["ok", 2],
            "referenceTaskIds": "t0",
        },
        "configuration": {
            "acceptedOutputModes": "text/plain",
            "historyLength": -1,
            "returnImmediately": "yes",
            "taskPushNotificationConfig": {"authentication": {}},
        },
        "metadata": "m",
    }
    assert violations(v1.decode_send_request, params) == {
        "message.messageId": "must be a string",
        "message.role": "must be one of ROLE_USER, ROLE_AGENT",
        "message.parts[0].text": "must be a string",
        "message.parts[1]": "must be an object",
        "message.parts[2].url": "must not be empty",
        "message.parts[3].metadata": "must be an object",
        "message.contextId": "must be a string",
        "message.extensions[1]": "must be a string",
        "message.referenceTaskIds": "must be a list of strings",
        "configuration.acceptedOutputModes": "must be a list of strings",
        "configuration.taskPushNotificationConfig.url": "is required",
        "configuration.taskPushNotificationConfig.authentication.scheme": "is required",
        "configuration.historyLength": "must not be negative",
        "configuration.returnImmediately": "must be true or false",
        "metadata": "must be an object",
    }


def test_the_error_message_names_the_first_violation() -> None:
    with pytest.raises(InvalidParams) as caught:
        v1.decode_send_request({"message": {}})
    assert caught.value.message == "Invalid parameters: message.messageId: is required (and 2 more)"


@pytest.mark.parametrize("role", ["ROLE_UNSPECIFIED", 0, "0", 9, "ROLE_SYSTEM", True])
def test_unspecified_or_unknown_role(role: Any) -> None:
    assert violations(v1.decode_send_request, send({"text": "x"}, role=role)) == {
        "message.role": "must be one of ROLE_USER, ROLE_AGENT"
    }


def test_empty_message_id() -> None:
    assert violations(v1.decode_send_request, send({"text": "x"}, messageId="")) == {
        "message.messageId": "must not be empty"
    }


def test_empty_text_is_content() -> None:
    assert v1.decode_send_request(send({"text": ""})).message.parts == [Part(text="")]


def test_history_length_out_of_int32() -> None:
    params = {**send({"text": "x"}), "configuration": {"historyLength": 2**31}}
    assert violations(v1.decode_send_request, params) == {
        "configuration.historyLength": "must be a 32-bit integer"
    }


# --- GetTask, CancelTask, SubscribeToTask


def test_get_task() -> None:
    assert v1.decode_get_task({"id": "t1"}) == ("t1", None)
    assert v1.decode_get_task({"id": "t1", "historyLength": 0}) == ("t1", 0)
    assert v1.decode_get_task({"id": "t1", "history_length": "4"}) == ("t1", 4)


def test_get_task_violations() -> None:
    assert violations(v1.decode_get_task, {"historyLength": -2}) == {
        "id": "is required",
        "historyLength": "must not be negative",
    }
    assert violations(v1.decode_get_task, {"id": "t1", "historyLength": 1.5}) == {
        "historyLength": "must be an integer"
    }
    assert violations(v1.decode_get_task, None) == {"id": "is required"}


def test_get_task_from_a_query_string() -> None:
    assert v1.decode_get_task({"id": "t1", "historyLength": "10"}, query=True) == ("t1", 10)
    assert v1.decode_get_task({"id": "t1", "historyLength": ["10"]}, query=True) == ("t1", 10)
    assert violations(v1.decode_get_task, {"id": "t1", "historyLength": "ten"}, query=True) == {
        "historyLength": "must be an integer"
    }
    assert violations(v1.decode_get_task, {"id": "t1", "historyLength": ["1", "2"]}, query=True) == {
        "historyLength": "must be given once"
    }


def test_task_id() -> None:
    assert v1.decode_task_id({"id": "t1", "metadata": {}}) == "t1"
    assert v1.decode_task_id({"taskId": "t2"}, field="taskId") == "t2"
    assert violations(v1.decode_task_id, {"id": ""}) == {"id": "must not be empty"}
    assert violations(v1.decode_task_id, {}) == {"id": "is required"}


# --- ListTasks


def test_list_tasks() -> None:
    query = v1.decode_list_tasks(
        {
            "contextId": "c1",
            "status": "TASK_STATE_WORKING",
            "pageSize": 50,
            "pageToken": "cursor",
            "historyLength": 2,
            "statusTimestampAfter": "2026-11-30T04:06:33+02:00",
            "includeArtifacts": True,
        }
    )
    assert query.context_id == "c1"
    assert query.status is TaskState.WORKING
    assert (query.page_size, query.page_token, query.history_length) == (50, "cursor", 2)
    assert query.status_timestamp_after == datetime(2026, 11, 30, 2, 6, 33, tzinfo=UTC)
    assert query.include_artifacts is True


def test_list_tasks_defaults() -> None:
    query = v1.decode_list_tasks({})
    assert query == ListTasksQuery()
    assert v1.decode_list_tasks({"status": "TASK_STATE_UNSPECIFIED"}).status is None
    assert v1.decode_list_tasks({"status": 6}).status is TaskState.INPUT_REQUIRED


@pytest.mark.parametrize("page_size", [0, 101, -1])
def test_page_size_out_of_range(page_size: int) -> None:
    assert violations(v1.decode_list_tasks, {"pageSize": page_size}) == {
        "pageSize": "must be between 1 and 100"
    }


def test_list_tasks_violations_together() -> None:
    params = {
        "status": "working",
        "statusTimestampAfter": "2026-11-30T02:06:33",
        "historyLength": -1,
        "includeArtifacts": "true",
    }
    found = violations(v1.decode_list_tasks, params)
    assert found == {
        "status": "must be one of " + ", ".join(state.value for state in v1.STATES.names.values()),
        "statusTimestampAfter": "must be an RFC 3339 timestamp with Z or an offset",
        "historyLength": "must not be negative",
        "includeArtifacts": "must be true or false",
    }
    assert found["status"].startswith("must be one of TASK_STATE_SUBMITTED, TASK_STATE_WORKING,")


def test_list_tasks_from_a_query_string() -> None:
    query = v1.decode_list_tasks(
        {
            "pageSize": "10",
            "status": "TASK_STATE_COMPLETED",
            "includeArtifacts": "true",
            "historyLength": "0",
        },
        query=True,
    )
    assert (query.page_size, query.status, query.include_artifacts, query.history_length) == (
        10,
        TaskState.COMPLETED,
        True,
        0,
    )
    assert v1.decode_list_tasks({"includeArtifacts": "false"}, query=True).include_artifacts is False
    assert violations(v1.decode_list_tasks, {"includeArtifacts": "yes", "pageSize": "0"}, query=True) == {
        "includeArtifacts": "must be true or false",
        "pageSize": "must be between 1 and 100",
    }


# --- push notification configs


def test_push_config() -> None:
    config = v1.decode_push_config(
        {"id": "p1", "taskId": "t1", "url": "https://hook", "token": "tok", "tenant": "x"}
    )
    assert config == PushConfig(url="https://hook", id="p1", task_id="t1", token="tok")


def test_push_config_violations() -> None:
    assert violations(v1.decode_push_config, {"url": 3, "authentication": {"scheme": ""}}) == {
        "url": "must be a string",
        "authentication.scheme": "must not be empty",
    }


def test_push_config_ref_and_list() -> None:
    assert v1.decode_push_config_ref({"taskId": "t1", "id": "p1"}) == ("t1", "p1")
    assert violations(v1.decode_push_config_ref, {}) == {"taskId": "is required", "id": "is required"}
    assert v1.decode_push_config_list({"taskId": "t1"}) == ("t1", None, None)
    assert v1.decode_push_config_list({"taskId": "t1", "pageSize": 0, "pageToken": ""}) == ("t1", None, None)
    assert v1.decode_push_config_list({"taskId": "t1", "pageSize": "5", "pageToken": "n"}, query=True) == (
        "t1",
        5,
        "n",
    )
    assert violations(v1.decode_push_config_list, {"pageSize": -1}) == {
        "taskId": "is required",
        "pageSize": "must not be negative",
    }


# --- Task round trip and encoders


def test_task_round_trips() -> None:
    task = full_task()
    encoded = v1.encode_task(task)
    assert v1.decode_task(encoded) == task
    assert_valid(encoded, V1 + "Task")


def test_task_decodes_with_file_envelope_fields() -> None:
    encoded = {**v1.encode_task(full_task()), "caller": "alice", "pushConfigs": []}
    assert v1.decode_task(encoded) == full_task()


def test_encode_task_is_canonical_protojson() -> None:
    encoded = v1.encode_task(full_task())
    assert list(encoded) == ["id", "contextId", "status", "artifacts", "history", "metadata"]
    assert encoded["status"]["state"] == "TASK_STATE_COMPLETED"
    assert encoded["status"]["timestamp"] == "2026-11-30T02:06:33.726Z"
    assert encoded["status"]["message"]["role"] == "ROLE_AGENT"
    assert encoded["artifacts"][0]["parts"] == [
        {"text": "hello", "mediaType": "text/plain"},
        {"raw": "AP9iaW4=", "filename": "b.bin", "mediaType": "application/octet-stream"},
        {"url": "https://x/doc.pdf", "metadata": {"k": 1}},
        {"data": None},
        {"data": {"k": [1, 2]}, "mediaType": "application/json"},
    ]
    assert encoded["history"][0] == {
        "messageId": "h1",
        "contextId": "c1",
        "role": "ROLE_USER",
        "parts": [{"text": "one"}],
    }


def test_encode_task_omits_empty_optional_fields() -> None:
    task = Task(id="t1", context_id="", status=TaskStatus(TaskState.SUBMITTED))
    assert v1.encode_task(task) == {"id": "t1", "status": {"state": "TASK_STATE_SUBMITTED"}}
    assert v1.decode_task(v1.encode_task(task)) == task


@pytest.mark.parametrize(
    ("history_length", "expected"), [(None, ["h1", "h2", "h3"]), (2, ["h2", "h3"]), (5, ["h1", "h2", "h3"])]
)
def test_history_length(history_length: int | None, expected: list[str]) -> None:
    encoded = v1.encode_task(full_task(), history_length=history_length)
    assert [m["messageId"] for m in encoded["history"]] == expected


def test_history_length_zero_omits_history() -> None:
    assert "history" not in v1.encode_task(full_task(), history_length=0)


def test_include_artifacts_false_omits_the_key() -> None:
    encoded = v1.encode_task(full_task(), include_artifacts=False)
    assert "artifacts" not in encoded
    assert_valid(encoded, V1 + "Task")


@pytest.mark.parametrize(
    ("obj", "field", "reason"),
    [
        ({"status": {"state": "TASK_STATE_WORKING"}}, "id", "is required"),
        ({"id": "t1"}, "status", "is required"),
        ({"id": "t1", "status": {"state": "TASK_STATE_UNSPECIFIED"}}, "status.state", "must be one of"),
        ({"id": "t1", "status": {"state": 2, "timestamp": "now"}}, "status.timestamp", "must be an RFC 3339"),
        ({"id": "t1", "status": {"state": 2}, "history": [{}]}, "history[0].messageId", "is required"),
        (
            {"id": "t1", "status": {"state": 2}, "artifacts": [{"parts": []}]},
            "artifacts[0].artifactId",
            "is required",
        ),
    ],
)
def test_malformed_task(obj: dict[str, Any], field: str, reason: str) -> None:
    found = violations(v1.decode_task, obj)
    assert found[field].startswith(reason)


def test_malformed_task_root() -> None:
    assert violations(v1.decode_task, ["t1"]) == {"task": "must be an object"}


def test_encode_message_and_send_response() -> None:
    message = Message(
        "m1",
        Role.AGENT,
        [Part.of_text("hi")],
        context_id="c1",
        task_id="t1",
        metadata={"a": 1},
        extensions=["urn:e"],
        reference_task_ids=["t0"],
    )
    encoded = v1.encode_message(message)
    assert encoded == {
        "messageId": "m1",
        "contextId": "c1",
        "taskId": "t1",
        "role": "ROLE_AGENT",
        "parts": [{"text": "hi"}],
        "metadata": {"a": 1},
        "extensions": ["urn:e"],
        "referenceTaskIds": ["t0"],
    }
    assert v1.encode_send_response(message) == {"message": encoded}
    response = v1.encode_send_response(full_task(), history_length=1)
    assert [m["messageId"] for m in response["task"]["history"]] == ["h3"]
    for payload in (v1.encode_send_response(message), response):
        assert_valid(payload, V1 + "SendMessageResponse")


def test_encode_stream_events() -> None:
    status = TaskStatusUpdateEvent("t1", "c1", TaskStatus(TaskState.WORKING, timestamp=STAMP))
    first = TaskArtifactUpdateEvent("t1", "c1", Artifact("a1", [Part.of_text("hi ")]))
    last = TaskArtifactUpdateEvent(
        "t1", "c1", Artifact("a1", [Part.of_text("re")]), append=True, last_chunk=True
    )
    events = [v1.encode_stream_event(e) for e in (full_task(), user_message("x"), status, first, last)]
    assert [list(e) for e in events] == [
        ["task"],
        ["message"],
        ["statusUpdate"],
        ["artifactUpdate"],
        ["artifactUpdate"],
    ]
    assert events[2] == {
        "statusUpdate": {
            "taskId": "t1",
            "contextId": "c1",
            "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-11-30T02:06:33.726Z"},
        }
    }
    # REAL-CLIENTS §4: append / lastChunk omitted when false; no `final` in 1.0
    assert events[3]["artifactUpdate"] == {
        "taskId": "t1",
        "contextId": "c1",
        "artifact": {"artifactId": "a1", "parts": [{"text": "hi "}]},
    }
    assert (events[4]["artifactUpdate"]["append"], events[4]["artifactUpdate"]["lastChunk"]) == (True, True)
    for event in events:
        assert_valid(event, V1 + "StreamResponse")


def test_encode_task_page() -> None:
    page = TaskPage(
        tasks=[full_task(), Task("t2", "c1", TaskStatus(TaskState.WORKING))],
        next_page_token="",
        page_size=50,
        total_size=2,
    )
    encoded = v1.encode_task_page(page, history_length=0, include_artifacts=False)
    assert (encoded["nextPageToken"], encoded["pageSize"], encoded["totalSize"]) == ("", 50, 2)
    assert all("artifacts" not in task and "history" not in task for task in encoded["tasks"])
    assert_valid(encoded, V1 + "ListTasksResponse")
    with_artifacts = v1.encode_task_page(page, history_length=None, include_artifacts=True)
    assert [len(task["artifacts"]) for task in with_artifacts["tasks"]] == [1, 0]
    assert_valid(with_artifacts, V1 + "ListTasksResponse")


def test_encode_push_config() -> None:
    config = PushConfig(
        url="https://hook",
        id="p1",
        task_id="t1",
        token="tok",
        authentication=AuthenticationInfo("Bearer", "secret"),
    )
    encoded = v1.encode_push_config(config)
    assert encoded == {
        "id": "p1",
        "taskId": "t1",
        "url": "https://hook",
        "token": "tok",
        "authentication": {"scheme": "Bearer", "credentials": "secret"},
    }
    assert v1.decode_push_config(encoded) == config
    assert_valid(encoded, V1 + "TaskPushNotificationConfig")
    listed = v1.encode_push_config_list([config])
    assert listed == {"configs": [encoded], "nextPageToken": ""}
    assert v1.encode_push_config_list([], next_page_token="n") == {"configs": [], "nextPageToken": "n"}
    assert_valid(listed, V1 + "ListTaskPushNotificationConfigsResponse")
