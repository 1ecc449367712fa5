"""The server's endpoints on its router: JSON-RPC at /a2a, HTTP+JSON under /a2a/v1 (each behind the caller's key),
the push receiver (its watch's token instead), the public card at the well-known path, and a JSON 404 for the rest."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from email.utils import format_datetime

from blacksheep import Content, Request, Response, Router

from reference_server.a2a.service import A2AService
from reference_server.bindings import jsonrpc, push_receiver, requestlog, rest
from reference_server.bindings.auth import caller_of
from reference_server.bindings.card import build_card, public_details
from reference_server.bindings.faults import Faults
from reference_server.bindings.http import dumps
from reference_server.bindings.operations import Scope
from reference_server.bindings.push_receiver import OnPush
from reference_server.model.errors import MethodNotFound
from reference_server.settings import Settings

Handler = Callable[[Request], Awaitable[Response]]
Guard = Callable[[Handler, str], Handler]


def mount(router: Router, settings: Settings, service: A2AService, faults: Faults, guard: Guard,
          on_push: OnPush | None) -> None:
    """Every endpoint; guard(handler, binding) wraps each A2A handler in the key check where it is registered."""

    def scope_for(request: Request) -> Scope:
        return Scope(service, caller_of(request), base_url(request, settings), settings, faults)

    async def jsonrpc_endpoint(request: Request) -> Response:
        return await jsonrpc.handle(request, scope_for(request))

    router.add_post("/a2a", guard(jsonrpc_endpoint, "jsonrpc"))  # BlackSheep also matches the trailing slash
    router.add_get("/a2a", guard(jsonrpc.not_posted, "jsonrpc"))
    rest.mount(router, scope_for, guard)
    push_receiver.mount(router, settings, on_push)  # no key guard: the watch's token authenticates a push
    card = public_card_endpoint(settings)
    router.add_get("/.well-known/agent-card.json", card)
    router.add_head("/.well-known/agent-card.json", card)
    router.fallback = not_found


def base_url(request: Request, settings: Settings) -> str:
    """A2A__PublicUrl, else built from the request (design: Configuration)."""
    if settings.public_url:
        return settings.public_url
    return f"{request.scheme}://{request.host}"


async def not_found(request: Request) -> Response:
    """Anything else: a JSON 404 that says where A2A lives, instead of a bare text/plain one."""
    error = MethodNotFound(f"No route {request.method} {request.path}: A2A is served at POST /a2a (JSON-RPC), "
                           "under /a2a/v1 (HTTP+JSON) and /.well-known/agent-card.json (the card)")
    return rest.error_response(error)


def public_card_endpoint(settings: Settings) -> Callable[[Request], object]:
    started = format_datetime(datetime.now(UTC).replace(microsecond=0), usegmt=True)

    @functools.lru_cache(maxsize=32)  # the card depends only on the settings and the base URL
    def card_of(base: str) -> tuple[bytes, bytes]:
        body = dumps(build_card(public_details(settings), base, settings))
        return body, b'"' + hashlib.sha256(body).hexdigest()[:32].encode() + b'"'

    async def public_card(request: Request) -> Response:
        requestlog.note_binding("card")
        body, etag = card_of(base_url(request, settings))
        # A2A §8.6.1: Cache-Control with max-age, ETag, Last-Modified
        headers = [(b"Cache-Control", b"public, max-age=300"), (b"ETag", etag),
                   (b"Last-Modified", started.encode())]
        if request.get_first_header(b"If-None-Match") == etag:
            return Response(304, headers, None)
        return Response(200, headers, Content(b"application/json", body))

    return public_card
