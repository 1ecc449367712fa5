"""Steps about tasks: send, answer, get, cancel, list, and what a task says (the shared task vocabulary)."""

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
    UUID,
    WAIT_SECONDS,
    field_of,
    new_key,
    wait_until,
    workspace_of,
    write_json,
)
from reference_server.conformance.support.exchanges import BODY_CAP, shown
from reference_server.conformance.support.replies import WireProblem, described

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


def send(world: Any, message: dict[str, Any], **configuration: Any) -> Any:
    """SendMessage (blocking unless told otherwise); remembers the task as "the task" and by its text."""
    params: dict[str, Any] = {"message": message, "configuration": configuration}
    world.stream, world.notes["last send"] = None, params
    try:
        world.reply = world.client().call("SendMessage", params)
    except httpx.TransportError as error:  # a connection closed unanswered: only a fault the message asked for
        if not world.ours:
            raise  # another server's: the failure it is, said as such (conformance/support/reasons.py)
        world.reply, world.notes["no answer"] = None, error
        return None
    except (json.JSONDecodeError, WireProblem) as error:  # an answer that is not JSON: the same
        body = not_json(world, error) if world.ours else None  # another server: the failure it is
        if body is None:  # another problem of the answer's shape: the failure it is
            raise
        world.reply, world.notes["not json"] = None, body
        return None
    body = world.reply.body
    task = body.get("task") if world.reply.error is None and isinstance(body, dict) else None
    if task is not None:
        remember(world, task)
        remember(world, task, "".join(part.get("text", "") for part in message["parts"]))
    return world.reply


def not_json(world: Any, error: Exception) -> str | None:
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


def remember(world: Any, task: dict[str, Any], label: str = "the task") -> None:
    """Label → task id; "the task" is the latest, and the one before it stays known as "the previous task"."""
    the_id = field_of(task, "id", "a task")
    if label == "the task":
        context_id = field_of(task, "contextId", "a task")
        if "the task" in world.tasks:
            world.tasks["the previous task"] = world.tasks["the task"]
        world.context_id = context_id
        world.notes.setdefault("contexts", []).append(context_id)
    world.tasks[label] = the_id
    world.notes.setdefault("seen", {})[label] = task


def task_id(world: Any, label: str = "the task") -> str:
    assert label in world.tasks, f'expected an earlier answer to have given {label_said(label)}, none did'
    return world.tasks[label]  # type: ignore[no-any-return]


def seen_task(world: Any, label: str = "the task") -> dict[str, Any]:
    """The task an earlier answer gave, as it gave it."""
    seen = world.notes.get("seen", {})
    assert label in seen, f'expected an earlier answer to have given {label_said(label)}, none did'
    return seen[label]  # type: ignore[no-any-return]


def label_said(label: str) -> str:
    return "a task" if label == "the task" else label if label.startswith("the ") else f'the task "{label}"'


def the_task(world: Any) -> dict[str, Any]:
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
def as_caller(world: Any, name: str) -> Iterator[None]:
    """Speak as another caller of the scenario for one step, with that caller's own key."""
    saved = world.caller, world.key
    world.caller, world.key = name, world.keys[name]
    try:
        yield
    finally:
        world.caller, world.key = saved


# --- callers ---


@given(parsers.parse('the workspace also has the caller "{name}"'))
def _(world: Any, name: str) -> None:
    callers = workspace_of(world).callers_file
    world.keys[name] = new_key()
    write_json(callers, [*json.loads(callers.read_text()), {"name": name, "key": world.keys[name]}])


# --- sending ---


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)"$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text))


@when(parsers.re(r'the caller sends (?P<texts>"[^"]*"(?:, "[^"]*")* and "[^"]*")$'))
def _(world: Any, texts: str) -> None:
    for text in quoted(texts):
        send(world, text_message(text))
        assert world.reply is not None and world.reply.error is None, \
            f'expected "{text}" to be answered, got {described(world.reply)}'


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" in the same context$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text, context_id=world.context_id))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" in the context "(?P<context>[^"]*)"$'))
def _(world: Any, text: str, context: str) -> None:
    send(world, text_message(text, context_id=context))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" without waiting$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text), returnImmediately=True)


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" with a history length of (?P<length>\d+)$'))
def _(world: Any, text: str, length: str) -> None:
    send(world, text_message(text), historyLength=int(length))


