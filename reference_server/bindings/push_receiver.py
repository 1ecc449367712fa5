"""The push receiver: POST /a2a/push/{watchId} hands each push to the host's on_push (design: A2APushReceiver)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from blacksheep import Request, Response, Router

from reference_server.bindings.http import JSON, read_json
from reference_server.bindings.requestlog import note_binding
from reference_server.bindings.rest import error_response
from reference_server.model.errors import A2AError, InternalError, WatchNotFound
from reference_server.model.types import is_watch_id
from reference_server.settings import Settings

log = logging.getLogger("reference_server.push_receiver")

# design: OnPush(watchId, token, body) -> false = 404; the token is the X-A2A-Notification-Token header or None
OnPush = Callable[[str, str | None, Any], Awaitable[bool]]

PATH = "/a2a/push/{watchId}"
# design README (A2A DIGEST A8): a push sender sends the config's token in this header
TOKEN_HEADER = b"X-A2A-Notification-Token"


class _TokenProblem(ValueError):
    """The request carries the token header more than once: which one counts is a guess the server does not make."""


def mount(router: Router, settings: Settings, on_push: OnPush | None) -> None:
    """Register the receiver. It is not behind the caller-key guard: the watch's token authenticates a push."""
    router.add_post(PATH, receiver(settings, on_push))


def receiver(settings: Settings, on_push: OnPush | None) -> Callable[[Request], Awaitable[Response]]:
    async def receive(request: Request) -> Response:
        note_binding("push")
        watch_id = (request.route_values or {}).get("watchId") or ""
        try:
            token = presented_token(request)
        except _TokenProblem:
            return _not_found()
        # an id the server never gives, like an unknown one, is not found before its body is read
        if on_push is None or not is_watch_id(watch_id):
            return _not_found()
        try:
            body = await read_json(request, settings, limit=settings.max_push_bytes, limit_name="MaxPushBytes")
        except A2AError as error:  # 400 not JSON, 413 over MaxPushBytes, 408 too slow
            return error_response(error, JSON)
        try:
            accepted = await on_push(watch_id, token, body)
        except Exception:  # the host's code: the sender gets a 500 and may retry; the detail is logged
            log.exception("on_push failed for watch %s", watch_id)
            return error_response(InternalError(), JSON)
        return Response(204, None, None) if accepted else _not_found()

    return receive


def presented_token(request: Request) -> str | None:
    """The X-A2A-Notification-Token header's value, None when absent or empty."""
    values = request.get_headers(TOKEN_HEADER)
    if len(values) > 1:
        raise _TokenProblem
    text = values[0].decode("utf-8", "replace").strip() if values else ""
    return text or None


def _not_found() -> Response:
    # design: false = 404; an unknown watch and a wrong token get the same answer
    return error_response(WatchNotFound(), JSON)
