"""A2A 0.3 HTTP+JSON codec: ProtoJSON of the 0.3 proto (package a2a.v1, `content`, TASK_STATE_CANCELLED) <-> the model.

0.3 REST is the HTTP transcoding of the 0.3 gRPC service (DIGEST §16 A23), so its bodies are ProtoJSON of
`specification/grpc/a2a.proto@v0.3.0`, not the JSON-RPC shapes of `v03.py`. The SDKs' copy of that proto (a2a-sdk
`a2a/compat/v0_3/a2a_v0_3.proto`) adds `Part.metadata`, `FilePart.name` and `AgentCard.iconUrl`; they are read and
written too. REAL-CLIENTS §4.5: the Python SDK sends `request` / `message_id`, the JS SDK `message` / `messageId`.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from reference_server.a2a.broadcast import Ends, ends_send_stream
from reference_server.codecs.fields import Reader
from reference_server.codecs.output import encode_artifact_with, put
from reference_server.codecs.timestamps import format_timestamp
from reference_server.codecs.v03 import encode_push_config as v03_encode_push_config
from reference_server.codecs.v03 import proto_push_config as read_push_config  # the 0.3 object, proto-JSON
from reference_server.codecs.v1 import ROLES  # the 0.3 proto Role has the same names and numbers
from reference_server.model.types import (
    Artifact,
    Message,
    Part,
    PushConfig,
    SendConfiguration,
    SendRequest,
    StreamEvent,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

# the 0.3 proto spells this one state with two Ls; the others are the 1.0 names
_STATE_NAMES = {state: state.value for state in TaskState} | {TaskState.CANCELED: "TASK_STATE_CANCELLED"}
_PART_MEMBERS = ("text", "file", "data")  # 0.3 proto Part oneof `part`
_V1_HINT = "for A2A 1.0 send the header A2A-Version: 1.0 (a missing A2A-Version header means 0.3)"
_CONTENT_HINT = f"is required: `parts` is the A2A 1.0 name, so {_V1_HINT}; A2A 0.3 calls it `content`"
_V1_PART_HINT = f"must have exactly one of text, file, data: raw and url are A2A 1.0 members, so {_V1_HINT}"
_FILE_MEMBERS = ("fileWithBytes", "fileWithUri")  # 0.3 proto FilePart oneof `file`


# --- request decoders (REST: `body: "*"`, so the body is the request message)


def decode_send_request(params: Any) -> SendRequest:
    """SendMessage / SendStreamingMessage body (0.3 proto SendMessageRequest)."""
    r = Reader.root(params)
    message = _message(_request_field(r))
    configuration = _configuration(r.optional_obj("configuration"))
    metadata = r.optional_struct("metadata")
    r.finish()
    return SendRequest(message=message, configuration=configuration, metadata=metadata)


def _request_field(r: Reader) -> Reader:
    # 0.3 proto: `Message request = 1 [json_name = "message"]`; ProtoJSON parsers take either name
    given = [name for name in ("message", "request") if r.has(name)]
    if len(given) == 2:
        r.fail("message", "is given twice, as message and as request; send one")
    return r.required_obj(given[0] if given else "message")


def _configuration(r: Reader | None) -> SendConfiguration:
    if r is None:
        return SendConfiguration()  # no configuration at all: blocking, as in 1.0 and the SDK server
    push = r.optional_obj("pushNotification")
    return SendConfiguration(
        accepted_output_modes=r.str_list("acceptedOutputModes"),
        push_config=read_push_config(push) if push else None,
        # 0.3 proto: "if 0, the history will be unlimited" (int32 without presence)
        history_length=r.optional_int("historyLength", minimum=0) or None,
        # 0.3 proto: `bool blocking`, so absent is false: non-blocking. Both SDKs send true to block.
        return_immediately=not r.optional_bool("blocking"),
    )


def decode_get_task(params: Any) -> tuple[str, int | None]:
    """GetTask: (id, historyLength) from the path and the query string; historyLength 0 means unset."""
    r = Reader.root(params, query=True)
    task_id = r.required_str("id")
    history_length = r.optional_int("historyLength", minimum=0) or None
    r.finish()
    return task_id, history_length


def decode_create_push_config(params: Any) -> PushConfig:
    """CreateTaskPushNotificationConfig, with the task id of the path. The 0.3 proto's HTTP rule is `body: "config"`,
    so the body is the TaskPushNotificationConfig `{name, pushNotificationConfig}` (what @a2a-js/sdk sends); the
    a2a-sdk client sends the whole request `{parent, configId, config: {name, pushNotificationConfig}}`. Both are
    read (REAL-CLIENTS §7.10)."""
    r = Reader.root(params)
    task_id = r.required_str("taskId")  # from the path
    if r.has("pushNotificationConfig") and not r.has("config"):
        outer, config_id = r, None  # the transcoded body: the config itself
    else:
        parent = r.optional_str("parent")
        if parent is not None and parent != f"tasks/{task_id}":
            r.fail("parent", f"must be tasks/{task_id}, the task of the path")
        config_id = r.optional_str("configId")
        outer = r.required_obj("config")
    outer.optional_str("name")  # tasks/{id}/pushNotificationConfigs/{id}: the server names it
    config = read_push_config(outer.required_obj("pushNotificationConfig"))
    r.finish()
    return replace(config, id=config.id or config_id or None, task_id=task_id)


def decode_push_config_ref(params: Any) -> tuple[str, str]:
    """Get / DeleteTaskPushNotificationConfig: (task id, config id) from the path."""
    r = Reader.root(params, query=True)
    ref = r.required_str("taskId"), r.required_str("id")
    r.finish()
    return ref


def decode_list_push_configs(params: Any) -> str:
    """ListTaskPushNotificationConfig: the task id of the path (the 0.3 proto has no paging fields to read)."""
    r = Reader.root(params, query=True)
    task_id = r.required_str("taskId")
    r.optional_int("pageSize", minimum=0)
    r.optional_str("pageToken")
    r.finish()
    return task_id


# --- object decoders


def _message(r: Reader) -> Message:
    return Message(
        message_id=r.required_str("messageId"),
        role=r.required_enum("role", ROLES),
        parts=_content(r),
        context_id=r.optional_str("contextId"),
        task_id=r.optional_str("taskId"),
        metadata=r.optional_struct("metadata"),
        extensions=r.str_list("extensions"),
    )


def _content(r: Reader) -> list[Part]:
    if not r.has("content") and r.has("parts"):
        r.fail("content", _CONTENT_HINT)  # most likely a 1.0 client that sent no A2A-Version
        return []
    return [_part(item) for item in r.items("content", required=True, non_empty=True)]


def _part(r: Reader) -> Part:
    found = [name for name in _PART_MEMBERS if r.has(name)]
    part = Part(metadata=r.optional_struct("metadata"))
    if len(found) != 1:
        if found:
            r.fail_here(f"must have exactly one of text, file, data (found: {', '.join(found)})")
        else:
            looks_v1 = any(r.has(name) for name in ("raw", "url"))
            r.fail_here(_V1_PART_HINT if looks_v1 else "must have exactly one of text, file, data")
    elif found == ["text"]:
        part.text = r.required_str("text", non_empty=False)
    elif found == ["file"]:
        _file(r.required_obj("file"), part)
    else:
        _data(r.required_obj("data"), r.value("data"), part)
    return part


def _file(r: Reader, part: Part) -> None:
    found = [name for name in _FILE_MEMBERS if r.has(name)]
    if len(found) != 1:
        reason = "must have exactly one of fileWithBytes, fileWithUri"
        if found:
            reason += " (found: both)"
        elif r.has("bytes") or r.has("uri"):
            reason += " (bytes and uri are the 0.3 JSON-RPC names)"
        r.fail_here(reason)
    elif found == ["fileWithBytes"]:
        part.raw = r.required_bytes("fileWithBytes")
    else:
        part.url = r.required_str("fileWithUri")
    part.filename = r.optional_str("name")
    part.media_type = r.optional_str("mimeType")


def _data(r: Reader, raw: Any, part: Part) -> None:
    # 0.3 proto DataPart {google.protobuf.Struct data}: the object sits one level down
    if isinstance(raw, Mapping) and raw and not r.has("data"):
        r.fail("data", 'is required: a 0.3 data part holds its object one level down, {"data": {"data": {...}}}')
    part.data, part.has_data = r.optional_struct("data") or {}, True


# --- encoders: canonical ProtoJSON of the 0.3 proto (camelCase, enum names, empty fields omitted)


def encode_part(part: Part) -> dict[str, Any]:
    """A 0.3 proto Part; a text or data part's filename/mediaType have no 0.3 field and are dropped."""
    out: dict[str, Any]
    if part.text is not None:
        out = {"text": part.text}
    elif part.raw is not None or part.url is not None:
        file: dict[str, Any] = {"fileWithUri": part.url}
        if part.raw is not None:
            file = {"fileWithBytes": base64.b64encode(part.raw).decode("ascii")}  # ProtoJSON bytes
        put(file, "mimeType", part.media_type)
        put(file, "name", part.filename)
        out = {"file": file}
    else:
        # a Struct must be an object: wrap any other JSON value, as the 0.3 JSON-RPC codec does
        data = part.data if isinstance(part.data, dict) else {"value": part.data}
        out = {"data": {"data": data}}
    put(out, "metadata", part.metadata)
    return out