@when(parsers.re(r'the caller answers "(?P<text>[^"]*)"$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text, context_id=world.context_id, task_id=task_id(world)))


@when(parsers.re(r'the caller answers "(?P<text>[^"]*)" to the task "(?P<label>[^"]+)"$'))
def _(world: Any, text: str, label: str) -> None:
    task = seen_task(world, label)
    send(world, text_message(text, context_id=task["contextId"], task_id=task["id"]))


@when(parsers.re(r'the caller answers "(?P<text>[^"]*)" in the context "(?P<context>[^"]*)"$'))
def _(world: Any, text: str, context: str) -> None:
    send(world, text_message(text, context_id=context, task_id=task_id(world)))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" to the task$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text, task_id=task_id(world)))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" to the task "(?P<task>[^"]+)"$'))
def _(world: Any, text: str, task: str) -> None:
    send(world, text_message(text, task_id=world.tasks.get(task, task)))


@when(parsers.parse("the caller sends the message {message}"))
def _(world: Any, message: str) -> None:
    world.seen.invalid_input = True  # what an answer that takes it echoes is CORE-ERR-002's finding
    try:
        send(world, json.loads(message))
    except WireProblem as problem:  # another server's answer that is no A2A answer at all (a 5xx page): the Then
        if world.ours:  # steps say which requirement that fails
            raise
        world.reply, world.notes["unreadable"] = None, str(problem)


# --- get, cancel ---


def get_task(world: Any, **params: Any) -> Any:
    world.stream = None
    world.reply = world.client().call("GetTask", {"id": task_id(world), **params})
    return world.reply


def cancel_task(world: Any) -> Any:
    world.stream = None
    started = time.monotonic()
    world.reply = world.client().call("CancelTask", {"id": task_id(world)})
    world.notes["cancel seconds"] = time.monotonic() - started
    return world.reply


@when(parsers.re(r'the caller gets the task "(?P<task>[^"]+)"$'))
def _(world: Any, task: str) -> None:
    world.stream = None
    world.reply = world.client().call("GetTask", {"id": world.tasks.get(task, task)})


@when("the caller gets the task")
def _(world: Any) -> None:
    get_task(world)


@when(parsers.parse("the caller gets the task with a history length of {length:d}"))
def _(world: Any, length: int) -> None:
    get_task(world, historyLength=length)


@when("the caller cancels the task")
def _(world: Any) -> None:
    cancel_task(world)


@when(parsers.re(r'"(?P<name>[a-z0-9-]+)" (?P<action>gets|cancels) the task$'))
def _(world: Any, name: str, action: str) -> None:
    with as_caller(world, name):
        if action == "gets":
            get_task(world)
        else:
            cancel_task(world)


@when(parsers.re(r'"(?P<name>[a-z0-9-]+)" answers "(?P<text>[^"]*)"$'))
def _(world: Any, name: str, text: str) -> None:
    with as_caller(world, name):
        send(world, text_message(text, context_id=world.context_id, task_id=task_id(world)))


@when(parsers.re(r'"(?P<name>[a-z0-9-]+)" sends "(?P<text>[^"]*)"$'))
def _(world: Any, name: str, text: str) -> None:
    with as_caller(world, name):
        send(world, text_message(text))
    assert world.reply is not None and world.reply.error is None, \
        f'expected "{text}" from "{name}" to be answered, got {described(world.reply)}'


# --- what the task says ---


@then(parsers.re(rf"the task is {STATE}$"))
def _(world: Any, state: str) -> None:
    got = state_of_task(the_task(world))
    assert got == STATES[state], f"expected the task {state} ({STATES[state]}), got it {state_name(got)}"


@given(parsers.re(rf"the task is {STATE}$"))
def _(world: Any, state: str) -> None:
    reached_state(world, state)


def reached_state(world: Any, state: str) -> None:
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
def _(world: Any, state: str) -> None:
    def reached() -> bool:
        return get_task(world).error is None and the_task(world)["status"]["state"] == STATES[state]

    wait_until(reached, f"the task to become {state}")


@then("the answer continues the same task")
def _(world: Any) -> None:
    assert task_id(world) == task_id(world, "the previous task"), (
        f'expected the answer to continue the task "{task_id(world, "the previous task")}", got another task '
        f'"{task_id(world)}"')


