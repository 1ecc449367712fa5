"""The pytest plugin of the executable spec: each scenario run once per protocol (binding and A2A version), the
server under test (a live reference server, or another one at A2A_TARGET_URL, discovered first), the World a
scenario's steps share (world.py), and the per-scenario results that `reference-server conformance` turns into its
report.

The portable step definitions are imported here, so that every scenario sees them; the repository's tests/conftest.py
loads this plugin and adds the design's own steps and the snapshots."""

from __future__ import annotations

import importlib
import inspect
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd.scenario import scenario_wrapper_template_registry

from reference_server.conformance import catalogue
from reference_server.conformance.by_requirement import NOT_OFFERED
from reference_server.conformance.support.client import CLIENT_TLS
from reference_server.conformance.support.conventions import Unusable
from reference_server.conformance.support.exchanges import recording_client
from reference_server.conformance.support.health import troubled
from reference_server.conformance.support.reasons import failure_text
from reference_server.conformance.support.replies import NotServed, Seen
from reference_server.conformance.support.target import TARGET_URL, TargetServer, discover, offers
from reference_server.conformance.world import Protocol, ServerFactory, ServerUnderTest, World

PORTABLE_FOLDER = "a2a/"  # spec/features/a2a/: what A2A asks of every server, driven by the TCK's or ACTS's conventions

# Each scenario runs once per protocol: both bindings in A2A 1.0, plus both bindings in A2A 0.3 when tagged
# @v0_3 (0.3 HTTP+JSON is the 0.3 proto's REST transcoding: no ListTasks, the extended card on GET /v1/card).
# @v0_3_only is for 0.3 JSON-RPC shapes (field names like message.parts[0].file.bytes).
BOTH_BINDINGS = [("jsonrpc", "1.0"), ("rest", "1.0")]
V0_3_BINDINGS = [("jsonrpc", "0.3"), ("rest", "0.3")]
# @not_v0_3_rest: the scenario asks what 0.3 HTTP+JSON cannot say (proto3 reads a 0 as unset), so that run is a
# strict xfail; the feature says why in a comment.
NOT_ON_V0_3_REST = pytest.mark.xfail(reason="the 0.3 proto cannot express this scenario", strict=True)
PROTOCOL_TAGS = {"jsonrpc": [("jsonrpc", "1.0")], "rest": [("rest", "1.0")], "no_binding": [("none", "1.0")]}

# step definitions are fixtures: importing them here makes them visible to every scenario
from reference_server.conformance.steps.auth import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.capabilities import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.cards import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.common import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.data_model import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.error_table import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.errors import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.limits import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.listing import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.notifications import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.operations import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.pages import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.prefixes import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.push import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.streaming import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.streams import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.subscribers import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.task_contents import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.tasks import *  # noqa: E402,F403  # noqa: E402,F403
from reference_server.conformance.steps.wire import *  # noqa: E402,F403  # noqa: E402,F403

# pytest-bdd 9 finds a step's definition by asking pytest, for every fixture name, which definitions the test sees
# (find_fixturedefs_for_step): 8 ms a step with this suite's step definitions, half the time of a portable run.
# Every step definition is imported into this plugin or the repository's tests/conftest.py, so what a step finds
# depends only on its kind, its text and the test's module: it is looked up once.
_BDD_SCENARIO = importlib.import_module("pytest_bdd.scenario")  # the module: pytest_bdd.scenario is also a function
_find_step_definitions = _BDD_SCENARIO.find_fixturedefs_for_step
_STEP_DEFINITIONS: dict[tuple[Any, str, Path], list[Any]] = {}


def _remembered_step_definitions(step: Any, fixturemanager: Any, node: Any) -> list[Any]:
    key = (step.type, step.name, node.path)
    if key not in _STEP_DEFINITIONS:
        _STEP_DEFINITIONS[key] = list(_find_step_definitions(step=step, fixturemanager=fixturemanager, node=node))
    return _STEP_DEFINITIONS[key]


setattr(_BDD_SCENARIO, "find_fixturedefs_for_step", _remembered_step_definitions)  # noqa: B010


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "protocol" not in metafunc.fixturenames or scenario_wrapper_template_registry.get(metafunc.function) is None:
        return  # only the executable spec's scenarios run per protocol
    tags = {mark.name for mark in metafunc.definition.iter_markers()}
    combos: list[tuple[str, str]] = []
    for tag, values in PROTOCOL_TAGS.items():
        if tag in tags:
            combos += values
    if "no_binding" in tags and "v0_3" in tags and TARGET_URL and "1.0" not in {v for _, v in target().interfaces}:
        combos = [("none", "0.3")]  # the card of a server that speaks only 0.3 is read as an A2A 0.3 card
    if not combos:
        combos = list(BOTH_BINDINGS)
    if "v0_3" in tags:  # in 0.3 too, on the bindings the scenario runs on in 1.0
        combos += [combo for combo in V0_3_BINDINGS if combo[0] in {binding for binding, _ in combos}]
    if "v0_3_only" in tags:
        combos = [("jsonrpc", "0.3")]
    protocols = [Protocol(*combo) for combo in combos]
    unlike = "not_v0_3_rest" in tags
    params = [pytest.param(p, id=p.id, marks=[NOT_ON_V0_3_REST] if unlike and p.id == "rest-0.3" else [])
              for p in protocols]
    metafunc.parametrize("protocol", params, indirect=True)


