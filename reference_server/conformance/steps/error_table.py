"""Steps about the error table (A2A §5.4): the situations that cause each error, and what its answer carries on
each binding (the JSON-RPC code, the HTTP status, the ErrorInfo reason and metadata)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pytest_bdd import parsers, then, when

from reference_server.conformance.steps.common import answer_of, field_of
from reference_server.conformance.steps.errors import named_error
from reference_server.conformance.steps.prefixes import send_prefixed
from reference_server.conformance.steps.tasks import reached_state, text_message
from reference_server.conformance.steps.wire import raw_jsonrpc
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import Reply, WireProblem, described
from reference_server.conformance.world import Situation, World

UNKNOWN_TASK = "00000000-0000-4000-8000-000000000000"


def _completed_task(world: World) -> str:
    """A task the agent completed: asked for in its convention (the situation needs one; on another server a
    task the answer gave while it still ran is read again until it ends, and the situation is n/a when it never
    completes: whether a send waits is CORE-EXECUTION-MODE-001's)."""
    reply = send_prefixed(world, "tck-complete-task")
    assert reply is not None and reply.error is None, \
        f'expected a completed task for a "tck-complete-task" message, got {described(reply)}'
    task = field_of(reply.body, "task", 'an answer to a "tck-complete-task" message')
    reached_state(world, "completed")
    return str(field_of(task, "id", "a task"))


def _message_to(task: str) -> dict[str, Any]:
    return {"message": {**text_message("once more", task_id=task), "messageId": f"tck-complete-task-{uuid.uuid4()}"}}


# situation → (operation, params), or a function of the world giving them when the situation needs a task
SITUATIONS: dict[str, Any] = {
    "getting an unknown task": ("GetTask", {"id": UNKNOWN_TASK}),
    "getting a task that does not exist": ("GetTask", {"id": "tck-no-such-task"}),
    "canceling a completed task": lambda world: ("CancelTask", {"id": _completed_task(world)}),
    "sending a message to a completed task": lambda world: ("SendMessage", _message_to(_completed_task(world))),
    # an error found before a stream starts is a plain answer (DIGEST §10), so it is read like a unary one
    "subscribing to a completed task": lambda world: ("SubscribeToTask", {"id": _completed_task(world)}),
    "sending A2A-Version 9.9": ("GetTask", {"id": "tck-no-such-task"}),  # the version is read first (§3.6.2)
    "sending a message with no parts": ("SendMessage", {"message": {"messageId": "tck-complete-task-1",
                                                                   "role": "ROLE_USER", "parts": []}}),
    "sending a message without a messageId": ("SendMessage", {"message": {"role": "ROLE_USER",
                                                                         "parts": [{"text": "hi"}]}}),
}


# the requirement that says each situation fails, which a server that takes it fails
SITUATION_REQUIREMENTS = {
    "getting an unknown task": "CORE-GET-002",
    "getting a task that does not exist": "CORE-GET-002",
    "canceling a completed task": "CORE-CANCEL-002",
    "sending a message to a completed task": "CORE-SEND-002",
    "subscribing to a completed task": "STREAM-SUB-003",
    "sending A2A-Version 9.9": "VER-SERVER-002",
    "sending a message with no parts": "CORE-ERR-002",
    "sending a message without a messageId": "CORE-ERR-002",
}


@when(parsers.parse("the caller causes {error} by {situation}"))
def _(world: World, error: str, situation: str) -> None:
    if situation == "calling an unknown method":
        world.reply = _unknown_method(world)
        return
    entry = SITUATIONS[situation]
    operation, params = entry(world) if callable(entry) else entry
    if situation == "sending A2A-Version 9.9":
        world.version = "9.9"
    world.situation = Situation((operation, params), error)
    if world.ours:
        world.reply = world.client().call(operation, params)
        return
    # another server: what an A2A error carries can be seen only when the situation caused that error; anything
    # else is the finding of the requirement that says the situation fails so (one defect, one failure)
    whose = SITUATION_REQUIREMENTS.get(situation, "its operation")
    try:
        world.reply = world.client().call(operation, params)
    except WireProblem as problem:  # a stream, or an answer that is not JSON (a 5xx page)
        pytest.skip(f"{situation} got {problem}, so what an A2A error carries cannot be seen with it (that it fails "
                    f"with {error} is {whose}'s)")
    if world.reply.error is None:
        pytest.skip(f"{situation} caused no error here ({described(world.reply)}), so what an error carries cannot be "
                    f"seen with it (that it should fail is {whose}'s)")
    named = named_error(world)
    if named is not None and named != error:
        pytest.skip(f"{situation} caused {named}, not {error}, so what {error} carries cannot be seen with it (which "
                    f"error it calls for is {whose}'s)")


def _unknown_method(world: World) -> Reply:
    client = world.client()
    if client.binding == "rest":
        answer = world.http.get(world.rest_prefix + "/teleport", headers=client.headers())
        reply: Reply = client.rest_reply(answer, None)
        return reply
    return raw_jsonrpc(world, "Teleport", {}, 1)


@then(parsers.parse("on JSON-RPC the code is {code:d}, on HTTP+JSON the status is {http:d} {status}"))
def _(world: World, code: int, http: int, status: str) -> None:
    reply = answer_of(world)
    if world.protocol.binding == "rest":
        assert reply.http_status == http, f"expected HTTP {http}, got HTTP {reply.http_status}: {reply}"
        assert reply.raw["error"]["status"] == status, \
            f"expected the status {status}, got {shown(reply.raw)}"
        assert reply.raw["error"]["code"] == http, f"expected error.code {http}, got {shown(reply.raw)}"
    else:
        assert reply.http_status == 200, f"expected HTTP 200, got HTTP {reply.http_status}: {reply}"
        assert reply.error is not None and reply.error.code == code, f"expected the JSON-RPC code {code}, got {reply}"


@then(parsers.parse("the error carries the reason {reason}"))
def _(world: World, reason: str) -> None:
    reply = answer_of(world)
    error = reply.error
    assert error is not None, f"expected an error, got {reply}"
    if reason == "none":
        assert error.reason is None, f"expected no ErrorInfo reason, got {error}"
    else:
        assert error.reason == reason, f"expected the ErrorInfo reason {reason}, got {error}"


@then(parsers.parse('the error metadata names the task "{task_id}"'))
def _(world: World, task_id: str) -> None:
    raw = answer_of(world).raw
    details = raw["error"].get("data") or raw["error"].get("details")
    info = next((d for d in details if d["@type"].endswith("ErrorInfo")), None)
    assert info is not None, f"expected an ErrorInfo among the error's details, got {shown(details)}"
    assert info["metadata"]["taskId"] == task_id, \
        f'expected the ErrorInfo metadata to name the task "{task_id}", got {shown(info)}'

