"""Steps about streams: SendStreamingMessage and SubscribeToTask, and the events they carry (A2A §3.1.2, §3.5)."""

from __future__ import annotations

import base64
import json
from typing import Any

from pytest_bdd import parsers, then, when

from reference_server.conformance.steps.common import TIMESTAMP, UUID, answer_of, workspace_of
from reference_server.conformance.steps.tasks import STATE, STATES, as_caller, quoted, remember, task_id, text_message
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import StreamReply, Unreadable, described
from reference_server.conformance.world import World


def open_stream(world: World, operation: str, params: dict[str, Any]) -> StreamReply:
    """Run a stream to its end; the task of its first event becomes "the task"."""
    world.reply = None
    stream = world.stream = world.client().stream(operation, params)
    first = stream.events[0] if stream.events else {}
    if "task" in first:
        remember(world, first["task"])
    return stream


def events(world: World) -> list[dict[str, Any]]:
    stream = world.stream
    assert stream is not None and stream.error is None, f"expected a stream, got {described(stream)}"
    # only a fault the scenario asked for, and checked (steps/faults.py), breaks or garbles a stream
    assert not stream.broken or world.streams.fault_checked, \
        f"expected a stream that ends when its task does, got {stream}"
    if stream.garbled and not world.streams.fault_checked and not world.ours:
        # another server's frames that are not JSON: reported once (JSONRPC-SSE-001, HTTP_JSON-SSE-001); the
        # scenario that needed its events could not be checked
        raise Unreadable(f"the stream's events could not be read: their data is not JSON ({stream})")
    assert not stream.garbled or world.streams.fault_checked, \
        f"expected every event of the stream to be JSON, got frames that are not: {shown(stream.garbled)}"
    assert stream.events, f"expected at least one event, got {stream}"
    return stream.events


EVENT_KINDS = "task, message, statusUpdate, artifactUpdate"


def kind(event: dict[str, Any]) -> str:
    """The kind of a stream's event: a StreamResponse holds exactly one of task, message, statusUpdate,
    artifactUpdate (A2A §3.2.3)."""
    assert isinstance(event, dict) and len(event) == 1, \
        f"expected an event holding exactly one of {EVENT_KINDS}, got {shown(event)}"
    return next(iter(event))


def status_updates(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["statusUpdate"] for e in stream if kind(e) == "statusUpdate"]


def message_text(message: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in message["parts"])


