"""Steps that drive any agent through the TCK's messageId prefixes (a2a-tck scenarios/core_operations.feature and
streaming.feature, 1.0-dev): the portable scenarios of spec/features/a2a/ ask for a behaviour no other way.

A message "tck-complete-task" is one whose messageId starts with that prefix; its text says nothing the agent
needs. A task the caller does not name is "the task", the one the last answer carried."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when
from support.target import TARGET_KEY, TARGET_OTHER_KEY

from steps.common import add_workspace, new_key, reply_of, workspace_of, write_json
from steps.tasks import STATES, as_caller, cancel_task, send, task_id, the_task

OTHER = "other-bot"  # the second caller of the portable scenarios about what a caller may see
PREFIX = r'"(?P<prefix>[^"]+)"'
TERMINAL = {STATES[s] for s in ("completed", "failed", "canceled", "rejected")}


def prefixed(prefix: str, **fields: Any) -> dict[str, Any]:
    """A message whose messageId asks the agent for the prefix's behaviour."""
    message: dict[str, Any] = {"messageId": f"{prefix}-{uuid.uuid4()}", "role": "ROLE_USER",
                               "parts": [{"text": "A message of the conformance suite"}]}
    message.update({name: value for name, value in fields.items() if value is not None})
    return message


def send_prefixed(world: Any, prefix: str, *, context_id: str | None = None, task: str | None = None,
                  **configuration: Any) -> Any:
    message = prefixed(prefix, contextId=context_id, taskId=task)
    world.notes.setdefault("sent", []).append(message)
    world.notes["last sent"] = message
    reply = send(world, message, **configuration)
    if reply.error is None and "task" in reply.body:
        world.notes.setdefault("task ids", []).append(reply.body["task"]["id"])
    return reply


def answer(world: Any, prefix: str, *, context: str | None = "the task's", only_task: bool = False) -> Any:
    """A message to "the task": with its context, with another one, or naming only the task."""
    task = world.notes["seen"]["the task"]
    context_id = None if only_task else task.get("contextId") if context == "the task's" else context
    return send_prefixed(world, prefix, context_id=context_id, task=task["id"])


# --- the caller and the other caller ---


@given("the caller holds a key the agent accepts")
def _(world: Any) -> None:
    if world.external:  # another server: the key its owner gave us (A2A_TARGET_KEY)
        world.caller, world.key = "conformance", TARGET_KEY
        return
    key = new_key()
    add_workspace(world, "owner-1", [{"name": "conformance", "key": key}])
    world.caller, world.key = "conformance", key
    world.keys["conformance"] = key


@given("another caller of the same agent")
def _(world: Any) -> None:
    card = world_card(world)
    if not card.get("securitySchemes"):
        pytest.skip("the agent's card declares no security scheme: every caller is the same caller")
    if world.external:
        if not TARGET_OTHER_KEY:
            pytest.skip("needs a second caller's key of the target: A2A_TARGET_OTHER_KEY")
        world.keys[OTHER] = TARGET_OTHER_KEY
        return
    callers = workspace_of(world).callers_file
    world.keys[OTHER] = new_key()
    write_json(callers, [*json.loads(callers.read_text()), {"name": OTHER, "key": world.keys[OTHER]}])


def world_card(world: Any) -> dict[str, Any]:
    """The server's public card, fetched once per scenario."""
    if "public card" not in world.notes:
        response = world.http.get("/.well-known/agent-card.json")
        assert response.status_code == 200, f"no agent card: HTTP {response.status_code}"
        world.notes["public card"] = response.json()
    return world.notes["public card"]  # type: ignore[no-any-return]


# --- sending by prefix ---


@given(parsers.re(rf"the caller sent an? {PREFIX} message$"))
@when(parsers.re(rf"the caller sends an? {PREFIX} message$"))
def _(world: Any, prefix: str) -> None:
    send_prefixed(world, prefix)


@given(parsers.re(rf"the other caller sent an? {PREFIX} message$"))
def _(world: Any, prefix: str) -> None:
    with as_caller(world, OTHER):  # not "the task": the caller's own task stays the one the scenario speaks of
        reply = world.client().call("SendMessage", {"message": prefixed(prefix)})
    assert reply.error is None, reply.error
    world.notes["other task"] = reply.body["task"]["id"]


@when(parsers.re(rf"the caller sends an? {PREFIX} message without waiting$"))
def _(world: Any, prefix: str) -> None:
    send_prefixed(world, prefix, returnImmediately=True)


@when(parsers.re(rf"the caller sends an? {PREFIX} message with a history length of (?P<length>\d+)$"))
def _(world: Any, prefix: str, length: str) -> None:
    send_prefixed(world, prefix, historyLength=int(length))


@when(parsers.re(rf'the caller sends an? {PREFIX} message to the task "(?P<task>[^"]+)"$'))
def _(world: Any, prefix: str, task: str) -> None:
    send_prefixed(world, prefix, task=task)


@when(parsers.re(rf"the caller sends an? {PREFIX} message in a context of its own$"))
def _(world: Any, prefix: str) -> None:
    world.notes["own context"] = f"tck-client-context-{uuid.uuid4()}"
    send_prefixed(world, prefix, context_id=world.notes["own context"])


@when(parsers.re(rf'the caller sends an? {PREFIX} message in the context "(?P<context>[^"]+)"$'))
def _(world: Any, prefix: str, context: str) -> None:
    world.notes["own context"] = context
    send_prefixed(world, prefix, context_id=context)


