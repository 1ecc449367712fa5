"""Tests for reference_server.codecs.v03_rest: ProtoJSON of the A2A 0.3 proto, decoded to and encoded from the model.

Every encoding is parsed strictly (unknown fields are errors) against the 0.3 proto as the official SDK compiles it
(`a2a.compat.v0_3.a2a_v0_3_pb2`) and validated against the schema generated from the 0.3 proto, so a misspelt
field name fails here, not at a client.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from a2a.compat.v0_3 import a2a_v0_3_pb2 as pb
from google.protobuf.json_format import MessageToDict, ParseDict
from google.protobuf.message import Message as ProtoMessage

from reference_server.a2a.broadcast import ends_subscription
from reference_server.bindings.card import CardDetails, build_card
from reference_server.codecs import v03_rest
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
from reference_server.settings import Settings

STAMP = datetime(2026, 11, 30, 2, 6, 33, 726000, tzinfo=UTC)


def violations(decode: Callable[[Any], Any], params: Any) -> dict[str, str]:
    with pytest.raises(InvalidParams) as caught:
        decode(params)
    return {v.field: v.description for v in caught.value.violations}


def strict(payload: dict[str, Any], proto: type[ProtoMessage]) -> ProtoMessage:
    """Parse as the 0.3 proto with unknown fields refused, and validate against spec/schemas/a2a-v0.3-proto.json."""
    assert_valid(payload, "urn:a2a:v0.3-proto#/$defs/" + proto.DESCRIPTOR.name)
    return ParseDict(payload, proto(), ignore_unknown_fields=False)


def send(*parts: Any, **config: Any) -> dict[str, Any]:
    return {"message": {"messageId": "m1", "role": "ROLE_USER", "content": list(parts)}, "configuration": config}


# --- decoding: what the SDKs send (REAL-CLIENTS §4.5)


def test_python_sdk_body() -> None:
    body = {"request": {"message_id": "4d0d", "role": "ROLE_USER", "content": [{"text": "hello"}]},
            "configuration": {"blocking": True}}
    request = v03_rest.decode_send_request(body)
    assert request.message == Message("4d0d", Role.USER, [Part(text="hello")])
    assert request.configuration.return_immediately is False


def test_js_sdk_body() -> None:
    body = {"message": {"messageId": "ff74", "role": "ROLE_USER", "content": [{"text": "hello"}]},
            "configuration": {"blocking": True}}
    request = v03_rest.decode_send_request(body)
    assert request.message == Message("ff74", Role.USER, [Part(text="hello")])
    assert request.configuration.return_immediately is False


def test_a_body_the_sdk_proto_writes() -> None:
    proto = pb.SendMessageRequest(
        request=pb.Message(
            message_id="m1", context_id="c1", task_id="t1", role=pb.ROLE_USER, extensions=["urn:x"],
            content=[
                pb.Part(text="t"),
                pb.Part(file=pb.FilePart(file_with_bytes=b"\x00\xffbin", mime_type="application/x", name="b.bin")),
                pb.Part(file=pb.FilePart(file_with_uri="https://x/doc.pdf")),
                pb.Part(data=pb.DataPart(data={"k": 1})),
            ],
        ),
        configuration=pb.SendMessageConfiguration(
            accepted_output_modes=["text/plain"], history_length=2, blocking=True,
            push_notification=pb.PushNotificationConfig(
                id="p1", url="https://hook", token="tok",
                authentication=pb.AuthenticationInfo(schemes=["Bearer", "Basic"], credentials="secret"),
            ),
        ),
        metadata={"top": 1},
    )
    for names in (True, False):  # the proto field names (as the Python SDK sends) and the json names
        request = v03_rest.decode_send_request(MessageToDict(proto, preserving_proto_field_name=names))
        assert request.message == Message(
            "m1", Role.USER,
            [Part(text="t"), Part(raw=b"\x00\xffbin", filename="b.bin", media_type="application/x"),
             Part(url="https://x/doc.pdf"), Part.of_data({"k": 1})],
            context_id="c1", task_id="t1", extensions=["urn:x"],
        )
        configuration = request.configuration
        assert configuration.accepted_output_modes == ["text/plain"]
        assert configuration.history_length == 2 and configuration.return_immediately is False
        assert configuration.push_config == PushConfig(
            url="https://hook", id="p1", token="tok", authentication=AuthenticationInfo("Bearer", "secret"),
            a2a_version="0.3")
        assert request.metadata == {"top": 1}


@pytest.mark.parametrize(("body", "return_immediately"), [
    ({}, False),  # no configuration: blocking, as in 1.0
    ({"configuration": {}}, True),  # ProtoJSON leaves out `blocking: false`: what both SDKs send to not block
    ({"configuration": {"blocking": False}}, True),
    ({"configuration": {"blocking": True}}, False),
])
def test_blocking(body: dict[str, Any], return_immediately: bool) -> None:
    body = {"message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "x"}]}, **body}
    assert v03_rest.decode_send_request(body).configuration.return_immediately is return_immediately


def test_history_length_zero_means_unlimited() -> None:
    # 0.3 proto SendMessageConfiguration: "if 0, the history will be unlimited"
    assert v03_rest.decode_send_request(send({"text": "x"}, historyLength=0)).configuration.history_length is None
    assert v03_rest.decode_get_task({"id": "t1", "historyLength": "0"}) == ("t1", None)
    assert v03_rest.decode_get_task({"id": "t1", "historyLength": "3"}) == ("t1", 3)
    assert violations(v03_rest.decode_get_task, {"historyLength": "-1"}) == {
        "id": "is required", "historyLength": "must not be negative"}


def test_role_by_number_and_an_empty_data_part() -> None:
    body = {"message": {"messageId": "m1", "role": 1, "content": [{"data": {}}]}}
    message = v03_rest.decode_send_request(body).message
    assert message.role is Role.USER and message.parts == [Part.of_data({})]


# --- decoding: what is refused, with hints


def test_a_1_0_message_gets_a_hint_to_send_the_version() -> None:
    body = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}, "configuration": {}}
    reason = violations(v03_rest.decode_send_request, body)["message.content"]
    assert reason.startswith("is required: `parts` is the A2A 1.0 name")
    assert "send the header A2A-Version: 1.0" in reason


def test_request_and_message_together() -> None:
    message = {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "x"}]}
    assert violations(v03_rest.decode_send_request, {"message": message, "request": message}) == {
        "message": "is given twice, as message and as request; send one"}
    assert violations(v03_rest.decode_send_request, {}) == {"message": "is required"}


def test_part_violations() -> None:
    body = send(
        {"text": "a", "data": {}},
        {"raw": "AA=="},
        {"metadata": {}},
        {"file": {"fileWithBytes": "AA==", "fileWithUri": "https://x"}},
        {"file": {"bytes": "AA==", "name": "x.bin"}},
        {"file": {"fileWithBytes": "%%"}},
        {"data": {"k": 1}},
        {"data": [1]},
        blocking="no",
    )
    body["message"]["role"] = "user"
    assert violations(v03_rest.decode_send_request, body) == {
        "message.role": "must be one of ROLE_USER, ROLE_AGENT",
        "message.content[0]": "must have exactly one of text, file, data (found: text, data)",
        "message.content[1]": ("must have exactly one of text, file, data: raw and url are A2A 1.0 members, so for "
                               "A2A 1.0 send the header A2A-Version: 1.0 (a missing A2A-Version header means 0.3)"),
        "message.content[2]": "must have exactly one of text, file, data",
        "message.content[3].file": "must have exactly one of fileWithBytes, fileWithUri (found: both)",
        "message.content[4].file": ("must have exactly one of fileWithBytes, fileWithUri "
                                    "(bytes and uri are the 0.3 JSON-RPC names)"),
        "message.content[5].file.fileWithBytes": "is not valid base64",
        "message.content[6].data.data": ('is required: a 0.3 data part holds its object one level down, '
                                         '{"data": {"data": {...}}}'),
        "message.content[7].data": "must be an object",
        "configuration.blocking": "must be true or false",
    }


def test_field_path_in_0_3_terms() -> None:
    assert v03_rest.field_path("message.parts[2].raw") == "message.content[2].file.fileWithBytes"
    assert v03_rest.field_path("message.parts[0].url") == "message.content[0].file.fileWithUri"
    assert v03_rest.field_path("message.parts[1]") == "message.content[1]"
    assert v03_rest.field_path("message.contextId") == "message.contextId"


HOOK = {"url": "https://push.test/notify", "token": "tok"}


def test_push_config_create_as_the_python_sdk_sends_it() -> None:
    """The whole CreateTaskPushNotificationConfigRequest, with the task id of the path."""
    body = {"taskId": "t1", "parent": "tasks/t1", "configId": "hook-1",
            "config": {"name": "tasks/t1/pushNotificationConfigs/hook-1", "pushNotificationConfig": HOOK}}
    assert v03_rest.decode_create_push_config(body) == PushConfig(
        url=HOOK["url"], id="hook-1", token="tok", task_id="t1", a2a_version="0.3")


def test_push_config_create_as_the_js_sdk_sends_it() -> None:
    """The proto's HTTP rule `body: "config"`: the body is the TaskPushNotificationConfig itself."""
    body = {"taskId": "t1", "name": "tasks/t1/pushNotificationConfigs/", "pushNotificationConfig": HOOK}
    assert v03_rest.decode_create_push_config(body) == PushConfig(
        url=HOOK["url"], id=None, token="tok", task_id="t1", a2a_version="0.3")


