"""The composition root: the only place that wires settings, workspaces, the agent core, the service and bindings."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from blacksheep import Application, Request, Response, Router

from reference_server.a2a.ports import OwnerNotifier, Ports
from reference_server.a2a.service import A2AService
from reference_server.agent.a2a_tools import a2a_tools
from reference_server.agent.hooks import ProviderFor, ProviderHooks
from reference_server.agent.pool import SessionPool
from reference_server.agent.provider import Provider
from reference_server.agent.session import AgentSession, SessionFactory
from reference_server.bindings import endpoints, requestlog, rest
from reference_server.bindings.auth import authenticated
from reference_server.bindings.faults import Faults
from reference_server.bindings.http import end_when_client_gone
from reference_server.bindings.push_receiver import OnPush
from reference_server.bindings.push_sender import HttpPushSender, Sleep
from reference_server.codecs.task_file import TaskFileCodec
from reference_server.model.caller import Workspace
from reference_server.model.errors import MethodNotFound
from reference_server.platform.addresses import url_refusal
from reference_server.platform.changes import Notifications
from reference_server.platform.disk import off_loop
from reference_server.platform.lane import Lane
from reference_server.platform.outbound import Outbound
from reference_server.settings import Settings
from reference_server.workspace.caller_index import CallerIndex
from reference_server.workspace.callers import CallerDirectory, WorkspaceCallerDirectory
from reference_server.workspace.inbox import WorkspaceFiles
from reference_server.workspace.sweep import swept_on_first_use
from reference_server.workspace.task_store import TaskStores

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
    notifications: Notifications | None = None,
) -> Application:
    """The app, in three steps: the A2A core (the agent's sessions, the task stores, the service), the endpoints,
    and what runs beside them for the app's life.

    on_session_open sees every session the pool opens (its event bus carries a2a.inbound); on_push(watch_id, token,
    body) receives the pushes to POST /a2a/push/{watchId} (None: every push is 404). outbound is the guarded HTTP
    client for push deliveries and file downloads (tests give one that trusts their test CA); push_sleep is how push
    retries wait (tests record the waits instead of sleeping them). notifications are the kernel's file
    notifications, built once by the host (platform/file_changes.notifications_for) and handed in; None: every file is
    checked by stat on each use.
    """
    app, recorder = _application(settings)
    if not settings.enabled:
        return _switched_off(app, outbound)
    provider_for = provider_for or default_provider_for(settings)
    hooks = ProviderHooks(provider_for)  # found once, for the HTTP edge's faults and the domain's foresight
    factory = SessionFactory(provider_for, on_open=on_session_open, hooks=hooks)
    pool = SessionPool(factory, idle_timeout=settings.session_idle_timeout, max_idle=settings.max_idle_sessions,
                       max_bytes=settings.max_session_bytes)
    outbound = outbound or Outbound(allow_private=settings.allow_private_push_urls)
    push = HttpPushSender(outbound, sleep=push_sleep)
    stores = TaskStores(TaskFileCodec(), notifications)
    ports = Ports(sessions=pool, tools=functools.partial(a2a_tools, notifier=notifier), stores=stores,
                  files=WorkspaceFiles(outbound), lane=Lane(), notifier=notifier,
                  url_refusal=functools.partial(url_refusal, allow_private=settings.allow_private_push_urls))
    service = A2AService(settings, ports, push=push)
    directory: CallerDirectory = WorkspaceCallerDirectory(workspaces)
    if notifications is not None:  # design README: an index kept by the kernel's notifications
        directory = index = CallerIndex(workspaces, notifications)
        _follow_changes(app, notifications, index, stores)
    guard = authenticated(directory, settings, prepare=swept_on_first_use())
    endpoints.mount(app.router, settings, service, Faults(hooks.fault_for), guard, on_push)
    _schedule_eviction(app, pool)
    _close_on_stop(app, push)
    if recorder is not None:
        _record_until_stop(app, recorder)
    return app


def _application(settings: Settings) -> tuple[Application, Recorder | None]:
    """The app on its own router (the default one is global: stack notes §1.1), wrapped to record every exchange
    under A2A__Record, with the request log outermost (it times the whole exchange and sees every answer)."""
    recorder = None
    if settings.record is None:
        app = Application(router=Router())
    else:  # its module imported only then
        from reference_server.clientcheck.recorder import Recorder, RecordingApplication

        recorder = Recorder(settings.record, settings.max_json_depth)
        app = RecordingApplication(recorder, router=Router())
    if settings.request_log != requestlog.OFF:
        app.middlewares.append(requestlog.request_log(settings.request_log))
    app.middlewares.append(end_when_client_gone)
    return app, recorder


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
