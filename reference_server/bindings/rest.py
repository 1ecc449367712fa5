"""HTTP+JSON binding under /a2a/v1: one table of (verb, path) routes onto the operations (A2A §11)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from blacksheep import Request, Response, Route, Router

from reference_server.bindings.errors import rest_error
from reference_server.bindings.http import A2A_JSON, V0_3, json_response, read_body, requested_version
from reference_server.bindings.operations import V1_OPERATIONS, Scope
from reference_server.bindings.sse import stream_response
from reference_server.domain.errors import (
    A2AError,
    InvalidParams,
    MethodNotFound,
    ParseError,
    VersionNotSupported,
)
from reference_server.wire import v1

PREFIX = "/a2a/v1"
# a path segment without ':' so that `{id}` never swallows `abc:cancel` (stack notes §1.2)
Route.value_patterns["seg"] = r"[^:/]+"


@dataclass(frozen=True)
class RestRoute:
    verb: str
    path: str
    operation: str
    params: str  # "body" (POST body, `body: "*"`), "query" (GET/DELETE query string)


ROUTES: tuple[RestRoute, ...] = (
    RestRoute("POST", "/message:send", "SendMessage", "body"),
    RestRoute("POST", "/message:stream", "SendStreamingMessage", "body"),
    RestRoute("POST", "/tasks/{seg:id}:cancel", "CancelTask", "body"),
    # A2A DIGEST §3 A2: the proto says GET, the spec text says POST; accept both
    RestRoute("GET", "/tasks/{seg:id}:subscribe", "SubscribeToTask", "query"),
    RestRoute("POST", "/tasks/{seg:id}:subscribe", "SubscribeToTask", "body"),
    RestRoute("GET", "/tasks/{seg:id}", "GetTask", "query"),
    RestRoute("GET", "/tasks", "ListTasks", "query"),
    RestRoute("POST", "/tasks/{seg:taskId}/pushNotificationConfigs", "CreateTaskPushNotificationConfig", "body"),
    RestRoute("GET", "/tasks/{seg:taskId}/pushNotificationConfigs/{seg:id}", "GetTaskPushNotificationConfig",
              "query"),
    RestRoute("GET", "/tasks/{seg:taskId}/pushNotificationConfigs", "ListTaskPushNotificationConfigs", "query"),
    RestRoute("DELETE", "/tasks/{seg:taskId}/pushNotificationConfigs/{seg:id}",
              "DeleteTaskPushNotificationConfig", "query"),
    RestRoute("GET", "/extendedAgentCard", "GetExtendedAgentCard", "query"),
)

# decoders that read a REST query string (every value a string) instead of a JSON body
_QUERY_DECODERS: dict[str, Callable[[Any], Any]] = {
    "GetTask": lambda p: v1.decode_get_task(p, query=True),
    "ListTasks": lambda p: v1.decode_list_tasks(p, query=True),
}

ScopeFor = Callable[[Request], Scope]


def mount(router: Router, scope_for: ScopeFor) -> None:
    """Register every route of the table, plus a JSON 404 for anything else under /a2a/v1."""
    for route in ROUTES:
        router.add(route.verb, PREFIX + route.path, _handler(route, scope_for))
    for verb in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        router.add(verb, PREFIX + "/*", _not_found)


def _handler(route: RestRoute, scope_for: ScopeFor) -> Callable[[Request], Awaitable[Response]]:
    operation = V1_OPERATIONS[route.operation]
    decode = _QUERY_DECODERS.get(route.operation, operation.decode)

    async def handle(request: Request) -> Response:
        try:
            scope = scope_for(request)
            _require_v1(request)
            raw = await _params(request, route, scope.settings.max_body_bytes)
            params = decode(raw)
            if operation.streaming:
                return await stream_response(
                    request, operation.call(scope, params),
                    lambda event: operation.encode(event, params),
                    lambda error: rest_error(error)[1],
                )
            result = await operation.call(scope, params)
            return json_response(operation.encode(result, params), 200, A2A_JSON)
        except A2AError as error:
            return error_response(error)

    return handle


def error_response(error: A2AError) -> Response:
    status, body = rest_error(error)
    return json_response(body, status, A2A_JSON)


async def _not_found(request: Request) -> Response:
    return error_response(
        MethodNotFound(f"No HTTP+JSON route {request.method} {request.path}; the routes are listed in A2A §11.3")
    )


def _require_v1(request: Request) -> None:
    if requested_version(request) == V0_3:
        raise VersionNotSupported(
            "A2A 0.3 is served on JSON-RPC at /a2a; on HTTP+JSON send the header A2A-Version: 1.0 "
            "(a missing A2A-Version header means 0.3)",
            metadata={"requestedVersion": "0.3"},
        )


async def _params(request: Request, route: RestRoute, limit: int) -> dict[str, Any]:
    path_values = dict(request.route_values or {})
    if route.params == "query":
        query = {k: v[-1] for k, v in request.query.items() if k.lower() != "a2a-version"}
        return {**query, **path_values}
    body = await read_body(request, limit)
    parsed = _parse_body(body)
    for name, value in path_values.items():
        if name in parsed and parsed[name] != value:
            raise InvalidParams(f"{name} in the body ({parsed[name]!r}) differs from the path ({value!r})")
        parsed[name] = value
    return parsed


def _parse_body(body: bytes) -> dict[str, Any]:
    if not body.strip():
        return {}  # REAL-CLIENTS §7.3: the JS client cancels with an empty body
    try:
        parsed = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(f"Invalid JSON payload: {exc}") from None
    if not isinstance(parsed, dict):
        raise InvalidParams("The request body must be a JSON object")
    return parsed
