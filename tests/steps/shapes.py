"""Steps about the shapes of an answer: a message instead of a task, artifacts and their parts, states, metadata."""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pytest_bdd import given, parsers, then, when
from support.design import Background, DesignState
from support.shapes import Masker

from reference_server.conformance.steps.common import UUID, wait_until, workspace_of, write_json
from reference_server.conformance.steps.streaming import events, kind, message_text, status_updates
from reference_server.conformance.steps.tasks import STATE, STATES, quoted, send, text_message, the_task
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import described
from reference_server.conformance.world import World, earlier
from steps.lifecycle import session_records


@given("the workspace's script is:")
def _(world: World, docstring: str) -> None:
    write_json(workspace_of(world).a2a_dir / "script.json", json.loads(docstring))


# --- a send that is still running ---


@when(parsers.parse('the caller sends "{text}" in the background'))
def _(world: World, design: DesignState, text: str) -> None:
    message = text_message(text, context_id=f"background-{uuid.uuid4().hex[:8]}")
    world.context_id = message["contextId"]
    pool = ThreadPoolExecutor(max_workers=1)
    design.background = Background(message, pool.submit(world.client().call, "SendMessage", {"message": message}))
    pool.shutdown(wait=False)


@when("the agent is working on it")
def _(world: World, design: DesignState) -> None:
    background = earlier(design.background, "a message sent in the background")
    sent = background.message["messageId"]
    # the prompt is in the session's file once the run has started, before its answer
    wait_until(lambda: any(r.get("messageId") == sent for r in session_records(world, world.context_id)),
               "the run of the message sent in the background")
    assert not background.answer.done(), \
        "expected the answer to wait for the run, it came before the run could be looked at"


@when("the caller gets the answer")
def _(world: World, design: DesignState) -> None:
    background = earlier(design.background, "a message sent in the background")
    world.stream, world.reply = None, background.answer.result(timeout=30)


# --- sending by messageId prefix ---


@when(parsers.parse('the caller sends "{text}" with a message id starting "{prefix}"'))
def _(world: World, design: DesignState, text: str, prefix: str) -> None:
    design.answer_before = world.reply
    send(world, {**text_message(text), "messageId": f"{prefix}-{uuid.uuid4()}"})


def shape(body: dict[str, Any]) -> Any:
    """The answer with ids and times named and the caller's own messages left out of the history."""
    task = body.get("task")
    if task is not None and "history" in task:
        body = {**body, "task": {**task, "history": [m for m in task["history"] if m["role"] != "ROLE_USER"]}}
    return Masker()(body)


@then("the answer has the same shape as the one before")
def _(world: World, design: DesignState) -> None:
    before, now = design.answer_before, world.reply
    assert before is not None and before.error is None and now is not None and now.error is None, \
        f"expected two answers to compare, got {described(before)} and {described(now)}"
    assert shape(now.body) == shape(before.body), \
        f"expected the same shape as the answer before, {shown(shape(before.body))}, got {shown(shape(now.body))}"


# --- a message, not a task ---


def the_message(world: World) -> dict[str, Any]:
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a message, got {described(reply)}"
    assert "task" not in reply.body, f"expected a message, got {reply}"
    message: dict[str, Any] = reply.body["message"]
    assert message["role"] == "ROLE_AGENT", f"expected a message of the agent (ROLE_AGENT), got {shown(message)}"
    return message


@then(parsers.parse('the answer is a message saying "{text}"'))
def _(world: World, text: str) -> None:
    said = message_text(the_message(world))
    assert said == text, f'expected the message to say "{text}", got "{said}"'


@then("the answer is a message with the parts:")
def _(world: World, docstring: str) -> None:
    parts, expected = the_message(world)["parts"], json.loads(docstring)
    assert parts == expected, f"expected the parts {shown(expected)}, got {shown(parts)}"


@then(parsers.parse("the message has the metadata {metadata}"))
def _(world: World, metadata: str) -> None:
    got = the_message(world).get("metadata")
    assert got == json.loads(metadata), f"expected the metadata {metadata}, got {shown(got)}"


@then("the message names the context but no task")
def _(world: World) -> None:
    # A2A Message: an agent's message carries the contextId; a taskId only when a task exists
    message = the_message(world)
    assert UUID.match(message.get("contextId", "")), f"expected the message to name its context, got {shown(message)}"
    assert "taskId" not in message, f"expected the message to name no task, got {shown(message)}"


