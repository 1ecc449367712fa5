"""A2A 1.0 ProtoJSON codec: request params to model objects (with field violations), model to JSON."""

from __future__ import annotations

import base64
from typing import Any

from reference_server.codecs.fields import Choices, Reader
from reference_server.codecs.output import encode_artifact_with, put
from reference_server.codecs.timestamps import format_timestamp
from reference_server.model.types import (
    Artifact,
    AuthenticationInfo,
    ListTasksQuery,
    Message,
    Part,
    PushConfig,
    Role,
    SendConfiguration,
    SendRequest,
    StreamEvent,
    Task,
    TaskArtifactUpdateEvent,
    TaskPage,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

# a2a.proto enums: the ProtoJSON names are what we emit; parsers must also accept the numbers.
ROLES = Choices(
    {Role.USER.value: Role.USER, Role.AGENT.value: Role.AGENT},
    {1: Role.USER, 2: Role.AGENT},
    unspecified="ROLE_UNSPECIFIED",
)
_STATE_NUMBERS = {
    TaskState.SUBMITTED: 1,
    TaskState.WORKING: 2,
    TaskState.COMPLETED: 3,
    TaskState.FAILED: 4,
    TaskState.CANCELED: 5,
    TaskState.INPUT_REQUIRED: 6,
    TaskState.REJECTED: 7,
    TaskState.AUTH_REQUIRED: 8,
}
STATES = Choices(
    {state.value: state for state in _STATE_NUMBERS},
    {number: state for state, number in _STATE_NUMBERS.items()},
    unspecified="TASK_STATE_UNSPECIFIED",
)

_CONTENT = ("text", "raw", "url", "data")  # a2a.proto Part oneof content
_V03_PART_HINT = "looks like an A2A 0.3 part; send A2A-Version: 0.3 or use text/raw/url/data"


# --- request decoders (paths are relative to params)


def decode_send_request(params: Any) -> SendRequest:
    """SendMessage / SendStreamingMessage params (a2a.proto SendMessageRequest; `tenant` is ignored)."""
    r = Reader.root(params)
    message = _message(r.required_obj("message"))
    configuration = _configuration(r.optional_obj("configuration"))
    metadata = r.optional_struct("metadata")
    r.finish()
    return SendRequest(message=message, configuration=configuration, metadata=metadata)


def _configuration(r: Reader | None) -> SendConfiguration:
    if r is None:
        return SendConfiguration()
    push = r.optional_obj("taskPushNotificationConfig")
    return SendConfiguration(
        accepted_output_modes=r.str_list("acceptedOutputModes"),
        push_config=_push_config(push) if push else None,
        history_length=r.optional_int("historyLength", minimum=0),
        return_immediately=bool(r.optional_bool("returnImmediately")),  # A2A §3.2.2: default blocking
    )


def decode_get_task(params: Any, *, query: bool = False) -> tuple[str, int | None]:
    """GetTask: (id, historyLength); `query=True` for REST `GET /tasks/{id}?historyLength=10`."""
    r = Reader.root(params, query=query)
    task_id = r.required_str("id")
    history_length = r.optional_int("historyLength", minimum=0)
    r.finish()
    return task_id, history_length


def decode_task_id(params: Any, field: str = "id") -> str:
    """CancelTask / SubscribeToTask: the task id (other fields, such as `metadata`, are ignored)."""
    r = Reader.root(params)
    task_id = r.required_str(field)
    r.finish()
    return task_id


def decode_list_tasks(params: Any, *, query: bool = False) -> ListTasksQuery:
    """ListTasks filters and paging (A2A §3.1.4); `query=True` for REST `GET /tasks?...`."""
    r = Reader.root(params, query=query)
    result = ListTasksQuery(
        context_id=r.optional_str("contextId"),
        status=r.optional_enum("status", STATES),
        page_size=r.optional_int("pageSize", minimum=1, maximum=100),  # a2a.proto: min 1, max 100
        page_token=r.optional_str("pageToken"),
        history_length=r.optional_int("historyLength", minimum=0),
        status_timestamp_after=r.optional_timestamp("statusTimestampAfter"),
        include_artifacts=bool(r.optional_bool("includeArtifacts")),
    )
    r.finish()
    return result


def decode_push_config(params: Any) -> PushConfig:
    """CreateTaskPushNotificationConfig: the request is the config itself (`taskId` is not checked)."""
    r = Reader.root(params)
    config = _push_config(r)
    r.finish()
    return config


def _push_config(r: Reader) -> PushConfig:
    auth = r.optional_obj("authentication")
    return PushConfig(
        url=r.required_str("url"),
        id=r.optional_str("id"),
        task_id=r.optional_str("taskId"),
        token=r.optional_str("token"),
        authentication=_authentication(auth) if auth else None,
    )


def _authentication(r: Reader) -> AuthenticationInfo:
    return AuthenticationInfo(scheme=r.required_str("scheme"), credentials=r.optional_str("credentials"))


def decode_push_config_ref(params: Any) -> tuple[str, str]:
    """Get / DeleteTaskPushNotificationConfig: (taskId, id)."""
    r = Reader.root(params)
    ref = r.required_str("taskId"), r.required_str("id")
    r.finish()
    return ref


def decode_push_config_list(params: Any, *, query: bool = False) -> tuple[str, int | None, str | None]:
    """ListTaskPushNotificationConfigs: (taskId, pageSize, pageToken)."""
    r = Reader.root(params, query=query)
    task_id = r.required_str("taskId")
    page_size = r.optional_int("pageSize", minimum=0) or None  # int32 without presence: 0 means not set
    page_token = r.optional_str("pageToken")
    r.finish()
    return task_id, page_size, page_token


def decode_task(obj: Any) -> Task:
    """A 1.0 ProtoJSON Task (the task files on disk); InvalidParams when malformed."""
    r = Reader.root(obj, name="task")
    task = Task(
        id=r.required_str("id"),
        context_id=r.optional_str("contextId") or "",
        status=_status(r.required_obj("status")),
        artifacts=[_artifact(item) for item in r.items("artifacts")],
        history=[_message(item) for item in r.items("history")],
        metadata=r.optional_struct("metadata"),
    )
    r.finish()
    return task


# --- object decoders


def _status(r: Reader) -> TaskStatus:
    message = r.optional_obj("message")
    return TaskStatus(
        state=r.required_enum("state", STATES),
        message=_message(message) if message else None,
        timestamp=r.optional_timestamp("timestamp"),
    )


def _artifact(r: Reader) -> Artifact:
    return Artifact(
        artifact_id=r.required_str("artifactId"),
        # lenient on our own files: an artifact with `parts: []` still reads back
        parts=[_part(item) for item in r.items("parts", required=True)],
        name=r.optional_str("name"),
        description=r.optional_str("description"),
        metadata=r.optional_struct("metadata"),
        extensions=r.str_list("extensions"),
    )


def _message(r: Reader) -> Message:
    return Message(
        message_id=r.required_str("messageId"),
        role=r.required_enum("role", ROLES),
        parts=[_part(item) for item in r.items("parts", required=True, non_empty=True)],  # A2A §5.7
        context_id=r.optional_str("contextId"),
        task_id=r.optional_str("taskId"),
        metadata=r.optional_struct("metadata"),
        extensions=r.str_list("extensions"),
        reference_task_ids=r.str_list("referenceTaskIds"),
    )


def _part(r: Reader) -> Part:
    # a2a.proto Part: exactly one member of the `content` oneof; `data: null` is a Value, so it counts
    found = [name for name in _CONTENT if r.has(name, null_counts=name == "data")]
    part = Part(
        metadata=r.optional_struct("metadata"),
        filename=r.optional_str("filename"),
        media_type=r.optional_str("mediaType"),
    )
    if len(found) != 1:
        r.fail_here(_content_reason(r, found))
    elif found == ["text"]:
        part.text = r.required_str("text", non_empty=False)
    elif found == ["raw"]:
        part.raw = r.required_bytes("raw")
    elif found == ["url"]:
        part.url = r.required_str("url")
    else:
        part.data, part.has_data = r.value("data"), True
    return part


def _content_reason(r: Reader, found: list[str]) -> str:
    if found:
        return f"must have exactly one of text, raw, url, data (found: {', '.join(found)})"
    if r.has("kind") or r.has("file"):
        # DIGEST §6: with unknown fields ignored, a 0.3 part would read as a part with no content
        return _V03_PART_HINT
    return "must have exactly one of text, raw, url, data"


# --- encoders: canonical ProtoJSON (camelCase, enum names, unset and empty fields omitted)


def encode_part(part: Part) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if part.text is not None:
        out["text"] = part.text
    elif part.raw is not None:
        out["raw"] = base64.b64encode(part.raw).decode("ascii")  # ProtoJSON bytes: standard base64
    elif part.url is not None:
        out["url"] = part.url
    else:
        out["data"] = part.data
    put(out, "metadata", part.metadata)
    put(out, "filename", part.filename)
    put(out, "mediaType", part.media_type)
    return out


def encode_message(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"messageId": message.message_id}
    put(out, "contextId", message.context_id)
    put(out, "taskId", message.task_id)
    out["role"] = message.role.value
    out["parts"] = [encode_part(part) for part in message.parts]
    put(out, "metadata", message.metadata)
    put(out, "extensions", message.extensions)
    put(out, "referenceTaskIds", message.reference_task_ids)
    return out


def encode_artifact(artifact: Artifact) -> dict[str, Any]:
    return encode_artifact_with(artifact, encode_part)


def encode_status(status: TaskStatus) -> dict[str, Any]:
    out: dict[str, Any] = {"state": status.state.value}
    if status.message is not None:
        out["message"] = encode_message(status.message)
    if status.timestamp is not None:
        out["timestamp"] = format_timestamp(status.timestamp)
    return out


def _recent(history: list[Message], history_length: int | None) -> list[Message]:
    # A2A §3.2.4: unset = no limit, 0 = no history, N = the N most recent messages
    if history_length is None:
        return history
    return history[-history_length:] if history_length > 0 else []


def encode_task(
    task: Task, *, history_length: int | None = None, include_artifacts: bool = True
) -> dict[str, Any]:
    """A Task; `include_artifacts=False` leaves out the `artifacts` key entirely (A2A §3.1.4)."""
    out: dict[str, Any] = {"id": task.id}
    put(out, "contextId", task.context_id)
    out["status"] = encode_status(task.status)
    if include_artifacts:
        put(out, "artifacts", [encode_artifact(artifact) for artifact in task.artifacts])
    put(out, "history", [encode_message(message) for message in _recent(task.history, history_length)])
    put(out, "metadata", task.metadata)
    return out


def encode_stream_event(event: StreamEvent) -> dict[str, Any]:
    """A2A §3.2.3 StreamResponse: one of task, message, statusUpdate, artifactUpdate."""
    if isinstance(event, Task):
        return {"task": encode_task(event)}
    if isinstance(event, Message):
        return {"message": encode_message(event)}
    if isinstance(event, TaskStatusUpdateEvent):
        return {"statusUpdate": _status_update(event)}
    return {"artifactUpdate": _artifact_update(event)}


def _status_update(event: TaskStatusUpdateEvent) -> dict[str, Any]:
    out: dict[str, Any] = {
        "taskId": event.task_id,
        "contextId": event.context_id,
        "status": encode_status(event.status),
    }
    put(out, "metadata", event.metadata)
    return out


def _artifact_update(event: TaskArtifactUpdateEvent) -> dict[str, Any]:
    out: dict[str, Any] = {
        "taskId": event.task_id,
        "contextId": event.context_id,
        "artifact": encode_artifact(event.artifact),
    }
    if event.append:
        out["append"] = True
    if event.last_chunk:
        out["lastChunk"] = True
    put(out, "metadata", event.metadata)
    return out


def encode_send_response(
    task_or_message: Task | Message, *, history_length: int | None = None
) -> dict[str, Any]:
    """SendMessageResponse: `{"task": ...}` or `{"message": ...}`."""
    if isinstance(task_or_message, Message):
        return {"message": encode_message(task_or_message)}
    return {"task": encode_task(task_or_message, history_length=history_length)}


def encode_task_page(
    page: TaskPage, *, history_length: int | None = None, include_artifacts: bool = False
) -> dict[str, Any]:
    """ListTasksResponse: all four fields always present, `nextPageToken` "" on the last page (A2A §3.1.4)."""
    tasks = []
    for task in page.tasks:
        encoded = encode_task(task, history_length=history_length, include_artifacts=include_artifacts)
        if include_artifacts:
            encoded.setdefault("artifacts", [])  # A2A §3.1.4: requested artifacts are present, maybe empty
        tasks.append(encoded)
    return {
        "tasks": tasks,
        "nextPageToken": page.next_page_token,
        "pageSize": page.page_size,
        "totalSize": page.total_size,
    }


def encode_push_config(config: PushConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    put(out, "id", config.id)
    put(out, "taskId", config.task_id)
    out["url"] = config.url
    put(out, "token", config.token)
    if config.authentication is not None:
        auth = {"scheme": config.authentication.scheme}
        put(auth, "credentials", config.authentication.credentials)
        out["authentication"] = auth
    return out


def encode_push_config_list(configs: list[PushConfig], next_page_token: str = "") -> dict[str, Any]:
    """ListTaskPushNotificationConfigsResponse; `nextPageToken` is always present."""
    return {"configs": [encode_push_config(config) for config in configs], "nextPageToken": next_page_token}
