"""Steps about streams: SendStreamingMessage and SubscribeToTask, and the events they carry (A2A §3.1.2, §3.5)."""

from __future__ import annotations

import base64
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx
import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import TIMESTAMP, UUID, described, workspace_of, write_json
from reference_server.conformance.steps.tasks import STATE, STATES, as_caller, quoted, remember, task_id, text_message
from reference_server.conformance.support.client import A2AClient
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.reasons import failure_text
from reference_server.conformance.support.replies import StreamReply, Unreadable

FOLLOW_SECONDS = 20.0  # how long a step waits for a subscriber's next event or end before it fails


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
    assert stream is not None and stream.error is None, f"expected a stream, got {described(stream)}"
    # only a fault the scenario asked for, and checked (steps/faults.py), breaks or garbles a stream
    assert not stream.broken or world.notes.get("fault checked"), \
        f"expected a stream that ends when its task does, got {stream}"
    if stream.garbled and not world.notes.get("fault checked") and not world.ours:
        # another server's frames that are not JSON: reported once (JSONRPC-SSE-001, HTTP_JSON-SSE-001); the
        # scenario that needed its events could not be checked
        raise Unreadable(f"the stream's events could not be read: their data is not JSON ({stream})")
    assert not stream.garbled or world.notes.get("fault checked"), \
        f"expected every event of the stream to be JSON, got frames that are not: {shown(stream.garbled)}"
    assert stream.events, f"expected at least one event, got {stream}"
    return stream.events  # type: ignore[no-any-return]


EVENT_KINDS = "task, message, statusUpdate, artifactUpdate"


def kind(event: dict[str, Any]) -> str:
    """The kind of a stream's event: a StreamResponse holds exactly one of task, message, statusUpdate,
    artifactUpdate (A2A §3.2.3)."""
    assert isinstance(event, dict) and len(event) == 1, \
        f"expected an event holding exactly one of {EVENT_KINDS}, got {shown(event)}"
    return next(iter(event))


def event_kinds(seen: list[Any]) -> str:
    """Events as a message says them: how many, and the kind of each."""
    if not seen:
        return "no event"
    kinds = ", ".join(next(iter(event), "?") if isinstance(event, dict) else shown(event, 60) for event in seen)
    return f"{len(seen)} event{'s' * (len(seen) != 1)}: {kinds}"


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


def summary(stream: list[dict[str, Any]], task: str, context: str) -> list[str]:
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
def _(world: Any, text: str) -> None:
    open_stream(world, "SendStreamingMessage", {"message": text_message(text)})


@when(parsers.re(r'the caller streams "(?P<text>[^"]*)" in the same context$'))
def _(world: Any, text: str) -> None:
    open_stream(world, "SendStreamingMessage", {"message": text_message(text, context_id=world.context_id)})


@when(parsers.parse("the caller streams the message {message}"))
def _(world: Any, message: str) -> None:
    open_stream(world, "SendStreamingMessage", {"message": json.loads(message)})


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


@dataclass
class Subscriber:
    """A subscription read on its own thread and connection, as a separate client's would be."""

    seen: list[dict[str, Any]] = field(default_factory=list)  # its events so far, in 1.0 shape
    reply: StreamReply | None = None
    failure: BaseException | None = None
    ended: bool = False
    left: bool = False  # its client closed the connection on purpose
    changed: threading.Condition = field(default_factory=threading.Condition)
    http: httpx.Client | None = None

    def take(self, event: dict[str, Any]) -> None:
        with self.changed:
            self.seen.append(event)
            self.changed.notify_all()

    def wait_until(self, what: str, test: Callable[[list[dict[str, Any]]], bool]) -> None:
        with self.changed:
            came = self.changed.wait_for(lambda: test(self.seen) or self.ended, timeout=FOLLOW_SECONDS)
        assert came, f"expected a subscriber to see the {what} within {FOLLOW_SECONDS:.0f} s, it saw " \
            f"{event_kinds(self.seen)}"
        assert test(self.seen), f"expected a subscriber to see the {what}, but its subscription ended first: " \
            f"{self.ending()}"

    def ending(self) -> str:
        """How the subscription ended, as a message says it."""
        if self.failure is not None:
            return failure_text(self.failure)
        return f"{described(self.reply)} (it saw {event_kinds(self.seen)})"

    def result(self) -> StreamReply:
        with self.changed:
            ended = self.changed.wait_for(lambda: self.ended, timeout=FOLLOW_SECONDS)
        assert ended, f"expected the subscription to end within {FOLLOW_SECONDS:.0f} s, it is still open after " \
            f"{event_kinds(self.seen)}"
        if self.failure is not None:
            raise self.failure
        assert self.reply is not None, \
            f"expected the subscription's stream, got no answer (it saw {event_kinds(self.seen)})"
        return self.reply

    def leave(self) -> None:
        """Close the subscription's connection, as a client that goes away does."""
        self.left = True
        if self.http is not None:
            self.http.close()


