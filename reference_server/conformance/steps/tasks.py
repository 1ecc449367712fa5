"""Steps about tasks: send, answer, get, cancel and the state a task reaches (the shared task vocabulary); what a task
says is steps/task_contents.py, listing steps/listing.py."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import (
    WAIT_SECONDS,
    field_of,
    new_key,
    wait_until,
    workspace_of,
    write_json,
)
from reference_server.conformance.support.exchanges import BODY_CAP, shown
from reference_server.conformance.support.replies import Reply, WireProblem, described
from reference_server.conformance.world import World

STATES = {
    "submitted": "TASK_STATE_SUBMITTED", "working": "TASK_STATE_WORKING", "completed": "TASK_STATE_COMPLETED",
    "failed": "TASK_STATE_FAILED", "canceled": "TASK_STATE_CANCELED", "input-required": "TASK_STATE_INPUT_REQUIRED",
    "rejected": "TASK_STATE_REJECTED", "auth-required": "TASK_STATE_AUTH_REQUIRED",
}
STATE = "(?P<state>" + "|".join(STATES) + ")"
QUOTED = re.compile(r'"([^"]*)"')


# --- helpers the other step modules use ---


def text_message(text: str, *, context_id: str | None = None, task_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    if context_id:
        message["contextId"] = context_id
    if task_id:
        message["taskId"] = task_id
    return message


def send(world: World, message: dict[str, Any], **configuration: Any) -> Reply | None:
    """SendMessage (blocking unless told otherwise); remembers the task as "the task" and by its text."""
    params: dict[str, Any] = {"message": message, "configuration": configuration}
    world.stream, world.sent.last = None, params
    try:
        reply = world.reply = world.client().call("SendMessage", params)
    except httpx.TransportError as error:  # a connection closed unanswered: only a fault the message asked for
        if not world.ours:
            raise  # another server's: the failure it is, said as such (conformance/support/reasons.py)
        world.reply, world.sent.no_answer = None, error
        return None
    except (json.JSONDecodeError, WireProblem) as error:  # an answer that is not JSON: the same
        body = not_json(world, error) if world.ours else None  # another server: the failure it is
        if body is None:  # another problem of the answer's shape: the failure it is
            raise
        world.reply, world.sent.not_json = None, body
        return None
    body = reply.body
    task = body.get("task") if reply.error is None and isinstance(body, dict) else None
    if task is not None:
        remember(world, task)
        remember(world, task, "".join(part.get("text", "") for part in message["parts"]))
    return reply


def not_json(world: World, error: Exception) -> str | None:
    """The body of the last answer when it is not JSON (what the client could not read), else None."""
    if isinstance(error, json.JSONDecodeError):
        return error.doc
    exchanges = world.seen.exchanges
    if not exchanges or exchanges[-1].status is None or len(exchanges[-1].body) >= BODY_CAP:
        return None  # no answer, or one kept only in part: not known to be anything but JSON
    body = bytes(exchanges[-1].body).decode("utf-8", errors="replace")
    try:
        json.loads(body)
    except ValueError:
        return body
    return None


def remember(world: World, task: dict[str, Any], label: str = "the task") -> None:
    """Label → task id; "the task" is the latest, and the one before it stays known as "the previous task"."""
    the_id = field_of(task, "id", "a task")
    if label == "the task":
        context_id = field_of(task, "contextId", "a task")
        if "the task" in world.tasks:
            world.tasks["the previous task"] = world.tasks["the task"]
        world.context_id = context_id
        world.contexts.append(context_id)
    world.tasks[label] = the_id
    world.tasks_seen[label] = task


def task_id(world: World, label: str = "the task") -> str:
    assert label in world.tasks, f'expected an earlier answer to have given {label_said(label)}, none did'
    return world.tasks[label]


def seen_task(world: World, label: str = "the task") -> dict[str, Any]:
    """The task an earlier answer gave, as it gave it."""
    seen = world.tasks_seen
    assert label in seen, f'expected an earlier answer to have given {label_said(label)}, none did'
    return seen[label]


def label_said(label: str) -> str:
    return "a task" if label == "the task" else label if label.startswith("the ") else f'the task "{label}"'


def the_task(world: World) -> dict[str, Any]:
    """The task the last answer carried (SendMessage wraps it in {"task": …})."""
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a task, got {described(reply)}"
    body = reply.body
    assert isinstance(body, dict), f"expected a task, got {reply}"
    task = body.get("task", body)
    assert isinstance(task, dict), f"expected a task, got {reply}"
    return task


def state_of_task(task: dict[str, Any]) -> Any:
    """The state of a task's status, or a failure saying the task has none (A2A §4.1.1, §4.1.2: both REQUIRED)."""
    status = task.get("status")
    assert isinstance(status, dict) and "state" in status, f"expected a task with a status and its state, got " \
        f"{shown(task)}"
    return status["state"]


