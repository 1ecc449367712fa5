"""Converts between the 1.0 shapes the steps speak and A2A 0.3 over HTTP+JSON: ProtoJSON of the 0.3 proto (tests only).

The 0.3 proto (spec/proto/v0.3/a2a.proto) is close to 1.0 ProtoJSON: the same enum names except
TASK_STATE_CANCELLED, a message's parts in `content`, file parts as `{"file": {"fileWithBytes" | "fileWithUri",
"mimeType", "name"}}`, data parts one level down as `{"data": {"data": {...}}}`, and `final` on status updates.
"""

from __future__ import annotations

from typing import Any

from reference_server.conformance.support.push import from_v03_config, to_v03_config
from reference_server.conformance.support.schemas import assert_valid
from reference_server.conformance.support.v03 import file_part

V03_PROTO = "urn:a2a:v0.3-proto#/$defs/"

# 1.0 operation → (REST verb, path template, params placement, result $defs name) in the 0.3 proto's routes.
# ListTasks is not in the 0.3 proto; the extended card is the proto's GetAgentCard on GET /v1/card.
ROUTES = {
    "SendMessage": ("POST", "/message:send", "body", "SendMessageResponse"),
    "SendStreamingMessage": ("POST", "/message:stream", "body", "StreamResponse"),
    "GetTask": ("GET", "/tasks/{id}", "query", "Task"),
    "CancelTask": ("POST", "/tasks/{id}:cancel", "body", "Task"),
    "SubscribeToTask": ("POST", "/tasks/{id}:subscribe", "body", "StreamResponse"),
    "GetExtendedAgentCard": ("GET", "/card", "query", "AgentCard"),
    "CreateTaskPushNotificationConfig": ("POST", "/tasks/{taskId}/pushNotificationConfigs", "body",
                                         "TaskPushNotificationConfig"),
    "GetTaskPushNotificationConfig": ("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}", "query",
                                      "TaskPushNotificationConfig"),
    "ListTaskPushNotificationConfigs": ("GET", "/tasks/{taskId}/pushNotificationConfigs", "query",
                                        "ListTaskPushNotificationConfigResponse"),
    "DeleteTaskPushNotificationConfig": ("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}", "query",
                                         None),  # google.protobuf.Empty: `{}`
}


# --- requests: 1.0 params → 0.3 proto bodies ---


def to_proto_params(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    if operation == "CreateTaskPushNotificationConfig":
        # what the a2a-sdk's 0.3 REST transport sends (proto field names): {parent, config_id, config}
        task_id = params["taskId"]
        config = to_v03_config({k: v for k, v in params.items() if k != "taskId"})
        return {"taskId": task_id, "parent": f"tasks/{task_id}", "config_id": config.get("id", ""),
                "config": {"name": "", "push_notification_config": config}}
    if operation not in ("SendMessage", "SendStreamingMessage"):
        return params
    configuration = dict(params.get("configuration") or {})
    if "taskPushNotificationConfig" in configuration:
        configuration["pushNotification"] = to_v03_config(configuration.pop("taskPushNotificationConfig"))
    # 0.3 proto `bool blocking`: absent means false, so it is always sent, as both SDKs do
    configuration["blocking"] = not configuration.pop("returnImmediately", False)
    body = {"message": _message_out(params["message"]), "configuration": configuration}
    if "metadata" in params:
        body["metadata"] = params["metadata"]
    return body


def _message_out(message: dict[str, Any]) -> dict[str, Any]:
    converted = {k: v for k, v in message.items() if k not in ("parts", "referenceTaskIds")}
    converted["content"] = [_part_out(part) for part in message.get("parts", [])]
    return converted


def _part_out(part: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any]
    if "text" in part:
        out = {"text": part["text"]}
    elif "data" in part:
        out = {"data": {"data": part["data"]}}
    else:
        file = {"fileWithBytes": part["raw"]} if "raw" in part else {"fileWithUri": part.get("url")}
        if "mediaType" in part:
            file["mimeType"] = part["mediaType"]
        if "filename" in part:
            file["name"] = part["filename"]
        out = {"file": file}
    if "metadata" in part:
        out["metadata"] = part["metadata"]
    return out


# --- answers: validated 0.3 proto → 1.0 shapes ---


def from_proto(name: str, payload: Any, *, validate: bool = True) -> Any:
    """A 0.3 proto answer, validated against its $defs entry (unless the caller checked it), in the 1.0 shape the
    steps check."""
    if validate:
        assert_valid(payload, V03_PROTO + name)
    if name == "Task":
        return _task(payload)
    if name in ("SendMessageResponse", "StreamResponse"):
        return _stream_response(payload)
    if name == "TaskPushNotificationConfig":
        return _push_config(payload)
    if name == "ListTaskPushNotificationConfigResponse":
        return {"configs": [_push_config(config) for config in payload.get("configs", [])]}
    return payload  # AgentCard: the steps read only fields both versions name alike


def _push_config(payload: dict[str, Any]) -> dict[str, Any]:
    # name = tasks/{taskId}/pushNotificationConfigs/{id}
    _, task_id, _, config_id = payload["name"].split("/")
    flat = from_v03_config(task_id, payload["pushNotificationConfig"])
    assert flat.get("id") == config_id, f"{payload['name']} names another config than {flat.get('id')}"
    return flat


def _stream_response(payload: dict[str, Any]) -> dict[str, Any]:
    if "task" in payload:
        return {"task": _task(payload["task"])}
    if "message" in payload:
        return {"message": _message(payload["message"])}
    if "statusUpdate" in payload:
        update = payload["statusUpdate"]
        # `final` is kept, as the JSON-RPC 0.3 conversion keeps it
        return {"statusUpdate": {**update, "status": _status(update["status"]), "final": update.get("final", False)}}
    update = payload["artifactUpdate"]
    return {"artifactUpdate": {**update, "artifact": _artifact(update["artifact"])}}


def _task(task: dict[str, Any]) -> dict[str, Any]:
    converted = {**task, "status": _status(task["status"])}
    if "history" in task:
        converted["history"] = [_message(message) for message in task["history"]]
    if "artifacts" in task:
        converted["artifacts"] = [_artifact(artifact) for artifact in task["artifacts"]]
    return converted


def _status(status: dict[str, Any]) -> dict[str, Any]:
    converted = {**status}
    if status.get("state") == "TASK_STATE_CANCELLED":  # the 0.3 proto's spelling
        converted["state"] = "TASK_STATE_CANCELED"
    if "message" in status:
        converted["message"] = _message(status["message"])
    return converted


def _message(message: dict[str, Any]) -> dict[str, Any]:
    converted = {k: v for k, v in message.items() if k != "content"}
    converted["parts"] = [_part(part) for part in message["content"]]
    return converted


def _artifact(artifact: dict[str, Any]) -> dict[str, Any]:
    return {**artifact, "parts": [_part(part) for part in artifact["parts"]]}


def _part(part: dict[str, Any]) -> dict[str, Any]:
    converted: dict[str, Any]
    if "text" in part:
        converted = {"text": part["text"]}
    elif "data" in part:
        converted = {"data": part["data"].get("data", {})}
    else:
        converted = file_part(part["file"], raw="fileWithBytes", url="fileWithUri")
    if "metadata" in part:
        converted["metadata"] = part["metadata"]
    return converted