def test_push_config_create_without_a_config() -> None:
    assert violations(v03_rest.decode_create_push_config, {"taskId": "t1"}) == {"config": "is required"}


def test_an_empty_authentication_is_no_authentication() -> None:
    # the 0.3 proto does not mark AuthenticationInfo.schemes required; proto3 writers send an unset message as {}
    body = {"taskId": "t1", "pushNotificationConfig": {**HOOK, "authentication": {}}}
    assert v03_rest.decode_create_push_config(body).authentication is None
    sent = send({"text": "x"}, pushNotification={**HOOK, "authentication": {"schemes": []}})
    push = v03_rest.decode_send_request(sent).configuration.push_config
    assert push is not None and push.authentication is None


def test_credentials_need_a_scheme() -> None:
    body = {"taskId": "t1", "pushNotificationConfig": {**HOOK, "authentication": {"credentials": "secret"}}}
    assert violations(v03_rest.decode_create_push_config, body) == {
        "pushNotificationConfig.authentication.schemes":
            'is required with credentials: name the scheme they are sent with, e.g. ["Bearer"]'}
    body["pushNotificationConfig"]["authentication"]["schemes"] = ["Basic"]
    assert v03_rest.decode_create_push_config(body).authentication == AuthenticationInfo("Basic", "secret")