@then(parsers.parse('the response artifact says "{text}"'))
def _(world: Any, text: str) -> None:
    said = response_text(the_task(world))
    assert said == text, f'expected the response artifact to say "{text}", got "{said}"'


@then(parsers.parse('the response artifact begins with "{text}"'))
def _(world: Any, text: str) -> None:
    said = response_text(the_task(world))
    assert said.startswith(text), f'expected the response artifact to begin with "{text}", got "{said}"'


@then(parsers.parse('no artifact of the task mentions "{text}"'))
def _(world: Any, text: str) -> None:
    artifacts = the_task(world).get("artifacts", [])
    assert all(text not in artifact_text(a) for a in artifacts), \
        f'expected no artifact to mention "{text}", got the artifacts {shown(artifacts)}'


@then(parsers.parse('the task\'s status message says "{text}"'))
def _(world: Any, text: str) -> None:
    said = status_text(the_task(world))
    assert said == text, f'expected the status message to say "{text}", got "{said}"'


@then(parsers.parse('the task\'s status message mentions "{text}"'))
def _(world: Any, text: str) -> None:
    said = status_text(the_task(world))
    assert text in said, f'expected the status message to mention "{text}", got "{said}"'


@then(parsers.re(r"the task has (?P<count>\d+) messages? in its history$"))
def _(world: Any, count: str) -> None:
    history = the_task(world).get("history", [])
    assert len(history) == int(count), \
        f"expected {count} messages in the task's history, got {len(history)}: {shown(history)}"


@then("the task has no history")
def _(world: Any) -> None:
    # A2A §3.2.4: historyLength 0 → history SHOULD be omitted
    task = the_task(world)
    assert "history" not in task, f"expected a task without history, got the history {shown(task.get('history'))}"


@then(parsers.parse('the latest message in the task\'s history says "{text}"'))
def _(world: Any, text: str) -> None:
    latest = the_task(world)["history"][-1]
    said = "".join(part.get("text", "") for part in latest["parts"])
    assert said == text, f'expected the latest message in the history to say "{text}", got {shown(latest)}'


@then(parsers.parse('the task\'s context is "{context}"'))
def _(world: Any, context: str) -> None:
    got = the_task(world)["contextId"]
    assert got == context, f'expected the task\'s context "{context}", got {shown(got)}'


@then("the task's context is a new UUID")
def _(world: Any) -> None:
    context = the_task(world)["contextId"]
    assert UUID.match(context), f'expected the task\'s context to be a UUID, got "{context}"'
    assert context not in world.notes["contexts"][:-1], \
        f'expected a new context, got "{context}", the context of an earlier task of the scenario'


@then(parsers.parse("the cancel returned within {seconds:d} seconds"))
def _(world: Any, seconds: int) -> None:
    assert world.notes["cancel seconds"] < seconds, \
        f"expected the cancel to return within {seconds} s, it took {world.notes['cancel seconds']:.1f} s"


# --- listing ---


def _list_value(world: Any, name: str, value: str) -> Any:
    if value.startswith('"'):
        return value.strip('"')
    if value == "the next page token":
        reply = world.reply
        assert reply is not None and reply.error is None, f"expected a page of tasks, got {described(reply)}"
        return field_of(reply.body, "nextPageToken", "a ListTasks answer")
    if value.startswith("the status time of "):
        return world.notes["seen"][value.removeprefix("the status time of ").strip('"')]["status"]["timestamp"]
    if value in ("true", "false"):
        return value == "true"
    if name == "status":
        return STATES[value]
    return int(value)


def list_options(world: Any, options: str) -> dict[str, Any]:
    """ListTasks parameters from a step's words: "pageSize 2 and pageToken the next page token"."""
    params = {}
    for option in options.split(" and "):
        name, _, value = option.partition(" ")
        params[name] = _list_value(world, name, value)
    return params


@when(parsers.re(r"the caller lists its tasks with (?P<options>.+)$"))
def _(world: Any, options: str) -> None:
    world.stream = None
    world.reply = world.client().call("ListTasks", list_options(world, options))


@when(parsers.parse('"{name}" lists its tasks'))
def _(world: Any, name: str) -> None:
    with as_caller(world, name):
        world.stream = None
        world.reply = world.client().call("ListTasks", {})


