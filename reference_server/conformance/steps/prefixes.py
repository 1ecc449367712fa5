"""Steps that drive any agent through the behaviour conventions of the TCK (messageId prefixes, a2a-tck 1.0-dev) and
ACTS (text prefixes): the portable scenarios of spec/features/a2a/ ask for a behaviour no other way.

A message "tck-complete-task" is one that asks for that behaviour in the convention the agent follows
(support/conventions.py): its messageId starts with the prefix (TCK), or its text does (ACTS). An agent that follows
neither offers only what a plain message gets; a scenario that needs another behaviour is n/a, with the reason. A
task the caller does not name is "the task", the one the last answer carried."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import (
    add_workspace,
    field_of,
    new_key,
    reply_of,
    workspace_of,
    write_json,
)
from reference_server.conformance.steps.tasks import (
    STATES,
    as_caller,
    cancel_task,
    seen_task,
    send,
    state_name,
    state_of_task,
    task_id,
    the_task,
)
from reference_server.conformance.support.conventions import TEXT, Unoffered
from reference_server.conformance.support.exchanges import body_text, shown
from reference_server.conformance.support.replies import Reply, described, json_of
from reference_server.conformance.support.target import TARGET_KEY, TARGET_OTHER_KEY
from reference_server.conformance.world import World

OTHER = "other-bot"  # the second caller of the portable scenarios about what a caller may see
PREFIX = r'"(?P<prefix>[^"]+)"'
TERMINAL = {STATES[s] for s in ("completed", "failed", "canceled", "rejected")}


def prefixed(world: World, prefix: str, *, needed: bool = True, **fields: Any) -> dict[str, Any]:
    """A message that asks the agent for the prefix's behaviour in the convention it follows; the scenario is n/a
    when the agent does not offer it, unless the behaviour is not `needed` (the server answers before the agent
    has a say): then a plain message will do."""
    try:
        message = world.agent.message(prefix)
    except Unoffered as unoffered:
        if needed:
            pytest.skip(str(unoffered))
        message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": TEXT}]}
    message.update({name: value for name, value in fields.items() if value is not None})
    return message


def send_prefixed(world: World, prefix: str, *, context_id: str | None = None, task: str | None = None,
                  **configuration: Any) -> Reply | None:
    message = prefixed(world, prefix, contextId=context_id, taskId=task)
    world.sent.messages.append(message)
    reply = send(world, message, **configuration)  # None when no answer came (a fault the message asked for)
    if reply is not None and reply.error is None and isinstance(reply.body, dict) and "task" in reply.body:
        world.sent.task_ids.append(reply.body["task"]["id"])
    return reply


def answer(world: World, prefix: str, *, context: str | None = "the task's", only_task: bool = False) -> Reply | None:
    """A message to "the task": with its context, with another one, or naming only the task."""
    task = seen_task(world)
    context_id = None if only_task else task.get("contextId") if context == "the task's" else context
    return send_prefixed(world, prefix, context_id=context_id, task=task["id"])


# --- the caller and the other caller ---


@given("the caller holds a key the agent accepts")
def _(world: World) -> None:
    if world.external:  # another server: the key its owner gave us (A2A_TARGET_KEY)
        world.caller, world.key = "conformance", TARGET_KEY
        return
    key = new_key()
    add_workspace(world, "owner-1", [{"name": "conformance", "key": key}])
    world.caller, world.key = "conformance", key
    world.keys["conformance"] = key


@given("another caller of the same agent")
def _(world: World) -> None:
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


def world_card(world: World) -> dict[str, Any]:
    """The server's public card (where discovery found it), fetched once per scenario."""
    if world.public_card is None:
        response = world.http.get(world.server.card_url)
        assert response.status_code == 200, (
            f"expected the agent card at {world.server.card_url}, got HTTP {response.status_code}: "
            f"{body_text(response.content, response.headers.get('content-type', ''), 200)}")
        card = json_of(response, "the agent card")
        assert isinstance(card, dict), f"expected the agent card, a JSON object, got {shown(card)}"
        world.public_card = card
    return world.public_card


# --- sending by prefix ---


@given(parsers.re(rf"the caller sent an? {PREFIX} message$"))
@when(parsers.re(rf"the caller sends an? {PREFIX} message$"))
def _(world: World, prefix: str) -> None:
    send_prefixed(world, prefix)


@given(parsers.re(rf"the other caller sent an? {PREFIX} message$"))
def _(world: World, prefix: str) -> None:
    with as_caller(world, OTHER):  # not "the task": the caller's own task stays the one the scenario speaks of
        reply = world.client().call("SendMessage", {"message": prefixed(world, prefix)})
    assert reply.error is None, f'expected a task for the other caller\'s "{prefix}" message, got {reply}'
    task = field_of(reply.body, "task", f'the answer to a "{prefix}" message')
    world.other_task = field_of(task, "id", "a task")


@when(parsers.re(rf"the caller sends an? {PREFIX} message without waiting$"))
def _(world: World, prefix: str) -> None:
    send_prefixed(world, prefix, returnImmediately=True)


