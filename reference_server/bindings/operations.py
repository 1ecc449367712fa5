"""The operation tables of the bindings: per A2A version and wire format, how to decode, call and encode each one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from reference_server.discovery.card import build_card, v03_card
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


async def _extended_card_v1(scope: Scope, params: Any) -> dict[str, Any]:
    details = await scope.service.extended_card(scope.caller)
    return build_card(details, scope.base_url, scope.settings)


async def _extended_card_v03(scope: Scope, params: Any) -> dict[str, Any]:
    details = await scope.service.extended_card(scope.caller)
    return v03_card(details, scope.base_url, scope.settings)


async def _extended_card_v03_rest(scope: Scope, params: Any) -> dict[str, Any]:
    details = await scope.service.extended_card(scope.caller)
    return v03_rest.encode_agent_card(build_card(details, scope.base_url, scope.settings))


# A2A 1.0, both bindings, by 1.0 method name (a2a.proto)
V1_OPERATIONS: dict[str, Operation] = {
    "SendMessage": Operation(
        v1.decode_send_request,
        lambda s, p: s.service.send_message(s.caller, p),
        lambda r, p: v1.encode_send_response(r),
    ),
    "SendStreamingMessage": Operation(
        v1.decode_send_request,
        lambda s, p: s.service.stream_message(s.caller, p),
        lambda e, p: v1.encode_stream_event(e),
        streaming=True,
    ),
    "GetTask": Operation(
        v1.decode_get_task,
        lambda s, p: s.service.get_task(s.caller, p[0], p[1]),
        lambda r, p: v1.encode_task(r),
    ),
    "ListTasks": Operation(
        v1.decode_list_tasks,
        lambda s, p: s.service.list_tasks(s.caller, p),
        lambda r, p: v1.encode_task_page(r, history_length=None, include_artifacts=p.include_artifacts),
    ),
    "CancelTask": Operation(
        v1.decode_task_id,
        lambda s, p: s.service.cancel_task(s.caller, p),
        lambda r, p: v1.encode_task(r),
    ),
    "SubscribeToTask": Operation(
        v1.decode_task_id,
        lambda s, p: s.service.subscribe_to_task(s.caller, p),
        lambda e, p: v1.encode_stream_event(e),
        streaming=True,
    ),
    "CreateTaskPushNotificationConfig": Operation(_params_object, _no_push, lambda r, p: r),
    "GetTaskPushNotificationConfig": Operation(_params_object, _no_push, lambda r, p: r),
    "ListTaskPushNotificationConfigs": Operation(_params_object, _no_push, lambda r, p: r),
    "DeleteTaskPushNotificationConfig": Operation(_params_object, _no_push, lambda r, p: r),
    "GetExtendedAgentCard": Operation(_params_object, _extended_card_v1, lambda r, p: r),
}

# A2A 0.3 JSON-RPC, by 0.3 method name (0.3 JSON Schema shapes)
V03_OPERATIONS: dict[str, Operation] = {
    "message/send": Operation(
        v03.decode_send_params,
        lambda s, p: s.service.send_message(s.caller, p),
        lambda r, p: v03.encode_send_result(r),
    ),
    "message/stream": Operation(
        v03.decode_send_params,
        lambda s, p: s.service.stream_message(s.caller, p),
        lambda e, p: v03.encode_stream_event(e),
        streaming=True,
    ),
    "tasks/get": Operation(
        v03.decode_task_query,
        lambda s, p: s.service.get_task(s.caller, p[0], p[1]),
        lambda r, p: v03.encode_task(r),
    ),
    "tasks/cancel": Operation(
        v03.decode_task_id_params,
        lambda s, p: s.service.cancel_task(s.caller, p),
        lambda r, p: v03.encode_task(r),
    ),
    "tasks/resubscribe": Operation(
        v03.decode_task_id_params,
        lambda s, p: s.service.subscribe_to_task(s.caller, p),
        lambda e, p: v03.encode_stream_event(e),
        streaming=True,
    ),
    "tasks/pushNotificationConfig/set": Operation(_params_object, _no_push, lambda r, p: r),
    "tasks/pushNotificationConfig/get": Operation(_params_object, _no_push, lambda r, p: r),
    "tasks/pushNotificationConfig/list": Operation(_params_object, _no_push, lambda r, p: r),
    "tasks/pushNotificationConfig/delete": Operation(_params_object, _no_push, lambda r, p: r),
    "agent/getAuthenticatedExtendedCard": Operation(_params_object, _extended_card_v03, lambda r, p: r),
}

# A2A 0.3 HTTP+JSON, by the 0.3 proto's rpc names (ProtoJSON of the 0.3 proto, DIGEST §16 A23); no ListTasks
V03_REST_OPERATIONS: dict[str, Operation] = {
    "SendMessage": Operation(
        v03_rest.decode_send_request,
        lambda s, p: s.service.send_message(s.caller, p),
        lambda r, p: v03_rest.encode_send_response(r),
    ),
    "SendStreamingMessage": Operation(
        v03_rest.decode_send_request,
        lambda s, p: s.service.stream_message(s.caller, p),
        lambda e, p: v03_rest.encode_stream_event(e),
        streaming=True,
    ),
    "GetTask": Operation(
        v03_rest.decode_get_task,
        lambda s, p: s.service.get_task(s.caller, p[0], p[1]),
        lambda r, p: v03_rest.encode_task(r),
    ),
    "CancelTask": Operation(
        v1.decode_task_id,  # the id comes from the path; the body (the proto's `name`) is not needed
        lambda s, p: s.service.cancel_task(s.caller, p),
        lambda r, p: v03_rest.encode_task(r),
    ),
    "TaskSubscription": Operation(
        v1.decode_task_id,
        lambda s, p: s.service.subscribe_to_task(s.caller, p),
        lambda e, p: v03_rest.encode_stream_event(e),
        streaming=True,
    ),
    "CreateTaskPushNotificationConfig": Operation(_params_object, _no_push, lambda r, p: r),
    "GetTaskPushNotificationConfig": Operation(_params_object, _no_push, lambda r, p: r),
    "ListTaskPushNotificationConfig": Operation(_params_object, _no_push, lambda r, p: r),
    "DeleteTaskPushNotificationConfig": Operation(_params_object, _no_push, lambda r, p: r),
    "GetAgentCard": Operation(_params_object, _extended_card_v03_rest, lambda r, p: r),
}
