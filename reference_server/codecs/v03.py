"""A2A 0.3 JSON-RPC codec: the 0.3 JSON shapes (`kind` discriminators, lower-case enums) <-> the model."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from reference_server.a2a.broadcast import Ends, ends_send_stream
from reference_server.codecs.fields import Choices, Reader
from reference_server.codecs.output import encode_artifact_with, put
from reference_server.codecs.timestamps import format_timestamp
from reference_server.model.types import (
    Artifact,
    AuthenticationInfo,
    Message,
    Part,
    PushConfig,
    Role,
    SendConfiguration,
    SendRequest,
    StreamEvent,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

# 0.3 JSON Schema: Role and TaskState are lower-case strings ("unknown" has no 1.0 counterpart).
ROLES = Choices({"user": Role.USER, "agent": Role.AGENT})
STATE_NAMES = {
    TaskState.SUBMITTED: "submitted",
    TaskState.WORKING: "working",
    TaskState.INPUT_REQUIRED: "input-required",
    TaskState.COMPLETED: "completed",
    TaskState.CANCELED: "canceled",
    TaskState.FAILED: "failed",
    TaskState.REJECTED: "rejected",
    TaskState.AUTH_REQUIRED: "auth-required",
}
_PART_KINDS = ("text", "file", "data")
_V1_PART_HINT = (
    "is required (this looks like an A2A 1.0 part; send A2A-Version: 1.0 or add kind text/file/data)"
)


# --- request decoders


def decode_send_params(params: Any) -> SendRequest:
    """message/send, message/stream params (0.3 MessageSendParams)."""
    r = Reader.root(params)
    message = _message(r.required_obj("message"))
    configuration = _configuration(r.optional_obj("configuration"))
    metadata = r.optional_struct("metadata")
    r.finish()
    return SendRequest(message=message, configuration=configuration, metadata=metadata)


def _configuration(r: Reader | None) -> SendConfiguration:
    if r is None:
        return SendConfiguration()
    push = r.optional_obj("pushNotificationConfig")
    return SendConfiguration(
        accepted_output_modes=r.str_list("acceptedOutputModes"),
        push_config=push_config(push) if push else None,
        history_length=r.optional_int("historyLength", minimum=0),
        # 0.3 states no default for `blocking`; both SDKs send true, and 1.0 blocks by default
        return_immediately=r.optional_bool("blocking") is False,
    )


def decode_task_query(params: Any) -> tuple[str, int | None]:
    """tasks/get (0.3 TaskQueryParams): (id, historyLength)."""
    r = Reader.root(params)
    query = r.required_str("id"), r.optional_int("historyLength", minimum=0)
    r.finish()
    return query


def decode_task_id_params(params: Any) -> str:
    """tasks/cancel, tasks/resubscribe (0.3 TaskIdParams): the task id."""
    r = Reader.root(params)
    task_id = r.required_str("id")
    r.finish()
    return task_id


def decode_set_push_config(params: Any) -> PushConfig:
    """tasks/pushNotificationConfig/set (0.3 TaskPushNotificationConfig) as one flat 1.0 config."""
    r = Reader.root(params)
    task_id = r.required_str("taskId")
    config = push_config(r.required_obj("pushNotificationConfig"))
    r.finish()
    config.task_id = task_id
    return config


def decode_get_push_config(params: Any) -> tuple[str, str | None]:
    """tasks/pushNotificationConfig/get: (task id, pushNotificationConfigId or None)."""
    r = Reader.root(params)
    ref = r.required_str("id"), r.optional_str("pushNotificationConfigId")
    r.finish()
    return ref


def decode_list_push_config(params: Any) -> str:
    """tasks/pushNotificationConfig/list: the task id."""
    return decode_task_id_params(params)


def decode_delete_push_config(params: Any) -> tuple[str, str]:
    """tasks/pushNotificationConfig/delete: (task id, pushNotificationConfigId)."""
    r = Reader.root(params)
    ref = r.required_str("id"), r.required_str("pushNotificationConfigId")
    r.finish()
    return ref


# --- object decoders


def push_config(r: Reader) -> PushConfig:
    """A 0.3 PushNotificationConfig in the JSON-RPC form (the 0.3 JSON Schema)."""
    return _push_config(r, _authentication)


def proto_push_config(r: Reader) -> PushConfig:
    """The same object in the proto-JSON form of 0.3 HTTP+JSON, whose authentication may be left empty."""
    return _push_config(r, _proto_authentication)


def _push_config(r: Reader, authentication: Callable[[Reader], AuthenticationInfo | None]) -> PushConfig:
    auth = r.optional_obj("authentication")
    return PushConfig(
        url=r.required_str("url"),
        id=r.optional_str("id"),
        token=r.optional_str("token"),
        authentication=authentication(auth) if auth else None,
        a2a_version="0.3",  # its pushes get the 0.3 shape of the task
    )


def _authentication(r: Reader) -> AuthenticationInfo:
    # 0.3 PushNotificationAuthenticationInfo.schemes[] -> 1.0 AuthenticationInfo.scheme: the first one
    schemes = r.str_list("schemes", required=True, non_empty=True)
    return AuthenticationInfo(schemes[0] if schemes else "", r.optional_str("credentials"))


def _proto_authentication(r: Reader) -> AuthenticationInfo | None:
    # 0.3 proto AuthenticationInfo: `repeated string schemes` is not marked required, and proto3 writers leave an
    # all-default message as `{}`; such an empty object says nothing, so it reads as no authentication
    schemes, credentials = r.str_list("schemes"), r.optional_str("credentials")
    if schemes:
        return AuthenticationInfo(schemes[0], credentials)
    if credentials is not None:
        r.fail("schemes", "is required with credentials: name the scheme they are sent with, e.g. [\"Bearer\"]")
    return None


def _message(r: Reader) -> Message:
    kind = r.optional_str("kind")
    if kind is not None and kind != "message":
        r.fail("kind", 'must be "message"')
    return Message(
        message_id=r.required_str("messageId"),
        role=r.required_enum("role", ROLES),
        parts=[_part(item) for item in r.items("parts", required=True, non_empty=True)],
        context_id=r.optional_str("contextId"),
        task_id=r.optional_str("taskId"),
        metadata=r.optional_struct("metadata"),
        extensions=r.str_list("extensions"),
        reference_task_ids=r.str_list("referenceTaskIds"),
    )


def _part(r: Reader) -> Part:
    part = Part(metadata=r.optional_struct("metadata"))
    kind = r.value("kind")
    if kind == "text":
        part.text = r.required_str("text", non_empty=False)
    elif kind == "file":
        _file(r.required_obj("file"), part)
    elif kind == "data":
        data = r.optional_struct("data")  # 0.3 DataPart.data is an object
        if not r.has("data"):
            r.fail("data", "is required")
        part.data, part.has_data = data, True
    elif kind is None:
        hinted = any(r.has(name, null_counts=True) for name in ("text", "raw", "url", "data"))
        r.fail("kind", _V1_PART_HINT if hinted else "is required")
    else:
        r.fail("kind", "must be one of " + ", ".join(_PART_KINDS))
    return part


def _file(r: Reader, part: Part) -> None:
    # 0.3 FilePart.file: FileWithBytes {bytes} | FileWithUri {uri}, both with optional name, mimeType
    found = [name for name in ("bytes", "uri") if r.has(name)]
    if len(found) != 1:
        r.fail_here("must have exactly one of bytes, uri" + (" (found: bytes, uri)" if found else ""))
    elif found == ["bytes"]:
        part.raw = r.required_bytes("bytes")
    else:
        part.url = r.required_str("uri")
    part.filename = r.optional_str("name")
    part.media_type = r.optional_str("mimeType")


# --- encoders


def encode_part(part: Part) -> dict[str, Any]:
    """A 0.3 part; a text or data part's filename/mediaType have no 0.3 field and are dropped."""
    out: dict[str, Any]
    if part.text is not None:
        out = {"kind": "text", "text": part.text}
    elif part.raw is not None or part.url is not None:
        file: dict[str, Any] = {"uri": part.url}
        if part.raw is not None:
            file = {"bytes": base64.b64encode(part.raw).decode("ascii")}
        put(file, "name", part.filename)
        put(file, "mimeType", part.media_type)
        out = {"kind": "file", "file": file}
    else:
        # 0.3 DataPart.data must be an object: wrap any other JSON value
        data = part.data if isinstance(part.data, dict) else {"value": part.data}
        out = {"kind": "data", "data": data}
    put(out, "metadata", part.metadata)
    return out


