"""Steps about tasks: send, get, list, cancel (the shared vocabulary of every task feature)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from pytest_bdd import parsers, then, when

STATES = {
    "submitted": "TASK_STATE_SUBMITTED", "working": "TASK_STATE_WORKING", "completed": "TASK_STATE_COMPLETED",
    "failed": "TASK_STATE_FAILED", "canceled": "TASK_STATE_CANCELED", "input-required": "TASK_STATE_INPUT_REQUIRED",
    "rejected": "TASK_STATE_REJECTED", "auth-required": "TASK_STATE_AUTH_REQUIRED",
}


def text_message(text: str, *, context_id: str | None = None, task_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    if context_id:
        message["contextId"] = context_id
    if task_id:
        message["taskId"] = task_id
    return message


def send(world: Any, message: dict[str, Any], **configuration: Any) -> Any:
    """SendMessage (blocking unless told otherwise); remembers the task as "the task"."""
    params: dict[str, Any] = {"message": message, "configuration": configuration}
    world.stream = None
    world.reply = world.client().call("SendMessage", params)
    task = world.reply.body.get("task") if world.reply.error is None else None
    if task is not None:
        remember(world, task)
    return world.reply


def remember(world: Any, task: dict[str, Any], label: str = "the task") -> None:
    world.tasks[label] = task["id"]
    world.context_id = task["contextId"]


def task_id(world: Any, label: str = "the task") -> str:
    return world.tasks[label]


def the_task(world: Any) -> dict[str, Any]:
    """The task the last answer carried (SendMessage wraps it in {"task": …})."""
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a task, got {reply and reply.error}"
    body = reply.body
    return body["task"] if "task" in body else body  # type: ignore[no-any-return]


def response_text(task: dict[str, Any]) -> str:
    artifact = next((a for a in task.get("artifacts", []) if a["artifactId"] == "response"), None)
    assert artifact is not None, f"no response artifact in {task.get('artifacts')}"
    return "".join(part["text"] for part in artifact["parts"])


def status_text(task: dict[str, Any]) -> str:
    message = task["status"].get("message")
    assert message is not None, f"the status has no message: {task['status']}"
    return "".join(part.get("text", "") for part in message["parts"])


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)"$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" in the same context$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text, context_id=world.context_id))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" without waiting$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text), returnImmediately=True)


@when(parsers.re(r'the caller answers "(?P<text>[^"]*)"$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text, context_id=world.context_id, task_id=task_id(world)))


@when(parsers.re(r'the caller sends "(?P<text>[^"]*)" to the task$'))
def _(world: Any, text: str) -> None:
    send(world, text_message(text, task_id=task_id(world)))


@when(parsers.re(r'the caller gets the task "(?P<task>[^"]+)"$'))
def _(world: Any, task: str) -> None:
    world.stream = None
    world.reply = world.client().call("GetTask", {"id": world.tasks.get(task, task)})


@when("the caller gets the task")
def _(world: Any) -> None:
    world.stream = None
    world.reply = world.client().call("GetTask", {"id": task_id(world)})


@when(parsers.parse("the caller gets the task with a history length of {length:d}"))
def _(world: Any, length: int) -> None:
    world.stream = None
    world.reply = world.client().call("GetTask", {"id": task_id(world), "historyLength": length})


@when("the caller cancels the task")
def _(world: Any) -> None:
    world.stream = None
    world.reply = world.client().call("CancelTask", {"id": task_id(world)})


@when(parsers.parse("the caller sends the message {message}"))
def _(world: Any, message: str) -> None:
    send(world, json.loads(message))


@then(parsers.parse("the task is {state}"))
def _(world: Any, state: str) -> None:
    task = the_task(world)
    assert task["status"]["state"] == STATES[state], f"{task['status']}"


@then(parsers.parse('the response artifact says "{text}"'))
def _(world: Any, text: str) -> None:
    assert response_text(the_task(world)) == text


@then(parsers.parse('the task\'s status message says "{text}"'))
def _(world: Any, text: str) -> None:
    assert status_text(the_task(world)) == text


@then(parsers.parse("the task has {count:d} messages in its history"))
def _(world: Any, count: int) -> None:
    assert len(the_task(world).get("history", [])) == count, the_task(world).get("history")