@when(parsers.re(rf"the caller sends an? {PREFIX} message with a history length of (?P<length>\d+)$"))
def _(world: World, prefix: str, length: str) -> None:
    send_prefixed(world, prefix, historyLength=int(length))


@when(parsers.re(rf'the caller sends an? {PREFIX} message to the task "(?P<task>[^"]+)"$'))
def _(world: World, prefix: str, task: str) -> None:
    send_prefixed(world, prefix, task=task)


@when(parsers.re(rf"the caller sends an? {PREFIX} message in a context of its own$"))
def _(world: World, prefix: str) -> None:
    world.own_context = f"tck-client-context-{uuid.uuid4()}"
    send_prefixed(world, prefix, context_id=world.own_context)


@when(parsers.re(rf'the caller sends an? {PREFIX} message in the context "(?P<context>[^"]+)"$'))
def _(world: World, prefix: str, context: str) -> None:
    world.own_context = context
    send_prefixed(world, prefix, context_id=context)


@when(parsers.re(rf'the caller sends an? {PREFIX} message with a file part of type "(?P<media>[^"]+)"$'))
def _(world: World, prefix: str, media: str) -> None:
    # the server refuses such a part before its agent has a say (A2A §3.1.1), whatever the agent would do
    message = prefixed(world, prefix, needed=False)
    file = {"raw": "dGNr", "filename": "tck.bin", "mediaType": media}
    message["parts"] = [*message["parts"], file] if not world.agent.tck else [file]
    send(world, message)


@when(parsers.re(rf"the caller sends an? {PREFIX} message with a field no version of A2A defines$"))
def _(world: World, prefix: str) -> None:
    # A2A §5.7: unrecognized fields SHOULD be ignored, in the message and around it
    message = {**prefixed(world, prefix), "conformanceSuiteNote": "not an A2A field"}
    send(world, message, conformanceSuiteOption=True)


@given(parsers.re(rf"the caller answered the task with an? {PREFIX} message$"))
@when(parsers.re(rf"the caller answers the task with an? {PREFIX} message$"))
def _(world: World, prefix: str) -> None:
    answer(world, prefix)


@when(parsers.re(rf"the caller answers the task with an? {PREFIX} message naming only the task$"))
def _(world: World, prefix: str) -> None:
    world.context_before = seen_task(world).get("contextId")
    answer(world, prefix, only_task=True)


@when(parsers.re(rf"the caller answers the task with an? {PREFIX} message in another context$"))
def _(world: World, prefix: str) -> None:
    answer(world, prefix, context=f"tck-other-context-{uuid.uuid4()}")


@given("the caller canceled the task")
def _(world: World) -> None:
    reply = cancel_task(world)
    assert reply.error is None, f"expected the task canceled, got {reply}"


@when(parsers.parse('the caller cancels the task "{task}"'))
def _(world: World, task: str) -> None:
    world.stream = None
    world.reply = world.client().call("CancelTask", {"id": task})


# --- what the answer is ---


@then(parsers.re(r"the answer is an? (?P<kind>task|message)$"))
def _(world: World, kind: str) -> None:
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a {kind}, got {described(reply)}"
    # A2A §3.1.1: one of the two
    assert isinstance(reply.body, dict) and list(reply.body) == [kind], \
        f"expected an answer holding exactly a {kind} (one of task or message), got {reply}"


@then("the answer is a task not yet in a terminal state")
def _(world: World) -> None:
    # A2A §3.2.2: returnImmediately returns once the task exists; the task is still in progress
    state = state_of_task(the_task(world))
    assert not (isinstance(state, str) and state in TERMINAL), \
        f"expected the task not yet in a terminal state, the answer came with the task {state_name(state)}: " \
        "it waited for the end"


@then(parsers.parse('the task has an artifact with the text "{text}"'))
def _(world: World, text: str) -> None:
    artifacts = the_task(world).get("artifacts", [])
    assert isinstance(artifacts, list) and all(
        isinstance(a, dict) and isinstance(a.get("parts"), list) and all(isinstance(p, dict) for p in a["parts"])
        for a in artifacts), f"expected the task's artifacts, each with its parts, got {shown(artifacts)}"
    texts = ["".join(part.get("text", "") for part in a["parts"]) for a in artifacts]
    assert text in texts, f'expected an artifact with the text "{text}", got the artifacts {shown(artifacts)}'


@then("the two tasks have different ids")
def _(world: World) -> None:
    ids = world.sent.task_ids
    assert len(ids) >= 2, f"expected two answers with a task, got {len(ids)}"
    first, second = ids[-2:]
    assert first and second and first != second, \
        f"expected two tasks with different ids, got the ids {shown(first)} and {shown(second)}"


def answered(world: World) -> dict[str, Any]:
    """The task or the message the last answer carried."""
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a task or a message, got {described(reply)}"
    body = reply.body
    assert isinstance(body, dict) and len(body) == 1 and isinstance(next(iter(body.values())), dict), \
        f"expected an answer holding exactly one of task or message, got {reply}"
    return next(iter(body.values()))


