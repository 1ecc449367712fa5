"""Each operation's handler, per A2A version and wire format: how to decode, call and encode it. The operations and
their names are the catalogue's (a2a/catalogue.py); tests/test_catalogue.py keeps these tables equal to it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from reference_server.a2a.broadcast import ends_subscription
from reference_server.a2a.capabilities import Capabilities
from reference_server.a2a.service import A2AService
from reference_server.bindings.card import CardDetails, build_card, extended_details, v03_card
from reference_server.bindings.faults import Faults
from reference_server.codecs import v03, v03_rest, v1
from reference_server.model.caller import Caller
from reference_server.settings import Settings


@dataclass(frozen=True)
class Scope:
    """Who is asking and where: what an operation needs besides its parameters."""

    service: A2AService
    caller: Caller
    base_url: str
    settings: Settings
    faults: Faults | None = None  # the faults a message may ask for (bindings/faults.py); None: none


Call = Callable[[Scope, Any], Any]  # an awaitable result, or an async iterator for streaming operations
Encode = Callable[[Any, Any], Any]  # (result, decoded params) -> wire JSON


@dataclass(frozen=True)
class Operation:
    """decode, call, encode. answer_only: the call's one effect is its answer, so its disk reads stop when the
    client leaves (bindings/http.unless_gone)."""

    decode: Callable[[Any], Any]
    call: Call
    encode: Encode
    streaming: bool = False
    answer_only: bool = False


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


def _set_push(field: str) -> Call:
    """Create / set a push config; field names where the URL was given, in the version's own terms."""
    return lambda scope, config: scope.service.set_push_config(scope.caller, config, field)


def _get_push(scope: Scope, ref: Any) -> Awaitable[Any]:
    task_id, config_id = ref
    return scope.service.get_push_config(scope.caller, task_id, config_id)


def _list_push(scope: Scope, params: Any) -> Awaitable[Any]:
    task_id, page_token = params
    return scope.service.list_push_configs(scope.caller, task_id, page_token)


async def _delete_push(scope: Scope, ref: Any) -> None:
    task_id, config_id = ref
    await scope.service.delete_push_config(scope.caller, task_id, config_id)


def v1_list_push(params: Any, *, query: bool = False) -> tuple[str, str | None]:
    """ListTaskPushNotificationConfigs' (taskId, pageToken), from JSON-RPC params or a REST query string."""
    task_id, _page_size, page_token = v1.decode_push_config_list(params, query=query)
    return task_id, page_token


def _extended(scope: Scope) -> CardDetails:
    """The caller's extended card, when the card declares one (A2A §3.3.4)."""
    Capabilities.of(scope.settings).require_extended_card()
    return extended_details(scope.caller, scope.settings)


async def _extended_card_v1(scope: Scope, params: Any) -> dict[str, Any]:
    return build_card(_extended(scope), scope.base_url, scope.settings)


async def _extended_card_v03(scope: Scope, params: Any) -> dict[str, Any]:
    return v03_card(_extended(scope), scope.base_url, scope.settings)


async def _extended_card_v03_rest(scope: Scope, params: Any) -> dict[str, Any]:
    return v03_rest.encode_agent_card(build_card(_extended(scope), scope.base_url, scope.settings))


def _of(encode: Callable[[Any], Any]) -> Encode:
    """An encoder that needs only the result."""
    return lambda result, params: encode(result)


def _as_is(result: Any, params: Any) -> Any:
    return result


