"""Caller authentication in front of every A2A endpoint but the public card (design: Authentication and tenancy)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from blacksheep import Request, Response

from reference_server.bindings import jsonrpc, requestlog, rest
from reference_server.bindings.http import read_json
from reference_server.model.caller import Caller
from reference_server.model.errors import A2AError, Unauthenticated
from reference_server.settings import Settings
from reference_server.workspace.callers import CallerDirectory

log = logging.getLogger("reference_server.auth")

CALLER_KEY = "a2a.caller"
AUTH_BODY_LIMIT = 64 * 1024  # an unauthenticated caller never gets a big body read
Handler = Callable[[Request], Awaitable[Response]]


class CredentialsProblem(ValueError):
    """The request's credentials cannot be read as one key; the message says why."""


@dataclass(frozen=True)
class Refusal:
    """Why a request has no caller: the 401's message, and its reason for the request log (never the key)."""

    message: str
    reason: str


def presented_key(request: Request) -> str | None:
    """The key from X-API-Key or Authorization: Bearer; None when there is none.

    More than one X-API-Key or Authorization header, or an X-API-Key and a bearer token that differ, is a
    CredentialsProblem: which of them the caller meant is a guess the server does not make.
    """
    api_keys = [value.decode("latin-1").strip() for value in request.get_headers(b"X-API-Key")]
    authorizations = [value.decode("latin-1").strip() for value in request.get_headers(b"Authorization")]
    if len(api_keys) > 1 or len(authorizations) > 1:
        raise CredentialsProblem("More than one X-API-Key or Authorization header: send the key once")
    api_key = api_keys[0] if api_keys and api_keys[0] else None
    bearer = None
    if authorizations:
        scheme, _, token = authorizations[0].partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            bearer = token.strip()
    if api_key is not None and bearer is not None and api_key != bearer:
        raise CredentialsProblem("X-API-Key and Authorization: Bearer carry different keys: send one key")
    return api_key or bearer


async def _request_id(request: Request, settings: Settings) -> Any:
    """The JSON-RPC id of a refused request, so that even a 401 echoes it (REAL-CLIENTS §7.2)."""
    try:
        payload = await read_json(request, settings, limit=AUTH_BODY_LIMIT)
    except A2AError:
        return None
    return jsonrpc.usable_id(payload)


def caller_of(request: Request) -> Caller:
    return cast(dict[str, Any], request.scope)[CALLER_KEY]  # type: ignore[no-any-return]


def authenticated(directory: CallerDirectory, settings: Settings,
                  prepare: Callable[[Caller], Awaitable[None]]) -> Callable[[Handler, str], Handler]:
    """The guard of every A2A handler: guard(handler, binding) resolves the caller before handler runs.

    It wraps handlers when routes are registered, so whatever path the router matched (its matching ignores
    case), a handler of an A2A route never runs without a caller; callers.json is checked on every request.
    prepare(caller) is awaited before the handler (the app readies the caller's workspace).
    """

    def guard(handler: Handler, binding: str) -> Handler:
        async def guarded(request: Request) -> Response:
            requestlog.note_binding(binding)
            found = await _caller_of(request, directory)
            if isinstance(found, Refusal):
                requestlog.note_refusal(found.reason)
                return await _refuse(request, binding, found.message, settings)
            requestlog.note_caller(found.owner_id, found.name)
            cast(dict[str, Any], request.scope)[CALLER_KEY] = found
            await prepare(found)
            return await handler(request)

        return guarded

    return guard


async def _caller_of(request: Request, directory: CallerDirectory) -> Caller | Refusal:
    """The request's caller, or why there is none (callers.json is read as it is now)."""
    try:
        key = presented_key(request)
    except CredentialsProblem as problem:
        return Refusal(str(problem), requestlog.CONFLICTING_CREDENTIALS)
    if key is None:
        return Refusal("No API key: send X-API-Key: <key> or Authorization: Bearer <key>", requestlog.NO_KEY_GIVEN)
    callers = await directory.find(key)
    if not callers:
        return Refusal("Unknown API key", requestlog.UNKNOWN_KEY)
    if len(callers) > 1:
        # design: the warning names the owners, never the key
        owners = ", ".join(sorted({c.owner_id for c in callers}))
        log.warning("an API key matches %d callers (owners: %s); refused", len(callers), owners)
        return Refusal("This API key matches more than one caller; ask the agent's owner for a new key",
                       requestlog.AMBIGUOUS_KEY)
    return callers[0]


async def _refuse(request: Request, binding: str, message: str, settings: Settings) -> Response:
    error = Unauthenticated(message)
    if binding == "rest":
        response = rest.error_response(error)
    else:
        response = jsonrpc.error_response(error, await _request_id(request, settings))
    # A2A §3.3.2: SHOULD include a challenge
    response.add_header(b"WWW-Authenticate", b'Bearer realm="a2a", ApiKey header="X-API-Key"')
    return response
