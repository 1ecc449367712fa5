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
from pytest_bdd import given, parsers, then, when

from steps.common import UUID, new_key, wait_until, workspace_of, write_json

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
        world.reply, world.notes["no answer"] = None, error
        return None
    except json.JSONDecodeError as error:  # an answer that is not JSON: the same
        world.reply, world.notes["not json"] = None, error.doc
        return None
    task = world.reply.body.get("task") if world.reply.error is None else None
    if task is not None:
        remember(world, task)
        remember(world, task, "".join(part.get("text", "") for part in message["parts"]))
    return world.reply


def remember(world: Any, task: dict[str, Any], label: str = "the task") -> None:
    """Label → task id; "the task" is the latest, and the one before it stays known as "the previous task"."""
    if label == "the task":
        if "the task" in world.tasks:
            world.tasks["the previous task"] = world.tasks["the task"]
        world.context_id = task["contextId"]
        world.notes.setdefault("contexts", []).append(task["contextId"])
    world.tasks[label] = task["id"]
    world.notes.setdefault("seen", {})[label] = task


def task_id(world: Any, label: str = "the task") -> str:
    return world.tasks[label]  # type: ignore[no-any-return]


def the_task(world: Any) -> dict[str, Any]:
    """The task the last answer carried (SendMessage wraps it in {"task": …})."""
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a task, got {reply and reply.error}"
    body = reply.body
    return body.get("task", body)  # type: ignore[no-any-return]


def artifact_text(artifact: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in artifact["parts"])


def response_text(task: dict[str, Any]) -> str:
    artifact = next((a for a in task.get("artifacts", []) if a["artifactId"] == "response"), None)
    assert artifact is not None, f"no response artifact in {task.get('artifacts')}"
    return artifact_text(artifact)


def status_text(task: dict[str, Any]) -> str:
    message = task["status"].get("message")
    assert message is not None, f"the status has no message: {task['status']}"
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
        assert world.reply.error is None, world.reply.error


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
    task = world.notes["seen"][label]
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
    send(world, json.loads(message))


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
    assert world.reply.error is None, world.reply.error


# --- what the task says ---


@given(parsers.re(rf"the task is {STATE}$"))
@then(parsers.re(rf"the task is {STATE}$"))
def _(world: Any, state: str) -> None:
    task = the_task(world)
    assert task["status"]["state"] == STATES[state], f"the task is {task['status']}, not {state}"


@then(parsers.re(rf"the task becomes {STATE}$"))
def _(world: Any, state: str) -> None:
    def reached() -> bool:
        return get_task(world).error is None and the_task(world)["status"]["state"] == STATES[state]

    wait_until(reached, f"the task to become {state}")


@then("the answer continues the same task")
def _(world: Any) -> None:
    assert task_id(world) == task_id(world, "the previous task"), "the answer started another task"


@then(parsers.parse('the response artifact says "{text}"'))
def _(world: Any, text: str) -> None:
    assert response_text(the_task(world)) == text


@then(parsers.parse('the response artifact begins with "{text}"'))
def _(world: Any, text: str) -> None:
    said = response_text(the_task(world))
    assert said.startswith(text), said


@then(parsers.parse('no artifact of the task mentions "{text}"'))
def _(world: Any, text: str) -> None:
    artifacts = the_task(world).get("artifacts", [])
    assert all(text not in artifact_text(a) for a in artifacts), artifacts


@then(parsers.parse('the task\'s status message says "{text}"'))
def _(world: Any, text: str) -> None:
    assert status_text(the_task(world)) == text


@then(parsers.parse('the task\'s status message mentions "{text}"'))
def _(world: Any, text: str) -> None:
    said = status_text(the_task(world))
    assert text in said, said


@then(parsers.re(r"the task has (?P<count>\d+) messages? in its history$"))
def _(world: Any, count: str) -> None:
    history = the_task(world).get("history", [])
    assert len(history) == int(count), history


@then("the task has no history")
def _(world: Any) -> None:
    # A2A §3.2.4: historyLength 0 → history SHOULD be omitted
    assert "history" not in the_task(world), the_task(world)["history"]