def response_messages(stream: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The response artifact's updates, cut into assistant messages at each lastChunk."""
    messages: list[list[dict[str, Any]]] = [[]]
    for event in stream:
        update = event.get("artifactUpdate")
        if update is None or update["artifact"]["artifactId"] != "response":
            continue
        messages[-1].append(update)
        if update.get("lastChunk"):
            messages.append([])
    assert messages[-1] == [], f"expected the last message to end with a lastChunk, got {shown(messages[-1])}"
    return messages[:-1]


def chunk_text(update: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in update["artifact"]["parts"])


def summary(stream: list[dict[str, Any]], task: str, context: str | None) -> list[str]:
    """Each event in one line: kind, state or artifact chunk; ids and timestamps are checked, then left out."""
    lines = []
    for event in stream:
        name = kind(event)
        body = event[name]
        assert body.get("taskId", body.get("id")) == task, f'expected an event of the task "{task}", got {shown(body)}'
        assert body["contextId"] == context, f'expected an event in the context "{context}", got {shown(body)}'
        if name in ("task", "statusUpdate"):
            status = body["status"]
            assert TIMESTAMP.match(status["timestamp"]), \
                f"expected an RFC 3339 UTC timestamp with milliseconds, got the status {shown(status)}"
            said = f' "{message_text(status["message"])}"' if "message" in status else ""
            lines.append(f"{name}: {status['state'].removeprefix('TASK_STATE_').lower()}{said}")
            continue
        artifact = body["artifact"]
        artifact_id = artifact["artifactId"]
        if artifact_id != "response":
            assert UUID.match(artifact_id), f"expected a UUID artifactId, got {shown(artifact_id)}"
            artifact_id = "<uuid>"
        flags = "".join(f" {flag}" for flag in ("append", "lastChunk") if body.get(flag))
        parts = ", ".join(json.dumps(part["text"]) if "text" in part else f"file {part.get('filename')}"
                          for part in artifact["parts"])
        lines.append(f"{name} {artifact_id}{flags}: {parts}")
    return lines


# --- opening streams ---


@when(parsers.re(r'the caller streams "(?P<text>[^"]*)"$'))
def _(world: World, text: str) -> None:
    open_stream(world, "SendStreamingMessage", {"message": text_message(text)})


@when(parsers.re(r'the caller streams "(?P<text>[^"]*)" in the same context$'))
def _(world: World, text: str) -> None:
    open_stream(world, "SendStreamingMessage", {"message": text_message(text, context_id=world.context_id)})


@when(parsers.parse("the caller streams the message {message}"))
def _(world: World, message: str) -> None:
    open_stream(world, "SendStreamingMessage", {"message": json.loads(message)})


@when(parsers.re(r'the caller streams the answer "(?P<text>[^"]*)"$'))
def _(world: World, text: str) -> None:
    message = text_message(text, context_id=world.context_id, task_id=task_id(world))
    open_stream(world, "SendStreamingMessage", {"message": message})


@when("the caller subscribes to the task")
def _(world: World) -> None:
    open_stream(world, "SubscribeToTask", {"id": task_id(world)})


@when(parsers.parse('the caller subscribes to the task "{task}"'))
def _(world: World, task: str) -> None:
    open_stream(world, "SubscribeToTask", {"id": task})


@when(parsers.parse('"{name}" subscribes to the task'))
def _(world: World, name: str) -> None:
    with as_caller(world, name):
        open_stream(world, "SubscribeToTask", {"id": task_id(world)})


# --- the order of events ---


@then(parsers.re(rf"the stream holds only the task {STATE}$"))
def _(world: World, state: str) -> None:
    seen = events(world)
    assert len(seen) == 1 and kind(seen[0]) == "task", f"expected a stream of the task alone, got {world.stream}"
    assert seen[0]["task"]["status"]["state"] == STATES[state], f"expected the task {state}, got {shown(seen[0])}"


@then(parsers.re(rf"the stream starts with the task {STATE}$"))
def _(world: World, state: str) -> None:
    first = events(world)[0]
    # A2A §3.1.2, §3.1.6
    assert kind(first) == "task", f"expected the stream to start with the task, got {world.stream}"
    assert first["task"]["status"]["state"] == STATES[state], \
        f"expected the stream to start with the task {state}, got the status {shown(first['task']['status'])}"


@then(parsers.re(rf"the stream ends with the task {STATE}$"))
def _(world: World, state: str) -> None:
    # design README: streams close after a terminal or interrupted state; nothing follows that update
    last = events(world)[-1]
    assert kind(last) == "statusUpdate", f"expected the stream to end with a status update, got {world.stream}"
    assert last["statusUpdate"]["status"]["state"] == STATES[state], \
        f"expected the stream to end with the task {state}, got the status {shown(last['statusUpdate']['status'])}"
    earlier = [u["status"]["state"] for u in status_updates(events(world))[:-1]]
    ending = [STATES[s] for s in ("completed", "failed", "canceled", "rejected", "input-required", "auth-required")]
    assert not set(earlier) & set(ending), \
        f"expected the stream to close after the task ended or was interrupted, it went on after {shown(earlier)}"


@then(parsers.parse('the last status update says "{text}"'))
def _(world: World, text: str) -> None:
    status = status_updates(events(world))[-1]["status"]
    assert message_text(status["message"]) == text, \
        f'expected the last status update to say "{text}", got the status {shown(status)}'


@then("the stream's events match the snapshot")
def _(world: World, snapshot_json: Any) -> None:
    got = summary(events(world), task_id(world), world.context_id)
    assert got == snapshot_json, "expected the stream's events as in their snapshot (spec/snapshots/), got:\n" + \
        "\n".join(got)



@then("the stream continues the same task")
def _(world: World) -> None:
    assert task_id(world) == task_id(world, "the previous task"), (
        f'expected the answer to continue the task "{task_id(world, "the previous task")}", got another task '
        f'"{task_id(world)}"')
    others = [e for e in events(world) if e[kind(e)].get("taskId", e[kind(e)].get("id")) != task_id(world)]
    assert not others, f'expected every event to be of the task "{task_id(world)}", got {shown(others)}'


# --- text deltas and tool calls ---


@then(parsers.re(r"the response artifact streams (?P<count>\d+) messages?$"))
def _(world: World, count: str) -> None:
    messages = response_messages(events(world))
    assert len(messages) == int(count), \
        f"expected the response artifact to stream {count} messages, got {len(messages)}: {shown(messages)}"


@then("each streamed message starts afresh, appends the rest and ends with a last chunk")
def _(world: World) -> None:
    # design "Run and map": a text delta is an artifact append; message_end is lastChunk for that message
    for message in response_messages(events(world)):
        assert len(message) >= 2, f"expected a message in two updates or more, got {shown(message)}"
        assert not message[0].get("append"), \
            f"expected the first chunk of a message not to append, got {shown(message[0])}"
        assert all(update.get("append") is True for update in message[1:]), \
            f"expected every chunk after the first to append, got {shown(message)}"
        assert [bool(update.get("lastChunk")) for update in message] == [False] * (len(message) - 1) + [True], \
            f"expected lastChunk on the last chunk of the message only, got {shown(message)}"


@then(parsers.parse('the streamed message says "{text}" in {count:d} or more chunks'))
def _(world: World, text: str, count: int) -> None:
    messages = response_messages(events(world))
    assert len(messages) == 1, f"expected one streamed message, got {len(messages)}: {shown(messages)}"
    chunks = [chunk_text(update) for update in messages[0] if chunk_text(update)]
    assert "".join(chunks) == text, f'expected the streamed message to say "{text}", got the chunks {shown(chunks)}'
    assert len(chunks) >= count, f"expected {count} chunks or more, got {len(chunks)}: {shown(chunks)}"


@then(parsers.parse('the streamed response ends with "{text}"'))
def _(world: World, text: str) -> None:
    said = "".join(chunk_text(update) for message in response_messages(events(world)) for update in message)
    assert said.endswith(text), f'expected the streamed response to end with "{text}", got {shown(said)}'


@then(parsers.parse("the working status updates say {texts}"))
def _(world: World, texts: str) -> None:
    working = [u["status"] for u in status_updates(events(world)) if u["status"]["state"] == STATES["working"]]
    said = [message_text(status["message"]) for status in working if "message" in status]
    # design: "using <tool>", never the arguments
    assert said == quoted(texts), f"expected the working status updates to say {texts}, got {shown(said)}"


# --- file artifacts ---


def file_artifacts(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["artifactUpdate"]["artifact"] for e in stream
            if kind(e) == "artifactUpdate" and e["artifactUpdate"]["artifact"]["artifactId"] != "response"]


@then(parsers.parse('the stream carries a new artifact with the file "{name}" of type "{media_type}"'))
def _(world: World, name: str, media_type: str) -> None:
    artifacts = file_artifacts(events(world))
    assert len(artifacts) == 1, f"expected one new artifact, got {len(artifacts)}: {shown(artifacts)}"
    artifact = artifacts[0]
    # design: artifactId = UUID
    assert UUID.match(artifact["artifactId"]), f"expected a UUID artifactId, got {shown(artifact['artifactId'])}"
    parts = [part for part in artifact["parts"] if "raw" in part]
    assert len(parts) == 1, f"expected one part with raw bytes, got the artifact {shown(artifact)}"
    part = parts[0]
    assert (part["filename"], part["mediaType"]) == (name, media_type), \
        f'expected the file "{name}" of type "{media_type}", got {shown(part)}'
    world.streams.file_artifact = artifact


@then(parsers.parse('the artifact\'s bytes are those of the workspace file "{name}"'))
def _(world: World, name: str) -> None:
    artifact = world.streams.file_artifact
    parts = [part for part in artifact["parts"] if "raw" in part]
    assert len(parts) == 1, f"expected one part with raw bytes, got {shown(artifact)}"
    sent = base64.b64decode(parts[0]["raw"], validate=True)
    kept = (workspace_of(world).path / name).read_bytes()
    assert sent == kept, f'expected the {len(kept)} bytes of "{name}", got {len(sent)} other bytes'


@then("the task keeps the streamed file artifact")
def _(world: World) -> None:
    artifact = world.streams.file_artifact
    task = answer_of(world).body
    assert [a for a in task["artifacts"] if a["artifactId"] == artifact["artifactId"]] == [artifact], \
        f"expected the task to keep the streamed artifact {shown(artifact)}, got {shown(task)}"


# --- refusals ---


@then("the refusal comes as a plain answer (0.3 over JSON-RPC: a stream of that one error)")
def _(world: World) -> None:
    stream = world.stream
    assert stream is not None and stream.error is not None and not stream.events, \
        f"expected a refusal, got {described(stream)}"
    if (world.protocol.binding, world.protocol.version) == ("jsonrpc", "0.3"):
        # the 0.3 clients read a stream's answer only as events: one JSON-RPC error event, then the end
        assert stream.content_type.startswith("text/event-stream"), \
            f"expected text/event-stream, got the content type {stream.content_type or '(none)'}"
        assert len(stream.raw_events) == 1 and "error" in stream.raw_events[0], \
            f"expected a stream of one JSON-RPC error, got {shown(stream.raw_events)}"
    else:
        # DIGEST §10: an error found before the stream starts is an ordinary response
        assert not stream.content_type.startswith("text/event-stream"), \
            f"expected a plain answer, got the content type {stream.content_type}"


# --- 0.3: `final` ---


@then("only the last status update is marked final")
def _(world: World) -> None:
    # the raw events: JSON-RPC envelopes around a result (0.3: `kind` "status-update"), or bare REST StreamResponses
    stream = world.stream
    assert stream is not None, f"expected a stream, got {described(world.reply)}"
    results = [raw.get("result", raw) for raw in stream.raw_events]
    updates = [r.get("statusUpdate", r) for r in results if "statusUpdate" in r or r.get("kind") == "status-update"]
    finals = [update.get("final") for update in updates]
    if world.protocol.version == "0.3":
        # A2A 0.3 §7.2.2: the last status update of a stream says final: true, the earlier ones false
        assert finals == [False] * (len(finals) - 1) + [True], \
            f"expected final: true on the last status update only, got the finals {shown(finals)}"
    else:
        # A2A 1.0 dropped `final`: the stream closing after the last update is the end
        assert finals == [None] * len(finals), f"expected no final in A2A 1.0, got the finals {shown(finals)}"
    assert len(finals) >= 2, f"expected two status updates or more, got {len(finals)}"


def rebuilt_artifacts(stream: list[dict[str, Any]]) -> dict[str, str]:
    """What a client rebuilds from a stream: the first Task's artifacts, then every update applied in order."""
    texts: dict[str, str] = {}
    for event in stream:
        if "task" in event:
            for artifact in event["task"].get("artifacts", []):
                texts[artifact["artifactId"]] = "".join(p.get("text", "") for p in artifact["parts"])
        elif "artifactUpdate" in event:
            update = event["artifactUpdate"]
            text = "".join(p.get("text", "") for p in update["artifact"]["parts"])
            key = update["artifact"]["artifactId"]
            texts[key] = texts.get(key, "") + text if update.get("append") else text
    return texts


@then(parsers.parse('the subscriber rebuilds the whole answer "{text}"'))
def _(world: World, text: str) -> None:
    rebuilt = rebuilt_artifacts(events(world))
    assert rebuilt.get("response") == text, \
        f'expected the response artifact rebuilt to be "{text}", got the artifacts {shown(rebuilt)}'
