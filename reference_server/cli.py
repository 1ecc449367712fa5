"""`reference-server`: serve one workspace (by default a copy of the embedded demo workspace), or the workspaces of
the listed owners under a root; `reference-server a2a` lists the callers and tasks of a workspace or of every owner,
and adds or removes a caller (admin.py); `reference-server report DIR` writes the client report of the exchanges
recorded with --record DIR; `reference-server conformance [URL]` runs the portable conformance suite
(conformance/run.py); `reference-server client-check COMMAND` runs a client against a recording server
(clientcheck/run.py)."""

from __future__ import annotations

import argparse
import errno
import gc
import os
import shutil
import socket
import sys
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

import uvicorn
from blacksheep import Application

from reference_server import admin
from reference_server.agent.notifier import owner_notifier
from reference_server.hosting.owners import OwnersFile, owner_workspaces
from reference_server.hosting.watches import WorkspaceWatches
from reference_server.model.caller import Workspace
from reference_server.model.layout import callers_file
from reference_server.platform.changes import Notifications
from reference_server.platform.collector import THRESHOLDS, Collector
from reference_server.platform.file_changes import notifications_for
from reference_server.platform.heap import Trimmer, fix_mmap_threshold
from reference_server.platform.outbound import Outbound
from reference_server.process import console
from reference_server.process.app import create_app
from reference_server.process.serving import uvicorn_options
from reference_server.settings import Settings, SettingsError, load_settings
from reference_server.workspace.callers import add_caller, caller_entry, new_key, read_callers

DEMO_CALLER = "demo"


def demo_workspace_path() -> Path:
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return state / "a2a-reference-server" / "demo-workspace"


def prepare_demo_workspace(target: Path) -> str:
    """Copy the embedded demo workspace (once) and make sure it has a demo caller; return its key."""
    if not target.exists():
        source = resources.files("reference_server") / "demo"
        with resources.as_file(source) as folder:
            shutil.copytree(folder, target)
    callers = callers_file(target)
    for entry in read_callers(callers):
        if entry.name == DEMO_CALLER:
            return entry.key
    key = new_key()
    try:
        add_caller(callers, caller_entry(DEMO_CALLER, key, "created by reference-server"))
    except ValueError as error:  # unreadable, not a JSON list, or holding a 'demo' the server skips: kept as it is
        raise SettingsError(f"the demo workspace's callers file cannot take the demo caller: {error}") from None
    return key


def owners_of(settings: Settings) -> str:
    if settings.owners_file is not None:
        return f"those listed in {settings.owners_file.resolve()}, read again when it changes"
    return ", ".join(settings.owners)


def banner(settings: Settings, workspace: Path, key: str | None) -> str:
    url = settings.public_url or f"http://{settings.host}:{settings.port}"
    lines = [
        f"A2A reference server on {url}",
        (f"  owners: {owners_of(settings)} (each served from {workspace}/<owner>)" if settings.workspace_root
         else f"  workspace: {workspace}"),
        f"  owner notifier: {settings.notifier}",
        f"  public card: {url}/.well-known/agent-card.json",
    ]
    if not settings.enabled:
        return "\n".join([*lines[:-1], "  A2A is switched off (A2A__Enabled=false): every path answers 404"])
    if key is not None:
        lines += [
            f"  demo caller: {DEMO_CALLER}",
            f"  demo key:    {key}",
            "  try it:",
            f"    curl -s -H 'X-API-Key: {key}' -H 'A2A-Version: 1.0' {url}/a2a/v1/extendedAgentCard",
            f"    curl -s -H 'X-API-Key: {key}' -H 'A2A-Version: 1.0' -H 'Content-Type: application/json' "
            f"{url}/a2a/v1/message:send -d '{{\"message\":{{\"messageId\":\"m1\",\"role\":\"ROLE_USER\","
            f"\"parts\":[{{\"text\":\"hello\"}}]}}}}'",
        ]
    return "\n".join(lines)


def configure_logging(request_log: str = Settings.request_log) -> None:
    """The server's console: its log, and the request log's lines among them (console.py)."""
    console.configure(request_log)


def tune_runtime(app: Application) -> None:
    """Call once the app is built, to keep the event loop's pauses short, and the memory of large payloads given
    back when they are freed (heap.py: a fixed mmap threshold, and a Trimmer while the app runs): what exists then
    lives as long as the process, so the garbage collector stops walking it; collections are the Collector's while
    the app runs (collector.py: they wait while the loop is busy), and full ones come ten times less often (each
    walks every object: with 1,000 runs open that took 50-140 ms, on the loop); and a disk thread hands the GIL back
    to the loop's thread after 1 ms instead of 5 ms."""
    trimmer = Trimmer() if fix_mmap_threshold() else None  # glibc: the heap can give freed pages back
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)  # what the collector applies, and CPython's own once it stops
    sys.setswitchinterval(0.001)
    collector = Collector()

    @app.lifespan
    async def collect_and_trim_when_there_is_room():  # type: ignore[no-untyped-def]
        collector.start()
        if trimmer is not None:
            trimmer.start()
        yield
        if trimmer is not None:
            trimmer.stop()
        collector.stop()


