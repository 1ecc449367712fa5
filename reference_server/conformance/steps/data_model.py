"""Steps about the A2A 1.0 data model on the wire (A2A §4.1, §5.5-5.7): what a Task, a Message, a Part and an
Artifact hold, in ProtoJSON: camelCase names, enum names, timestamps in UTC with a Z, REQUIRED fields present."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pytest_bdd import then

from reference_server.conformance.steps.common import field_of
from reference_server.conformance.steps.tasks import STATES
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import described
from reference_server.conformance.support.schemas import violations
from reference_server.conformance.world import World

ROLES = {"ROLE_USER", "ROLE_AGENT"}
PART_CONTENT = ("text", "raw", "url", "data")
ZULU = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")  # A2A §5.6.1
FREE_FORM = {"metadata", "data", "params"}  # google.protobuf.Struct / Value: the caller's or agent's own keys


def the_answer(world: World) -> Any:
    """The answer's result as it came on the wire (1.0: `{"task": …}` or `{"message": …}`)."""
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a task or a message, got {described(reply)}"
    return field_of(reply.raw, "result", "a JSON-RPC response") if world.protocol.binding == "jsonrpc" else reply.raw


def answer_task(answer: Any) -> dict[str, Any]:
    """The task of an answer ({"task": …}), or a failure saying what came instead."""
    task = field_of(answer, "task", "an answer")
    assert isinstance(task, dict), f"expected a task, got {shown(answer)}"
    return task


def messages(answer: Any) -> list[Any]:
    if isinstance(answer, dict) and "message" in answer:
        return [answer["message"]]
    task = answer_task(answer)
    status = task.get("status", {})
    history = task.get("history", [])
    assert isinstance(status, dict) and isinstance(history, list), \
        f"expected a task with a status object and a history list, got {shown(task)}"
    return [*([status["message"]] if "message" in status else []), *history]


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
def _(world: World) -> None:
    task = answer_task(the_answer(world))
    # §4.1.1
    assert isinstance(task.get("id"), str) and task["id"], f"expected the task to have an id, got {shown(task)}"
    assert isinstance(task.get("status"), dict), f"expected the task to have a status, got {shown(task)}"  # §4.1.2
    state = task["status"].get("state")
    assert isinstance(state, str) and state in STATES.values(), \
        f"expected the task's state to be a TaskState name (TASK_STATE_…), got {shown(state)}"


@then("every message of the answer has a messageId, a role that is a Role name, and parts")
def _(world: World) -> None:
    found = messages(the_answer(world))
    assert found, "the answer holds no message"
    for message in found:
        assert isinstance(message, dict), f"expected every message to be an object, got {shown(message)}"
        # §4.1.4
        assert isinstance(message.get("messageId"), str) and message["messageId"], \
            f"expected every message to have a messageId, got {shown(message)}"
        # §4.1.5
        role = message.get("role")
        assert isinstance(role, str) and role in ROLES, \
            f"expected every message's role to be a Role name (ROLE_USER, ROLE_AGENT), got {shown(role)}"
        assert isinstance(message.get("parts"), list) and message["parts"], \
            f"expected every message to have parts, got {shown(message)}"


@then("every artifact has an artifactId and parts, each part with exactly one of text, raw, url and data")
def _(world: World) -> None:
    artifacts = answer_task(the_answer(world)).get("artifacts", [])
    assert artifacts, "expected the task to have an artifact, it has none"
    assert isinstance(artifacts, list) and all(isinstance(artifact, dict) for artifact in artifacts), \
        f"expected the task's artifacts, a list of objects, got {shown(artifacts)}"
    for artifact in artifacts:
        # §4.1.7
        assert isinstance(artifact.get("artifactId"), str) and artifact["artifactId"], \
            f"expected every artifact to have an artifactId, got {shown(artifact)}"
        assert isinstance(artifact.get("parts"), list) and artifact["parts"], \
            f"expected every artifact to have parts, got {shown(artifact)}"
        for part in artifact["parts"]:
            held = [name for name in PART_CONTENT if name in part]
            # §4.1.6: a oneof
            assert len(held) == 1, (f"expected every part to hold exactly one of text, raw, url and data, got one "
                                    f"holding {', '.join(held) or 'none of them'}: {shown(part)}")


@then("no field name of the answer has an underscore")
def _(world: World) -> None:
    snake = sorted({key for key, _ in walk(the_answer(world)) if key and "_" in key})
    assert not snake, f"expected camelCase field names, got the snake_case names {', '.join(snake)}"  # §5.5


@then("every state and role of the answer is a proto enum name")
def _(world: World) -> None:
    pairs = [(key, value) for key, value in walk(the_answer(world)) if key in ("state", "role")]
    assert pairs, "expected a state or a role in the answer, got neither"
    for key, value in pairs:  # §5.5: ProtoJSON enums are their names
        names = "a TaskState name (TASK_STATE_…)" if key == "state" else "a Role name (ROLE_…)"
        assert isinstance(value, str) and value in (STATES.values() if key == "state" else ROLES), \
            f"expected every {key} to be {names}, got {shown(value)}"


@then("every timestamp of the answer is ISO 8601 in UTC with a Z")
def _(world: World) -> None:
    stamps = [value for key, value in walk(the_answer(world)) if key == "timestamp"]
    assert stamps, "expected a timestamp in the answer, got none"
    for stamp in stamps:
        assert isinstance(stamp, str) and ZULU.match(stamp), \
            f"expected every timestamp in ISO 8601, UTC with a Z, got {shown(stamp)}"


@then("the answer has every field a2a.proto requires")
def _(world: World) -> None:
    # §5.7: REQUIRED fields are present and required lists not empty; those of a Task, its status, a Message and an
    # Artifact are the requirements of §4.1's own scenarios (conformance/support/schemas.py Violation.requirement)
    found = [v.line() for v in violations(the_answer(world), "urn:a2a:v1#/$defs/SendMessageResponse")
             if v.requirement == "DM-SERIAL-004"]
    assert not found, "expected every field a2a.proto requires, got answers without: " + "; ".join(found)
