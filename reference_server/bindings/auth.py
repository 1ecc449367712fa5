"""Caller authentication in front of every A2A endpoint but the public card (design: Authentication and tenancy)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

from blacksheep import Request, Response

from reference_server.bindings import jsonrpc, rest
from reference_server.bindings.http import read_body
from reference_server.domain.callers import Caller, CallerDirectory
from reference_server.domain.errors import A2AError, Unauthenticated

log = logging.getLogger("reference_server.auth")

CALLER_KEY = "a2a.caller"
AUTH_BODY_LIMIT = 64 * 1024  # an unauthenticated caller never gets a big body read
Handler = Callable[[Request], Awaitable[Response]]


def presented_key(request: Request) -> str | None:
    """The key from X-API-Key, else from Authorization: Bearer."""
    api_key = request.get_first_header(b"X-API-Key")
    if api_key is not None and api_key.strip():
        return api_key.decode("latin-1").strip()
    authorization = request.get_first_header(b"Authorization")
    if authorization is not None:
        scheme, _, token = authorization.decode("latin-1").strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    return None


async def _request_id(request: Request) -> Any:
    """The JSON-RPC id of a refused request, so that even a 401 echoes it (REAL-CLIENTS §7.2)."""
    try:
        payload = json.loads(await read_body(request, AUTH_BODY_LIMIT))
    except (A2AError, ValueError):
        return None
    return jsonrpc.usable_id(payload)


def caller_of(request: Request) -> Caller:
    return cast(dict[str, Any], request.scope)[CALLER_KEY]  # type: ignore[no-any-return]


def needs_caller(path: str) -> bool:
    return (path == "/a2a" or path.startswith("/a2a/")) and not path.startswith("/a2a/push/")


def authentication(directory: CallerDirectory) -> Callable[[Request, Handler], Awaitable[Response]]:
    """Middleware: resolve the caller on every request (callers.json is read each time, no cache)."""

    async def middleware(request: Request, handler: Handler) -> Response:
        if not needs_caller(request.path):
            return await handler(request)
        key = presented_key(request)
        if key is None:
            return await _refuse(request, "No API key: send X-API-Key: <key> or Authorization: Bearer <key>")
        callers = directory.find(key)
        if not callers:
            return await _refuse(request, "Unknown API key")
        if len(callers) > 1:
            # design: the warning names the owners, never the key
            owners = ", ".join(sorted({c.owner_id for c in callers}))
            log.warning("an API key matches %d callers (owners: %s); refused", len(callers), owners)
            return await _refuse(
                request, "This API key matches more than one caller; ask the agent's owner for a new key"
            )
        cast(dict[str, Any], request.scope)[CALLER_KEY] = callers[0]
        return await handler(request)

    return middleware


async def _refuse(request: Request, message: str) -> Response:
    error = Unauthenticated(message)
    if request.path.startswith(rest.PREFIX):
        response = rest.error_response(error)
    else:
        response = jsonrpc.error_response(error, await _request_id(request))
    # A2A §3.3.2: SHOULD include a challenge
    response.add_header(b"WWW-Authenticate", b'Bearer realm="a2a", ApiKey header="X-API-Key"')
    return response
