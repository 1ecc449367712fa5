"""Steps about the A2A 1.0 data model on the wire (A2A §4.1, §5.5-5.7): what a Task, a Message, a Part and an
Artifact hold, in ProtoJSON: camelCase names, enum names, timestamps in UTC with a Z, REQUIRED fields present."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from pytest_bdd import then
from support.schemas import validator

from steps.tasks import STATES

ROLES = {"ROLE_USER", "ROLE_AGENT"}
PART_CONTENT = ("text", "raw", "url", "data")
ZULU = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")  # A2A §5.6.1
FREE_FORM = {"metadata", "data", "params"}  # google.protobuf.Struct / Value: the caller's or agent's own keys


def the_answer(world: Any) -> Any:
    """The answer's result as it came on the wire (1.0: `{"task": …}` or `{"message": …}`)."""
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected an answer, got {reply and reply.error}"
    return reply.raw["result"] if world.protocol.binding == "jsonrpc" else reply.raw


def messages(answer: dict[str, Any]) -> list[dict[str, Any]]:
    if "message" in answer:
        return [answer["message"]]
    task = answer["task"]
    status = [task["status"]["message"]] if "message" in task.get("status", {}) else []
    return [*status, *task.get("history", [])]


def walk(value: Any, key: str | None = None) -> Iterator[tuple[str | None, Any]]:
    """Every (key, value) of a JSON value, not descending into free-form objects."""
    if isinstance(value, dict):
        for name, inner in value.items():
            yield name, inner
            if name not in FREE_FORM:
                yield from walk(inner, name)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item, key)


@then("the task has an id and a status whose state is a TaskState name")
def _(world: Any) -> None:
    task = the_answer(world)["task"]
    assert isinstance(task.get("id"), str) and task["id"], f"no id: {task}"  # §4.1.1
    assert isinstance(task.get("status"), dict), f"no status: {task}"  # §4.1.2
    assert task["status"].get("state") in STATES.values(), f"not a TaskState: {task['status'].get('state')!r}"


@then("every message of the answer has a messageId, a role that is a Role name, and parts")
def _(world: Any) -> None:
    found = messages(the_answer(world))
    assert found, "the answer holds no message"
    for message in found:
        assert isinstance(message.get("messageId"), str) and message["messageId"], message  # §4.1.4
        assert message.get("role") in ROLES, f"not a Role: {message.get('role')!r}"  # §4.1.5
        assert isinstance(message.get("parts"), list) and message["parts"], message


@then("every artifact has an artifactId and parts, each part with exactly one of text, raw, url and data")
def _(world: Any) -> None:
    artifacts = the_answer(world)["task"].get("artifacts", [])
    assert artifacts, "the task has no artifact"
    for artifact in artifacts:
        assert isinstance(artifact.get("artifactId"), str) and artifact["artifactId"], artifact  # §4.1.7
        assert isinstance(artifact.get("parts"), list) and artifact["parts"], artifact
        for part in artifact["parts"]:
            held = [name for name in PART_CONTENT if name in part]
            assert len(held) == 1, f"a part holds {held or 'nothing'}: {part}"  # §4.1.6: a oneof


@then("no field name of the answer has an underscore")
def _(world: Any) -> None:
    snake = sorted({key for key, _ in walk(the_answer(world)) if key and "_" in key})
    assert not snake, f"snake_case field names: {snake}"  # §5.5: camelCase


@then("every state and role of the answer is a proto enum name")
def _(world: Any) -> None:
    pairs = [(key, value) for key, value in walk(the_answer(world)) if key in ("state", "role")]
    assert pairs, "no state or role in the answer"
    for key, value in pairs:  # §5.5: ProtoJSON enums are their names
        assert value in (STATES.values() if key == "state" else ROLES), f"{key}: {value!r}"


@then("every timestamp of the answer is ISO 8601 in UTC with a Z")
def _(world: Any) -> None:
    stamps = [value for key, value in walk(the_answer(world)) if key == "timestamp"]
    assert stamps, "no timestamp in the answer"
    for stamp in stamps:
        assert isinstance(stamp, str) and ZULU.match(stamp), f"not UTC with a Z: {stamp!r}"


@then("the answer has every field a2a.proto requires")
def _(world: Any) -> None:
    # §5.7: REQUIRED fields are present and required lists not empty (other schema rules are other scenarios')
    ((kind, value),) = the_answer(world).items()
    found = [f"{error.json_path}: {error.message}"
             for error in leaves(validator(f"urn:a2a:v1#/$defs/{kind.capitalize()}").iter_errors(value))
             if error.validator in ("required", "minItems")]
    assert not found, "\n".join(found)


def leaves(errors: Iterable[Any]) -> Iterator[Any]:
    for error in errors:
        yield error
        yield from leaves(error.context or [])
