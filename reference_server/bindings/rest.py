"""HTTP+JSON binding under /a2a/v1: the catalogue's (verb, path) routes onto the A2A 1.0 and 0.3 operations (§11)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from blacksheep import Request, Response, Route, Router

from reference_server.a2a.catalogue import ROUTES, V0_3, V1_0, RestRoute
from reference_server.bindings.errors import in_version, rest_error
from reference_server.bindings.faults import answered
from reference_server.bindings.http import (
    A2A_JSON,
    JSON,
    json_response,
    read_json,
    requested_version,
    unless_gone,
)
from reference_server.bindings.operations import V03_REST_OPERATIONS, V1_OPERATIONS, Operation, Scope, v1_list_push
from reference_server.bindings.requestlog import note_operation
from reference_server.bindings.sse import stream_response
from reference_server.codecs import v03_rest, v1
from reference_server.model.errors import (
    A2AError,
    InvalidParams,
    MethodNotFound,
    VersionNotSupported,
)
from reference_server.settings import Settings

# 1.0: the interface URL is <base>/a2a/v1 and the paths have no prefix (§11.3); 0.3: the interface URL is
# <base>/a2a and the 0.3 proto's paths begin with /v1. Same paths, told apart by A2A-Version (missing = 0.3).
PREFIX = "/a2a/v1"
# a path segment without ':' so that `{id}` never swallows `abc:cancel` (stack notes §1.2)
Route.value_patterns["seg"] = r"[^:/]+"


# decoders that read a REST query string (every value a string) instead of a JSON body
_QUERY_DECODERS: dict[str, Callable[[Any], Any]] = {
    "GetTask": lambda p: v1.decode_get_task(p, query=True),
    "ListTasks": lambda p: v1.decode_list_tasks(p, query=True),
    "ListTaskPushNotificationConfigs": lambda p: v1_list_push(p, query=True),
}

# §11.1: application/a2a+json in 1.0; 0.3 REST answered application/json (the SDK servers still do)
_CONTENT_TYPES = {V1_0: A2A_JSON, V0_3: JSON}

ScopeFor = Callable[[Request], Scope]
Handler = Callable[[Request], Awaitable[Response]]


def mount(router: Router, scope_for: ScopeFor, guard: Callable[[Handler, str], Handler]) -> None:
    """Register every route of the table, plus a JSON 404 for anything else under /a2a/v1, each behind guard
    (caller authentication: a stranger learns nothing, not even which paths exist)."""
    for route in ROUTES:
        router.add(route.verb, PREFIX + route.path, guard(_handler(route, scope_for), "rest"))
    for verb in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        router.add(verb, PREFIX + "/*", guard(_not_found, "rest"))


def _handler(route: RestRoute, scope_for: ScopeFor) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        version = V1_0
        try:
            scope = scope_for(request)
            version = requested_version(request)
            decode, operation = _operation(route, version, request)
            params = decode(await _params(request, route, scope.settings))
            async def respond() -> Response:
                if operation.streaming:
                    return await stream_response(
                        request, operation.call(scope, params),
                        lambda event: operation.encode(event, params),
                        lambda error: rest_error(in_version(error, version, v03_rest.field_path))[1],
                        scope.service.lane,
                        scope.settings,
                    )
                call = operation.call(scope, params)
                result = await (unless_gone(request, call) if operation.answer_only else call)
                return json_response(operation.encode(result, params), 200, _CONTENT_TYPES[version])

            def refuse(error: A2AError) -> Response:
                return error_response(in_version(error, version, v03_rest.field_path), _CONTENT_TYPES[version])

            return await answered(request, scope.faults, scope.caller, params, operation.streaming, respond, refuse)
        except A2AError as error:
            return error_response(in_version(error, version, v03_rest.field_path), _CONTENT_TYPES[version])

    return handle


def _operation(route: RestRoute, version: str, request: Request) -> tuple[Callable[[Any], Any], Operation]:
    """The route's operation in the requested version, with the decoder for where its parameters come from."""
    if version == V1_0 and route.v1 is not None:
        note_operation(route.v1)
        operation = V1_OPERATIONS[route.v1]
        return _QUERY_DECODERS.get(route.v1, operation.decode), operation
    if version == V0_3 and route.v03 is not None:
        note_operation(route.v03)
        operation = V03_REST_OPERATIONS[route.v03]
        return operation.decode, operation
    other = "1.0" if version == V0_3 else "0.3"
    name = route.v1 or route.v03 or ""
    missing = " (a missing A2A-Version header means 0.3)" if version == V0_3 else ""
    raise VersionNotSupported(
        f"{request.method} {request.path} is an A2A {other} route ({name}) but the request is A2A {version}; "
        f"send the header A2A-Version: {other}{missing}",
        metadata={"requestedVersion": version, "operation": name},
    )


def error_response(error: A2AError, content_type: bytes = A2A_JSON) -> Response:
    status, body = rest_error(error)
    return json_response(body, status, content_type)


async def _not_found(request: Request) -> Response:
    return error_response(
        MethodNotFound(f"No HTTP+JSON route {request.method} {request.path}; the routes are listed in A2A §11.3")
    )


async def _params(request: Request, route: RestRoute, settings: Settings) -> dict[str, Any]:
    path_values = dict(request.route_values or {})
    if route.params == "query":
        # a repeated parameter stays a list, so the decoder can say it must be given once
        query = {k: v[0] if len(v) == 1 else v for k, v in request.query.items() if k.lower() != "a2a-version"}
        return {**query, **path_values}
    # REAL-CLIENTS §7.3: the JS client cancels with an empty body
    parsed = await read_json(request, settings, blank={})
    if not isinstance(parsed, dict):
        raise InvalidParams("The request body must be a JSON object")
    for name, value in path_values.items():
        if name in parsed and parsed[name] != value:
            raise InvalidParams(f"{name} in the body ({parsed[name]!r}) differs from the path ({value!r})")
        parsed[name] = value
    return parsed
