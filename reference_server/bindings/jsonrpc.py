"""JSON-RPC 2.0 binding at POST /a2a: a pipeline of small stages in spec order (A2A §9)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from blacksheep import Request, Response

from reference_server.a2a.catalogue import V0_3, V1_0
from reference_server.bindings.errors import in_version, jsonrpc_error, wire_error
from reference_server.bindings.faults import answered
from reference_server.bindings.http import json_response, read_json, requested_version, unless_gone
from reference_server.bindings.operations import V03_OPERATIONS, V1_OPERATIONS, Operation, Scope
from reference_server.bindings.requestlog import note_operation
from reference_server.bindings.sse import one_event_stream, stream_response
from reference_server.codecs import v03
from reference_server.model.errors import (
    A2AError,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    VersionNotSupported,
)

_TABLES = {V1_0: V1_OPERATIONS, V0_3: V03_OPERATIONS}


@dataclass(frozen=True)
class Envelope:
    id: str | int
    method: str
    params: Any


async def handle(request: Request, scope: Scope) -> Response:
    """parse (-32700) → envelope (-32600) → version (-32009) → method (-32601) → params (-32602) → dispatch."""
    request_id: Any = None
    version = V1_0
    try:
        payload = await read_json(request, scope.settings)
        request_id = usable_id(payload)
        envelope = _envelope(payload)
        version = requested_version(request)
        operation = _operation(envelope.method, version)
        if operation.streaming:
            return await _stream(request, scope, operation, envelope.params, request_id, version)
        params = operation.decode(_params(envelope.params))

        async def respond() -> Response:
            call = operation.call(scope, params)
            result = await (unless_gone(request, call) if operation.answer_only else call)
            return json_response(_result(request_id, operation.encode(result, params)))

        return await answered(request, scope.faults, scope.caller, params, False, respond,
                              _refuse(request_id, version))
    except A2AError as error:
        return error_response(in_version(error, version, v03.field_path), request_id)


async def _stream(request: Request, scope: Scope, operation: Operation, raw_params: Any, request_id: Any,
                  version: str) -> Response:
    """params → dispatch of a streaming method; an error found before the first event is a plain answer, except
    in 0.3: the 0.3 clients read a stream's answer only as SSE (the a2a-sdk 0.3.x client calls anything else
    an "Invalid SSE response"), so there it is a stream of that one error, as the a2a-sdk server sends it."""
    try:
        params = operation.decode(_params(raw_params))

        def respond() -> Awaitable[Response]:
            return stream_response(
                request,
                operation.call(scope, params),
                lambda event: _result(request_id, operation.encode(event, params)),
                lambda error: jsonrpc_error(error, request_id),
                scope.service.lane,
                scope.settings,
            )

        return await answered(request, scope.faults, scope.caller, params, True, respond, _refuse(request_id, version))
    except A2AError as error:
        if version != V0_3:
            raise
        return one_event_stream(jsonrpc_error(in_version(error, version, v03.field_path), request_id))


def _refuse(request_id: Any, version: str) -> Callable[[A2AError], Response]:
    """A refusal a fault asks for: a plain JSON-RPC error with its HTTP status, in every version (an HTTP answer,
    so a 0.3 stream gets it as one too)."""
    return lambda error: error_response(in_version(error, version, v03.field_path), request_id)


async def not_posted(request: Request) -> Response:
    """JSON-RPC requests are POSTed (A2A §9.1); say so instead of a bare 404."""
    response = error_response(InvalidRequest("The JSON-RPC endpoint takes POST requests with a JSON-RPC 2.0 body"))
    response.status = 405
    response.add_header(b"Allow", b"POST")
    return response


def error_response(error: A2AError, request_id: Any = None) -> Response:
    """JSON-RPC errors travel with HTTP 200 (SDK practice, A2A DIGEST §9.3), except transport-level ones."""
    status = wire_error(error).http_status if wire_error(error).http_status in (401, 408, 413, 429, 503) else 200
    return json_response(jsonrpc_error(error, request_id), status)


def _result(request_id: Any, result: Any) -> dict[str, Any]:
    # design README: ids are echoed with their type unchanged, in every SSE event too
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def usable_id(payload: Any) -> Any:
    if isinstance(payload, dict):
        value = payload.get("id")
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
    return None


def _envelope(payload: Any) -> Envelope:
    if isinstance(payload, list):
        raise InvalidRequest("Batch requests are not supported: send one JSON-RPC request object per HTTP request")
    if not isinstance(payload, dict):
        raise InvalidRequest("The request must be a JSON-RPC 2.0 request object")
    if payload.get("jsonrpc") != "2.0":
        raise InvalidRequest('The request must have "jsonrpc": "2.0"')
    method = payload.get("method")
    if not isinstance(method, str) or not method:
        raise InvalidRequest('The request must have a "method" string')
    if "id" not in payload:
        raise InvalidRequest('The request must have an "id": A2A methods answer, so notifications are not served')
    if usable_id(payload) is None:
        raise InvalidRequest('The request "id" must be a string or an integer')
    return Envelope(payload["id"], method, payload.get("params", {}))


def _params(params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise InvalidParams('"params" must be an object (A2A methods take named parameters)')
    return params


def _operation(method: str, version: str) -> Operation:
    operation = _TABLES[version].get(method)
    if operation is not None:
        note_operation(method)  # a name of the table: never text the client made up
        return operation
    for other, table in _TABLES.items():
        if method in table:
            hint = "A2A-Version: 1.0" if other == V1_0 else "A2A-Version: 0.3"
            raise VersionNotSupported(
                f"{method} is an A2A {other} method but the request is A2A {version}; send the header {hint}"
                + (" (a missing A2A-Version header means 0.3)" if version == V0_3 else ""),
                metadata={"requestedVersion": version, "method": method},
            )
    raise MethodNotFound(f"Method not found: {method}")