def state_name(state: Any) -> str:
    """A TaskState as the steps name it ("input-required"), or as it came when it is none of them."""
    names = {value: name for name, value in STATES.items()}
    return names.get(state, shown(state)) if isinstance(state, str) else shown(state)


def artifact_text(artifact: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in artifact["parts"])


def response_text(task: dict[str, Any]) -> str:
    artifact = next((a for a in task.get("artifacts", []) if a["artifactId"] == "response"), None)
    assert artifact is not None, f'expected an artifact "response", got the artifacts {shown(task.get("artifacts"))}'
    return artifact_text(artifact)


def status_text(task: dict[str, Any]) -> str:
    message = task["status"].get("message")
    assert message is not None, f"expected a status with a message, got the status {shown(task['status'])}"
    return "".join(part.get("text", "") for part in message["parts"])


def quoted(text: str) -> list[str]:
    """The quoted strings of a step argument: '"a", "b" and "c"' → ["a", "b", "c"]."""
    return QUOTED.findall(text)


@contextmanager
def as_caller(world: World, name: str) -> Iterator[None]:
    """Speak as another caller of the scenario for one step, with that caller's own key."""
    saved = world.caller, world.key
    world.caller, world.key = name, world.keys[name]
    try:
        yield
    finally:
        world.caller, world.key = saved


# --- callers ---


@given(parsers.parse('the workspace also has the caller "{name}"'))
def _(world: World, name: str) -> None:
    callers = workspace_of(world).callers_file
    world.keys[name] = new_key()
    write_json(callers, [*json.loads(callers.read_text()), {"name": name, "key": world.keys[name]}])


# --- sending ---


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)"$'))
def _(world: World, text: str) -> None:
    send(world, text_message(text))


