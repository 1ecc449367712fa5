"""Steps about streams: SendStreamingMessage and SubscribeToTask, and the events they carry (A2A §3.1.2, §3.5)."""

from __future__ import annotations

import base64
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from pytest_bdd import parsers, then, when
from support.client import A2AClient, StreamReply

from steps.common import TIMESTAMP, UUID, workspace_of
from steps.tasks import STATE, STATES, as_caller, quoted, remember, task_id, text_message


def open_stream(world: Any, operation: str, params: dict[str, Any]) -> StreamReply:
    """Run a stream to its end; the task of its first event becomes "the task"."""
    world.reply = None
    world.stream = world.client().stream(operation, params)
    first = world.stream.events[0] if world.stream.events else {}
    if "task" in first:
        remember(world, first["task"])
    return world.stream  # type: ignore[no-any-return]


def events(world: Any) -> list[dict[str, Any]]:
    stream = world.stream
    assert stream is not None and stream.error is None, f"expected a stream, got {stream and stream.error}"
    assert stream.events, "the stream carried no event"
    return stream.events  # type: ignore[no-any-return]


def kind(event: dict[str, Any]) -> str:
    (name,) = event.keys()  # a StreamResponse holds exactly one of task, message, statusUpdate, artifactUpdate
    return name


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
    assert messages[-1] == [], f"the last message has no lastChunk: {messages[-1]}"
    return messages[:-1]


def chunk_text(update: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in update["artifact"]["parts"])


def summary(stream: list[dict[str, Any]], task: str, context: str) -> list[str]:
    """Each event in one line: kind, state or artifact chunk; ids and timestamps are checked, then left out."""
    lines = []
    for event in stream:
        name = kind(event)
        body = event[name]
        assert body.get("taskId", body.get("id")) == task, body
        assert body["contextId"] == context, body
        if name in ("task", "statusUpdate"):
            status = body["status"]
            assert TIMESTAMP.match(status["timestamp"]), status
            said = f' "{message_text(status["message"])}"' if "message" in status else ""
            lines.append(f"{name}: {status['state'].removeprefix('TASK_STATE_').lower()}{said}")
            continue
        artifact = body["artifact"]
        artifact_id = artifact["artifactId"]
        if artifact_id != "response":
            assert UUID.match(artifact_id), artifact_id
            artifact_id = "<uuid>"
        flags = "".join(f" {flag}" for flag in ("append", "lastChunk") if body.get(flag))
        parts = ", ".join(json.dumps(part["text"]) if "text" in part else f"file {part.get('filename')}"
                          for part in artifact["parts"])
        lines.append(f"{name} {artifact_id}{flags}: {parts}")
    return lines


# --- opening streams ---


@when(parsers.re(r'the caller streams "(?P<text>[^"]*)"$'))
def _(world: Any, text: str) -> None:
    open_stream(world, "SendStreamingMessage", {"message": text_message(text)})


@when(parsers.re(r'the caller streams the answer "(?P<text>[^"]*)"$'))
def _(world: Any, text: str) -> None:
    message = text_message(text, context_id=world.context_id, task_id=task_id(world))
    open_stream(world, "SendStreamingMessage", {"message": message})


@when("the caller subscribes to the task")
def _(world: Any) -> None:
    open_stream(world, "SubscribeToTask", {"id": task_id(world)})


@when(parsers.parse('the caller subscribes to the task "{task}"'))
def _(world: Any, task: str) -> None:
    open_stream(world, "SubscribeToTask", {"id": task})


@when(parsers.parse('"{name}" subscribes to the task'))
def _(world: Any, name: str) -> None:
    with as_caller(world, name):
        open_stream(world, "SubscribeToTask", {"id": task_id(world)})


@when("two subscribers follow the task at once")
def _(world: Any) -> None:
    def follow(_: int) -> StreamReply:
        # each subscriber has its own connection, as two separate clients would
        with httpx.Client(base_url=world.server.url, timeout=30) as http:
            client = A2AClient(http, binding=world.client().binding, version=world.protocol.version, key=world.key)
            return client.stream("SubscribeToTask", {"id": task_id(world)})

    with ThreadPoolExecutor(max_workers=2) as pool:
        world.notes["subscribers"] = list(pool.map(follow, range(2)))


# --- the order of events ---


@then(parsers.re(rf"the stream starts with the task {STATE}$"))
def _(world: Any, state: str) -> None:
    first = events(world)[0]
    assert kind(first) == "task", f"the first event is {first}"  # A2A §3.1.2, §3.1.6
    assert first["task"]["status"]["state"] == STATES[state], first["task"]["status"]


@then(parsers.re(rf"the stream ends with the task {STATE}$"))
def _(world: Any, state: str) -> None:
    # design README: streams close after a terminal or interrupted state; nothing follows that update
    last = events(world)[-1]
    assert kind(last) == "statusUpdate", f"the last event is {last}"
    assert last["statusUpdate"]["status"]["state"] == STATES[state], last["statusUpdate"]["status"]
    earlier = [u["status"]["state"] for u in status_updates(events(world))[:-1]]
    ending = [STATES[s] for s in ("completed", "failed", "canceled", "rejected", "input-required", "auth-required")]
    assert not set(earlier) & set(ending), f"the stream went on after {earlier}"


@then(parsers.parse('the last status update says "{text}"'))
def _(world: Any, text: str) -> None:
    status = status_updates(events(world))[-1]["status"]
    assert message_text(status["message"]) == text, status


@then("the stream's events match the snapshot")
def _(world: Any, snapshot_json: Any) -> None:
    assert summary(events(world), task_id(world), world.context_id) == snapshot_json


