"""The pytest plugin for client projects: a reference server for a test or a session (docs/client-testing.md).

Installing the package registers it (the `pytest11` entry point), so pytest loads it in every session: at import it
defines its fixtures and nothing else; the server and everything it needs are imported when a test first asks for
one. Each server listens on 127.0.0.1 on a port the system picks, serves a temporary workspace with one caller and a
fresh key, records every exchange (A2A__Record), and stops when its fixture's scope ends.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import uvicorn
    from blacksheep import Application

CALLER = "client"
START_SECONDS = 15.0
STOP_SECONDS = 10.0


class ReferenceServerError(RuntimeError):
    """The reference server did not start; the message says why."""


class _Kit:
    """What a test reads of the exchanges it sees, and asserts on them; each failed assertion names the rule, its
    section, the exchanges and the report's path (written into `folder`)."""

    folder: Path
    key: str

    def exchanges(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def report(self) -> dict[str, Any]:
        raise NotImplementedError

    def assert_no_violations(self) -> None:
        """No request broke a rule of the spec, and no behaviour was broken (what fails `make client-check`)."""
        __tracebackhide__ = True
        from reference_server.clientcheck.assertions import violations_text

        self._fail(violations_text(self.report(), self.folder))

    def assert_called(self, operation: str, *, binding: str | None = None, version: str | None = None,
                      ok: bool = True) -> None:
        """The client called the A2A operation ("SendMessage"), over the binding ("jsonrpc", "rest") and version
        ("1.0", "0.3") when given, and got at least one answer without an error (any answer, with ok=False)."""
        __tracebackhide__ = True
        from reference_server.clientcheck.assertions import called_text

        report = self.report()
        self._fail(called_text(report, self.exchanges(), self.folder, operation, binding, version, ok))

    def assert_behaviour(self, behaviour: str, status: str = "held") -> None:
        """The behaviour ("stream-recovered", …) has this status: held, broken, pending or not exercised."""
        __tracebackhide__ = True
        from reference_server.clientcheck.assertions import behaviour_text

        self._fail(behaviour_text(self.report(), self.folder, behaviour, status))

    def _fail(self, text: str | None) -> None:
        __tracebackhide__ = True
        if text is not None:
            raise AssertionError(text.replace(self.key, "***"))  # the records mask it; a text never shows it


class ReferenceServer(_Kit):
    """A reference server on 127.0.0.1 serving one workspace with one caller, recording what that caller sends.

    `url` is the base URL (the card is at `card_url`; JSON-RPC at `url + "/a2a"`, HTTP+JSON under
    `url + "/a2a/v1"`), `key` the caller's key (X-API-Key or Authorization: Bearer). `set_script()` gives the
    scripted agent a script of your own; `exchanges()` and `report()` are what was recorded so far, and the
    `assert_…` methods assert on them."""

    def __init__(self, folder: Path, *, port: int = 0, **settings: Any) -> None:
        self.folder = folder
        self.workspace = folder / "workspace"
        self.records = folder / "records"
        self.key = "k_" + secrets.token_hex(24)
        self.url = ""
        self._port = port
        self._settings = settings
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._app: Application | None = None
        self._failure: BaseException | None = None
        self._said: list[str] = []

    @property
    def card_url(self) -> str:
        return self.url + "/.well-known/agent-card.json"

    # --- start and stop

    def start(self) -> ReferenceServer:
        """Start the server and wait until it listens; ReferenceServerError names the cause when it cannot."""
        import uvicorn

        from reference_server.model.caller import Workspace
        from reference_server.model.layout import callers_file
        from reference_server.platform.file_changes import notifications_for
        from reference_server.process.app import create_app
        from reference_server.process.serving import uvicorn_options
        from reference_server.settings import Settings
        from reference_server.workspace.callers import caller_entry, write_callers

        write_callers(callers_file(self.workspace),
                             [caller_entry(CALLER, self.key, "made by the pytest plugin")])
        workspace = Workspace(self.workspace, owner_id="owner", scope_prefix="pytest")
        try:
            settings = Settings(**{"allow_private_push_urls": True, "request_log": "off", **self._settings,
                                   "record": self.records})
        except TypeError as error:
            raise ReferenceServerError(f"the A2A reference server did not start: a setting it does not have "
                                       f"({error})") from None
        self._app = create_app(settings, lambda: [workspace], notifications=notifications_for(settings.file_changes))
        config = uvicorn.Config(self._app, host="127.0.0.1", port=self._port, log_level="warning", lifespan="on",
                                **{**uvicorn_options(settings), "timeout_graceful_shutdown": 2})
        self._server = server = uvicorn.Server(config)
        said = _Said(self._said)
        logging.getLogger("uvicorn.error").addHandler(said)
        self._thread = threading.Thread(target=self._serve, name="a2a-reference-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_SECONDS
        try:
            while not server.started:
                if not self._thread.is_alive() or time.monotonic() > deadline:
                    self.stop()
                    raise ReferenceServerError(f"the A2A reference server did not start: {self._cause()}")
                time.sleep(0.01)  # a bounded poll for the listening socket
        finally:
            logging.getLogger("uvicorn.error").removeHandler(said)
        self.url = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
        return self

    def _serve(self) -> None:
        assert self._server is not None
        try:
            self._server.run()
        except BaseException as error:  # uvicorn ends a failed start with SystemExit; the cause is what it said
            self._failure = error

    def _cause(self) -> str:
        if self._said:
            return "; ".join(self._said)
        if self._failure is not None:
            return f"{type(self._failure).__name__}: {self._failure}"
        return f"it was not listening after {START_SECONDS:g} s"

    def stop(self) -> None:
        """Stop the server; what it recorded is on disk when this returns."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(STOP_SECONDS)

    # --- what the test reads and sets

    def set_script(self, script: dict[str, Any] | str | None) -> None:
        """The scripted agent's script from the next message on (docs/scripted-agent.md, "Your own script"): a
        dict or JSON text; None goes back to the default script. It is checked here, as the agent reads it: a script
        it cannot play raises ValueError (ScriptError) naming the field and why, and the script in place stays."""
        from reference_server.model.layout import script_file
        from reference_server.platform.disk import replace_now

        path = script_file(self.workspace)
        if script is None:
            path.unlink(missing_ok=True)
            return
        text = script if isinstance(script, str) else json.dumps(script)
        _check_script(text)
        replace_now(path, text.encode())  # whole or not at all: a run never reads half a script

    def exchanges(self) -> list[dict[str, Any]]:
        """Every exchange recorded so far, in the order they arrived (docs/client-testing.md, "Recording by hand")."""
        return _parsed(self._since({}))

    def report(self) -> dict[str, Any]:
        """The client report of what was recorded so far (client-report.json's content), also written as
        client-report.json and client-report.html into `folder`. While the server runs, a behaviour whose time
        window is still open is pending; once it has stopped, every window has closed."""
        self._flush()
        self.records.mkdir(parents=True, exist_ok=True)
        return _written_report(self.records, self.folder, self._running)

    def _since(self, marks: dict[str, int]) -> dict[str, bytes]:
        """What each records file holds past its mark (bytes; a file without one, whole), every exchange answered
        so far included."""
        self._flush()
        found = {}
        for path in sorted(self.records.glob("*.jsonl")):
            with path.open("rb") as records:
                records.seek(marks.get(path.name, 0))
                found[path.name] = records.read()
        return found

    def _marks(self) -> dict[str, int]:
        """Where each records file ends now (every exchange answered so far in it): the mark a test's share of the
        exchanges starts from."""
        self._flush()
        return {path.name: path.stat().st_size for path in self.records.glob("*.jsonl")}

    @property
    def _running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _flush(self) -> None:
        from reference_server.clientcheck.recorder import RecordingApplication

        if isinstance(self._app, RecordingApplication) and self._running:
            self._app.recorder.flush()


class SharedServer(_Kit):
    """The session's server as one test sees it (the a2a_shared_server fixture): the same `url` and `key`, the test's
    own script (the default one until it sets another, and again when it ends, passed or failed), and only the
    exchanges recorded while it runs, with a report of their own in `folder`."""

    def __init__(self, server: ReferenceServer, folder: Path) -> None:
        self.server = server
        self.folder = folder
        self.records = folder / "records"
        self.url, self.key, self.workspace = server.url, server.key, server.workspace
        self._marks = server._marks()

    @property
    def card_url(self) -> str:
        return self.server.card_url

    def set_script(self, script: dict[str, Any] | str | None) -> None:
        """As ReferenceServer.set_script, for this test only: the default script comes back when it ends."""
        self.server.set_script(script)

    def exchanges(self) -> list[dict[str, Any]]:
        """The exchanges recorded since this test began, in the order they arrived."""
        return _parsed(self.server._since(self._marks))

    def report(self) -> dict[str, Any]:
        """The client report of this test's exchanges, also written as client-report.json and .html into `folder`
        (beside their records)."""
        shutil.rmtree(self.records, ignore_errors=True)
        self.records.mkdir(parents=True)
        for name, data in self.server._since(self._marks).items():
            if data:
                (self.records / name).write_bytes(data)
        return _written_report(self.records, self.folder, self.server._running)


def _parsed(files: dict[str, bytes]) -> list[dict[str, Any]]:
    found = [json.loads(line) for data in files.values() for line in data.decode("utf-8").splitlines() if line.strip()]
    return sorted(found, key=lambda record: str(record.get("time")))


def _written_report(records: Path, out: Path, running: bool) -> dict[str, Any]:
    from reference_server.clientcheck import report
    from reference_server.clientcheck.behaviours import RUN_ENDED

    return report.write(records, out, now=None if running else RUN_ENDED)[0]


def _check_script(text: str) -> None:
    """ScriptError (a ValueError) for a script the scripted agent cannot play: its format (spec/schemas/script.json),
    checked by the parser the agent reads every script with, and each rule's fault by the check its messages get,
    with the values a message fills in (placeholders) left for then."""
    from reference_server.agent.script import ScriptError, parse_script
    from reference_server.agent.scripted import PLACEHOLDER
    from reference_server.bindings.faults import FaultError, plan
    from reference_server.model.types import AskedFault

    for index, rule in enumerate(parse_script(text)):
        if rule.fault is None:
            continue
        where = f"$.rules[{index}].fault"
        written = {key: "" if isinstance(value, str) and PLACEHOLDER.search(value) else value
                   for key, value in rule.fault.items()}  # "" leaves a setting at its default, as plan reads it
        try:
            plan(AskedFault(written, where))
        except FaultError as error:
            raise ScriptError(where, str(error)) from None



class _Said(logging.Handler):
    """Keeps the errors uvicorn logs while the server starts: why a start failed."""

    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.ERROR)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record.getMessage())


MARKER = "a2a_server"  # @pytest.mark.a2a_server(capabilities_streaming=False, ...): the function fixture's settings


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}(**settings): the settings of the test's a2a_server fixture")


def _served(folder: Path, **settings: Any) -> Iterator[ReferenceServer]:
    server = ReferenceServer(folder, **settings).start()
    try:
        yield server
    finally:
        server.stop()
        server.report()  # client-report.json and .html beside the records, for the test run to keep


@pytest.fixture
def a2a_server(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[ReferenceServer]:
    """A reference server for one test: its own workspace, key and records; the test's a2a_server marker gives it
    settings (a capability switched off: `@pytest.mark.a2a_server(capabilities_streaming=False)`)."""
    marker = request.node.get_closest_marker(MARKER)
    yield from _served(tmp_path_factory.mktemp("a2a-server"), **(marker.kwargs if marker else {}))


@pytest.fixture(scope="session")
def a2a_server_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReferenceServer]:
    """One reference server for the whole session: every test that asks for it shares its records."""
    yield from _served(tmp_path_factory.mktemp("a2a-server-session"))


@pytest.fixture
def a2a_shared_server(a2a_server_session: ReferenceServer, tmp_path_factory: pytest.TempPathFactory,
                      request: pytest.FixtureRequest) -> Iterator[SharedServer]:
    """The session's server for one test: the default script until the test sets its own, and only the exchanges
    of this test in its exchanges(), report() and assertions. Its script is reset when it ends, even if it failed,
    and its report is written into its folder (named after the test) for the run to keep."""
    a2a_server_session.set_script(None)  # what a test of a2a_server_session may have left
    shared = SharedServer(a2a_server_session, tmp_path_factory.mktemp(
        "a2a-" + re.sub(r"\W", "_", request.node.name)[:30]))
    try:
        yield shared
    finally:
        a2a_server_session.set_script(None)
        shared.report()
