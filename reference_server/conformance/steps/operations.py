"""Steps that call an operation by its A2A name on the scenario's task, on any server: that the binding serves it
(A2A §5.1, §9.1), what a caller may do to another caller's task (§13.1), versions (§3.6) and bindings compared."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.capabilities import capability
from reference_server.conformance.steps.common import assert_fails_with, field_of, reply_of
from reference_server.conformance.steps.errors import named_error
from reference_server.conformance.steps.prefixes import OTHER, prefixed
from reference_server.conformance.steps.push import IDLE_HOOK
from reference_server.conformance.steps.tasks import as_caller, seen_task, state_of_task, task_id
from reference_server.conformance.support.client import A2AClient
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import ErrorView, described
from reference_server.conformance.world import OtherBindingRead, World, earlier

STREAMING = {"SendStreamingMessage", "SubscribeToTask"}


def params_for(world: World, operation: str) -> dict[str, Any]:
    """The parameters of `operation` on "the task" (a task waiting for input, in these scenarios)."""
    task = seen_task(world)
    message = prefixed(world, "tck-input-required", taskId=task["id"], contextId=task.get("contextId"))
    return {
        "SendMessage": {"message": message},
        "SendStreamingMessage": {"message": message},
        "GetTask": {"id": task["id"]},
        "ListTasks": {"contextId": task.get("contextId")},
        "CancelTask": {"id": task["id"]},
        "SubscribeToTask": {"id": task["id"]},
        "CreateTaskPushNotificationConfig": {"taskId": task["id"], "url": IDLE_HOOK},
        "GetTaskPushNotificationConfig": {"taskId": task["id"], "id": "tck-config"},
        "ListTaskPushNotificationConfigs": {"taskId": task["id"]},
        "DeleteTaskPushNotificationConfig": {"taskId": task["id"], "id": "tck-config"},
        "GetExtendedAgentCard": {},
    }[operation]


def call(world: World, client: A2AClient, operation: str, params: dict[str, Any]) -> None:
    """A unary call, or a stream read up to its first event (a subscription to a task that waits would not end)."""
    world.reply = world.stream = None
    if operation in STREAMING:  # served: an event stream; its events are the stream scenarios' to check
        world.stream = client.stream(operation, params, limit=1, max_seconds=10)
    else:
        world.reply = client.call(operation, params)


@when(parsers.re(r"the caller calls (?P<operation>[A-Z][A-Za-z]+) on the task$"))
def _(world: World, operation: str) -> None:
    call(world, world.client(), operation, params_for(world, operation))


def failure(world: World) -> ErrorView | None:
    reply = world.stream if world.reply is None else world.reply
    assert reply is not None, "expected an answer, got none"
    return reply.error


@then("the method is known")
def _(world: World) -> None:
    error = failure(world)
    assert error is None or error.code != -32601, f"expected the method known, got {error}"


@then("the operation is served")
def _(world: World) -> None:
    # A2A §5.1: every binding serves every operation. Not served: JSON-RPC's "method not found", or an HTTP+JSON
    # 404 or 405 that names no A2A error (a route the binding does not have)
    error = failure(world)
    if error is None:
        return
    assert error.code != -32601, f"expected the operation served, got {error}"
    status = error.raw.get("error") if isinstance(error.raw, dict) else None
    if error.http_status == 404 and error.reason is None and isinstance(status, dict) and "status" in status \
            and not world.ours:
        pytest.skip(f"the answer is a google.rpc.Status 404 without an ErrorInfo ({error}): whether the route "
                    "exists and the task or config was not found, or there is no such route, cannot be told (an A2A "
                    "error's ErrorInfo is HTTP_JSON-ERR-002's)")
    assert not (error.http_status in (404, 405) and error.reason is None), \
        f"expected the operation served, got HTTP {error.http_status} without an A2A error (no such route): {error}"


# --- another caller ---


@when(parsers.re(r"the other caller (?P<action>gets|cancels|subscribes to|answers|creates a push config for) "
                 r"the task$"))
def _(world: World, action: str) -> None:
    operation = {"gets": "GetTask", "cancels": "CancelTask", "subscribes to": "SubscribeToTask",
                 "answers": "SendMessage", "creates a push config for": "CreateTaskPushNotificationConfig"}[action]
    if operation == "CreateTaskPushNotificationConfig" and not capability(world, "pushNotifications"):
        pytest.skip("the agent's card does not declare push notifications")
    params = params_for(world, operation)
    with as_caller(world, OTHER):
        call(world, world.client(), operation, params)


@then("the refusal is the same as for a task that does not exist")
def _(world: World) -> None:
    # A2A §3.3.2: not found and not authorized cannot be told apart
    theirs = failure(world)
    with as_caller(world, OTHER):
        unknown = world.client().call("GetTask", {"id": f"tck-no-such-task-{task_id(world)[:8]}"}).error
    assert theirs is not None and unknown is not None, (
        f"expected a refusal both for another caller's task and for a task that does not exist, got "
        f"{theirs or 'success'} for the first and {unknown or 'success'} for the second")
    assert (theirs.code, theirs.http_status, theirs.reason) == (unknown.code, unknown.http_status, unknown.reason), (
        f"expected the same refusal as for a task that does not exist ({unknown}), got {theirs}")


# --- bindings compared ---


@when("the caller gets the task on the other binding")
def _(world: World) -> None:
    other = {"jsonrpc": "rest", "rest": "jsonrpc"}[world.protocol.binding]
    client = world.client()
    client.binding = other
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a task, got {described(reply)}"
    given = field_of(reply.body, "task", "an answer")
    world.other_binding = OtherBindingRead(given, client.call("GetTask", {"id": task_id(world)}))


@then("the task read on the other binding is the task the answer gave")
def _(world: World) -> None:
    both = earlier(world.other_binding, "a task read on the other binding")
    reply = both.read
    assert reply.error is None, f"expected the task on the other binding, got {reply}"
    sent, read = both.given, reply.body
    assert isinstance(sent, dict) and isinstance(read, dict), \
        f"expected a task on both bindings, got {shown(sent)} and {shown(read)}"
    fields = ("id", "contextId", "artifacts")
    expected, got = {f: sent.get(f) for f in fields}, {f: read.get(f) for f in fields}
    assert got == expected, \
        f"expected the task read on the other binding to be the task the answer gave, {shown(expected)}, " \
        f"got {shown(got)}"
    sent_state, read_state = state_of_task(sent), state_of_task(read)
    assert read_state == sent_state, \
        f"expected the task read on the other binding in the state the answer gave, {shown(sent_state)}, got " \
        f"{shown(read_state)}"


# --- versions ---


@given(parsers.parse('the caller sends A2A-Version "{version}" in the header "{header}"'))
def _(world: World, version: str, header: str) -> None:
    world.version, world.version_header = version, header


@then("the call is refused with VersionNotSupported, as under A2A-Version")
def _(world: World) -> None:
    # A2A §9.2, §11.2: the header's name is read in any case; a server that refuses the version under no name
    # fails VER-SERVER-002, not the reading of the header
    reply = reply_of(world)
    if not world.ours and (reply is None or reply.error is None or named_error(world) != "VersionNotSupported"):
        world.version_header = "A2A-Version"
        canonical = world.client().call("GetTask", {"id": "tck-no-such-task"})
        if canonical.error is None or canonical.error.code not in (None, -32009) or (
                canonical.error.reason not in (None, "VERSION_NOT_SUPPORTED")):
            pytest.skip(f"A2A-Version {world.version} is not refused under A2A-Version either "
                        f"({described(canonical)}): that is VER-SERVER-002's, and whether the header is read in any "
                        "case cannot be told")
    assert_fails_with(world, "VersionNotSupported")


@then("the answer is a task in the shapes of the caller's version")
def _(world: World) -> None:
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a task, got {described(reply)}"
    result = field_of(reply.raw, "result", "a JSON-RPC response") if world.protocol.binding == "jsonrpc" \
        else reply.raw
    # what tells the versions apart is checked here; the rest of each shape is every answer's check (SPEC-WIRE-001)
    if world.protocol.version == "1.0":
        world.check(result, "urn:a2a:v1#/$defs/SendMessageResponse", "SendMessage")
        task = result.get("task") if isinstance(result, dict) else None
        assert isinstance(task, dict) and "kind" not in task, f"expected an A2A 1.0 task, got {shown(result)}"
        assert str(field_of(task.get("status"), "state", "a task status")).startswith("TASK_STATE_"), \
            f"expected an A2A 1.0 state (TASK_STATE_…), got {shown(task.get('status'))}"
    elif world.protocol.binding == "jsonrpc":
        # A2A 0.3: the Task itself (its kind "task": a missing kind is the schema check's, SPEC-WIRE-001)
        world.check(result, "urn:a2a:v0.3#/definitions/Task", "message/send")
        assert isinstance(result, dict) and "task" not in result and result.get("kind", "task") == "task" \
            and "status" in result, f"expected an A2A 0.3 Task (the task itself, not a 1.0 answer), got {shown(result)}"
        assert not str(field_of(result.get("status"), "state", "a task status")).startswith("TASK_STATE_"), \
            f"expected an A2A 0.3 state (completed, working…), got {shown(result.get('status'))}"
    else:
        world.check(result, "urn:a2a:v0.3-proto#/$defs/SendMessageResponse", "SendMessage")
        task = result.get("task") if isinstance(result, dict) else None
        assert isinstance(task, dict), f"expected an A2A 0.3 proto answer with a task, got {shown(result)}"
        assert all(isinstance(m, dict) and "content" in m for m in task.get("history") or []), \
            f"expected the 0.3 proto's messages (content, not parts), got {shown(task.get('history'))}"


@then("the call is refused as not A2A 1.0")
def _(world: World) -> None:
    # A2A §3.6.2: no A2A-Version means 0.3; a 1.0 method read as 0.3 is a version the interface does not serve for
    # it (-32009), or a method 0.3 does not have (-32601), never served as 1.0
    reply = world.reply
    assert reply is not None, "expected a refusal, got no answer"
    error = reply.error
    assert error is not None, f"expected a refusal, the call was served as A2A 1.0: {reply}"
    assert error.code in (-32009, -32601), \
        f"expected VersionNotSupported (-32009) or MethodNotFound (-32601), got {error}"


@when(parsers.parse('the caller gets the task "{task}" with the A2A 0.3 method'))
def _(world: World, task: str) -> None:
    world.stream, world.reply = None, world.client(version="0.3").call("GetTask", {"id": task})