def encode_message(message: Message) -> dict[str, Any]:
    """A 0.3 proto Message: `content`, no `referenceTaskIds` (the 0.3 proto has no such field)."""
    out: dict[str, Any] = {"messageId": message.message_id}
    put(out, "contextId", message.context_id)
    put(out, "taskId", message.task_id)
    out["role"] = message.role.value
    out["content"] = [encode_part(part) for part in message.parts]
    put(out, "metadata", message.metadata)
    put(out, "extensions", message.extensions)
    return out


def encode_artifact(artifact: Artifact) -> dict[str, Any]:
    return encode_artifact_with(artifact, encode_part)


def encode_status(status: TaskStatus) -> dict[str, Any]:
    out: dict[str, Any] = {"state": _STATE_NAMES[status.state]}
    if status.message is not None:
        out["message"] = encode_message(status.message)  # field `update`, json_name "message"
    if status.timestamp is not None:
        out["timestamp"] = format_timestamp(status.timestamp)
    return out


def encode_task(task: Task) -> dict[str, Any]:
    """A 0.3 proto Task (the service has already trimmed the history to historyLength)."""
    out: dict[str, Any] = {"id": task.id}
    put(out, "contextId", task.context_id)
    out["status"] = encode_status(task.status)
    put(out, "artifacts", [encode_artifact(artifact) for artifact in task.artifacts])
    put(out, "history", [encode_message(message) for message in task.history])
    put(out, "metadata", task.metadata)
    return out


