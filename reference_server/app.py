"""The composition root: the only place that wires settings, workspaces, the agent core, the service and bindings."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import TYPE_CHECKING

from blacksheep import Application, Content, Request, Response, Router

from reference_server.agent.hooks import ProviderFor, ProviderHooks
from reference_server.agent.notifier import OwnerNotifier
from reference_server.agent.pool import SessionPool
from reference_server.agent.provider import Provider
from reference_server.agent.session import AgentSession, SessionFactory
from reference_server.bindings import jsonrpc, push_receiver, requestlog, rest
from reference_server.bindings.auth import authenticated, caller_of
from reference_server.bindings.faults import Faults
from reference_server.bindings.http import dumps, end_when_client_gone
from reference_server.bindings.operations import Scope
from reference_server.bindings.push_receiver import OnPush
from reference_server.bindings.push_sender import HttpPushSender, Sleep
from reference_server.discovery.card import build_card, public_details
from reference_server.domain.caller_index import CallerIndex
from reference_server.domain.callers import Caller, CallerDirectory, Workspace, WorkspaceCallerDirectory
from reference_server.domain.errors import MethodNotFound
from reference_server.domain.inbox import inbox_of, remove_stray_downloads
from reference_server.domain.service import A2AService
from reference_server.domain.task_store import TaskStores, remove_stray_temp_files
from reference_server.platform.changes import Notifications, notifications_for
from reference_server.platform.disk import off_loop
from reference_server.platform.outbound import Outbound
from reference_server.settings import Settings
from reference_server.wire.task_file import TaskFileCodec

if TYPE_CHECKING:
    from reference_server.clientcheck.recorder import Recorder

log = logging.getLogger("reference_server.app")

EVICTION_INTERVAL_SECONDS = 60.0

def default_provider_for(settings: Settings) -> ProviderFor:
    """The OpenAI-compatible provider when A2A__Provider__BaseUrl is set, else the scripted provider."""
    if settings.provider_base_url:
        from reference_server.agent.openai_compat import OpenAICompatibleProvider

        provider: Provider = OpenAICompatibleProvider(
            settings.provider_base_url, settings.provider_model or "", settings.provider_api_key
        )
    else:
        from reference_server.agent.scripted import ScriptedProvider

        provider = ScriptedProvider()
    return lambda workspace: provider


def create_app(
    settings: Settings,
    workspaces: Callable[[], Iterable[Workspace]],
    *,
    notifier: OwnerNotifier | None = None,
    provider_for: ProviderFor | None = None,
    on_session_open: Callable[[AgentSession], None] | None = None,
    outbound: Outbound | None = None,
    push_sleep: Sleep = asyncio.sleep,
    on_push: OnPush | None = None,
) -> Application:
    """The app; on_session_open sees every session the pool opens (its event bus carries a2a.inbound);
    on_push(watch_id, token, body) receives the pushes to POST /a2a/push/{watchId} (None: every push is 404).

    outbound is the guarded HTTP client for push deliveries and file downloads (tests give one that trusts their
    test CA); push_sleep is how push retries wait (tests record the waits instead of sleeping them).
    """
    # own router: the default one is global (stack notes §1.1)
    recorder = None
    if settings.record is None:
        app = Application(router=Router())
    else:  # A2A__Record: the app wrapped to capture every exchange (its module imported only then)
        from reference_server.clientcheck.recorder import Recorder, RecordingApplication

        recorder = Recorder(settings.record, settings.max_json_depth)
        app = RecordingApplication(recorder, router=Router())
    if settings.request_log != requestlog.OFF:  # outermost: it times the whole exchange and sees every answer
        app.middlewares.append(requestlog.request_log(settings.request_log))
    app.middlewares.append(end_when_client_gone)
    if not settings.enabled:
        return _switched_off(app, outbound)
    provider_for = provider_for or default_provider_for(settings)
    hooks = ProviderHooks(provider_for)  # found once, for the HTTP edge's faults and the domain's foresight
    factory = SessionFactory(provider_for, on_open=on_session_open, hooks=hooks)
    pool = SessionPool(factory, idle_timeout=settings.session_idle_timeout, max_idle=settings.max_idle_sessions,
                       max_bytes=settings.max_session_bytes)
    outbound = outbound or Outbound(allow_private=settings.allow_private_push_urls)
    push = HttpPushSender(outbound, sleep=push_sleep)
    notes = notifications_for(settings.file_changes)  # None: every file checked by stat on each use
    stores = TaskStores(TaskFileCodec(), notes)
    service = A2AService(settings, pool, notifier, stores, outbound, push=push)
    directory: CallerDirectory = WorkspaceCallerDirectory(workspaces)
    if notes is not None:  # design README: an index kept by the kernel's notifications
        directory = index = CallerIndex(workspaces, notes)
        _follow_changes(app, notes, index, stores)
    # every A2A handler is wrapped in the key check where its route is registered
    guard = authenticated(directory, settings, prepare=_swept_on_first_use())

    faults = Faults(hooks.fault_for)

    def scope_for(request: Request) -> Scope:
        return Scope(service, caller_of(request), base_url(request, settings), settings, faults)

    async def jsonrpc_endpoint(request: Request) -> Response:
        return await jsonrpc.handle(request, scope_for(request))

    app.router.add_post("/a2a", guard(jsonrpc_endpoint, "jsonrpc"))  # BlackSheep also matches the trailing slash
    app.router.add_get("/a2a", guard(jsonrpc.not_posted, "jsonrpc"))
    rest.mount(app.router, scope_for, guard)
    push_receiver.mount(app.router, settings, on_push)  # no key guard: the watch's token authenticates a push
    card = public_card_endpoint(settings)
    app.router.add_get("/.well-known/agent-card.json", card)
    app.router.add_head("/.well-known/agent-card.json", card)
    app.router.fallback = not_found
    _schedule_eviction(app, pool)
    _close_on_stop(app, push)
    if recorder is not None:
        _record_until_stop(app, recorder)
    return app


def _switched_off(app: Application, outbound: Outbound | None) -> Application:
    """A2A__Enabled=false (design "Telegram host": no MapA2AServer): no A2A endpoint and no card, only 404s."""
    log.warning("A2A is switched off (A2A__Enabled=false): no A2A endpoint is mapped, every path answers 404")

    async def switched_off(request: Request) -> Response:
        error = MethodNotFound(f"No route {request.method} {request.path}: A2A is switched off on this server")
        return rest.error_response(error)

    app.router.fallback = switched_off
    if outbound is not None:  # given by the host, which may have handed it to a notifier: closed at stop all the same

        @app.lifespan
        async def close_outbound():  # type: ignore[no-untyped-def]
            yield
            await outbound.aclose()

    return app


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


def _schedule_eviction(app: Application, pool: SessionPool) -> None:
    """Evict idle sessions periodically (they stay resumable from their JSONL)."""

    @app.lifespan
    async def evict_idle_sessions():  # type: ignore[no-untyped-def]
        async def loop() -> None:
            while True:
                await asyncio.sleep(EVICTION_INTERVAL_SECONDS)
                pool.evict_idle()

        job = asyncio.create_task(loop())
        yield
        job.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await job


def _close_on_stop(app: Application, push: HttpPushSender) -> None:
    """At shutdown, pending push deliveries are dropped rather than waited for (and the client is closed)."""

    @app.lifespan
    async def close_push():  # type: ignore[no-untyped-def]
        yield
        await push.aclose()


def _record_until_stop(app: Application, recorder: Recorder) -> None:
    """The record folder exists from the start; at shutdown every exchange recorded so far is on disk."""

    @app.lifespan
    async def record():  # type: ignore[no-untyped-def]
        await off_loop(functools.partial(recorder.folder.mkdir, parents=True, exist_ok=True))
        yield
        await off_loop(recorder.close)


def _follow_changes(app: Application, notes: Notifications, index: CallerIndex, stores: TaskStores) -> None:
    """The kernel's notifications are read as they come (so their queue does not fill up between two requests);
    the caller index is built before the first request (on a disk thread); at the end, what is followed is let go."""

    @app.lifespan
    async def follow():  # type: ignore[no-untyped-def]
        loop = asyncio.get_running_loop()
        notes.read_on(loop)
        await index.start()
        yield
        notes.stop_reading_on(loop)
        index.close()
        stores.close()


def _swept_on_first_use() -> Callable[[Caller], Awaitable[None]]:
    """Before a workspace's first request, the temp files that interrupted writes left in its tasks/ and the
    unfinished downloads in its inbox/ are removed (on a disk thread): only then, so that a host of many owners reads
    nothing of an owner's folders at start (the caller index reads its callers.json, nothing else), and before this
    process writes anything there."""
    swept: dict[Path, asyncio.Future[None] | None] = {}  # None: done

    def sweep(workspace: Workspace) -> None:
        try:
            if removed := remove_stray_temp_files(workspace):
                log.info("removed %d temp files that interrupted writes left in %s", removed, workspace.tasks_dir)
            if removed := remove_stray_downloads(workspace):
                log.info("removed %d downloads a stopped server left unfinished in %s", removed, inbox_of(workspace))
        except OSError as error:  # the folder is the owner's: what cannot be removed stays, the request goes on
            log.warning("the leftovers of interrupted writes in %s could not be removed: %s", workspace.path, error)

    async def prepare(caller: Caller) -> None:
        path = caller.workspace.path
        if path not in swept:
            started = swept[path] = asyncio.ensure_future(off_loop(sweep, caller.workspace))
            started.add_done_callback(lambda _: swept.update({path: None}))
        job = swept[path]
        if job is not None:
            await asyncio.shield(job)  # a request that goes away does not stop the sweep

    return prepare
