"""Steps about the subscribers of a live task: several at once, one that leaves, one that stops reading, and the
long answers they rebuild (A2A §3.1.6, §3.5.2)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import workspace_of, write_json
from reference_server.conformance.steps.streaming import kind, rebuilt_artifacts, status_updates, summary
from reference_server.conformance.steps.tasks import STATE, STATES, task_id
from reference_server.conformance.support.client import A2AClient
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import StreamReply, event_kinds
from reference_server.conformance.support.subscriptions import StoppedReader, Subscriber
from reference_server.conformance.world import ServerFactory, World, earlier


def start_subscriber(world: World) -> Subscriber:
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


def subscribers(world: World) -> list[Subscriber]:
    return world.streams.subscribers


def subscriber_streams(world: World) -> list[StreamReply]:
    """Every subscriber's stream, read to its end; the first one is also "the stream" of the later steps."""
    streams = [subscriber.result() for subscriber in subscribers(world)]
    world.reply, world.stream = None, streams[0]
    return streams


def follow(world: World, count: int, *, setup: bool = False) -> list[Subscriber]:
    """`count` subscribers of the task, each having its first event (so each follows the task from here on).

    As what a scenario starts from (`setup`), on another server, a subscription without a first event cannot start
    it: that the first event is the task is STREAM-SUB-001's requirement, and its failure is that scenario's."""
    world.streams.subscribers = [start_subscriber(world) for _ in range(count)]
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
def _(world: World) -> None:
    follow(world, 2)


@when(parsers.re(rf"the subscribers see the task {STATE}$"))
def _(world: World, state: str) -> None:
    def reached(seen: list[dict[str, Any]]) -> bool:
        return any(u["status"]["state"] == STATES[state] for u in status_updates(seen))

    for subscriber in subscribers(world):
        subscriber.wait_until(f"status update {state}", reached)


@given(parsers.parse("the server's session idle timeout is {seconds:d} second"))
def _(world: World, server_factory: ServerFactory, seconds: int) -> None:
    world.use_server(server_factory(session_idle_timeout=timedelta(seconds=seconds)))


@given(parsers.parse('the workspace\'s script asks "{question}" after a pause'))
def _(world: World, question: str) -> None:
    # a run that is still live when the subscribers come, and then needs input; anything else is echoed
    write_json(workspace_of(world).a2a_dir / "script.json", {"rules": [
        {"match": "(?i)^slow question$", "turns": [[{"say": "One moment."}, {"pause": 2},
                                                     {"tool": "request_input", "args": {"question": question}}]]},
        {"match": "", "turns": [[{"say": "{text}"}]]},
    ]})


@given(parsers.parse("the server drops a stream whose client takes nothing for {seconds:d} second"))
def _(world: World, server_factory: ServerFactory, seconds: int) -> None:
    world.use_server(server_factory(stream_write_timeout=timedelta(seconds=seconds)))


@given(parsers.parse('the workspace\'s script answers "{command}" with {megabytes:d} MB of text after a pause'))
def _(world: World, command: str, megabytes: int) -> None:
    # a run that is still live when the subscribers come, and then says more than any socket buffer holds
    answer = " ".join(f"word{n}" for n in range(megabytes * 1024 * 1024 // 8))
    world.streams.long_answer = answer
    write_json(workspace_of(world).a2a_dir / "script.json", {"rules": [
        {"match": f"(?i)^{command}$", "turns": [[{"say": "One moment."}, {"pause": 2}, {"say": answer}]]},
        {"match": "", "turns": [[{"say": "{text}"}]]},
    ]})


@when("a subscriber follows the task and stops reading after its first event")
def _(world: World) -> None:
    reader = world.streams.stopped_reader = StoppedReader(
        world.client().stream_request("SubscribeToTask", {"id": task_id(world)}))
    world.cleanups.append(reader.close)


@then(parsers.parse("the server drops the subscriber that stopped reading within {seconds:d} seconds"))
def _(world: World, seconds: int) -> None:
    reader = earlier(world.streams.stopped_reader, "a subscriber that stopped reading")
    deadline = time.monotonic() + seconds
    while not reader.dropped() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert reader.dropped(), \
        f"expected the server to drop a client that reads nothing within {seconds} s, its connection is still open"


@then("each subscriber rebuilds the whole long answer")
def _(world: World) -> None:
    answer = earlier(world.streams.long_answer, "a long answer")
    for stream in subscriber_streams(world):
        rebuilt = rebuilt_artifacts(stream.events)
        assert rebuilt.get("response", "").endswith(answer), \
            f"expected the response artifact rebuilt to end with the whole long answer ({len(answer)} characters), " \
            f"got {len(rebuilt.get('response', ''))} characters"


@then("the task's response artifact holds the whole long answer")
def _(world: World) -> None:
    reply = world.client().call("GetTask", {"id": task_id(world)})
    assert reply.error is None, f"expected the task, got {reply}"
    found = [a for a in reply.body["artifacts"] if a["artifactId"] == "response"]
    assert len(found) == 1, f'expected one artifact "response", got {len(found)}'
    text = "".join(p.get("text", "") for p in found[0]["parts"])
    answer = earlier(world.streams.long_answer, "a long answer")
    assert text.endswith(answer), \
        f"expected the response artifact to end with the whole long answer ({len(answer)} characters), " \
        f"got {len(text)} characters"



@then("the subscribers' events match the snapshot")
def _(world: World, snapshot_json: Any) -> None:
    first, *others = (summary(s.events, task_id(world), world.context_id) for s in subscriber_streams(world))
    assert all(other == first for other in others), "expected every subscriber to get the same events, got:\n" + \
        "\n--\n".join("\n".join(lines) for lines in [first, *others])
    assert first == snapshot_json, "expected the subscribers' events as in their snapshot (spec/snapshots/), got:\n" + \
        "\n".join(first)



# --- several subscribers ---


@then(parsers.re(rf"both streams start with the task {STATE} and end with the task (?P<end>[a-z-]+)$"))
def _(world: World, state: str, end: str) -> None:
    for stream in subscriber_streams(world):
        assert stream.error is None and stream.events, f"expected a stream of events, got {stream}"
        assert stream.events[0]["task"]["status"]["state"] == STATES[state], \
            f"expected the stream to start with the task {state}, got {shown(stream.events[0])}"
        assert stream.events[-1]["statusUpdate"]["status"]["state"] == STATES[end], \
            f"expected the stream to end with the task {end}, got {shown(stream.events[-1])}"


@then("both streams carry the same events in the same order")
def _(world: World) -> None:
    # A2A §3.5.2: every stream of a task gets the same events in the same order, from the moment it attached
    first, second = (stream.events[1:] for stream in subscriber_streams(world))
    shorter, longer = sorted((first, second), key=len)
    assert shorter, "expected events after the task, a subscriber got none"
    assert longer[len(longer) - len(shorter):] == shorter, \
        f"expected both streams to carry the same events in the same order, got {shown(first)} and {shown(second)}"
    assert any(kind(event) == "artifactUpdate" for event in shorter), \
        f"expected an artifact update among the events, got {event_kinds(shorter)}"