def encode_send_response(task_or_message: Task | Message) -> dict[str, Any]:
    """0.3 proto SendMessageResponse: `{"task": ...}` or `{"message": ...}` (field `msg`, json_name "message")."""
    if isinstance(task_or_message, Message):
        return {"message": encode_message(task_or_message)}
    return {"task": encode_task(task_or_message)}


def encode_stream_event(event: StreamEvent, ends: Ends = ends_send_stream) -> dict[str, Any]:
    """0.3 proto StreamResponse: one of task, message (`msg`), statusUpdate, artifactUpdate; ends is the rule of
    the stream it travels in (a send stream's or a subscription's), which says whether a status update is final."""
    if isinstance(event, Task | Message):
        return encode_send_response(event)
    if isinstance(event, TaskStatusUpdateEvent):
        return {"statusUpdate": _status_update(event, ends)}
    return {"artifactUpdate": _artifact_update(event)}


def _status_update(event: TaskStatusUpdateEvent, ends: Ends) -> dict[str, Any]:
    out: dict[str, Any] = {
        "taskId": event.task_id,
        "contextId": event.context_id,
        "status": encode_status(event.status),
        # 0.3: the last event of a stream says final; written even when false, as 0.3 clients look for it
        "final": ends(event.status.state),
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


def encode_push_config(config: PushConfig) -> dict[str, Any]:
    """0.3 proto TaskPushNotificationConfig: `{name: tasks/{id}/pushNotificationConfigs/{id}, pushNotificationConfig}`
    (the same inner object as in 0.3 JSON-RPC)."""
    inner = v03_encode_push_config(config)["pushNotificationConfig"]
    return {"name": f"tasks/{config.task_id}/pushNotificationConfigs/{config.id}", "pushNotificationConfig": inner}


def encode_push_config_list(configs: list[PushConfig]) -> dict[str, Any]:
    return {"configs": [encode_push_config(config) for config in configs]}


def encode_agent_card(card: Mapping[str, Any]) -> dict[str, Any]:
    """The 0.3 proto AgentCard for a 1.0 card: its 0.3 interfaces give url, preferredTransport, additionalInterfaces.

    The security schemes and requirements have the same ProtoJSON shape in both protos (`apiKeySecurityScheme`,
    `{"schemes": {name: {"list": [...]}}}`); only the requirement field is renamed (`security`).
    """
    legacy = [i for i in card.get("supportedInterfaces", []) if i.get("protocolVersion") == "0.3"]
    capabilities = card.get("capabilities", {})
    out: dict[str, Any] = {"protocolVersion": "0.3.0", "name": card["name"], "description": card["description"]}
    if legacy:
        out["url"] = legacy[0]["url"]
        out["preferredTransport"] = legacy[0]["protocolBinding"]
        out["additionalInterfaces"] = [{"url": i["url"], "transport": i["protocolBinding"]} for i in legacy]
    for key in ("provider", "version", "documentationUrl", "iconUrl", "securitySchemes"):
        put(out, key, card.get(key))
    out["capabilities"] = {key: capabilities[key] for key in ("streaming", "pushNotifications", "extensions")
                           if key in capabilities}
    put(out, "security", card.get("securityRequirements"))
    put(out, "defaultInputModes", card.get("defaultInputModes"))
    put(out, "defaultOutputModes", card.get("defaultOutputModes"))
    out["skills"] = [_skill(skill) for skill in card.get("skills", [])]
    out["supportsAuthenticatedExtendedCard"] = bool(capabilities.get("extendedAgentCard"))
    put(out, "signatures", card.get("signatures"))
    return out


def _skill(skill: Mapping[str, Any]) -> dict[str, Any]:
    out = {key: value for key, value in skill.items() if key != "securityRequirements"}
    put(out, "security", skill.get("securityRequirements"))
    return out


_PARTS = re.compile(r"^message\.parts\[")
_PUSH_IN_SEND = "configuration.taskPushNotificationConfig."
_FILE_FIELDS = ((".raw", ".file.fileWithBytes"), (".url", ".file.fileWithUri"), (".filename", ".file.name"),
                (".mediaType", ".file.mimeType"))


def field_path(path: str) -> str:
    """A field path the domain wrote in 1.0 terms (`message.parts[0].raw`), in 0.3 proto terms."""
    if path.startswith(_PUSH_IN_SEND):
        return "configuration.pushNotification." + path.removeprefix(_PUSH_IN_SEND)
    if not _PARTS.match(path):
        return path
    path = _PARTS.sub("message.content[", path)
    for old, new in _FILE_FIELDS:
        if path.endswith(old):
            return path[: -len(old)] + new
    return path