Workspaces = Callable[[], Sequence[Workspace]]


def listenable(host: str, port: int) -> None:
    """SettingsError, before anything is printed, when the server could not listen there (a busy port, above all);
    the socket is closed again at once, and uvicorn opens its own."""
    if port == 0:
        return  # any free port: nothing to check
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as error:
        raise SettingsError(f"--host {host} cannot be listened on ({error.strerror}); expected an address of this "
                            "machine, such as 127.0.0.1") from None
    family, kind, proto, _, address = addresses[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a TIME_WAIT port is free
        try:
            probe.bind(address)
            probe.listen(1)
        except OSError as error:
            busy = error.errno == errno.EADDRINUSE
            why = "another process listens there" if busy else error.strerror
            raise SettingsError(f"port {port} on {host} cannot be listened on ({why}); choose another with --port "
                                "(A2A__Port), or stop what uses it") from None


def served(settings: Settings, notes: Notifications | None) -> tuple[Path, Workspaces, str | None]:
    """The folder served, the function listing its workspaces, and the demo key (demo workspace only); SettingsError
    when a folder or the owners file is not there. notes: the kernel's file notifications (None: stat)."""
    if settings.workspace_root is not None:
        root = settings.workspace_root.resolve()
        if not root.is_dir():
            raise SettingsError(f"--workspace-root {root} is not a folder")
        if settings.owners_file is None:
            return root, owner_workspaces(root, lambda: settings.owners), None
        owners_file = settings.owners_file.resolve()
        if not owners_file.is_file():
            raise SettingsError(f"--owners-file {owners_file} is not a file")
        # read again when it changes, by the means A2A__FileChanges names
        owners = OwnersFile(owners_file, notes)
        return root, owner_workspaces(root, owners), None
    key = None
    if settings.workspace is None:
        path = demo_workspace_path()
        key = prepare_demo_workspace(path)
    else:
        path = settings.workspace.resolve()
        if not path.is_dir():
            raise SettingsError(f"--workspace {path} is not a folder")
    owner = settings.owners[0] if settings.owners else "owner"
    single = (Workspace(path, owner_id=owner, scope_prefix=settings.scope_prefix),)
    return path, lambda: single, key  # the same tuple on every call: the caller index sees it unchanged


def report_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="reference-server report",
        description="Write client-report.json and client-report.html from the exchanges recorded with --record "
        "(A2A__Record), and print the coverage matrix, the conventions and the violations.",
    )
    parser.add_argument("records", type=Path, metavar="DIR", help="the folder given to --record")
    parser.add_argument("--out", type=Path, metavar="DIR", help="where to write the report (default: DIR)")
    args = parser.parse_args(list(argv))
    from reference_server.clientcheck import report  # only this command needs it

    if not args.records.is_dir():
        print(f"reference-server report: {args.records} is not a folder", file=sys.stderr)
        return 2
    built, json_path, html_path = report.write(args.records, args.out)
    print(report.summary_text(built))
    print(f"\nreport: {json_path}\n        {html_path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["a2a"]:
        return admin.main(args[1:], default_workspace=demo_workspace_path)
    if args[:1] == ["report"]:
        return report_main(args[1:])
    if args[:1] == ["conformance"]:  # pytest and pytest-bdd are imported by the run it starts, not here
        from reference_server.conformance import run as conformance

        return conformance.main(args[1:])
    if args[:1] == ["client-check"]:
        from reference_server.clientcheck import run as client_check

        return client_check.main(args[1:])
    try:
        settings = load_settings(os.environ, args)
    except SettingsError as error:
        print(f"reference-server: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.request_log)
    try:
        listenable(settings.host, settings.port)
        notes = notifications_for(settings.file_changes)  # built once; notify where the kernel has none stops here
        options = uvicorn_options(settings)  # an event loop that cannot be had stops here
        path, workspaces, key = served(settings, notes)
    except SettingsError as error:
        print(f"reference-server: {error}", file=sys.stderr)
        return 2
    outbound = Outbound(allow_private=settings.allow_private_push_urls)  # push, file URLs and the notifier
    try:
        notifier = owner_notifier(settings, outbound)
    except SettingsError as error:
        print(f"reference-server: {error}", file=sys.stderr)
        return 2
    # pushes go to the watches of the workspace (owner-host mode: of the first owner's workspace listing the watch)
    app = create_app(settings, workspaces, notifier=notifier, outbound=outbound, on_push=WorkspaceWatches(workspaces),
                     notifications=notes)
    print(banner(settings, path, key), flush=True)
    tune_runtime(app)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info", **options)
    return 0