@pytest.fixture(autouse=True)
def protocol(request: pytest.FixtureRequest) -> Protocol:
    return getattr(request, "param", Protocol("none", "1.0"))


# --- servers: one per distinct configuration, shared by the whole session ---

ROOTS: list[Path] = []  # scenario workspaces, removed once every server has stopped (server_factory)
_TARGET: dict[str, TargetServer] = {}  # A2A_TARGET_URL: the server under test, when it is not ours
_STOPPED: list[str] = []  # why the target is taken to have crashed, once it has (conformance/support/health.py)
_LAST_ANSWERED: list[str] = []  # the last scenario the target answered without a server error


def target() -> TargetServer:
    """The server under test when it is not ours, discovered once (conformance/support/target.py)."""
    if "target" not in _TARGET:
        _TARGET["target"] = discover(TARGET_URL)
    return _TARGET["target"]


def pytest_sessionstart(session: pytest.Session) -> None:
    """Against another server, discovery comes first: a card that cannot be read or understood, or a key it
    refuses, ends the run with one sentence and the exit status 3, before any scenario runs."""
    if TARGET_URL:
        try:
            target()
        except Unusable as unusable:
            pytest.exit(str(unusable), returncode=3)


@pytest.fixture(scope="session")
def server_factory() -> Iterator[ServerFactory]:
    """The server under test: another one, discovered from A2A_TARGET_URL. The repository's tests/conftest.py gives
    live reference servers instead (one per distinct configuration); `reference-server conformance` without a URL
    starts one and names it here."""

    def get(*, with_notifier: bool = True, **overrides: Any) -> ServerUnderTest:
        if not TARGET_URL:
            pytest.exit("no server under test: give its URL (A2A_TARGET_URL)", returncode=3)
        if with_notifier is False or overrides:
            pytest.skip("needs the reference server started with other settings")
        return target()

    yield get
    remove_roots()


def remove_roots() -> None:
    """The scenario workspaces: a run a scenario left behind (e.g. `sleep 30` never canceled) may still write into
    its workspace until its server stops, so the folders go only then."""
    for root in ROOTS:
        shutil.rmtree(root, ignore_errors=True)
    ROOTS.clear()


@pytest.fixture
def world(server_factory: ServerFactory, protocol: Protocol, request: pytest.FixtureRequest) -> Iterator[World]:
    server = server_factory()
    if TARGET_URL and not offers(server, protocol.binding, protocol.version):
        pytest.skip(f"{NOT_OFFERED}the target's card offers no {protocol.binding} interface in A2A {protocol.version}")
    if _STOPPED:
        pytest.skip(_STOPPED[0])
    root = Path(tempfile.mkdtemp(prefix="a2a-spec-"))
    ROOTS.append(root)
    tags = frozenset(mark.name for mark in request.node.iter_markers())
    level = dict(request.node.user_properties).get("level")
    seen = Seen()
    http = recording_client(server.url, seen.exchanges, verify=CLIENT_TLS)
    world = World(server, protocol, http, root, tags=tags, level=level, seen=seen)
    request.node.user_properties.append(("seen", seen))  # the report reads what the answers broke
    yield world
    for cleanup in world.cleanups:
        cleanup()
    world.http.close()
    for workspace in world.workspaces.values():
        world.server.workspaces.remove(workspace)


# --- guard: pytest-bdd never awaits `async def` steps (stack notes §4.6) ---


def pytest_bdd_before_step(request: Any, feature: Any, scenario: Any, step: Any, step_func: Any) -> None:
    if inspect.iscoroutinefunction(inspect.unwrap(step_func)):
        raise TypeError(f"async step {step.name!r} would never be awaited; make it sync")


# --- the conformance report: which feature, scenario, design test and protocol each result belongs to ---


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--conformance-report", metavar="PATH", help="write the per-scenario results as JSON")


def pytest_configure(config: pytest.Config) -> None:
    """The tags spec/requirements.toml defines (requirement ids, @spec-<section>) and the level tags are markers."""
    for name, text in {**catalogue.level_markers(), **catalogue.load().markers()}.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def stopped_after(item: pytest.Item, seen: Seen) -> None:
    """After each scenario against another server: has it crashed? Then the scenarios after it are not run (one
    defect, one failure), and say why, naming the scenario after which it stopped (two requests a scenario: the
    crash may come from a request that was itself answered, as a worker that dies after its answer)."""
    health = target().health
    if health is None:
        return
    name = f"'{dict(item.user_properties).get('scenario')}' ({item.nodeid.partition('[')[2].rstrip(']')})"
    now = health.check()
    if now is None:
        _LAST_ANSWERED[:] = [name]
        return
    last = troubled(seen.exchanges)
    before = f" After the scenario before it, {_LAST_ANSWERED[0]}, it still answered." if _LAST_ANSWERED else ""
    if last is not None:
        what = f"got HTTP {last.status}" if last.status is not None else f"got {last.failure}"
        said = f"during the scenario {name}: its request {last.request_line()} {what}"
    else:
        latest = f" (its last request: {seen.exchanges[-1].request_line()})" if seen.exchanges else ""
        said = f"after the scenario {name}, whose requests were all answered{latest}"
    _STOPPED.append(f"not run: the server stopped answering {said}: {now}.{before} Restart the server to "
                    "run the scenarios after it.")