def encode_message(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "message",
        "messageId": message.message_id,
        "role": "user" if message.role is Role.USER else "agent",
        "parts": [encode_part(part) for part in message.parts],
    }
    put(out, "contextId", message.context_id)
    put(out, "taskId", message.task_id)
    put(out, "metadata", message.metadata)
    put(out, "extensions", message.extensions)
    put(out, "referenceTaskIds", message.reference_task_ids)
    return out


def encode_artifact(artifact: Artifact) -> dict[str, Any]:
    return encode_artifact_with(artifact, encode_part)


def encode_status(status: TaskStatus) -> dict[str, Any]:
    out: dict[str, Any] = {"state": STATE_NAMES[status.state]}
    if status.message is not None:
        out["message"] = encode_message(status.message)
    if status.timestamp is not None:
        out["timestamp"] = format_timestamp(status.timestamp)
    return out


def encode_task(task: Task, *, history_length: int | None = None) -> dict[str, Any]:
    """A 0.3 Task (`kind: "task"`; `contextId` is required in 0.3, so always present)."""
    history = task.history
    if history_length is not None:  # A2A §3.2.4 semantics, as in 1.0
        history = history[-history_length:] if history_length > 0 else []
    out: dict[str, Any] = {
        "kind": "task",
        "id": task.id,
        "contextId": task.context_id,
        "status": encode_status(task.status),
    }
    put(out, "artifacts", [encode_artifact(artifact) for artifact in task.artifacts])
    put(out, "history", [encode_message(message) for message in history])
    put(out, "metadata", task.metadata)
    return out


