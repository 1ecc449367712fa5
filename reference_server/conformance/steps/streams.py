"""Steps about what any server's streams must be (A2A §3.1.2, §3.1.6, §3.5.2, §9.4.2, §11.7): the Task or the one
Message first, updates in the order they happened, the end at the task's end, the same events for every subscriber.
A stream ends with a statusUpdate of the final state, or with a last Task snapshot of it (§11.7 allows one)."""

from __future__ import annotations

from typing import Any

from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import reply_of
from reference_server.conformance.steps.prefixes import TERMINAL, prefixed
from reference_server.conformance.steps.streaming import events, kind, open_stream
from reference_server.conformance.steps.subscribers import follow, subscribers
from reference_server.conformance.steps.tasks import STATE, STATES, remember, state_name
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import described, event_kinds
from reference_server.conformance.world import World

# the lifecycle's order: a stream's states may stay or move on, never go back (§3.5.2); the terminal ones are last
ORDER = {STATES["submitted"]: 0, STATES["working"]: 1, STATES["input-required"]: 2, STATES["auth-required"]: 2,
         **{state: 3 for state in TERMINAL}}

KINDS = ("task", "message", "statusUpdate", "artifactUpdate")  # a StreamResponse holds exactly one (A2A §3.2.3)


def one_kind(event: Any) -> bool:
    return isinstance(event, dict) and sum(kind in event for kind in KINDS) == 1


def state_of(event: dict[str, Any]) -> str | None:
    body = event[kind(event)]
    if kind(event) not in ("task", "statusUpdate") or not isinstance(body, dict):
        return None
    status = body.get("status", {})
    return status.get("state") if isinstance(status, dict) else None


def assert_ends_with(stream: list[dict[str, Any]], state: str) -> None:
    """The last event says the task reached `state`, and no event before it said the task had ended."""
    assert stream, f"expected a stream that ends when the task is {state}, it carried no event"
    last = stream[-1]
    assert kind(last) in ("statusUpdate", "task"), \
        f"expected the stream to end with a statusUpdate or a task, got the last event {shown(last)}"
    assert state_of(last) == STATES[state], \
        f"expected the stream to end when the task is {state} ({STATES[state]}), it ended with {shown(last)}"
    earlier = [state_of(e) for e in stream[:-1] if kind(e) == "statusUpdate"]
    ended = [state_name(s) for s in earlier if isinstance(s, str) and s in TERMINAL]
    assert not ended, (f"expected the stream to end when the task ended, it went on after the task was "
                       f"{', '.join(ended)} ({event_kinds(stream)})")


# --- SendStreamingMessage ---


@when(parsers.re(r'the caller streams an? "(?P<prefix>[^"]+)" message$'))
def _(world: World, prefix: str) -> None:
    open_stream(world, "SendStreamingMessage", {"message": prefixed(world, prefix)})


@then("the stream carries at least one event")
def _(world: World) -> None:
    assert events(world), "expected at least one event, the stream carried none"


@then("the stream is that one message")
def _(world: World) -> None:
    # A2A §3.1.2: exactly one Message, then the stream closes
    seen = events(world)
    assert len(seen) == 1, f"expected a stream of one event, the message, got {world.stream}"
    assert kind(seen[0]) == "message", f"expected the message, got {shown(seen[0])}"


@then("the stream starts with the task")
def _(world: World) -> None:
    first = events(world)[0]
    assert kind(first) == "task", f"expected the stream to start with the task, got {world.stream}"


@then(parsers.re(rf"the stream ends when the task is {STATE}$"))
def _(world: World, state: str) -> None:
    assert_ends_with(events(world), state)


@then("no state in the stream goes back to an earlier one")
def _(world: World) -> None:
    states = [state_of(e) for e in events(world) if state_of(e) is not None]
    ranks = [ORDER.get(s, -1) if isinstance(s, str) else -1 for s in states if s is not None]
    assert ranks == sorted(ranks), f"expected the states never to go back to an earlier one, got {shown(states)}"


@then("the stream is text/event-stream")
def _(world: World) -> None:
    stream = world.stream
    assert stream is not None, f"expected a stream, got {described(reply_of(world))}"
    assert stream.content_type.startswith("text/event-stream"), \
        f"expected the content type text/event-stream, got {stream.content_type or 'none'} ({stream})"


@then("each event is a JSON-RPC response with the request's id and a StreamResponse")
def _(world: World) -> None:
    stream = world.stream
    assert stream is not None, f"expected a stream, got {described(reply_of(world))}"
    raw = stream.raw_events
    assert raw, f"expected at least one event, got {stream}"
    ids = {repr(e.get("id")) for e in raw}  # the id the client checked
    assert len(ids) == 1 and all(e.get("jsonrpc") == "2.0" for e in raw), \
        f"expected every event to be a JSON-RPC 2.0 response with the request's id, got {shown(raw)}"
    for event in raw:
        assert "result" in event, f"expected every event to carry a result, got {shown(event)}"
        world.check(event["result"], "urn:a2a:v1#/$defs/StreamResponse", "a stream's event")
        assert one_kind(event["result"]), f"expected a StreamResponse (exactly one of {', '.join(KINDS)}), got " \
            f"{shown(event['result'])}"


