"""Where each A2A 1.0 operation goes on the wire: its HTTP+JSON route, its A2A 0.3 JSON-RPC method, and the 0.3
shapes of its params and results."""

from __future__ import annotations

import json
from typing import Any

from reference_server.conformance.support.push import from_v03_config, to_v03_config
from reference_server.conformance.support.v03 import to_v03_message

# 1.0 operation → (REST verb, path template, params placement, result schema)
REST_ROUTES = {
    "SendMessage": ("POST", "/message:send", "body", "SendMessageResponse"),
    "SendStreamingMessage": ("POST", "/message:stream", "body", "StreamResponse"),
    "GetTask": ("GET", "/tasks/{id}", "query", "Task"),
    "ListTasks": ("GET", "/tasks", "query", "ListTasksResponse"),
    "CancelTask": ("POST", "/tasks/{id}:cancel", "body", "Task"),
    "SubscribeToTask": ("POST", "/tasks/{id}:subscribe", "body", "StreamResponse"),
    "GetExtendedAgentCard": ("GET", "/extendedAgentCard", "query", "AgentCard"),
    "CreateTaskPushNotificationConfig": ("POST", "/tasks/{taskId}/pushNotificationConfigs", "body",
                                         "TaskPushNotificationConfig"),
    "GetTaskPushNotificationConfig": ("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}", "query",
                                      "TaskPushNotificationConfig"),
    "ListTaskPushNotificationConfigs": ("GET", "/tasks/{taskId}/pushNotificationConfigs", "query",
                                        "ListTaskPushNotificationConfigsResponse"),
    "DeleteTaskPushNotificationConfig": ("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}", "query",
                                         "google.protobuf.Empty"),
}
V03_METHODS = {
    "SendMessage": ("message/send", None), "SendStreamingMessage": ("message/stream", None),
    "GetTask": ("tasks/get", "Task"), "CancelTask": ("tasks/cancel", "Task"),
    "SubscribeToTask": ("tasks/resubscribe", None), "GetExtendedAgentCard": ("agent/getAuthenticatedExtendedCard",
                                                                            "AgentCard"),
    "CreateTaskPushNotificationConfig": ("tasks/pushNotificationConfig/set", "TaskPushNotificationConfig"),
    "GetTaskPushNotificationConfig": ("tasks/pushNotificationConfig/get", "TaskPushNotificationConfig"),
    "ListTaskPushNotificationConfigs": ("tasks/pushNotificationConfig/list", None),
    "DeleteTaskPushNotificationConfig": ("tasks/pushNotificationConfig/delete", None),
}

# A2A 0.3 §11.1.2: the methods every 0.3 agent MUST implement; the others are optional there (§11.1.3)
V03_CORE = ("SendMessage", "GetTask", "CancelTask")

# an A2A 0.3 object's kind → its schema
V03_KINDS = {"task": "Task", "message": "Message", "status-update": "TaskStatusUpdateEvent",
              "artifact-update": "TaskArtifactUpdateEvent"}


def kind_of(result: Any) -> str | None:
    """An A2A 0.3 object's kind: its `kind`, or, when it has none (its schema check reports that once), what its
    fields make it, so that the scenarios can still read it."""
    if not isinstance(result, dict):
        return None
    if isinstance(result.get("kind"), str):
        return str(result["kind"])
    if "taskId" in result and "status" in result:
        return "status-update"
    if "taskId" in result and "artifact" in result:
        return "artifact-update"
    if "id" in result and "status" in result:
        return "task"
    if "messageId" in result and "parts" in result:
        return "message"
    return None


def with_kind(result: Any) -> Any:
    kind = kind_of(result)
    return {**result, "kind": kind} if kind is not None and isinstance(result, dict) and "kind" not in result \
        else result


def from_v03_push(operation: str, result: Any) -> Any:
    if operation == "ListTaskPushNotificationConfigs":
        return {"configs": [from_v03_config(c["taskId"], c["pushNotificationConfig"]) for c in result]}
    if operation == "DeleteTaskPushNotificationConfig":
        return {}
    return from_v03_config(result["taskId"], result["pushNotificationConfig"])


def params_v03(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    if operation == "CreateTaskPushNotificationConfig":
        config = {k: v for k, v in params.items() if k != "taskId"}
        return {"taskId": params["taskId"], "pushNotificationConfig": to_v03_config(config)}
    if operation in ("GetTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig"):
        return {"id": params["taskId"], "pushNotificationConfigId": params["id"]}
    if operation == "ListTaskPushNotificationConfigs":
        return {"id": params["taskId"]}
    if operation in ("SendMessage", "SendStreamingMessage"):
        converted: dict[str, Any] = {"message": to_v03_message(params["message"])}
        configuration = dict(params.get("configuration") or {})
        if "taskPushNotificationConfig" in configuration:
            configuration["pushNotificationConfig"] = to_v03_config(configuration.pop("taskPushNotificationConfig"))
        if "returnImmediately" in configuration:
            configuration["blocking"] = not configuration.pop("returnImmediately")
        if configuration:
            converted["configuration"] = configuration
        if "metadata" in params:
            converted["metadata"] = params["metadata"]
        return converted
    return params


def fill_path(path: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A route's path with the ids it names filled in, and the params left for its body or query."""
    rest = dict(params)
    for name in ("taskId", "id"):
        marker = "{" + name + "}"
        if marker in path:
            path = path.replace(marker, str(rest.pop(name)))
    return path, rest


def as_query(params: dict[str, Any]) -> dict[str, str]:
    """Params as a query string's values (booleans as JSON: true, false)."""
    return {k: (json.dumps(v) if isinstance(v, bool) else str(v)) for k, v in params.items()}

