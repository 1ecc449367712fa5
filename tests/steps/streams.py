"""Steps about what any server's streams must be (A2A §3.1.2, §3.1.6, §3.5.2, §9.4.2, §11.7): the Task or the one
Message first, updates in the order they happened, the end at the task's end, the same events for every subscriber.
A stream ends with a statusUpdate of the final state, or with a last Task snapshot of it (§11.7 allows one)."""

from __future__ import annotations

from typing import Any

from pytest_bdd import given, parsers, then, when
from support.schemas import assert_valid

from steps.prefixes import TERMINAL, prefixed
from steps.streaming import events, follow, kind, open_stream, subscribers
from steps.tasks import STATE, STATES

# the lifecycle's order: a stream's states may stay or move on, never go back (§3.5.2); the terminal ones are last
ORDER = {STATES["submitted"]: 0, STATES["working"]: 1, STATES["input-required"]: 2, STATES["auth-required"]: 2,
         **{state: 3 for state in TERMINAL}}


def state_of(event: dict[str, Any]) -> str | None:
    body = event[kind(event)]
    return body.get("status", {}).get("state") if kind(event) in ("task", "statusUpdate") else None


def assert_ends_with(stream: list[dict[str, Any]], state: str) -> None:
    """The last event says the task reached `state`, and no event before it said the task had ended."""
    assert stream, "the stream carried no event"
    last = stream[-1]
    assert kind(last) in ("statusUpdate", "task"), f"the last event is {last}"
    assert state_of(last) == STATES[state], f"the stream ended with {state_of(last)}, not {state}"
    earlier = [state_of(e) for e in stream[:-1] if kind(e) == "statusUpdate"]
    assert not set(earlier) & TERMINAL, f"the stream went on after the task ended: {earlier}"


# --- SendStreamingMessage ---


@when(parsers.re(r'the caller streams an? "(?P<prefix>[^"]+)" message$'))
def _(world: Any, prefix: str) -> None:
    open_stream(world, "SendStreamingMessage", {"message": prefixed(prefix)})


@then("the stream carries at least one event")
def _(world: Any) -> None:
    assert events(world), "no event"


@then("the stream is that one message")
def _(world: Any) -> None:
    # A2A §3.1.2: exactly one Message, then the stream closes
    (only,) = events(world)
    assert kind(only) == "message", only


@then("the stream starts with the task")
def _(world: Any) -> None:
    first = events(world)[0]
    assert kind(first) == "task", f"the first event is {first}"


@then(parsers.re(rf"the stream ends when the task is {STATE}$"))
def _(world: Any, state: str) -> None:
    assert_ends_with(events(world), state)


@then("no state in the stream goes back to an earlier one")
def _(world: Any) -> None:
    states = [state_of(e) for e in events(world) if state_of(e) is not None]
    ranks = [ORDER.get(s, -1) for s in states if s is not None]
    assert ranks == sorted(ranks), f"the states came out of order: {states}"


@then("the stream is text/event-stream")
def _(world: Any) -> None:
    assert world.stream.content_type.startswith("text/event-stream"), world.stream.content_type


@then("each event is a JSON-RPC response with the request's id and a StreamResponse")
def _(world: Any) -> None:
    raw = world.stream.raw_events
    assert raw, "no event"
    ids = {repr(e.get("id")) for e in raw}
    assert len(ids) == 1 and all(e.get("jsonrpc") == "2.0" for e in raw), raw  # the id the client checked
    for event in raw:
        assert_valid(event["result"], "urn:a2a:v1#/$defs/StreamResponse")


@then("each event is a StreamResponse")
def _(world: Any) -> None:
    raw = world.stream.raw_events
    assert raw, "no event"
    for event in raw:
        assert_valid(event, "urn:a2a:v1#/$defs/StreamResponse")


# --- SubscribeToTask ---


@given("a subscriber follows the task")
@when("a subscriber follows the task")
def _(world: Any) -> None:
    follow(world, 1)


@given("two subscribers follow the task")
def _(world: Any) -> None:
    follow(world, 2)


@when("the first subscriber leaves")
def _(world: Any) -> None:
    subscribers(world)[0].leave()


@then(parsers.re(rf"the subscriber's first event is the task, {STATE}$"))
def _(world: Any, state: str) -> None:
    first = subscribers(world)[0].seen[0]
    assert kind(first) == "task", f"the first event is {first}"  # A2A §3.1.6
    assert first["task"]["status"]["state"] == STATES[state], first["task"]["status"]


@then(parsers.re(rf"(?P<who>the subscriber's|each subscriber's|the second subscriber's) stream ends when the task is "
                 rf"{STATE}$"))
def _(world: Any, who: str, state: str) -> None:
    chosen = {"the subscriber's": subscribers(world)[:1], "each subscriber's": subscribers(world),
              "the second subscriber's": subscribers(world)[1:2]}[who]
    for subscriber in chosen:
        assert_ends_with(subscriber.result().events, state)


@then("the subscribers got the same events in the same order")
def _(world: Any) -> None:
    # A2A §3.5.2: both subscribed before the task went on, so after their first event (the Task as it was) both
    # streams carry the same events in the same order
    first, second = (subscriber.result().events for subscriber in subscribers(world))
    assert kind(first[0]) == kind(second[0]) == "task", (first[0], second[0])
    assert first[1:] == second[1:], f"the streams differ:\n{first[1:]}\n{second[1:]}"
    assert first[1:], "the subscribers got nothing after the task"