@then("each event is a StreamResponse")
def _(world: World) -> None:
    stream = world.stream
    assert stream is not None, f"expected a stream, got {described(reply_of(world))}"
    raw = stream.raw_events
    assert raw, f"expected at least one event, got {stream}"
    for event in raw:
        world.check(event, "urn:a2a:v1#/$defs/StreamResponse", "a stream's event")
        assert one_kind(event), f"expected a StreamResponse (exactly one of {', '.join(KINDS)}), got {shown(event)}"


# --- SubscribeToTask ---


@given("a subscriber follows the task")
def _(world: World) -> None:
    follow(world, 1, setup=True)


@when("a subscriber follows the task")
def _(world: World) -> None:
    follow(world, 1)


@given("two subscribers follow the task")
def _(world: World) -> None:
    follow(world, 2, setup=True)


@when("the first subscriber leaves")
def _(world: World) -> None:
    subscribers(world)[0].leave()


@then(parsers.re(rf"the subscriber's first event is the task, {STATE}$"))
def _(world: World, state: str) -> None:
    first = subscribers(world)[0].seen[0]
    # A2A §3.1.6
    assert kind(first) == "task", f"expected the subscriber's first event to be the task, got {shown(first)}"
    assert state_of(first) == STATES[state], \
        f"expected the subscriber's first event to be the task {state} ({STATES[state]}), got {shown(first)}"


@then(parsers.re(rf"(?P<who>the subscriber's|each subscriber's|the second subscriber's) stream ends when the task is "
                 rf"{STATE}$"))
def _(world: World, who: str, state: str) -> None:
    chosen = {"the subscriber's": subscribers(world)[:1], "each subscriber's": subscribers(world),
              "the second subscriber's": subscribers(world)[1:2]}[who]
    for subscriber in chosen:
        assert_ends_with(subscriber.result().events, state)


@then("the subscribers got the same events in the same order")
def _(world: World) -> None:
    # A2A §3.5.2: both subscribed before the task went on, so after their first event (the Task as it was) both
    # streams carry the same events in the same order
    streams = [subscriber.result() for subscriber in subscribers(world)]
    first, second = (stream.events for stream in streams)
    assert first and second and kind(first[0]) == kind(second[0]) == "task", \
        f"expected both streams to start with the task, got {streams[0]} and {streams[1]}"
    assert first[1:] == second[1:], (f"expected the same events in the same order after the task, got "
                                     f"{shown(first[1:])} and {shown(second[1:])}")
    assert first[1:], "expected events after the task, the subscribers got none"


@when(parsers.re(r'the caller streams an? "(?P<prefix>[^"]+)" message and leaves after the first event$'))
def _(world: World, prefix: str) -> None:
    # the client goes away after the task's first event: the stream is closed, the task goes on (A2A §3.5.2)
    world.reply = None
    world.stream = world.client().stream("SendStreamingMessage", {"message": prefixed(world, prefix)}, limit=1)
    first = events(world)[0]
    assert kind(first) == "task", f"expected the stream to start with the task, got {shown(first)}"
    remember(world, first["task"])


@then("the artifact's later chunks are appended to it and its last is marked last")
def _(world: World) -> None:
    # a2a.proto TaskArtifactUpdateEvent: append, "the content of this artifact should be appended to a previously
    # sent artifact with the same ID"; last_chunk, "this is the final chunk of the artifact"
    chunks: dict[str, list[dict[str, Any]]] = {}
    for event in events(world):
        update = event.get("artifactUpdate")
        artifact = update.get("artifact") if isinstance(update, dict) else None
        if isinstance(update, dict) and isinstance(artifact, dict):
            chunks.setdefault(str(artifact.get("artifactId")), []).append(update)
    chunked = [updates for updates in chunks.values() if len(updates) > 1]
    assert chunked, f"expected an artifact sent in more than one chunk, got {world.stream}"
    for updates in chunked:
        later = [bool(u.get("append")) for u in updates[1:]]
        assert all(later), f"expected every chunk after the first to have append true, got {shown(updates)}"
        assert updates[-1].get("lastChunk") is True, f"expected the last chunk to have lastChunk true, got " \
            f"{shown(updates[-1])}"
        assert not any(u.get("lastChunk") for u in updates[:-1]), \
            f"expected only the last chunk to have lastChunk true, got {shown(updates)}"