@then(parsers.parse('the latest message in the task\'s history says "{text}"'))
def _(world: Any, text: str) -> None:
    latest = the_task(world)["history"][-1]
    assert "".join(part.get("text", "") for part in latest["parts"]) == text, latest


@then(parsers.parse('the task\'s context is "{context}"'))
def _(world: Any, context: str) -> None:
    assert the_task(world)["contextId"] == context


@then("the task's context is a new UUID")
def _(world: Any) -> None:
    context = the_task(world)["contextId"]
    assert UUID.match(context), f"{context!r} is not a UUID"
    assert context not in world.notes["contexts"][:-1], f"{context} was used before"


@then(parsers.parse("the cancel returned within {seconds:d} seconds"))
def _(world: Any, seconds: int) -> None:
    assert world.notes["cancel seconds"] < seconds, f"the cancel took {world.notes['cancel seconds']:.1f}s"


# --- listing ---


def _list_value(world: Any, name: str, value: str) -> Any:
    if value.startswith('"'):
        return value.strip('"')
    if value == "the next page token":
        return world.reply.body["nextPageToken"]
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
    assert world.reply.error is None, world.reply.error
    return world.reply.body["tasks"]  # type: ignore[no-any-return]


def listed_task(world: Any, label: str) -> dict[str, Any]:
    found = [task for task in listed(world) if task["id"] == world.tasks[label]]
    assert len(found) == 1, f"the task {label!r} is listed {len(found)} times"
    return found[0]


@then(parsers.re(r"the list holds the tasks? (?P<labels>.+)$"))
def _(world: Any, labels: str) -> None:
    expected = [world.tasks[label] for label in quoted(labels)]
    got = [task["id"] for task in listed(world)]
    names = {world.tasks[label]: label for label in reversed(quoted(labels))}
    assert got == expected, f"listed {[names.get(i, i) for i in got]}, expected {quoted(labels)}"


@then("the list holds no tasks")
def _(world: Any) -> None:
    assert listed(world) == []


@then(parsers.parse("the list counts {total:d} tasks in all, on a page of {size:d}"))
def _(world: Any, total: int, size: int) -> None:
    body = world.reply.body
    assert (body["totalSize"], body["pageSize"]) == (total, size), body


@then("the list has a next page token")
def _(world: Any) -> None:
    token = world.reply.body["nextPageToken"]
    assert isinstance(token, str) and token, f"nextPageToken is {token!r}"


@then("the list is the last page")
def _(world: Any) -> None:
    # A2A §3.1.4: nextPageToken is always present, "" on the last page
    assert world.reply.body["nextPageToken"] == "", world.reply.body


@then("the listed tasks carry no artifacts")
def _(world: Any) -> None:
    tasks = listed(world)
    assert tasks, "nothing was listed"
    assert all("artifacts" not in task for task in tasks), tasks


@then(parsers.parse('the listed task "{label}" carries the response artifact "{text}"'))
def _(world: Any, label: str, text: str) -> None:
    assert response_text(listed_task(world, label)) == text


@then("the listed tasks carry no history")
def _(world: Any) -> None:
    tasks = listed(world)
    assert tasks, "nothing was listed"
    assert all("history" not in task for task in tasks), tasks


@then(parsers.re(r"every listed task has (?P<count>\d+) messages? in its history$"))
def _(world: Any, count: str) -> None:
    tasks = listed(world)
    assert tasks, "nothing was listed"
    assert [len(task.get("history", [])) for task in tasks] == [int(count)] * len(tasks), tasks


@then(parsers.parse('the history of the listed task "{label}" ends with "{text}"'))
def _(world: Any, label: str, text: str) -> None:
    latest = listed_task(world, label)["history"][-1]
    assert "".join(part.get("text", "") for part in latest["parts"]) == text, latest


@when("the caller lists its tasks")
def _(world: Any) -> None:
    world.stream = None
    world.reply = world.client().call("ListTasks", {})