def listed(world: Any) -> list[dict[str, Any]]:
    """The tasks of the last ListTasks answer (A2A §3.1.4: `tasks` is REQUIRED, ProtoJSON writes an empty one)."""
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a list of tasks, got {described(reply)}"
    tasks = field_of(reply.body, "tasks", "a ListTasks answer")
    assert isinstance(tasks, list) and all(isinstance(task, dict) for task in tasks), \
        f"expected a list of tasks, got {shown(reply.body)}"
    return tasks


def listed_task(world: Any, label: str) -> dict[str, Any]:
    found = [task for task in listed(world) if task.get("id") == world.tasks[label]]
    assert len(found) == 1, f'expected the task "{label}" listed once, got it {len(found)} times'
    return found[0]


@then(parsers.re(r"the list holds the tasks? (?P<labels>.+)$"))
def _(world: Any, labels: str) -> None:
    expected = [world.tasks[label] for label in quoted(labels)]
    got = [task.get("id") for task in listed(world)]
    names = {world.tasks[label]: label for label in reversed(quoted(labels))}
    said = ", ".join(f'"{names[i]}"' if isinstance(i, str) and i in names else shown(i) for i in got) or "none"
    assert got == expected, f"expected the tasks {labels} in that order, listed {said}"


@then("the list holds no tasks")
def _(world: Any) -> None:
    tasks = listed(world)
    assert tasks == [], f"expected no task listed, got {shown([task.get('id') for task in tasks])}"


@then(parsers.parse("the list counts {total:d} tasks in all, on a page of {size:d}"))
def _(world: Any, total: int, size: int) -> None:
    body = world.reply.body
    assert (body["totalSize"], body["pageSize"]) == (total, size), \
        f"expected totalSize {total} and pageSize {size}, got {shown(body)}"


@then("the list has a next page token")
def _(world: Any) -> None:
    token = world.reply.body["nextPageToken"]
    assert isinstance(token, str) and token, f"expected a next page token, got nextPageToken {shown(token)}"


@then("the list is the last page")
def _(world: Any) -> None:
    # A2A §3.1.4: nextPageToken is always present, "" on the last page
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a list of tasks, got {described(reply)}"
    token = field_of(reply.body, "nextPageToken", "a ListTasks answer")
    assert token == "", f'expected the last page (nextPageToken ""), got nextPageToken {shown(token)}'


@then("the listed tasks carry no artifacts")
def _(world: Any) -> None:
    tasks = listed(world)
    assert tasks, "expected listed tasks, got none"
    carrying = [task.get("id") for task in tasks if "artifacts" in task]
    assert not carrying, f"expected no listed task to carry artifacts, got artifacts in {shown(carrying)}"


@then(parsers.parse('the listed task "{label}" carries the response artifact "{text}"'))
def _(world: Any, label: str, text: str) -> None:
    said = response_text(listed_task(world, label))
    assert said == text, f'expected the listed task "{label}" to say "{text}" in its response artifact, got "{said}"'


@then("the listed tasks carry no history")
def _(world: Any) -> None:
    tasks = listed(world)
    assert tasks, "expected listed tasks, got none"
    carrying = [task.get("id") for task in tasks if "history" in task]
    assert not carrying, f"expected no listed task to carry history, got history in {shown(carrying)}"


@then(parsers.re(r"every listed task has (?P<count>\d+) messages? in its history$"))
def _(world: Any, count: str) -> None:
    tasks = listed(world)
    assert tasks, "expected listed tasks, got none"
    lengths = [len(task.get("history", [])) for task in tasks]
    assert lengths == [int(count)] * len(tasks), \
        f"expected {count} messages in the history of every listed task, got {shown(lengths)}"


@then(parsers.parse('the history of the listed task "{label}" ends with "{text}"'))
def _(world: Any, label: str, text: str) -> None:
    latest = listed_task(world, label)["history"][-1]
    said = "".join(part.get("text", "") for part in latest["parts"])
    assert said == text, f'expected the history of "{label}" to end with "{text}", got {shown(latest)}'


@when("the caller lists its tasks")
def _(world: Any) -> None:
    world.stream = None
    world.reply = world.client().call("ListTasks", {})


