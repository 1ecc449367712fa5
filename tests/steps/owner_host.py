"""Steps about the owner host: allowed owners under a root, the Telegram notifier, the a2a command, A2A off.

An owner host is started for its scenario (its owners and root are the scenario's), with a fake Telegram Bot API
on loopback (scripts/fake_telegram.py, through support.telegram); both stop when the scenario ends.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import re
from dataclasses import dataclass
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when
from support.design import DesignState, OwnerHost
from support.live import LiveServer, OwnerHostWorkspaces, OwnersFileWorkspaces, live, settings_for
from support.telegram import FakeTelegram

from reference_server import cli
from reference_server.conformance.steps.common import new_key, workspace_of, write_json
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.routes import REST_ROUTES
from reference_server.conformance.support.v03_rest import ROUTES as V03_REST_ROUTES
from reference_server.conformance.world import World, earlier
from reference_server.hosting.owners import owner_workspace

BOT_TOKEN = "4242:spec-bot-token-never-logged"


def host_of(design: DesignState) -> OwnerHost:
    return earlier(design.owner_host, "an owner host")


def _start_host(world: World, design: DesignState, request: pytest.FixtureRequest, owners: list[str], *,
                owners_file: bool = False, **overrides: Any) -> None:
    """An owner host over the scenario's root for `owners` (listed in a file, or given as a list), notifying through
    the scenario's fake Bot API."""
    known = design.owner_host
    root = known.root if known else world.root / "owners"
    telegram = known.telegram if known else FakeTelegram(token=BOT_TOKEN).start()
    workspaces: OwnerHostWorkspaces | OwnersFileWorkspaces = OwnerHostWorkspaces(root, owners)
    listing: dict[str, Any] = {"owners": tuple(owners)}
    if owners_file:
        workspaces = OwnersFileWorkspaces(root, world.root / "owners.txt", owners)
        listing = {"owners_file": workspaces.file}
    settings = settings_for(workspace_root=root, notifier="telegram", telegram_bot_token=BOT_TOKEN,
                            telegram_api_url=telegram.url, **listing, **overrides)
    server = LiveServer(settings, workspaces=workspaces).start()
    design.owner_host = OwnerHost(root, workspaces, telegram)

    def stop() -> None:
        world.http.close()  # its keep-alive connection would hold the server's shutdown
        server.stop()
        if known is None:
            telegram.stop()

    request.addfinalizer(stop)
    world.use_server(server)


# --- the host and its owners ---


@given(parsers.parse('an owner host for the owners "{first}" and "{second}", notifying them through a Telegram bot'))
def _(world: World, design: DesignState, request: pytest.FixtureRequest, first: str, second: str) -> None:
    _start_host(world, design, request, [first, second])
    for owner in (first, second):
        workspace = owner_workspace(host_of(design).root, owner)
        write_json(workspace.callers_file, [])
        world.workspaces[owner] = workspace


@given(parsers.parse('"{owner}" has the caller "{name}"'))
def _(world: World, owner: str, name: str) -> None:
    key = new_key()
    write_json(world.workspaces[owner].callers_file, [{"name": name, "key": key, "mode": "isolated"}])
    world.caller, world.key = name, key
    world.keys[name] = key


@given(parsers.parse('the folder "{folder}" under the root has the caller "{name}"'))
def _(world: World, design: DesignState, folder: str, name: str) -> None:
    """The folder's caller becomes the caller of the scenario."""
    key = new_key()
    write_json(owner_workspace(host_of(design).root, folder).callers_file, [{"name": name, "key": key}])
    world.caller, world.key = name, key
    world.keys[name] = key


@given(parsers.parse('the folder "{folder}" under the root holds the key of "{holder}" as "{name}"'))
def _(world: World, design: DesignState, folder: str, holder: str, name: str) -> None:
    callers = owner_workspace(host_of(design).root, folder).callers_file
    entries = json.loads(callers.read_text()) if callers.exists() else []
    write_json(callers, [*entries, {"name": name, "key": world.keys[holder]}])


@when(parsers.parse('the host adds "{owner}" to its owners'))
def _(world: World, design: DesignState, owner: str) -> None:
    host_of(design).workspaces.owners.append(owner)


@given("the host reads its owners from a file")
def _(world: World, design: DesignState, request: pytest.FixtureRequest) -> None:
    _start_host(world, design, request, list(host_of(design).workspaces.owners), owners_file=True)