def encode_stream_event(event: StreamEvent, ends: Ends = ends_send_stream) -> dict[str, Any]:
    """A 0.3 stream result: the Task or Message itself, or an event discriminated by `kind`; ends is the rule of
    the stream it travels in (a send stream's or a subscription's), which says whether a status update is final."""
    if isinstance(event, Task):
        return encode_task(event)
    if isinstance(event, Message):
        return encode_message(event)
    if isinstance(event, TaskStatusUpdateEvent):
        return _status_update(event, ends)
    return _artifact_update(event)


def _status_update(event: TaskStatusUpdateEvent, ends: Ends) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "status-update",
        "taskId": event.task_id,
        "contextId": event.context_id,
        "status": encode_status(event.status),
        "final": ends(event.status.state),  # 0.3: the last event of the stream says final
    }
    put(out, "metadata", event.metadata)
    return out


def _artifact_update(event: TaskArtifactUpdateEvent) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "artifact-update",
        "taskId": event.task_id,
        "contextId": event.context_id,
        "artifact": encode_artifact(event.artifact),
        "append": event.append,
        "lastChunk": event.last_chunk,
    }
    put(out, "metadata", event.metadata)
    return out


def encode_send_result(
    task_or_message: Task | Message, *, history_length: int | None = None
) -> dict[str, Any]:
    """message/send result: the Task or Message object itself."""
    if isinstance(task_or_message, Message):
        return encode_message(task_or_message)
    return encode_task(task_or_message, history_length=history_length)


def encode_push_config(config: PushConfig) -> dict[str, Any]:
    """0.3 TaskPushNotificationConfig: `{taskId, pushNotificationConfig: {id, url, token, ...}}`."""
    inner: dict[str, Any] = {}
    put(inner, "id", config.id)
    inner["url"] = config.url
    put(inner, "token", config.token)
    if config.authentication is not None:
        auth: dict[str, Any] = {"schemes": [config.authentication.scheme]}
        put(auth, "credentials", config.authentication.credentials)
        inner["authentication"] = auth
    return {"taskId": config.task_id or "", "pushNotificationConfig": inner}


def encode_push_config_list(configs: list[PushConfig]) -> list[dict[str, Any]]:
    """tasks/pushNotificationConfig/list result: a bare array."""
    return [encode_push_config(config) for config in configs]


_FIELD_NAMES_V03 = ((".raw", ".file.bytes"), (".url", ".file.uri"), (".filename", ".file.name"),
                    (".mediaType", ".file.mimeType"))


def field_path(path: str) -> str:
    """A field path the domain wrote in 1.0 terms (`message.parts[0].raw`), in 0.3 terms."""
    if path.startswith("configuration.taskPushNotificationConfig."):
        return path.replace("taskPushNotificationConfig", "pushNotificationConfig", 1)
    for old, new in _FIELD_NAMES_V03:
        if path.endswith(old) and "parts[" in path:
            return path[: -len(old)] + new
    return path