# A2A 1.0, both bindings, by 1.0 method name (a2a.proto)
V1_OPERATIONS: dict[str, Operation] = {
    "SendMessage": Operation(v1.decode_send_request, _send, _of(v1.encode_send_response)),
    "SendStreamingMessage": Operation(v1.decode_send_request, _stream, _of(v1.encode_stream_event), streaming=True),
    "GetTask": Operation(v1.decode_get_task, _get, _of(v1.encode_task), answer_only=True),
    "ListTasks": Operation(
        v1.decode_list_tasks, _list,
        lambda r, p: v1.encode_task_page(r, history_length=None, include_artifacts=p.include_artifacts),
        answer_only=True,
    ),
    "CancelTask": Operation(v1.decode_task_id, _cancel, _of(v1.encode_task)),
    "SubscribeToTask": Operation(v1.decode_task_id, _subscribe, _of(v1.encode_stream_event), streaming=True),
    "CreateTaskPushNotificationConfig": Operation(v1.decode_push_config, _set_push("url"),
                                                  _of(v1.encode_push_config)),
    "GetTaskPushNotificationConfig": Operation(v1.decode_push_config_ref, _get_push, _of(v1.encode_push_config)),
    "ListTaskPushNotificationConfigs": Operation(v1_list_push, _list_push, _of(v1.encode_push_config_list)),
    "DeleteTaskPushNotificationConfig": Operation(v1.decode_push_config_ref, _delete_push, lambda r, p: {}),
    "GetExtendedAgentCard": Operation(_params_object, _extended_card_v1, _as_is),
}

# A2A 0.3 JSON-RPC, by 0.3 method name (0.3 JSON Schema shapes); no ListTasks in 0.3
V03_OPERATIONS: dict[str, Operation] = {
    "message/send": Operation(v03.decode_send_params, _send, _of(v03.encode_send_result)),
    "message/stream": Operation(v03.decode_send_params, _stream, _of(v03.encode_stream_event), streaming=True),
    "tasks/get": Operation(v03.decode_task_query, _get, _of(v03.encode_task), answer_only=True),
    "tasks/cancel": Operation(v03.decode_task_id_params, _cancel, _of(v03.encode_task)),
    # a subscription goes on through input-required: only a terminal status update is final
    "tasks/resubscribe": Operation(v03.decode_task_id_params, _subscribe,
                                   _of(lambda event: v03.encode_stream_event(event, ends_subscription)),
                                   streaming=True),
    "tasks/pushNotificationConfig/set": Operation(v03.decode_set_push_config, _set_push("pushNotificationConfig.url"),
                                                  _of(v03.encode_push_config)),
    "tasks/pushNotificationConfig/get": Operation(v03.decode_get_push_config, _get_push, _of(v03.encode_push_config)),
    "tasks/pushNotificationConfig/list": Operation(lambda p: (v03.decode_list_push_config(p), None), _list_push,
                                                   _of(v03.encode_push_config_list)),
    "tasks/pushNotificationConfig/delete": Operation(v03.decode_delete_push_config, _delete_push, _as_is),
    "agent/getAuthenticatedExtendedCard": Operation(_params_object, _extended_card_v03, _as_is),
}

# A2A 0.3 HTTP+JSON, by the 0.3 proto's rpc names (ProtoJSON of the 0.3 proto, DIGEST §16 A23); no ListTasks
V03_REST_OPERATIONS: dict[str, Operation] = {
    "SendMessage": Operation(v03_rest.decode_send_request, _send, _of(v03_rest.encode_send_response)),
    "SendStreamingMessage": Operation(v03_rest.decode_send_request, _stream, _of(v03_rest.encode_stream_event),
                                      streaming=True),
    "GetTask": Operation(v03_rest.decode_get_task, _get, _of(v03_rest.encode_task), answer_only=True),
    # the id comes from the path; the body (the proto's `name`) is not needed
    "CancelTask": Operation(v1.decode_task_id, _cancel, _of(v03_rest.encode_task)),
    "TaskSubscription": Operation(v1.decode_task_id, _subscribe,
                                  _of(lambda event: v03_rest.encode_stream_event(event, ends_subscription)),
                                  streaming=True),
    "CreateTaskPushNotificationConfig": Operation(v03_rest.decode_create_push_config,
                                                  _set_push("config.pushNotificationConfig.url"),
                                                  _of(v03_rest.encode_push_config)),
    "GetTaskPushNotificationConfig": Operation(v03_rest.decode_push_config_ref, _get_push,
                                               _of(v03_rest.encode_push_config)),
    "ListTaskPushNotificationConfig": Operation(lambda p: (v03_rest.decode_list_push_configs(p), None), _list_push,
                                                _of(v03_rest.encode_push_config_list)),
    "DeleteTaskPushNotificationConfig": Operation(v03_rest.decode_push_config_ref, _delete_push,
                                                  lambda r, p: {}),
    "GetAgentCard": Operation(_params_object, _extended_card_v03_rest, _as_is),
}