def start_subscriber(world: Any) -> Subscriber:
    subscriber = Subscriber()
    binding, version, key, task = world.client().binding, world.protocol.version, world.key, task_id(world)
    strict, seen = world.ours, world.seen
    jsonrpc_path, rest_prefix = world.paths()
    http = subscriber.http = world.new_http()
    world.cleanups.append(subscriber.leave)  # a stream the scenario left open ends with it

    def read() -> None:
        try:
            with http:
                client = A2AClient(http, binding=binding, version=version, key=key, strict=strict,
                                   jsonrpc_path=jsonrpc_path, rest_prefix=rest_prefix, seen=seen)
                subscriber.reply = client.stream("SubscribeToTask", {"id": task}, on_event=subscriber.take)
        except BaseException as failure:  # handed to the step that reads the result
            if not subscriber.left:
                subscriber.failure = failure
        finally:
            with subscriber.changed:
                subscriber.ended = True
                subscriber.changed.notify_all()

    # a daemon thread: a stream that never ends (the failure a step reports) must not hold up the test run
    threading.Thread(target=read, daemon=True).start()
    return subscriber


def subscribers(world: Any) -> list[Subscriber]:
    return world.notes["subscribers"]  # type: ignore[no-any-return]


def subscriber_streams(world: Any) -> list[StreamReply]:
    """Every subscriber's stream, read to its end; the first one is also "the stream" of the later steps."""
    streams = [subscriber.result() for subscriber in subscribers(world)]
    world.reply, world.stream = None, streams[0]
    return streams


def follow(world: Any, count: int, *, setup: bool = False) -> list[Subscriber]:
    """`count` subscribers of the task, each having its first event (so each follows the task from here on).

    As what a scenario starts from (`setup`), on another server, a subscription without a first event cannot start
    it: that the first event is the task is STREAM-SUB-001's requirement, and its failure is that scenario's."""
    world.notes["subscribers"] = [start_subscriber(world) for _ in range(count)]
    for subscriber in subscribers(world):
        try:
            subscriber.wait_until("first event", bool)
        except AssertionError:
            if not setup or world.ours:
                raise
            pytest.skip(f"the scenario needs a subscriber that follows the task, and the subscription gave no first "
                        f"event (it saw {event_kinds(subscriber.seen)}); its first event is STREAM-SUB-001's")
    return subscribers(world)


@when("two subscribers follow the task at once")
def _(world: Any) -> None:
    follow(world, 2)


@when(parsers.re(rf"the subscribers see the task {STATE}$"))
def _(world: Any, state: str) -> None:
    def reached(seen: list[dict[str, Any]]) -> bool:
        return any(u["status"]["state"] == STATES[state] for u in status_updates(seen))

    for subscriber in subscribers(world):
        subscriber.wait_until(f"status update {state}", reached)


@given(parsers.parse("the server's session idle timeout is {seconds:d} second"))
def _(world: Any, server_factory: Any, seconds: int) -> None:
    world.use_server(server_factory(session_idle_timeout=timedelta(seconds=seconds)))


