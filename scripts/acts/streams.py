"""expect_stream (ACTS §7) on the events of one stream.

An event of an abstract streaming operation is a StreamResponse: exactly one of task, message, statusUpdate,
artifactUpdate. ACTS §7 lets an event assertion name that member (`task`, `message`, `status_update`,
`artifact_update`, or the wire names) or make "a generic assertion on the event". The corpus writes generic
assertions as if on the member's content (`final_event: {status: {state: ...}}`, `artifact: {exists: true}`), so
the runner's view of an event is the member's content plus the member under each of its names: a generic key
reaches into the payload, a typed key selects the member (and is absent on an event of another kind). On a raw
step the events are the raw SSE data (a JSON-RPC event is its envelope) and are asserted as they are."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from scripts.acts import assertions
from scripts.acts.assertions import Failure
from scripts.acts.paths import MISSING

MEMBERS = ("task", "message", "statusUpdate", "artifactUpdate")
ALIASES = {"task": "task", "message": "message", "status_update": "statusUpdate", "artifact_update": "artifactUpdate",
           "statusUpdate": "statusUpdate", "artifactUpdate": "artifactUpdate"}
TERMINAL = ("TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED")
SUBMITTED = "TASK_STATE_SUBMITTED"
_EVENT_KEYS = ("description", "match", "index")


def view(event: Any) -> Any:
    """What the assertions of an abstract stream see of one StreamResponse."""
    if not isinstance(event, dict):
        return event
    members = [m for m in MEMBERS if isinstance(event.get(m), dict)]
    seen: dict[str, Any] = dict(event[members[0]]) if members else {}
    for alias, member in ALIASES.items():
        if member in event:
            seen[alias] = event[member]
    return seen


def state(event: Any) -> str | None:
    """The task state an event carries (a Task's or a status update's), if any."""
    if not isinstance(event, dict):
        return None
    for member in ("task", "statusUpdate"):
        body = event.get(member)
        if isinstance(body, dict) and isinstance(body.get("status"), dict):
            value = body["status"].get("state")
            return value if isinstance(value, str) else None
    return None


def monotonic(states: list[str]) -> str | None:
    """ACTS §7.1's two MUST-fail rules: nothing returns to SUBMITTED, nothing follows a terminal state (a state may
    repeat). §7.1's list of valid transitions is not enforced beyond these: A2A defines no such machine (e.g. a
    blocking send may go SUBMITTED → COMPLETED)."""
    for before, after in pairwise(states):
        if after == before:
            continue
        if before in TERMINAL:
            return f"{after} after the terminal {before}"
        if after == SUBMITTED:
            return f"{before} → {SUBMITTED} (SUBMITTED is only the initial state)"
    return None


def check(events: list[Any], expect: dict[str, Any], raw: bool = False) -> Failure | None:
    """The first way the stream fails expect_stream, or None."""
    seen = list(events) if raw else [view(e) for e in events]
    count = len(events)
    if "min_count" in expect and count < expect["min_count"]:
        return Failure("stream", f"expected at least {expect['min_count']} events, got {count}",
                       expect["min_count"], count)
    if "max_count" in expect and count > expect["max_count"]:
        return Failure("stream", f"expected at most {expect['max_count']} events, got {count}",
                       expect["max_count"], count)
    if expect.get("ordering") == "monotonic_state":
        states = [s for s in (state(e) for e in events) if s]
        problem = monotonic(states)
        if problem:
            return Failure("stream", f"state regressed: {problem} (states {' → '.join(states)})")
    elif "ordering" in expect:
        return Failure("stream", f"unknown ordering rule {expect['ordering']!r}")
    for position, event_assertion in enumerate(expect.get("events") or []):
        failure = _event(seen, position, event_assertion)
        if failure:
            return failure
    if "final_event" in expect:
        if not seen:
            return Failure("final_event", "the stream had no events")
        failure = assertions.check(seen[-1], expect["final_event"], f"final_event(#{count - 1})")
        if failure:
            return failure
    if "each_event" in expect:
        for index, event in enumerate(seen):
            failure = assertions.check(event, expect["each_event"], f"event[{index}]")
            if failure:
                return failure
    return None


def _event(seen: list[Any], position: int, event_assertion: dict[str, Any]) -> Failure | None:
    spec = {k: v for k, v in event_assertion.items() if k not in _EVENT_KEYS}
    label = event_assertion.get("description") or f"events[{position}]"
    if event_assertion.get("match") == "any_position":
        if any(assertions.holds(event, spec) for event in seen):
            return None
        return Failure("stream", f"no event matches: {label} ({assertions.show(spec)})", spec)
    index = event_assertion.get("index", position)
    event = seen[index] if isinstance(index, int) and -len(seen) <= index < len(seen) else MISSING
    if event is MISSING:
        return Failure(f"event[{index}]", f"no event at index {index} ({len(seen)} events): {label}")
    failure = assertions.check(event, spec, f"event[{index}]")
    if failure:
        return Failure(failure.path, f"{failure.message} ({label})", failure.expected, failure.actual)
    return None
