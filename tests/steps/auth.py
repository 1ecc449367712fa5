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
def _(world: Any, credentials: str) -> None:
    world.notes["credentials"] = CREDENTIALS[credentials](world.key)


@then(parsers.parse('the refusal says "{words}"'))
def _(world: Any, words: str) -> None:
    assert world.reply.error is not None and words in world.reply.error.message, world.reply.error


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