# --- encoding


def sample_task() -> Task:
    agent = Message("m2", Role.AGENT, [Part.of_text("which?")], context_id="c1", task_id="t1",
                    reference_task_ids=["t0"])
    return Task(
        id="t1",
        context_id="c1",
        status=TaskStatus(TaskState.INPUT_REQUIRED, message=agent, timestamp=STAMP),
        artifacts=[Artifact("a1", [
            Part(text="hello", media_type="text/plain", metadata={"m": 1}),
            Part(raw=b"\x00\xff", filename="b.bin", media_type="application/octet-stream"),
            Part(url="https://x/doc.pdf"),
            Part.of_data({"k": 1}),
            Part.of_data([1, 2]),
        ], name="response", description="d", metadata={"a": 1}, extensions=["urn:x"])],
        history=[Message("m1", Role.USER, [Part.of_text("hi")], context_id="c1", task_id="t1")],
        metadata={"t": 1},
    )


def test_task() -> None:
    encoded = v03_rest.encode_task(sample_task())
    strict(encoded, pb.Task)
    assert encoded == {
        "id": "t1",
        "contextId": "c1",
        "status": {
            "state": "TASK_STATE_INPUT_REQUIRED",
            # TaskStatus.update has json_name "message"; the 0.3 proto has no referenceTaskIds
            "message": {"messageId": "m2", "contextId": "c1", "taskId": "t1", "role": "ROLE_AGENT",
                        "content": [{"text": "which?"}]},
            "timestamp": "2026-11-30T02:06:33.726Z",
        },
        "artifacts": [{
            "artifactId": "a1", "name": "response", "description": "d",
            "parts": [
                {"text": "hello", "metadata": {"m": 1}},
                {"file": {"fileWithBytes": "AP8=", "mimeType": "application/octet-stream", "name": "b.bin"}},
                {"file": {"fileWithUri": "https://x/doc.pdf"}},
                {"data": {"data": {"k": 1}}},
                {"data": {"data": {"value": [1, 2]}}},
            ],
            "metadata": {"a": 1}, "extensions": ["urn:x"],
        }],
        "history": [{"messageId": "m1", "contextId": "c1", "taskId": "t1", "role": "ROLE_USER",
                     "content": [{"text": "hi"}]}],
        "metadata": {"t": 1},
    }