@given(parsers.parse('the workspace\'s script asks "{question}" after a pause'))
def _(world: Any, question: str) -> None:
    # a run that is still live when the subscribers come, and then needs input; anything else is echoed
    write_json(workspace_of(world).a2a_dir / "script.json", {"rules": [
        {"match": "(?i)^slow question$", "turns": [[{"say": "One moment."}, {"pause": 2},
                                                     {"tool": "request_input", "args": {"question": question}}]]},
        {"match": "", "turns": [[{"say": "{text}"}]]},
    ]})


@given(parsers.parse("the server drops a stream whose client takes nothing for {seconds:d} second"))
def _(world: Any, server_factory: Any, seconds: int) -> None:
    world.use_server(server_factory(stream_write_timeout=timedelta(seconds=seconds)))


@given(parsers.parse('the workspace\'s script answers "{command}" with {megabytes:d} MB of text after a pause'))
def _(world: Any, command: str, megabytes: int) -> None:
    # a run that is still live when the subscribers come, and then says more than any socket buffer holds
    answer = " ".join(f"word{n}" for n in range(megabytes * 1024 * 1024 // 8))
    world.notes["long answer"] = answer
    write_json(workspace_of(world).a2a_dir / "script.json", {"rules": [
        {"match": f"(?i)^{command}$", "turns": [[{"say": "One moment."}, {"pause": 2}, {"say": answer}]]},
        {"match": "", "turns": [[{"say": "{text}"}]]},
    ]})


class StoppedReader:
    """A subscription whose client reads its first event and then nothing more, on a socket whose kernel buffer
    is small, as for a client that hung: whatever the server sends beyond that waits on the server's side."""

    def __init__(self, world: Any) -> None:
        request = world.client().stream_request("SubscribeToTask", {"id": task_id(world)})
        host, port = request.url.host, request.url.port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(FOLLOW_SECONDS)
        self.sock.connect((host, port))
        head = f"{request.method} {request.url.raw_path.decode()} HTTP/1.1\r\n" + "".join(
            f"{name}: {value}\r\n" for name, value in request.headers.items())
        self.sock.sendall(head.encode() + b"\r\n" + request.read())
        received = b""
        while b"\r\n\r\n" not in received or b"\n\n" not in received.partition(b"\r\n\r\n")[2]:
            chunk = self.sock.recv(4096)
            assert chunk, "expected the subscription's first event, the connection closed after: " \
                f"{received[:300].decode(errors='replace') or '(nothing)'}"
            received += chunk
        assert received.startswith(b"HTTP/1.1 200"), \
            f"expected HTTP/1.1 200 and a stream, got: {received[:300].decode(errors='replace')}"

    def dropped(self) -> bool:
        """Whether the server has closed this connection (TCP_INFO's state is no longer ESTABLISHED)."""
        state = struct.unpack("B", self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1))[0]
        return bool(state != 1)

    def close(self) -> None:
        self.sock.close()


@when("a subscriber follows the task and stops reading after its first event")
def _(world: Any) -> None:
    reader = world.notes["stopped reader"] = StoppedReader(world)
    world.cleanups.append(reader.close)


@then(parsers.parse("the server drops the subscriber that stopped reading within {seconds:d} seconds"))
def _(world: Any, seconds: int) -> None:
    reader: StoppedReader = world.notes["stopped reader"]
    deadline = time.monotonic() + seconds
    while not reader.dropped() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert reader.dropped(), \
        f"expected the server to drop a client that reads nothing within {seconds} s, its connection is still open"


@then("each subscriber rebuilds the whole long answer")
def _(world: Any) -> None:
    answer = world.notes["long answer"]
    for stream in subscriber_streams(world):
        rebuilt = rebuilt_artifacts(stream.events)
        assert rebuilt.get("response", "").endswith(answer), \
            f"expected the response artifact rebuilt to end with the whole long answer ({len(answer)} characters), " \
            f"got {len(rebuilt.get('response', ''))} characters"


@then("the task's response artifact holds the whole long answer")
def _(world: Any) -> None:
    reply = world.client().call("GetTask", {"id": task_id(world)})
    assert reply.error is None, f"expected the task, got {reply}"
    found = [a for a in reply.body["artifacts"] if a["artifactId"] == "response"]
    assert len(found) == 1, f'expected one artifact "response", got {len(found)}'
    text = "".join(p.get("text", "") for p in found[0]["parts"])
    answer = world.notes["long answer"]
    assert text.endswith(answer), \
        f"expected the response artifact to end with the whole long answer ({len(answer)} characters), " \
        f"got {len(text)} characters"


# --- the order of events ---


@then(parsers.re(rf"the stream holds only the task {STATE}$"))
def _(world: Any, state: str) -> None:
    seen = events(world)
    assert len(seen) == 1 and kind(seen[0]) == "task", f"expected a stream of the task alone, got {world.stream}"
    assert seen[0]["task"]["status"]["state"] == STATES[state], f"expected the task {state}, got {shown(seen[0])}"


@then(parsers.re(rf"the stream starts with the task {STATE}$"))
def _(world: Any, state: str) -> None:
    first = events(world)[0]
    # A2A §3.1.2, §3.1.6
    assert kind(first) == "task", f"expected the stream to start with the task, got {world.stream}"
    assert first["task"]["status"]["state"] == STATES[state], \
        f"expected the stream to start with the task {state}, got the status {shown(first['task']['status'])}"


@then(parsers.re(rf"the stream ends with the task {STATE}$"))
def _(world: Any, state: str) -> None:
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
def _(world: Any, text: str) -> None:
    status = status_updates(events(world))[-1]["status"]
    assert message_text(status["message"]) == text, \
        f'expected the last status update to say "{text}", got the status {shown(status)}'


@then("the stream's events match the snapshot")
def _(world: Any, snapshot_json: Any) -> None:
    got = summary(events(world), task_id(world), world.context_id)
    assert got == snapshot_json, "expected the stream's events as in their snapshot (spec/snapshots/), got:\n" + \
        "\n".join(got)


@then("the subscribers' events match the snapshot")
def _(world: Any, snapshot_json: Any) -> None:
    first, *others = (summary(s.events, task_id(world), world.context_id) for s in subscriber_streams(world))
    assert all(other == first for other in others), "expected every subscriber to get the same events, got:\n" + \
        "\n--\n".join("\n".join(lines) for lines in [first, *others])
    assert first == snapshot_json, "expected the subscribers' events as in their snapshot (spec/snapshots/), got:\n" + \
        "\n".join(first)


@then("the stream continues the same task")
def _(world: Any) -> None:
    assert task_id(world) == task_id(world, "the previous task"), (
        f'expected the answer to continue the task "{task_id(world, "the previous task")}", got another task '
        f'"{task_id(world)}"')
    others = [e for e in events(world) if e[kind(e)].get("taskId", e[kind(e)].get("id")) != task_id(world)]
    assert not others, f'expected every event to be of the task "{task_id(world)}", got {shown(others)}'


# --- text deltas and tool calls ---


@then(parsers.re(r"the response artifact streams (?P<count>\d+) messages?$"))
def _(world: Any, count: str) -> None:
    messages = response_messages(events(world))
    assert len(messages) == int(count), \
        f"expected the response artifact to stream {count} messages, got {len(messages)}: {shown(messages)}"


@then("each streamed message starts afresh, appends the rest and ends with a last chunk")
def _(world: Any) -> None:
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
def _(world: Any, text: str, count: int) -> None:
    messages = response_messages(events(world))
    assert len(messages) == 1, f"expected one streamed message, got {len(messages)}: {shown(messages)}"
    chunks = [chunk_text(update) for update in messages[0] if chunk_text(update)]
    assert "".join(chunks) == text, f'expected the streamed message to say "{text}", got the chunks {shown(chunks)}'
    assert len(chunks) >= count, f"expected {count} chunks or more, got {len(chunks)}: {shown(chunks)}"


@then(parsers.parse('the streamed response ends with "{text}"'))
def _(world: Any, text: str) -> None:
    said = "".join(chunk_text(update) for message in response_messages(events(world)) for update in message)
    assert said.endswith(text), f'expected the streamed response to end with "{text}", got {shown(said)}'


@then(parsers.parse("the working status updates say {texts}"))
def _(world: Any, texts: str) -> None:
    working = [u["status"] for u in status_updates(events(world)) if u["status"]["state"] == STATES["working"]]
    said = [message_text(status["message"]) for status in working if "message" in status]
    # design: "using <tool>", never the arguments
    assert said == quoted(texts), f"expected the working status updates to say {texts}, got {shown(said)}"


# --- file artifacts ---


def file_artifacts(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["artifactUpdate"]["artifact"] for e in stream
            if kind(e) == "artifactUpdate" and e["artifactUpdate"]["artifact"]["artifactId"] != "response"]


@then(parsers.parse('the stream carries a new artifact with the file "{name}" of type "{media_type}"'))
def _(world: Any, name: str, media_type: str) -> None:
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
    world.notes["file artifact"] = artifact


@then(parsers.parse('the artifact\'s bytes are those of the workspace file "{name}"'))
def _(world: Any, name: str) -> None:
    parts = [part for part in world.notes["file artifact"]["parts"] if "raw" in part]
    assert len(parts) == 1, f"expected one part with raw bytes, got {shown(world.notes['file artifact'])}"
    sent = base64.b64decode(parts[0]["raw"], validate=True)
    kept = (workspace_of(world).path / name).read_bytes()
    assert sent == kept, f'expected the {len(kept)} bytes of "{name}", got {len(sent)} other bytes'


@then("the task keeps the streamed file artifact")
def _(world: Any) -> None:
    artifact = world.notes["file artifact"]
    task = world.reply.body
    assert [a for a in task["artifacts"] if a["artifactId"] == artifact["artifactId"]] == [artifact], \
        f"expected the task to keep the streamed artifact {shown(artifact)}, got {shown(task)}"


# --- refusals ---


@then("the refusal comes as a plain answer (0.3 over JSON-RPC: a stream of that one error)")
def _(world: Any) -> None:
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


# --- several subscribers ---


@then(parsers.re(rf"both streams start with the task {STATE} and end with the task (?P<end>[a-z-]+)$"))
def _(world: Any, state: str, end: str) -> None:
    for stream in subscriber_streams(world):
        assert stream.error is None and stream.events, f"expected a stream of events, got {stream}"
        assert stream.events[0]["task"]["status"]["state"] == STATES[state], \
            f"expected the stream to start with the task {state}, got {shown(stream.events[0])}"
        assert stream.events[-1]["statusUpdate"]["status"]["state"] == STATES[end], \
            f"expected the stream to end with the task {end}, got {shown(stream.events[-1])}"


@then("both streams carry the same events in the same order")
def _(world: Any) -> None:
    # A2A §3.5.2: every stream of a task gets the same events in the same order, from the moment it attached
    first, second = (stream.events[1:] for stream in subscriber_streams(world))
    shorter, longer = sorted((first, second), key=len)
    assert shorter, "expected events after the task, a subscriber got none"
    assert longer[len(longer) - len(shorter):] == shorter, \
        f"expected both streams to carry the same events in the same order, got {shown(first)} and {shown(second)}"
    assert any(kind(event) == "artifactUpdate" for event in shorter), \
        f"expected an artifact update among the events, got {event_kinds(shorter)}"


# --- 0.3: `final` ---


@then("only the last status update is marked final")
def _(world: Any) -> None:
    # the raw events: JSON-RPC envelopes around a result (0.3: `kind` "status-update"), or bare REST StreamResponses
    results = [raw.get("result", raw) for raw in world.stream.raw_events]
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
def _(world: Any, text: str) -> None:
    rebuilt = rebuilt_artifacts(events(world))
    assert rebuilt.get("response") == text, \
        f'expected the response artifact rebuilt to be "{text}", got the artifacts {shown(rebuilt)}'
