"""Steps about callers.json and keys."""

from __future__ import annotations

import json
from typing import Any

from pytest_bdd import given, parsers, then, when

from steps.common import add_workspace, new_key, workspace_of, write_json


def _entries(world: Any) -> list[dict[str, Any]]:
    return json.loads(workspace_of(world).callers_file.read_text())


@given("the caller presents its key as a bearer token")
def _(world: Any) -> None:
    world.notes["bearer"] = True


@given(parsers.parse('a workspace of "{owner}" whose caller "{name}" holds the same key'))
def _(world: Any, owner: str, name: str) -> None:
    add_workspace(world, owner, [{"name": name, "key": world.key}])


@given(parsers.parse('the callers file also lists "{name}" with the same key'))
def _(world: Any, name: str) -> None:
    write_json(workspace_of(world).callers_file, [*_entries(world), {"name": name, "key": world.key}])


@given(parsers.parse('the caller presents the key of "{name}", who is not in the callers file yet'))
def _(world: Any, name: str) -> None:
    world.keys[name] = world.key = new_key()


@when(parsers.parse('the owner adds "{name}" to the callers file'))
def _(world: Any, name: str) -> None:
    write_json(workspace_of(world).callers_file, [*_entries(world), {"name": name, "key": world.keys[name]}])


@when(parsers.parse('the owner removes "{name}" from the callers file'))
def _(world: Any, name: str) -> None:
    write_json(workspace_of(world).callers_file, [e for e in _entries(world) if e["name"] != name])


@given("the callers file is not valid JSON")
def _(world: Any) -> None:
    workspace_of(world).callers_file.write_text('[{"name": "travel-bot", "key": "' + world.key + '"')


@given(parsers.parse("the callers file holds the entry {entry} for the caller's key"))
def _(world: Any, entry: str) -> None:
    write_json(workspace_of(world).callers_file, [{**json.loads(entry), "key": world.key}])


@then(parsers.parse("the caller is {outcome}"))
def _(world: Any, outcome: str) -> None:
    reply = world.reply
    if outcome == "accepted":
        assert reply.error is None, reply.error
    else:
        assert reply.error is not None and reply.http_status == 401, reply