@when(parsers.re(r'the caller sends (?P<texts>"[^"]*"(?:, "[^"]*")* and "[^"]*")$'))
def _(world: World, texts: str) -> None:
    for text in quoted(texts):
        send(world, text_message(text))
        assert world.reply is not None and world.reply.error is None, \
            f'expected "{text}" to be answered, got {described(world.reply)}'


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" in the same context$'))
def _(world: World, text: str) -> None:
    send(world, text_message(text, context_id=world.context_id))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" in the context "(?P<context>[^"]*)"$'))
def _(world: World, text: str, context: str) -> None:
    send(world, text_message(text, context_id=context))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" without waiting$'))
def _(world: World, text: str) -> None:
    send(world, text_message(text), returnImmediately=True)


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" with a history length of (?P<length>\d+)$'))
def _(world: World, text: str, length: str) -> None:
    send(world, text_message(text), historyLength=int(length))


@when(parsers.re(r'the caller answers "(?P<text>[^"]*)"$'))
def _(world: World, text: str) -> None:
    send(world, text_message(text, context_id=world.context_id, task_id=task_id(world)))


@when(parsers.re(r'the caller answers "(?P<text>[^"]*)" to the task "(?P<label>[^"]+)"$'))
def _(world: World, text: str, label: str) -> None:
    task = seen_task(world, label)
    send(world, text_message(text, context_id=task["contextId"], task_id=task["id"]))


@when(parsers.re(r'the caller answers "(?P<text>[^"]*)" in the context "(?P<context>[^"]*)"$'))
def _(world: World, text: str, context: str) -> None:
    send(world, text_message(text, context_id=context, task_id=task_id(world)))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" to the task$'))
def _(world: World, text: str) -> None:
    send(world, text_message(text, task_id=task_id(world)))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" to the task "(?P<task>[^"]+)"$'))
def _(world: World, text: str, task: str) -> None:
    send(world, text_message(text, task_id=world.tasks.get(task, task)))


@when(parsers.parse("the caller sends the message {message}"))
def _(world: World, message: str) -> None:
    world.seen.invalid_input = True  # what an answer that takes it echoes is CORE-ERR-002's finding
    try:
        send(world, json.loads(message))
    except WireProblem as problem:  # another server's answer that is no A2A answer at all (a 5xx page): the Then
        if world.ours:  # steps say which requirement that fails
            raise
        world.reply, world.sent.unreadable = None, str(problem)


# --- get, cancel ---


def get_task(world: World, **params: Any) -> Reply:
    world.stream = None
    reply = world.reply = world.client().call("GetTask", {"id": task_id(world), **params})
    return reply


def cancel_task(world: World) -> Reply:
    world.stream = None
    started = time.monotonic()
    reply = world.reply = world.client().call("CancelTask", {"id": task_id(world)})
    world.cancel_seconds = time.monotonic() - started
    return reply


@when(parsers.re(r'the caller gets the task "(?P<task>[^"]+)"$'))
def _(world: World, task: str) -> None:
    world.stream = None
    world.reply = world.client().call("GetTask", {"id": world.tasks.get(task, task)})


@when("the caller gets the task")
def _(world: World) -> None:
    get_task(world)


@when(parsers.parse("the caller gets the task with a history length of {length:d}"))
def _(world: World, length: int) -> None:
    get_task(world, historyLength=length)


@when("the caller cancels the task")
def _(world: World) -> None:
    cancel_task(world)


@when(parsers.re(r'"(?P<name>[a-z0-9-]+)" (?P<action>gets|cancels) the task$'))
def _(world: World, name: str, action: str) -> None:
    with as_caller(world, name):
        if action == "gets":
            get_task(world)
        else:
            cancel_task(world)


@when(parsers.re(r'"(?P<name>[a-z0-9-]+)" answers "(?P<text>[^"]*)"$'))
def _(world: World, name: str, text: str) -> None:
    with as_caller(world, name):
        send(world, text_message(text, context_id=world.context_id, task_id=task_id(world)))


@when(parsers.re(r'"(?P<name>[a-z0-9-]+)" sends "(?P<text>[^"]*)"$'))
def _(world: World, name: str, text: str) -> None:
    with as_caller(world, name):
        send(world, text_message(text))
    assert world.reply is not None and world.reply.error is None, \
        f'expected "{text}" from "{name}" to be answered, got {described(world.reply)}'


# --- what the task says ---


@then(parsers.re(rf"the task is {STATE}$"))
def _(world: World, state: str) -> None:
    got = state_of_task(the_task(world))
    assert got == STATES[state], f"expected the task {state} ({STATES[state]}), got it {state_name(got)}"


@given(parsers.re(rf"the task is {STATE}$"))
def _(world: World, state: str) -> None:
    reached_state(world, state)


def reached_state(world: World, state: str) -> None:
    """What a scenario starts from: on another server a task the answer gave while it still ran is read again
    until it gets there (whether a send waits is CORE-EXECUTION-MODE-001's); one that never does cannot start it."""
    got = state_of_task(the_task(world))
    if got == STATES[state] or world.ours:
        assert got == STATES[state], f"expected the task {state} ({STATES[state]}), got it {state_name(got)}"
        return
    deadline = time.monotonic() + WAIT_SECONDS
    while got in (STATES["submitted"], STATES["working"]) and time.monotonic() < deadline:
        time.sleep(0.1)
        reply = get_task(world)
        got = state_of_task(the_task(world)) if reply.error is None else got
    if got != STATES[state]:
        pytest.skip(f"the scenario needs a task {state}, and the agent's task is {state_name(got)}")


@then(parsers.re(rf"the task becomes {STATE}$"))
def _(world: World, state: str) -> None:
    def reached() -> bool:
        return get_task(world).error is None and the_task(world)["status"]["state"] == STATES[state]

    wait_until(reached, f"the task to become {state}")
