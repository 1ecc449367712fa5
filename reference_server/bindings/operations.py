"""The operation tables of the bindings: per A2A version and wire format, how to decode, call and encode each one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from reference_server.discovery.card import build_card, extended_details, v03_card
from reference_server.domain.callers import Caller
from reference_server.domain.errors import PushNotificationNotSupported
from reference_server.domain.service import A2AService
from reference_server.settings import Settings
from reference_server.wire import v03, v03_rest, v1


@dataclass(frozen=True)
class Scope:
    """Who is asking and where: what an operation needs besides its parameters."""

    service: A2AService
    caller: Caller
    base_url: str
    settings: Settings


Call = Callable[[Scope, Any], Any]  # an awaitable result, or an async iterator for streaming operations
Encode = Callable[[Any, Any], Any]  # (result, decoded params) -> wire JSON


@dataclass(frozen=True)
class Operation:
    decode: Callable[[Any], Any]
    call: Call
    encode: Encode
    streaming: bool = False


def _no_push(scope: Scope, params: Any) -> Awaitable[Any]:
    # push notifications are not served yet; the card says pushNotifications: false (A2A §3.3.4)
    raise PushNotificationNotSupported(
        "Push notifications are not supported by this server yet (capabilities.pushNotifications is false)"
    )


def _params_object(params: Any) -> Any:
    return params


# --- the domain side of each operation: the same whatever the version or the binding ---


def _send(scope: Scope, request: Any) -> Awaitable[Any]:
    return scope.service.send_message(scope.caller, request)


def _stream(scope: Scope, request: Any) -> Any:
    return scope.service.stream_message(scope.caller, request)


def _get(scope: Scope, params: Any) -> Awaitable[Any]:
    task_id, history_length = params
    return scope.service.get_task(scope.caller, task_id, history_length)


def _list(scope: Scope, query: Any) -> Awaitable[Any]:
    return scope.service.list_tasks(scope.caller, query)


def _cancel(scope: Scope, task_id: Any) -> Awaitable[Any]:
    return scope.service.cancel_task(scope.caller, task_id)


def _subscribe(scope: Scope, task_id: Any) -> Any:
    return scope.service.subscribe_to_task(scope.caller, task_id)


async def _extended_card_v1(scope: Scope, params: Any) -> dict[str, Any]:
    details = extended_details(scope.caller, scope.settings)
    return build_card(details, scope.base_url, scope.settings)


async def _extended_card_v03(scope: Scope, params: Any) -> dict[str, Any]:
    details = extended_details(scope.caller, scope.settings)
    return v03_card(details, scope.base_url, scope.settings)


async def _extended_card_v03_rest(scope: Scope, params: Any) -> dict[str, Any]:
    details = extended_details(scope.caller, scope.settings)
    return v03_rest.encode_agent_card(build_card(details, scope.base_url, scope.settings))


def _of(encode: Callable[[Any], Any]) -> Encode:
    """An encoder that needs only the result."""
    return lambda result, params: encode(result)


def _as_is(result: Any, params: Any) -> Any:
    return result


def _no_push_operations(*names: str) -> dict[str, Operation]:
    return {name: Operation(_params_object, _no_push, _as_is) for name in names}


# A2A 1.0, both bindings, by 1.0 method name (a2a.proto)
V1_OPERATIONS: dict[str, Operation] = {
    "SendMessage": Operation(v1.decode_send_request, _send, _of(v1.encode_send_response)),
    "SendStreamingMessage": Operation(v1.decode_send_request, _stream, _of(v1.encode_stream_event), streaming=True),
    "GetTask": Operation(v1.decode_get_task, _get, _of(v1.encode_task)),
    "ListTasks": Operation(
        v1.decode_list_tasks, _list,
        lambda r, p: v1.encode_task_page(r, history_length=None, include_artifacts=p.include_artifacts),
    ),
    "CancelTask": Operation(v1.decode_task_id, _cancel, _of(v1.encode_task)),
    "SubscribeToTask": Operation(v1.decode_task_id, _subscribe, _of(v1.encode_stream_event), streaming=True),
    **_no_push_operations("CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
                          "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig"),
    "GetExtendedAgentCard": Operation(_params_object, _extended_card_v1, _as_is),
}

# A2A 0.3 JSON-RPC, by 0.3 method name (0.3 JSON Schema shapes); no ListTasks in 0.3
V03_OPERATIONS: dict[str, Operation] = {
    "message/send": Operation(v03.decode_send_params, _send, _of(v03.encode_send_result)),
    "message/stream": Operation(v03.decode_send_params, _stream, _of(v03.encode_stream_event), streaming=True),
    "tasks/get": Operation(v03.decode_task_query, _get, _of(v03.encode_task)),
    "tasks/cancel": Operation(v03.decode_task_id_params, _cancel, _of(v03.encode_task)),
    "tasks/resubscribe": Operation(v03.decode_task_id_params, _subscribe, _of(v03.encode_stream_event),
                                   streaming=True),
    **_no_push_operations("tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
                          "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete"),
    "agent/getAuthenticatedExtendedCard": Operation(_params_object, _extended_card_v03, _as_is),
}

# A2A 0.3 HTTP+JSON, by the 0.3 proto's rpc names (ProtoJSON of the 0.3 proto, DIGEST §16 A23); no ListTasks
V03_REST_OPERATIONS: dict[str, Operation] = {
    "SendMessage": Operation(v03_rest.decode_send_request, _send, _of(v03_rest.encode_send_response)),
    "SendStreamingMessage": Operation(v03_rest.decode_send_request, _stream, _of(v03_rest.encode_stream_event),
                                      streaming=True),
    "GetTask": Operation(v03_rest.decode_get_task, _get, _of(v03_rest.encode_task)),
    # the id comes from the path; the body (the proto's `name`) is not needed
    "CancelTask": Operation(v1.decode_task_id, _cancel, _of(v03_rest.encode_task)),
    "TaskSubscription": Operation(v1.decode_task_id, _subscribe, _of(v03_rest.encode_stream_event),
                                  streaming=True),
    **_no_push_operations("CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
                          "ListTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig"),
    "GetAgentCard": Operation(_params_object, _extended_card_v03_rest, _as_is),
}
