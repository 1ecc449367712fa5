"""Steps that call an operation by its A2A name on the scenario's task, on any server: that the binding serves it
(A2A §5.1, §9.1), what a caller may do to another caller's task (§13.1), versions (§3.6) and bindings compared."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when
from support.client import A2AClient
from support.schemas import assert_valid

from steps.capabilities import capability
from steps.prefixes import OTHER, prefixed
from steps.push import IDLE_HOOK
from steps.tasks import as_caller, task_id

STREAMING = {"SendStreamingMessage", "SubscribeToTask"}


def params_for(world: Any, operation: str) -> dict[str, Any]:
    """The parameters of `operation` on "the task" (a task waiting for input, in these scenarios)."""
    task = world.notes["seen"]["the task"]
    message = prefixed("tck-input-required", taskId=task["id"], contextId=task.get("contextId"))
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


def call(world: Any, client: A2AClient, operation: str, params: dict[str, Any]) -> None:
    """A unary call, or a stream read up to its first event (a subscription to a task that waits would not end)."""
    world.reply = world.stream = None
    if operation in STREAMING:
        world.stream = client.stream(operation, params, limit=1)
    else:
        world.reply = client.call(operation, params)


@when(parsers.re(r"the caller calls (?P<operation>[A-Z][A-Za-z]+) on the task$"))
def _(world: Any, operation: str) -> None:
    call(world, world.client(), operation, params_for(world, operation))


def failure(world: Any) -> Any:
    return (world.stream if world.reply is None else world.reply).error


@then("the method is known")
def _(world: Any) -> None:
    error = failure(world)
    assert error is None or error.code != -32601, f"the method is not found: {error.message}"


@then("the operation is served")
def _(world: Any) -> None:
    # A2A §5.1: every binding serves every operation. Not served: JSON-RPC's "method not found", or an HTTP+JSON
    # 404 or 405 that names no A2A error (a route the binding does not have)
    error = failure(world)
    if error is None:
        return
    assert error.code != -32601, f"the method is not found: {error.message}"
    assert not (error.http_status in (404, 405) and error.reason is None), f"no route: HTTP {error.http_status}"


# --- another caller ---


@when(parsers.re(r"the other caller (?P<action>gets|cancels|subscribes to|answers|creates a push config for) "
                 r"the task$"))
def _(world: Any, action: str) -> None:
    operation = {"gets": "GetTask", "cancels": "CancelTask", "subscribes to": "SubscribeToTask",
                 "answers": "SendMessage", "creates a push config for": "CreateTaskPushNotificationConfig"}[action]
    if operation == "CreateTaskPushNotificationConfig" and not capability(world, "pushNotifications"):
        pytest.skip("the agent's card does not declare push notifications")
    params = params_for(world, operation)
    with as_caller(world, OTHER):
        call(world, world.client(), operation, params)


@then("the refusal is the same as for a task that does not exist")
def _(world: Any) -> None:
    # A2A §3.3.2: not found and not authorized cannot be told apart
    theirs = failure(world)
    with as_caller(world, OTHER):
        unknown = world.client().call("GetTask", {"id": f"tck-no-such-task-{task_id(world)[:8]}"}).error
    assert theirs is not None and unknown is not None, (theirs, unknown)
    assert (theirs.code, theirs.http_status, theirs.reason) == (unknown.code, unknown.http_status, unknown.reason), (
        f"another caller's task: {theirs.raw}; a task that does not exist: {unknown.raw}")


# --- bindings compared ---


@when("the caller gets the task on the other binding")
def _(world: Any) -> None:
    other = {"jsonrpc": "rest", "rest": "jsonrpc"}[world.protocol.binding]
    client = world.client()
    client.binding = other
    world.notes["sent answer"] = world.reply.body["task"]
    world.notes["other binding task"] = client.call("GetTask", {"id": task_id(world)})


@then("the task read on the other binding is the task the answer gave")
def _(world: Any) -> None:
    reply = world.notes["other binding task"]
    assert reply.error is None, reply.error
    sent, read = world.notes["sent answer"], reply.body
    fields = ("id", "contextId", "status", "artifacts")
    assert {f: read.get(f) for f in fields if f != "status"} == {f: sent.get(f) for f in fields if f != "status"}
    assert read["status"]["state"] == sent["status"]["state"], (read["status"], sent["status"])


# --- versions ---


@given(parsers.parse('the caller sends A2A-Version "{version}" in the header "{header}"'))
def _(world: Any, version: str, header: str) -> None:
    world.version, world.notes["version header"] = version, header


@then("the answer is a task in the shapes of the caller's version")
def _(world: Any) -> None:
    reply = world.reply
    assert reply.error is None, reply.error
    result = reply.raw["result"] if world.protocol.binding == "jsonrpc" else reply.raw
    if world.protocol.version == "1.0":
        assert_valid(result, "urn:a2a:v1#/$defs/SendMessageResponse")
        assert "task" in result, result
    elif world.protocol.binding == "jsonrpc":
        assert result.get("kind") == "task", result  # A2A 0.3: the Task itself, with its kind
        assert_valid(result, "urn:a2a:v0.3#/definitions/Task")
    else:
        assert_valid(result, "urn:a2a:v0.3-proto#/$defs/SendMessageResponse")


@then("the call is refused as not A2A 1.0")
def _(world: Any) -> None:
    # A2A §3.6.2: no A2A-Version means 0.3; a 1.0 method read as 0.3 is a version the interface does not serve for
    # it (-32009), or a method 0.3 does not have (-32601), never served as 1.0
    error = world.reply.error
    assert error is not None, f"served as A2A 1.0: {world.reply.body}"
    assert error.code in (-32009, -32601), f"the code {error.code}: {error.message}"


@when(parsers.parse('the caller gets the task "{task}" with the A2A 0.3 method'))
def _(world: Any, task: str) -> None:
    world.stream, world.reply = None, world.client(version="0.3").call("GetTask", {"id": task})