@then("the answer names a context")
def _(world: World) -> None:
    value = answered(world)
    assert value.get("contextId"), f"expected the answer to name a contextId, got {shown(value)}"


@then("the context of the task is the one the answer named")
def _(world: World) -> None:
    # A2A §3.4.1: a contextId the agent made is in its answer; the task read later has that context
    named = answered(world).get("contextId")
    got = world.client().call("GetTask", {"id": task_id(world)})
    assert got.error is None, f"expected the task, got {got}"
    read = got.body.get("contextId") if isinstance(got.body, dict) else None
    assert read == named, \
        f"expected the task read later in the context the answer named, {shown(named)}, got {shown(read)}"


@then("the answer names the caller's context")
def _(world: World) -> None:
    value, own = answered(world), world.own_context
    assert value.get("contextId") == own, \
        f'expected the answer to name the caller\'s context "{own}", got {shown(value.get("contextId"))}'


@then("the answer names that context, or the call is refused")
def _(world: World) -> None:
    # A2A §3.4.1: a contextId the agent cannot take is refused; it is never swapped for one of the agent's
    if world.reply is None or world.reply.error is None:
        value, own = answered(world), world.own_context
        assert value.get("contextId") == own, \
            f'expected the answer to name the context "{own}", or a refusal, got the context ' \
            f'{shown(value.get("contextId"))}'


@then("the answer names the context of the task")
def _(world: World) -> None:
    value, before = answered(world), world.context_before
    assert value.get("contextId") == before, \
        f"expected the answer to name the context of the task, {shown(before)}, got {shown(value.get('contextId'))}"


@then("the call is refused")
def _(world: World) -> None:
    reply = reply_of(world)
    assert reply is not None and reply.error is not None, f"expected a refusal, got {described(reply)}"


# --- history ---


@then(parsers.parse("the task has at most {count:d} message in its history"))
def _(world: World, count: int) -> None:
    history = the_task(world).get("history", [])
    # A2A §3.2.4: never more than asked
    assert len(history) <= count, \
        f"expected at most {count} messages in the history, got {len(history)}: {shown(history)}"


def caller_messages(world: World) -> list[dict[str, Any]]:
    sent = {m["messageId"] for m in world.sent.messages}
    history = the_task(world).get("history", [])
    assert isinstance(history, list), f"expected the task's history, a list of messages, got {shown(history)}"
    return [m for m in history if isinstance(m, dict) and m.get("messageId") in sent]


@then("the history holds the caller's message")
def _(world: World) -> None:
    sent = [m["messageId"] for m in world.sent.messages]
    assert caller_messages(world), f"expected the caller's message {shown(sent)} in the history, got the history " \
        f"{shown(the_task(world).get('history'))}"


@then("the caller's messages are in the history in the order they were sent")
def _(world: World) -> None:
    ids = [m["messageId"] for m in caller_messages(world)]
    sent = [m["messageId"] for m in world.sent.messages]
    assert ids == sent, \
        f"expected the caller's messages in the history in the order sent, {shown(sent)}, got {shown(ids)}"


@then("the caller's message in the history is the one it sent")
def _(world: World) -> None:
    messages = world.sent.messages
    assert len(messages) == 1, f"the suite expects one message sent in this scenario, it sent {len(messages)}"
    sent = messages[0]
    found = caller_messages(world)
    assert len(found) == 1, f"expected the caller's message once in the history, got it {len(found)} times"
    kept = found[0]
    assert (kept.get("role"), kept.get("parts")) == (sent["role"], sent["parts"]), \
        f"expected the message as sent, {shown({'role': sent['role'], 'parts': sent['parts']})}, got {shown(kept)}"


@then("the answer is a message that names no task")
def _(world: World) -> None:
    # a2a.proto Message: for server messages, context_id must be provided, and task_id only if a task was created
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a message, got {described(reply)}"
    message = reply.body.get("message") if isinstance(reply.body, dict) else None
    if not isinstance(message, dict) and not world.ours:
        pytest.skip(f"the agent answered with {described(reply)}, not a message: what a message answer names "
                    f"cannot be seen (the answer a message asks for is CORE-SEND-001's)")
    assert isinstance(message, dict), f"expected a message, got {reply}"
    assert not message.get("taskId"), f"expected a message that names no task (none was made), got {shown(message)}"


@then("the task's status has a message that says something")
def _(world: World) -> None:
    # A2A §7.6.1: a TaskStatus message explaining the authorization needed
    status = the_task(world).get("status")
    message = status.get("message") if isinstance(status, dict) else None
    assert isinstance(message, dict), f"expected the task's status to have a message, got {shown(status)}"
    found = message.get("parts")
    parts: list[Any] = found if isinstance(found, list) else []
    said = "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict)).strip()
    assert said or any(isinstance(p, dict) and "data" in p for p in parts), \
        f"expected the status message to say what is needed, got {shown(message)}"