def scenario_of(item: pytest.Item) -> Any:
    """The pytest-bdd scenario template an item runs, or None for a test that is not a scenario."""
    function = getattr(item, "obj", None)
    return scenario_wrapper_template_registry.get(function) if function is not None else None


# markers pytest adds to items that are not tags
NOT_TAGS = {"parametrize", "usefixtures", "skip", "skipif", "xfail", "filterwarnings"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each scenario's feature (relative to spec/features), name and tags go with its results; the scenarios of
    spec/features/a2a/ are @portable. Against another server (A2A_TARGET_URL) only those run."""
    skip = pytest.mark.skip(reason="needs the reference server's workspace, settings or scripted agent")
    for item in items:
        template = scenario_of(item)
        if template is None:
            continue
        feature = Path(template.feature.rel_filename).as_posix()
        if feature.startswith(PORTABLE_FOLDER):
            item.add_marker("portable")
        elif TARGET_URL:
            item.add_marker(skip)
        tags = sorted({mark.name for mark in item.iter_markers()} - NOT_TAGS)
        examples = set(tags) - template.tags - template.feature.tags  # the row's Examples table's tags
        level = catalogue.level_of(template.feature.tags, template.tags, examples)
        item.user_properties += [("feature", feature), ("scenario", template.name), ("tags", tags), ("level", level)]


def pytest_bdd_step_error(request: pytest.FixtureRequest, feature: Any, scenario: Any, step: Any, step_func: Any,
                          step_func_args: Any, exception: Exception) -> None:
    """The step that failed and why, in A2A terms, for the requirement view of `make conformance`."""
    request.node.user_properties.append(("failed_step", f"{step.keyword} {step.name}".strip()))
    request.node.user_properties.append(("message", failure_text(exception)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Against another server, a scenario stopped because an answer broke its schema (the answer could not be read,
    not a check of the scenario's) could not be checked: n/a, with the reason. The violations are the finding,
    reported once under their own requirement."""
    report = yield
    seen = dict(item.user_properties).get("seen")
    if TARGET_URL and report.when == "call" and isinstance(seen, Seen) and not _STOPPED:
        stopped_after(item, seen)
    if not (TARGET_URL and report.when == "call" and report.failed and call.excinfo is not None):
        return report
    if isinstance(call.excinfo.value, NotServed):  # an operation the server does not have: n/a, with why
        report.outcome = "skipped"
        report.longrepr = (str(item.path), 0, f"Skipped: could not be checked: {call.excinfo.value}")
        return report
    if isinstance(call.excinfo.value, AssertionError) or not (isinstance(seen, Seen) and seen.violations):
        return report
    first = seen.violations[0]
    reason = (f"could not be checked: an answer to {first['operation']} broke its schema, which "
              f"{first['requirement']} reports ({first['path']}: {first['says']})")
    report.outcome = "skipped"
    report.longrepr = (str(item.path), 0, f"Skipped: {reason}")
    return report


_RESULTS: list[dict[str, Any]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    props = dict(report.user_properties)
    if "feature" not in props or (report.when != "call" and report.passed):
        return
    if report.when == "teardown" and not report.failed:
        return
    params = report.nodeid.partition("[")[2].rstrip("]").split("-")
    protocol = params[0:2] if len(params) >= 2 else ["none", "1.0"]
    result = {
        "nodeid": report.nodeid, "feature": props["feature"], "scenario": props["scenario"],
        "tags": props["tags"], "level": props["level"], "protocol": "-".join(protocol),
        "outcome": "xfailed" if hasattr(report, "wasxfail") else report.outcome,
    }
    seen = props.get("seen")
    if isinstance(seen, Seen) and report.when == "call":
        result["answers"] = seen.answers
        result["violations"] = seen.violations
    if report.skipped and isinstance(report.longrepr, tuple):
        result["message"] = str(report.longrepr[2]).removeprefix("Skipped: ")
    elif report.failed:
        result["step"] = props.get("failed_step", f"({report.when})")
        result["message"] = props.get("message") or _first_line(report)
        if isinstance(seen, Seen) and seen.exchanges:
            result["exchange"] = seen.exchanges[-1].describe()
    _RESULTS.append(result)


def _first_line(report: pytest.TestReport) -> str:
    """What pytest says of a failure outside a step (a fixture, a teardown), as plain text."""
    crash = getattr(report.longrepr, "reprcrash", None)
    lines = str(getattr(crash, "message", report.longrepr)).strip().splitlines()
    return lines[0] if lines else "the scenario could not run"


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--conformance-report", default=None)
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(_RESULTS, indent=2))