@pytest.mark.parametrize(("state", "name"), [
    (TaskState.CANCELED, "TASK_STATE_CANCELLED"),  # the 0.3 proto's spelling
    (TaskState.COMPLETED, "TASK_STATE_COMPLETED"),
    (TaskState.AUTH_REQUIRED, "TASK_STATE_AUTH_REQUIRED"),
])
def test_state_names(state: TaskState, name: str) -> None:
    encoded = v03_rest.encode_task(Task("t1", "c1", TaskStatus(state)))
    assert encoded["status"] == {"state": name}
    assert pb.TaskState.Name(strict(encoded, pb.Task).status.state) == name  # type: ignore[attr-defined]


def test_send_response() -> None:
    task = sample_task()
    assert v03_rest.encode_send_response(task) == {"task": v03_rest.encode_task(task)}
    message = Message("m3", Role.AGENT, [Part.of_text("direct")], context_id="c1")
    encoded = v03_rest.encode_send_response(message)
    # the oneof member is `msg` with json_name "message"
    assert encoded == {"message": {"messageId": "m3", "contextId": "c1", "role": "ROLE_AGENT",
                                   "content": [{"text": "direct"}]}}
    assert strict(encoded, pb.SendMessageResponse).WhichOneof("payload") == "msg"  # type: ignore[attr-defined]


def test_stream_events() -> None:
    working = TaskStatusUpdateEvent("t1", "c1", TaskStatus(TaskState.WORKING, timestamp=STAMP))
    completed = TaskStatusUpdateEvent("t1", "c1", TaskStatus(TaskState.COMPLETED, timestamp=STAMP), {"m": 1})
    first = TaskArtifactUpdateEvent("t1", "c1", Artifact("a1", [Part.of_text("he")], name="response"))
    last = TaskArtifactUpdateEvent("t1", "c1", Artifact("a1", [Part.of_text("llo")]), append=True, last_chunk=True)
    encoded = [v03_rest.encode_stream_event(e) for e in (sample_task(), working, first, last, completed)]
    assert [strict(e, pb.StreamResponse).WhichOneof("payload") for e in encoded] == [  # type: ignore[attr-defined]
        "task", "status_update", "artifact_update", "artifact_update", "status_update"]
    assert encoded[1] == {"statusUpdate": {
        "taskId": "t1", "contextId": "c1",
        "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-11-30T02:06:33.726Z"}, "final": False}}
    assert encoded[2] == {"artifactUpdate": {
        "taskId": "t1", "contextId": "c1", "artifact": {"artifactId": "a1", "name": "response",
                                                        "parts": [{"text": "he"}]}}}
    assert encoded[3]["artifactUpdate"]["append"] is True and encoded[3]["artifactUpdate"]["lastChunk"] is True
    assert encoded[4]["statusUpdate"]["final"] is True and encoded[4]["statusUpdate"]["metadata"] == {"m": 1}
    interrupted = TaskStatusUpdateEvent("t1", "c1", TaskStatus(TaskState.INPUT_REQUIRED))
    assert v03_rest.encode_stream_event(interrupted)["statusUpdate"]["final"] is True  # the send stream ends there
    # a subscription goes on through input-required (A2A §3.1.6): only a terminal state is final there
    assert v03_rest.encode_stream_event(interrupted, ends_subscription)["statusUpdate"]["final"] is False
    assert v03_rest.encode_stream_event(completed, ends_subscription)["statusUpdate"]["final"] is True


def test_agent_card() -> None:
    card = build_card(CardDetails("Desk", "The desk.", [{"id": "chat", "name": "Chat", "description": "Talk.",
                                                          "tags": ["chat"]}]), "https://h", Settings())
    encoded = v03_rest.encode_agent_card(card)
    strict(encoded, pb.AgentCard)
    assert encoded["protocolVersion"] == "0.3.0"
    assert (encoded["url"], encoded["preferredTransport"]) == ("https://h/a2a", "JSONRPC")
    assert encoded["additionalInterfaces"] == [{"url": "https://h/a2a", "transport": "JSONRPC"},
                                               {"url": "https://h/a2a", "transport": "HTTP+JSON"}]
    assert encoded["capabilities"] == {"streaming": True, "pushNotifications": True}
    assert encoded["supportsAuthenticatedExtendedCard"] is True
    assert encoded["securitySchemes"]["apiKey"] == {"apiKeySecurityScheme": {
        "description": "The key the agent's owner gave you, in the X-API-Key header.",
        "location": "header", "name": "X-API-Key"}}
    assert encoded["security"] == [{"schemes": {"apiKey": {"list": []}}}, {"schemes": {"bearer": {"list": []}}}]
    assert encoded["skills"] == card["skills"]
    assert (encoded["name"], encoded["description"], encoded["version"]) == ("Desk", "The desk.", card["version"])
