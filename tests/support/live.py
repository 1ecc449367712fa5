"""A live server for tests: uvicorn in a thread on 127.0.0.1, a free port, stopped at the end."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

import uvicorn

from reference_server.agent.hooks import ProviderFor
from reference_server.agent.notifier import owner_notifier
from reference_server.agent.session import AgentSession
from reference_server.bindings.push_receiver import OnPush
from reference_server.conformance.support.webhook import client_ssl_context, test_resolver
from reference_server.hosting.owners import OwnersFile, owner_workspaces
from reference_server.hosting.watches import WorkspaceWatches
from reference_server.model.caller import Workspace
from reference_server.platform.file_changes import notifications_for
from reference_server.platform.outbound import Outbound
from reference_server.process.app import create_app
from reference_server.process.serving import uvicorn_options
from reference_server.settings import Settings
from reference_server.workspace.callers import caller_entry, write_callers


class WorkspaceRegistry:
    """The workspaces a test server serves; scenarios add theirs and remove them when they end."""

    def __init__(self) -> None:
        self._items: list[Workspace] = []
        self._lock = threading.Lock()

    def add(self, workspace: Workspace) -> None:
        with self._lock:
            self._items.append(workspace)

    def remove(self, workspace: Workspace) -> None:
        with self._lock:
            if workspace in self._items:
                self._items.remove(workspace)

    def __call__(self) -> Iterable[Workspace]:
        with self._lock:
            return list(self._items)


class OwnerHostWorkspaces:
    """The workspaces of an owner host, through the server's own owner_workspaces: <root>/<owner>/ of each owner
    listed now. Adding a workspace lists its owner; removing it takes the owner off the list."""

    def __init__(self, root: Path, owners: Iterable[str]) -> None:
        self.owners = list(owners)
        self._listed = owner_workspaces(root, lambda: list(self.owners))

    def add(self, workspace: Workspace) -> None:
        if workspace.owner_id not in self.owners:
            self.owners.append(workspace.owner_id)

    def remove(self, workspace: Workspace) -> None:
        if workspace.owner_id in self.owners:
            self.owners.remove(workspace.owner_id)

    def __call__(self) -> list[Workspace]:
        return list(self._listed())


class OwnersFileWorkspaces:
    """The workspaces of an owner host that reads its owners from a file (A2A__OwnersFile), through the server's own
    OwnersFile: adding a workspace writes its owner into the file, removing it takes the owner out."""

    def __init__(self, root: Path, file: Path, owners: Iterable[str]) -> None:
        self.file = file
        file.write_text("".join(f"{owner}\n" for owner in owners), encoding="utf-8")
        self._listed = owner_workspaces(root, OwnersFile(file, notifications_for("auto")))

    @property
    def owners(self) -> list[str]:
        return [line for line in self.file.read_text(encoding="utf-8").splitlines() if line]

    def list(self, owners: Iterable[str]) -> None:
        self.file.write_text("".join(f"{owner}\n" for owner in owners), encoding="utf-8")

    def add(self, workspace: Workspace) -> None:
        if workspace.owner_id not in self.owners:
            self.list([*self.owners, workspace.owner_id])

    def remove(self, workspace: Workspace) -> None:
        self.list([owner for owner in self.owners if owner != workspace.owner_id])

    def __call__(self) -> tuple[Workspace, ...]:
        return self._listed()


class Workspaces(Protocol):
    """What a test server serves: scenarios add their workspaces and remove them when they end."""

    def add(self, workspace: Workspace) -> None: ...

    def remove(self, workspace: Workspace) -> None: ...

    def __call__(self) -> Iterable[Workspace]: ...


class LiveServer:
    """uvicorn in a daemon thread; start() waits until it listens, stop() ends it."""

    jsonrpc_path = "/a2a"  # the card's interface URLs, relative to the server
    rest_prefix = "/a2a/v1"
    push_prefix = "/a2a/push"  # the push receiver: <push_prefix>/<watchId>
    card_url = "/.well-known/agent-card.json"  # A2A §8.2
    agent = None  # its scripted agent follows both the TCK's and ACTS's conventions (support/conventions.py)

    def __init__(self, settings: Settings, *, with_notifier: bool = True,
                 on_push_for: Callable[[Workspaces], OnPush | None] = WorkspaceWatches,
                 workspaces: Workspaces | None = None, provider_for: ProviderFor | None = None) -> None:
        self.workspaces: Workspaces = WorkspaceRegistry() if workspaces is None else workspaces
        self.settings = settings
        self.inbound: list[dict[str, Any]] = []  # every a2a.inbound payload, with the session's scope
        self.push_waits: list[float] = []  # what push retries asked to wait (recorded, not slept)
        outbound = Outbound(allow_private=settings.allow_private_push_urls, ssl_context=client_ssl_context(),
                            resolver=test_resolver, timeout=5.0)
        # the notifier A2A__Notifier names (the log notifier by default), as the command builds it
        self.notifier = owner_notifier(settings, outbound) if with_notifier else None
        # by default pushes reach the watches of the scenarios' workspaces, as they reach an owner host's
        self.app = create_app(settings, self.workspaces, notifier=self.notifier, on_session_open=self._watch_bus,
                              outbound=outbound, push_sleep=self._push_wait, on_push=on_push_for(self.workspaces),
                              provider_for=provider_for, notifications=notifications_for(settings.file_changes))
        options = {**uvicorn_options(settings), "timeout_graceful_shutdown": 2}  # served as the command serves
        config = uvicorn.Config(self.app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", **options)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = ""

    async def _push_wait(self, seconds: float) -> None:
        self.push_waits.append(seconds)

    def _watch_bus(self, session: AgentSession) -> None:
        """Record a2a.inbound { hops, caller } of every session, with how many prompts it had already seen."""

        def record(payload: dict[str, Any]) -> None:
            prompts = sum(1 for r in session.history() if r["role"] == "user")
            self.inbound.append({"scope": session.scope, "prompts_before": prompts, **payload})

        session.bus.subscribe("a2a.inbound", record)

    def paths(self, binding: str, version: str) -> tuple[str, str]:
        """The JSON-RPC path and the HTTP+JSON prefix: the same for every version (0.3 on the 1.0 endpoints)."""
        return self.jsonrpc_path, self.rest_prefix

    def start(self, timeout: float = 15.0) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)


def live(server: object) -> LiveServer:
    """The server under test as the live reference server it is in a design scenario (against another server those
    scenarios do not run: the plugin skips them)."""
    assert isinstance(server, LiveServer), "expected a live reference server under test, the scenario has another"
    return server


def one_caller_server(folder: Path, name: str, key: str, **overrides: Any) -> LiveServer:
    """A started server with one workspace in folder and one caller in it (the robustness runs' target)."""
    workspace = Workspace(folder / "ws")
    write_callers(workspace.callers_file, [caller_entry(name, key, "made by the tests")])
    live = LiveServer(settings_for(**overrides))
    live.workspaces.add(workspace)
    return live.start()


def settings_for(**overrides: Any) -> Settings:
    """Test settings: loopback, private push URLs allowed, everything else as in production."""
    return Settings(**{"allow_private_push_urls": True, **overrides})