@when(parsers.re(rf'the caller sends an? {PREFIX} message with a file part of type "(?P<media>[^"]+)"$'))
def _(world: Any, prefix: str, media: str) -> None:
    message = prefixed(prefix)
    message["parts"] = [{"raw": "dGNr", "filename": "tck.bin", "mediaType": media}]
    send(world, message)


@when(parsers.re(rf"the caller sends an? {PREFIX} message with a field no version of A2A defines$"))
def _(world: Any, prefix: str) -> None:
    # A2A §5.7: unrecognized fields SHOULD be ignored, in the message and around it
    message = {**prefixed(prefix), "conformanceSuiteNote": "not an A2A field"}
    send(world, message, conformanceSuiteOption=True)


@given(parsers.re(rf"the caller answered the task with an? {PREFIX} message$"))
@when(parsers.re(rf"the caller answers the task with an? {PREFIX} message$"))
def _(world: Any, prefix: str) -> None:
    answer(world, prefix)


@when(parsers.re(rf"the caller answers the task with an? {PREFIX} message naming only the task$"))
def _(world: Any, prefix: str) -> None:
    world.notes["context before"] = world.notes["seen"]["the task"].get("contextId")
    answer(world, prefix, only_task=True)


@when(parsers.re(rf"the caller answers the task with an? {PREFIX} message in another context$"))
def _(world: Any, prefix: str) -> None:
    answer(world, prefix, context=f"tck-other-context-{uuid.uuid4()}")


@given("the caller canceled the task")
def _(world: Any) -> None:
    reply = cancel_task(world)
    assert reply.error is None, reply.error


@when(parsers.parse('the caller cancels the task "{task}"'))
def _(world: Any, task: str) -> None:
    world.stream = None
    world.reply = world.client().call("CancelTask", {"id": task})


# --- what the answer is ---


@then(parsers.re(r"the answer is an? (?P<kind>task|message)$"))
def _(world: Any, kind: str) -> None:
    reply = world.reply
    assert reply.error is None, reply.error
    assert list(reply.body) == [kind], f"expected a {kind}, got {list(reply.body)}"  # A2A §3.1.1: one of the two


@then("the answer is a task not yet in a terminal state")
def _(world: Any) -> None:
    # A2A §3.2.2: returnImmediately returns once the task exists; the task is still in progress
    state = the_task(world)["status"]["state"]
    assert state not in TERMINAL, f"the answer came with the task {state}: it waited for the end"


@then(parsers.parse('the task has an artifact with the text "{text}"'))
def _(world: Any, text: str) -> None:
    artifacts = the_task(world).get("artifacts", [])
    texts = ["".join(part.get("text", "") for part in a["parts"]) for a in artifacts]
    assert text in texts, f"no artifact says {text!r}: {artifacts}"


@then("the two tasks have different ids")
def _(world: Any) -> None:
    first, second = world.notes["task ids"][-2:]
    assert first and second and first != second, (first, second)


def answered(world: Any) -> dict[str, Any]:
    """The task or the message the last answer carried."""
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected an answer, got {reply and reply.error}"
    (value,) = reply.body.values()
    return value  # type: ignore[no-any-return]


@then("the answer names a context")
def _(world: Any) -> None:
    assert answered(world).get("contextId"), f"no contextId in {answered(world)}"


@then("the context of the task is the one the answer named")
def _(world: Any) -> None:
    # A2A §3.4.1: a contextId the agent made is in its answer; the task read later has that context
    named = answered(world).get("contextId")
    got = world.client().call("GetTask", {"id": task_id(world)})
    assert got.error is None, got.error
    assert got.body.get("contextId") == named, f"the answer named {named!r}, the task has {got.body.get('contextId')}"


@then("the answer names the caller's context")
def _(world: Any) -> None:
    assert answered(world).get("contextId") == world.notes["own context"], answered(world)


@then("the answer names that context, or the call is refused")
def _(world: Any) -> None:
    # A2A §3.4.1: a contextId the agent cannot take is refused; it is never swapped for one of the agent's
    if world.reply.error is None:
        assert answered(world).get("contextId") == world.notes["own context"], answered(world)


@then("the answer names the context of the task")
def _(world: Any) -> None:
    assert answered(world).get("contextId") == world.notes["context before"], answered(world)


@then("the call is refused")
def _(world: Any) -> None:
    assert reply_of(world).error is not None, f"expected a refusal, got {getattr(reply_of(world), 'body', None)}"


# --- history ---


@then(parsers.parse("the task has at most {count:d} message in its history"))
def _(world: Any, count: int) -> None:
    history = the_task(world).get("history", [])
    assert len(history) <= count, f"{len(history)} messages: {history}"  # A2A §3.2.4: never more than asked


def caller_messages(world: Any) -> list[dict[str, Any]]:
    sent = {m["messageId"] for m in world.notes["sent"]}
    return [m for m in the_task(world).get("history", []) if m.get("messageId") in sent]


@then("the history holds the caller's message")
def _(world: Any) -> None:
    assert caller_messages(world), f"the history holds none of {[m['messageId'] for m in world.notes['sent']]}"


@then("the caller's messages are in the history in the order they were sent")
def _(world: Any) -> None:
    ids = [m["messageId"] for m in caller_messages(world)]
    assert ids == [m["messageId"] for m in world.notes["sent"]], f"history order {ids}"


@then("the caller's message in the history is the one it sent")
def _(world: Any) -> None:
    (sent,) = world.notes["sent"]
    (kept,) = caller_messages(world)
    assert (kept["role"], kept["parts"]) == (sent["role"], sent["parts"]), kept