@when(parsers.parse('the host\'s owners file also lists "{owner}"'))
def _(world: World, design: DesignState, owner: str) -> None:
    listed = host_of(design).workspaces
    assert isinstance(listed, OwnersFileWorkspaces), "expected a host that reads its owners from a file"
    listed.list([*listed.owners, owner])


@when(parsers.parse('the host\'s owners file no longer lists "{owner}"'))
def _(world: World, design: DesignState, owner: str) -> None:
    listed = host_of(design).workspaces
    assert isinstance(listed, OwnersFileWorkspaces), "expected a host that reads its owners from a file"
    listed.list([o for o in listed.owners if o != owner])


@when(parsers.re(r"the owner's folder \"(?P<owner>[^\"]+)\" is moved (?P<where>away|back)$"))
def _(world: World, design: DesignState, owner: str, where: str) -> None:
    folder = host_of(design).root / owner
    away = folder.with_name(owner + ".away")
    if where == "away":
        folder.rename(away)
    else:
        away.rename(folder)


@given("the host has A2A switched off")
def _(world: World, design: DesignState, request: pytest.FixtureRequest) -> None:
    _start_host(world, design, request, list(host_of(design).workspaces.owners), enabled=False)


# --- the log ---


@given("the host logs everything")
def _(caplog: pytest.LogCaptureFixture) -> None:
    # every logger at DEBUG, the libraries' too: a secret in any line of any logger would be seen
    caplog.set_level(logging.DEBUG)


