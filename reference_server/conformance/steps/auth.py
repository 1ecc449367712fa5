"""Steps about callers.json and keys."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import add_workspace, answer_of, new_key, workspace_of, write_json
from reference_server.conformance.steps.prefixes import prefixed
from reference_server.conformance.steps.tasks import as_caller
from reference_server.conformance.support.replies import described
from reference_server.conformance.support.target import TARGET_LIMITED_KEY
from reference_server.conformance.world import ServerFactory, World, earlier


def _entries(world: World) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads(workspace_of(world).callers_file.read_text())
    return entries


@given("the caller presents its key as a bearer token")
def _(world: World) -> None:
    world.bearer = True


# what a request carries instead of the one X-API-Key header, by the words of the scenario
CREDENTIALS: dict[str, Any] = {
    "its key in X-API-Key and another key as a bearer token":
        lambda key: [("X-API-Key", key), ("Authorization", f"Bearer {new_key()}")],
    "its key in X-API-Key and the same key as a bearer token":
        lambda key: [("X-API-Key", key), ("Authorization", f"Bearer {key}")],
    "its key in two X-API-Key headers": lambda key: [("X-API-Key", key), ("X-API-Key", key)],
    "another key and then its key, in two X-API-Key headers":
        lambda key: [("X-API-Key", new_key()), ("X-API-Key", key)],
    "its key as a bearer token twice":
        lambda key: [("Authorization", f"Bearer {key}"), ("Authorization", f"Bearer {key}")],
}


@given(parsers.parse("the caller's request carries {credentials}"))
def _(world: World, credentials: str) -> None:
    world.credentials = CREDENTIALS[credentials](world.key)


@then(parsers.parse('the refusal says "{words}"'))
def _(world: World, words: str) -> None:
    reply = answer_of(world)
    assert reply.error is not None and words in reply.error.message, f'expected a refusal saying "{words}", got {reply}'


@given(parsers.parse('a workspace of "{owner}" whose caller "{name}" holds the same key'))
def _(world: World, owner: str, name: str) -> None:
    add_workspace(world, owner, [{"name": name, "key": world.key}])


@given(parsers.parse('the callers file also lists "{name}" with the same key'))
def _(world: World, name: str) -> None:
    write_json(workspace_of(world).callers_file, [*_entries(world), {"name": name, "key": world.key}])


@given(parsers.parse('the caller presents the key of "{name}", who is not in the callers file yet'))
def _(world: World, name: str) -> None:
    world.keys[name] = world.key = new_key()


@when(parsers.parse('the owner adds "{name}" to the callers file'))
def _(world: World, name: str) -> None:
    write_json(workspace_of(world).callers_file, [*_entries(world), {"name": name, "key": world.keys[name]}])


@when(parsers.parse('the owner removes "{name}" from the callers file'))
def _(world: World, name: str) -> None:
    write_json(workspace_of(world).callers_file, [e for e in _entries(world) if e["name"] != name])


@given("the callers file is not valid JSON")
def _(world: World) -> None:
    workspace_of(world).callers_file.write_text('[{"name": "travel-bot", "key": "' + earlier(world.key, "a key") + '"')


@given(parsers.parse("the callers file holds the entry {entry} for the caller's key"))
def _(world: World, entry: str) -> None:
    write_json(workspace_of(world).callers_file, [{**json.loads(entry), "key": world.key}])


@then(parsers.parse("the caller is {outcome}"))
def _(world: World, outcome: str) -> None:
    reply = answer_of(world)
    if outcome == "accepted":
        assert reply.error is None, f"expected the caller accepted, got {reply}"
    else:
        assert reply.error is not None and reply.http_status == 401, \
            f"expected the caller {outcome} (HTTP 401), got HTTP {reply.http_status}: {reply}"


# --- edits and requests that follow each other at once ---

ROUNDS = 20
REFUSED = "is refused as unauthenticated"


@given(parsers.re(r"the server learns of file changes by (?P<means>kernel notifications|stat)$"))
def _(world: World, server_factory: ServerFactory, means: str) -> None:
    if means == "kernel notifications" and not sys.platform.startswith("linux"):
        pytest.skip("the kernel's file notifications (inotify) are Linux's")
    world.use_server(server_factory(file_changes="notify" if means == "kernel notifications" else "stat"))


def _save(path: Path, entries: list[dict[str, Any]], by_rename: bool) -> None:
    if not by_rename:
        write_json(path, entries)
        return
    temp = path.with_name(path.name + ".new")  # as editors and mv do: another file, then a rename over it
    write_json(temp, entries)
    os.replace(temp, path)


def _edit_and_undo(world: World, edit: str) -> tuple[Path, list[dict[str, Any]], list[dict[str, Any]]]:
    """The file an edit changes, its entries after the edit, and after the undo (as they were before)."""
    if edit.startswith("adds a caller with the presented key"):
        world.keys["late-bot"] = world.key = new_key()
        before = _entries(world)
        return workspace_of(world).callers_file, [*before, {"name": "late-bot", "key": world.key}], before
    if edit.startswith("removes the caller of the presented key"):
        before = _entries(world)
        return workspace_of(world).callers_file, [e for e in before if e["key"] != world.key], before
    if match := re.fullmatch(r'copies the presented key into the callers file of "(?P<owner>[^"]+)"', edit):
        other = add_workspace(world, match["owner"], [])
        return other.callers_file, [{"name": "twin-bot", "key": world.key}], []
    raise AssertionError(f'the suite knows no edit "{edit}"')


@when(parsers.re(r"the owner (?P<edit>.+) and undoes it, 20 times, with a fetch of the extended agent card "
                 r"as each edit returns$"))
def _(world: World, edit: str) -> None:
    path, edited, undone = _edit_and_undo(world, edit)
    by_rename = edit.endswith(", saving by rename")
    client = world.client()
    answers: list[tuple[str, str]] = []  # after the edit, after the undo: "succeeds" or refused, round by round
    for _ in range(ROUNDS):
        rounds = []
        for entries in (edited, undone):
            _save(path, entries, by_rename)  # the edit has returned: the request goes now, nothing in between
            reply = client.call("GetExtendedAgentCard", {})
            rounds.append("succeeds" if reply.error is None else REFUSED if reply.http_status == 401 else str(reply))
        answers.append((rounds[0], rounds[1]))
    world.rounds = answers


@then(parsers.re(r"every fetch after the edit (?P<after>succeeds|is refused as unauthenticated), and every fetch "
                 r"after the undo (?P<undone>succeeds|is refused as unauthenticated)$"))
def _(world: World, after: str, undone: str) -> None:
    rounds = world.rounds
    wrong = [(n, answer) for n, answer in enumerate(rounds, start=1) if answer != (after, undone)]
    said = "; ".join(f"round {n}: after the edit {a}, after the undo {b}" for n, (a, b) in wrong)
    assert len(rounds) == ROUNDS and not wrong, \
        f"expected that every fetch after the edit {after} and every fetch after the undo {undone}, in {ROUNDS} " \
        f"rounds; got {len(rounds)} rounds, these otherwise: {said or 'none'}"


@then("the callers file is warned about once, however often the caller asks")
def _(world: World, caplog: pytest.LogCaptureFixture) -> None:
    client = world.client()
    for _ in range(3):
        reply = client.call("GetExtendedAgentCard", {})
        assert reply.http_status == 401, f"expected a refusal as unauthenticated (HTTP 401), got {reply}"
    path = str(workspace_of(world).callers_file)
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and path in r.getMessage()]
    assert len(said) == 1, f"expected one warning about the callers file, got {len(said)}:\n" + "\n".join(said)


# --- a caller that is known but not allowed (A2A §3.3.2, Authorization Errors) ---


@given("a caller the agent knows but does not allow to send messages")
def _(world: World) -> None:
    if not world.external:
        pytest.skip("this server lets every caller it knows do every operation: callers.json has no permissions "
                    "(design, Callers)")
    if not TARGET_LIMITED_KEY:
        pytest.skip("needs the key of a caller the target knows but does not allow to send messages: "
                    "A2A_TARGET_LIMITED_KEY")
    world.keys["limited"] = TARGET_LIMITED_KEY


@when(parsers.re(r'that caller sends an? "(?P<prefix>[^"]+)" message$'))
def _(world: World, prefix: str) -> None:
    with as_caller(world, "limited"):
        world.stream, world.reply = None, world.client().call("SendMessage", {"message": prefixed(world, prefix)})


@then("the call is refused as not allowed, not as unauthenticated")
def _(world: World) -> None:
    # A2A §3.3.2: an authenticated client that lacks a permission gets an authorization error (HTTP 403,
    # PERMISSION_DENIED, a JSON-RPC error of its own), not the authentication error of an unknown one (401)
    reply = world.reply
    assert reply is not None and reply.error is not None, f"expected a refusal, got {described(reply)}"
    assert reply.http_status != 401, f"expected an authorization error, got the authentication error {reply.error}"