@then("the stream continues the same task")
def _(world: Any) -> None:
    assert task_id(world) == task_id(world, "the previous task"), "the answer started another task"
    assert all(e[kind(e)].get("taskId", e[kind(e)].get("id")) == task_id(world) for e in events(world))


# --- text deltas and tool calls ---


@then(parsers.re(r"the response artifact streams (?P<count>\d+) messages?$"))
def _(world: Any, count: str) -> None:
    assert len(response_messages(events(world))) == int(count), response_messages(events(world))


@then("each streamed message starts afresh, appends the rest and ends with a last chunk")
def _(world: Any) -> None:
    # design "Run and map": a text delta is an artifact append; message_end is lastChunk for that message
    for message in response_messages(events(world)):
        assert len(message) >= 2, f"a message in fewer than two updates: {message}"
        assert not message[0].get("append"), f"the first chunk of a message appends: {message[0]}"
        assert all(update.get("append") is True for update in message[1:]), message
        assert [bool(update.get("lastChunk")) for update in message] == [False] * (len(message) - 1) + [True]


@then(parsers.parse('the streamed message says "{text}" in {count:d} or more chunks'))
def _(world: Any, text: str, count: int) -> None:
    (message,) = response_messages(events(world))
    chunks = [chunk_text(update) for update in message if chunk_text(update)]
    assert "".join(chunks) == text, chunks
    assert len(chunks) >= count, chunks


@then(parsers.parse('the streamed response ends with "{text}"'))
def _(world: Any, text: str) -> None:
    said = "".join(chunk_text(update) for message in response_messages(events(world)) for update in message)
    assert said.endswith(text), said


@then(parsers.parse("the working status updates say {texts}"))
def _(world: Any, texts: str) -> None:
    working = [u["status"] for u in status_updates(events(world)) if u["status"]["state"] == STATES["working"]]
    said = [message_text(status["message"]) for status in working if "message" in status]
    assert said == quoted(texts), said  # design: "using <tool>", never the arguments


# --- file artifacts ---


def file_artifacts(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["artifactUpdate"]["artifact"] for e in stream
            if kind(e) == "artifactUpdate" and e["artifactUpdate"]["artifact"]["artifactId"] != "response"]


@then(parsers.parse('the stream carries a new artifact with the file "{name}" of type "{media_type}"'))
def _(world: Any, name: str, media_type: str) -> None:
    (artifact,) = file_artifacts(events(world))
    assert UUID.match(artifact["artifactId"]), artifact["artifactId"]  # design: artifactId = UUID
    (part,) = [part for part in artifact["parts"] if "raw" in part]
    assert (part["filename"], part["mediaType"]) == (name, media_type), part
    world.notes["file artifact"] = artifact


@then(parsers.parse('the artifact\'s bytes are those of the workspace file "{name}"'))
def _(world: Any, name: str) -> None:
    (part,) = [part for part in world.notes["file artifact"]["parts"] if "raw" in part]
    sent = base64.b64decode(part["raw"], validate=True)
    assert sent == (workspace_of(world).path / name).read_bytes(), sent


@then("the task keeps the streamed file artifact")
def _(world: Any) -> None:
    artifact = world.notes["file artifact"]
    task = world.reply.body
    assert [a for a in task["artifacts"] if a["artifactId"] == artifact["artifactId"]] == [artifact], task


# --- refusals ---


@then("the refusal comes as a plain answer, not a stream")
def _(world: Any) -> None:
    stream = world.stream
    assert stream.error is not None and not stream.events, stream
    # DIGEST §10: an error found before the stream starts is an ordinary response
    assert not stream.content_type.startswith("text/event-stream"), stream.content_type


# --- several subscribers ---


@then(parsers.re(rf"both streams start with the task {STATE} and end with the task (?P<end>[a-z-]+)$"))
def _(world: Any, state: str, end: str) -> None:
    for stream in world.notes["subscribers"]:
        assert stream.error is None and stream.events, stream
        assert stream.events[0]["task"]["status"]["state"] == STATES[state], stream.events[0]
        assert stream.events[-1]["statusUpdate"]["status"]["state"] == STATES[end], stream.events[-1]


@then("both streams carry the same events in the same order")
def _(world: Any) -> None:
    # A2A §3.5.2: every stream of a task gets the same events in the same order, from the moment it attached
    first, second = (stream.events[1:] for stream in world.notes["subscribers"])
    shorter, longer = sorted((first, second), key=len)
    assert shorter, "a subscriber got nothing after the task"
    assert longer[len(longer) - len(shorter):] == shorter, (first, second)
    assert any(kind(event) == "artifactUpdate" for event in shorter), shorter


# --- 0.3: `final` ---


@then("only the last status update is marked final")
def _(world: Any) -> None:
    # the raw events: JSON-RPC envelopes around a result (0.3: `kind` "status-update"), or bare REST StreamResponses
    results = [raw.get("result", raw) for raw in world.stream.raw_events]
    updates = [r.get("statusUpdate", r) for r in results if "statusUpdate" in r or r.get("kind") == "status-update"]
    finals = [update.get("final") for update in updates]
    if world.protocol.version == "0.3":
        # A2A 0.3 §7.2.2: the last status update of a stream says final: true, the earlier ones false
        assert finals == [False] * (len(finals) - 1) + [True], finals
    else:
        # A2A 1.0 dropped `final`: the stream closing after the last update is the end
        assert finals == [None] * len(finals), finals
    assert len(finals) >= 2, finals


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
def _(world: Any, text: str) -> None:
    assert rebuilt_artifacts(events(world)).get("response") == text, rebuilt_artifacts(events(world))