def _log_text(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(f"{r.name} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records)


@then("no log line holds the bot token or a caller's key")
def _(world: World, caplog: pytest.LogCaptureFixture) -> None:
    text = _log_text(caplog)
    assert caplog.records, "expected log lines to check, nothing was logged: the check would prove nothing"
    assert BOT_TOKEN not in text and BOT_TOKEN.split(":")[1] not in text, \
        "expected no log line to hold the bot token, but one does"
    for name, key in world.keys.items():
        assert key not in text, f'expected no log line to hold a caller\'s key, but one holds the key of "{name}"'


@then(parsers.parse('a warning says notify_owner failed for the owner "{owner}"'))
def _(caplog: pytest.LogCaptureFixture, owner: str) -> None:
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any(w.startswith(f"notify_owner for owner {owner} ") and "failed" in w for w in warnings), \
        f'expected a warning that notify_owner failed for the owner "{owner}", got:\n' + \
        ("\n".join(warnings) or "no warning")


@then("the log said once that A2A is switched off")
def _(caplog: pytest.LogCaptureFixture) -> None:
    said = [r for r in caplog.records if "A2A is switched off" in r.getMessage()]
    assert len(said) == 1, f'expected the log to say "A2A is switched off" once, it said it {len(said)} times'


# --- the Telegram chats ---


@given(parsers.parse('the Telegram bot may not write to the chat of "{owner}"'))
def _(world: World, design: DesignState, owner: str) -> None:
    host_of(design).telegram.refused.add(owner)


@then(parsers.parse('the chat of "{owner}" got "{text}"'))
def _(world: World, design: DesignState, owner: str, text: str) -> None:
    got = host_of(design).telegram.to(owner)
    assert got == [text], f'expected the chat of "{owner}" to get "{text}" only, got {shown(got)}'


@then(parsers.parse('the chat of "{owner}" got nothing'))
def _(world: World, design: DesignState, owner: str) -> None:
    got = host_of(design).telegram.to(owner)
    assert got == [], f'expected nothing in the chat of "{owner}", got {shown(got)}'


# --- the a2a command ---


@when(parsers.re(r'the host runs the a2a command for "(?P<owner>[^"]+)" as (?P<form>text|JSON)$'))
def _(world: World, design: DesignState, owner: str, form: str) -> None:
    argv = ["a2a", "--workspace-root", str(host_of(design).root), "--owner", owner]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main([*argv, "--json"] if form == "JSON" else argv)
    assert code == 0, f"expected the a2a command to succeed, it exited with {code}:\n{out.getvalue()}"
    design.command = (form, out.getvalue())


@dataclass
class Listing:
    """What the command printed, the same whether read from its text or its JSON."""

    callers: list[tuple[str, str, str]]  # name, mode, key
    tasks: list[tuple[str, str]]  # caller, state
    problems: list[str]


def _section(text: str, title: str) -> list[str]:
    """The lines under a heading of the text output ("Callers (2):"), without the heading and the blank after."""
    lines = text.splitlines()
    start = next((n for n, line in enumerate(lines) if line.startswith(title + " (")), None)
    if start is None:
        return []
    section = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        section.append(line.strip())
    return section


def _rows(section: list[str]) -> list[list[str]]:
    """The rows of a table in a section, split at runs of two spaces, without its header row."""
    return [re.split(r"\s{2,}", line) for line in section[1:]] if section and section[0].isupper() else []


def command_listing(design: DesignState) -> Listing:
    form, output = earlier(design.command, "the a2a command's output")
    if form == "JSON":
        data = json.loads(output)
        return Listing([(c["name"], c["mode"], c["key"]) for c in data["callers"]],
                       [(t["caller"], t["state"]) for t in data["tasks"]], data["problems"])
    callers = [(row[0], row[1], row[2]) for row in _rows(_section(output, "Callers"))]
    tasks = [(row[0], row[1]) for row in _rows(_section(output, "Tasks"))]
    return Listing(callers, tasks, _section(output, "Problems"))


@then(parsers.parse('the command lists "{first}" and "{second}" as isolated callers, keys masked as …last4'))
def _(world: World, design: DesignState, first: str, second: str) -> None:
    expected = [(name, "isolated", "…" + world.keys[name][-4:]) for name in (first, second)]
    got = command_listing(design).callers
    assert got == expected, f"expected the callers {shown(expected)}, the command listed {shown(got)}"


@then(parsers.parse('the command lists one task, of "{caller}", {state}'))
def _(world: World, design: DesignState, caller: str, state: str) -> None:
    got = command_listing(design).tasks
    assert got == [(caller, state)], f'expected one task, of "{caller}", {state}, the command listed {shown(got)}'


@then("the command's output holds no caller's key")
def _(world: World, design: DesignState) -> None:
    output = earlier(design.command, "the a2a command's output")[1]
    for name, key in world.keys.items():
        assert key not in output and key[:-4] not in output, \
            f'expected no caller\'s key in the output, but it shows the key of "{name}"'


@then("the command reports the callers file as not valid JSON")
def _(world: World, design: DesignState) -> None:
    problems = command_listing(design).problems
    assert any(str(workspace_of(world).callers_file) in p and "not valid JSON" in p for p in problems), \
        "expected a problem reporting the callers file as not valid JSON, got:\n" + ("\n".join(problems) or "none")


@then("the command reports the task file as not a valid task file")
def _(world: World, design: DesignState) -> None:
    from reference_server.conformance.steps.tasks import task_id

    path = workspace_of(world).tasks_dir / f"{task_id(world)}.json"
    problems = command_listing(design).problems
    assert any(str(path) in p and "not a valid task file" in p for p in problems), \
        "expected a problem reporting the task file as not a valid task file, got:\n" + ("\n".join(problems) or "none")


# --- A2A switched off ---


_TASK_ID = "00000000-0000-4000-8000-000000000000"


@when("the caller tries every A2A endpoint, the push receiver and the public card")
def _(world: World, design: DesignState) -> None:
    server = live(world.server)
    routes = {(verb, server.rest_prefix + path) for verb, path, _, _ in
              [*REST_ROUTES.values(), *V03_REST_ROUTES.values()]}
    routes |= {("POST", server.jsonrpc_path), ("GET", server.jsonrpc_path),
               ("POST", f"{server.push_prefix}/some-watch"), ("GET", "/.well-known/agent-card.json")}
    answers = {}
    for verb, path in sorted(routes):
        filled = path.replace("{id}", _TASK_ID).replace("{taskId}", _TASK_ID)
        answers[f"{verb} {path}"] = world.http.request(verb, filled, headers={"X-API-Key": earlier(world.key, "a key"),
                                                                             "A2A-Version": "1.0"}, json={})
    design.answers = answers


@then("none of them is found")
def _(world: World, design: DesignState) -> None:
    answers = design.answers
    assert len(answers) > 10, f"expected more than 10 routes tried, got {len(answers)}: {', '.join(sorted(answers))}"
    found = {route: answer.status_code for route, answer in answers.items()
             if answer.status_code != 404 or answer.json()["error"]["status"] != "NOT_FOUND"}
    assert not found, "expected every route not found (HTTP 404 NOT_FOUND), got: " + "; ".join(
        f"{route} HTTP {status}" for route, status in found.items())