@then(parsers.parse('the stream is one message saying "{text}"'))
def _(world: World, text: str) -> None:
    seen = events(world)  # A2A §3.1.2: a message answer is the whole stream
    assert len(seen) == 1, f"expected a stream of one message, got {world.stream}"
    event = seen[0]
    assert kind(event) == "message", f"expected a stream of one message, got {world.stream}"
    assert event["message"]["role"] == "ROLE_AGENT" and "taskId" not in event["message"], \
        f"expected a message of the agent that names no task, got {shown(event)}"
    said = message_text(event["message"])
    assert said == text, f'expected the message to say "{text}", got "{said}"'


@then(parsers.re(rf"the stream is the task alone, {STATE}$"))
def _(world: World, state: str) -> None:
    seen = events(world)  # the answer of a run that was to be a message, and ended without it
    assert len(seen) == 1, f"expected a stream of the task alone, got {world.stream}"
    event = seen[0]
    assert kind(event) == "task" and event["task"]["status"]["state"] == STATES[state], \
        f"expected the task alone, {state}, got {shown(event)}"


@then("no task was created")
def _(world: World) -> None:
    tasks_dir = workspace_of(world).tasks_dir
    assert not tasks_dir.exists() or not list(tasks_dir.glob("*.json")), \
        f"expected no task created, got the task files {', '.join(sorted(p.name for p in tasks_dir.iterdir()))}"


# --- artifacts ---


def only_artifact(world: World) -> dict[str, Any]:
    artifacts = the_task(world).get("artifacts", [])
    assert len(artifacts) == 1, f"expected the task to have one artifact, got {shown(artifacts)}"
    assert UUID.match(artifacts[0]["artifactId"]), f"expected a UUID artifactId, got {shown(artifacts[0])}"
    return artifacts[0]  # type: ignore[no-any-return]


@then(parsers.parse("the task's only artifact holds the parts {parts}"))
def _(world: World, parts: str) -> None:
    got = only_artifact(world)["parts"]
    assert got == json.loads(parts), f"expected the artifact's parts {parts}, got {shown(got)}"


@then("the task's only artifact is:")
def _(world: World, docstring: str) -> None:
    artifact = {k: v for k, v in only_artifact(world).items() if k != "artifactId"}
    expected = json.loads(docstring)
    assert artifact == expected, f"expected the artifact {shown(expected)}, got {shown(artifact)}"


@then(parsers.re(r"the task's artifacts are named (?P<names>.+)$"))
def _(world: World, names: str) -> None:
    got = [a.get("name") for a in the_task(world).get("artifacts", [])]
    assert got == quoted(names), f"expected the artifacts named {names}, got {shown(got)}"


@then("the task has no artifacts")
def _(world: World) -> None:
    task = the_task(world)
    assert "artifacts" not in task, f"expected the task to have no artifacts, got {shown(task.get('artifacts'))}"


def yes(flag: str) -> bool:
    assert flag in ("yes", "no"), f'the suite reads "yes" or "no" in this table, not "{flag}"'
    return flag == "yes"


@then("the stream's artifact updates are:")
def _(world: World, datatable: list[list[str]]) -> None:
    updates = [e["artifactUpdate"] for e in events(world) if kind(e) == "artifactUpdate"]
    got = [[u["artifact"].get("name", ""), bool(u.get("append")), bool(u.get("lastChunk")), u["artifact"]["parts"]]
           for u in updates]
    expected = [[name, yes(append), yes(last), json.loads(parts)] for name, append, last, parts in datatable[1:]]
    assert got == expected, f"expected the artifact updates (name, append, lastChunk, parts) {shown(expected)}, " \
        f"got {shown(got)}"
    # one artifact per name: an append names the artifact it adds to
    ids = {u["artifact"].get("name"): u["artifact"]["artifactId"] for u in updates}
    assert all(u["artifact"]["artifactId"] == ids[u["artifact"].get("name")] for u in updates), \
        f"expected one artifactId per artifact name, got {shown(updates)}"
    assert len(set(ids.values())) == len(ids), f"expected another artifactId for each name, got {shown(ids)}"


# --- states and metadata ---


@then("the stream's status updates are:")
def _(world: World, datatable: list[list[str]]) -> None:
    got = [[update["status"]["state"], message_text(update["status"]["message"]) if "message" in update["status"]
            else "", update.get("metadata")] for update in status_updates(events(world))]
    expected = [[STATES[state], message, json.loads(metadata) if metadata else None]
                for state, message, metadata in datatable[1:]]
    assert got == expected, f"expected the status updates (state, message, metadata) {shown(expected)}, " \
        f"got {shown(got)}"
