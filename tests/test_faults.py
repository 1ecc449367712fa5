"""bindings/faults.py: what a rule's fault asks for, checked and bounded, and how a stream is cut, slowed or garbled.
What goes over the wire is checked against the live server by tests/test_scripted_agent_faults_doc.py and the
scenarios of spec/features/shapes.feature."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from reference_server.agent.script import ScriptError, parse_script
from reference_server.agent.scripted import ScriptedProvider
from reference_server.bindings import faults
from reference_server.bindings.faults import Fault, FaultError, Faults, plan
from reference_server.model.caller import Caller, Workspace
from reference_server.model.types import AskedFault

SCHEMA = Path(__file__).resolve().parents[1] / "spec" / "schemas" / "script.json"


def asked(**settings: Any) -> AskedFault:
    return AskedFault(settings, "script test.json: $.rules[0].fault")


# --- plan: the values and their bounds


@pytest.mark.parametrize(("settings", "expected"), [
    ({"cutAfter": "3"}, Fault(cut_after=3)),
    ({"cutAfter": 1000}, Fault(cut_after=1000)),
    ({"firstByteDelay": "0.5"}, Fault(first_byte_delay=0.5)),
    ({"firstByteDelay": 30}, Fault(first_byte_delay=30.0)),
    ({"eventDelay": "0"}, Fault()),
    ({"refuse": "429", "times": "", "retryAfter": ""}, Fault(refuse=429)),  # an unmatched group: the defaults
    ({"refuse": 503, "times": "10", "retryAfter": "60"}, Fault(refuse=503, times=10, retry_after=60)),
    ({"reset": True, "times": "2"}, Fault(reset=True, times=2)),
    ({"badFrame": "true"}, Fault(bad_frame=True)),
    ({"notJson": True}, Fault(not_json=True)),
    ({"eventDelay": 1, "cutAfter": 2, "badFrame": True}, Fault(event_delay=1.0, cut_after=2, bad_frame=True)),
])
def test_a_fault_within_its_bounds_is_planned(settings: dict[str, Any], expected: Fault) -> None:
    assert plan(asked(**settings)) == expected


@pytest.mark.parametrize(("settings", "said"), [
    ({"cutAfter": "0"}, "cutAfter '0': must be a whole number of events from 1 to 1000"),
    ({"cutAfter": 1001}, "cutAfter 1001: must be a whole number of events from 1 to 1000"),
    ({"cutAfter": "2.5"}, "cutAfter '2.5': must be a whole number of events"),
    ({"cutAfter": "many"}, "cutAfter 'many': not a number"),
    ({"cutAfter": True}, "cutAfter True: not a number"),
    ({"firstByteDelay": "-1"}, "firstByteDelay '-1': must be a number of seconds from 0 to 30"),
    ({"firstByteDelay": "nan"}, "firstByteDelay 'nan': not a finite number"),
    ({"eventDelay": "10.5"}, "eventDelay '10.5': must be a number of seconds from 0 to 10"),
    ({"refuse": "200"}, "refuse '200': is not an error status; refuse takes 429 or 503"),
    ({"refuse": "404"}, "refuse '404': is not a status a client retries after Retry-After"),
    ({"refuse": "999"}, "refuse '999': is not an HTTP status"),
    ({"refuse": "429", "times": "0"}, "times '0': must be a whole number of attempts from 1 to 10"),
    ({"refuse": "429", "retryAfter": "1.5"}, "retryAfter '1.5': must be a whole number of seconds from 0 to 60"),
    ({"reset": "yes"}, "reset 'yes': must be true or false"),
    ({"cutafter": 2}, "unknown fault setting 'cutafter'; the settings are cutAfter, firstByteDelay"),
    ({"refuse": 429, "reset": True}, "refuse and reset both answer before anything is done"),
    ({"notJson": True, "eventDelay": 1}, "notJson changes a SendMessage answer and eventDelay a stream"),
])
def test_a_fault_it_cannot_take_is_refused_naming_the_value(settings: dict[str, Any], said: str) -> None:
    with pytest.raises(FaultError) as raised:
        plan(asked(**settings))
    assert said in str(raised.value)


def test_the_schema_lists_every_fault_setting() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert set(schema["$defs"]["Fault"]["properties"]) == set(faults.KEYS)


# --- the default script: each command and prefix asks for its fault


@pytest.mark.parametrize(("text", "message_id", "expected"), [
    ("cut after 3 events", "m-1", Fault(cut_after=3)),
    ("Cut after 1 event", "m-1", Fault(cut_after=1)),
    ("hello", "fault-cut-2-abc", Fault(cut_after=2)),
    ("slow start 1.5", "m-1", Fault(first_byte_delay=1.5)),
    ("sleep 3", "fault-slow-start-2-abc", Fault(first_byte_delay=2.0)),
    ("drip 0.25", "m-1", Fault(event_delay=0.25)),
    ("hello", "fault-drip-0.5-abc", Fault(event_delay=0.5)),
    ("refuse 429", "m-1", Fault(refuse=429)),
    ("refuse 503 3 times", "m-1", Fault(refuse=503, times=3)),
    ("refuse 429 2 times, retry after 5", "m-1", Fault(refuse=429, times=2, retry_after=5)),
    ("refuse 503, retry after 0", "m-1", Fault(refuse=503, retry_after=0)),
    ("ask: Which city?", "fault-refuse-503-2-4-abc", Fault(refuse=503, times=2, retry_after=4)),
    ("reset", "m-1", Fault(reset=True)),
    ("reset 2 times", "m-1", Fault(reset=True, times=2)),
    ("hello", "fault-reset-3-abc", Fault(reset=True, times=3)),
    ("bad frame", "m-1", Fault(bad_frame=True)),
    ("hello", "fault-bad-frame-abc", Fault(bad_frame=True)),
    ("not json", "m-1", Fault(not_json=True)),
    ("hello", "fault-not-json-abc", Fault(not_json=True)),
])
def test_the_default_script_asks_for_the_documented_fault(tmp_path: Path, text: str, message_id: str,
                                                          expected: Fault) -> None:
    found = ScriptedProvider().fault_for(text, message_id, tmp_path)
    assert found is not None and found.where.startswith("script default_script.json: $.rules[")
    assert plan(found) == expected


@pytest.mark.parametrize(("text", "message_id"), [("hello", "m-1"), ("cut after", "m-1"), ("please reset", "m-1"),
                                                  ("hello", "tck-complete-task-1"), ("hello", "fault-cutter")])
def test_other_messages_ask_for_no_fault(tmp_path: Path, text: str, message_id: str) -> None:
    assert ScriptedProvider().fault_for(text, message_id, tmp_path) is None


def test_a_bad_value_in_a_prefix_reaches_the_check(tmp_path: Path) -> None:
    found = ScriptedProvider().fault_for("hello", "fault-drip--1-abc", tmp_path)
    assert found is not None
    with pytest.raises(FaultError, match=r"eventDelay '-1': must be a number of seconds"):
        plan(found)


def test_a_fault_only_rule_is_never_played_and_a_fault_needs_an_object() -> None:
    rules = parse_script(json.dumps({"rules": [{"messageIdPrefix": "f-", "fault": {"cutAfter": 2}},
                                               {"match": "", "turns": [[{"say": "x"}]]}]}))
    assert rules[0].turns == () and rules[0].fault == {"cutAfter": 2} and not rules[0].replies
    for bad in ([1], {}, {"cutAfter": [1]}):
        with pytest.raises(ScriptError, match=r"\$\.rules\[0\]\.fault: must be an object of fault settings"):
            parse_script(json.dumps({"rules": [{"match": "", "fault": bad}]}))
    with pytest.raises(ScriptError, match=r"\$\.rules\[0\]\.turns: must be a non-empty list"):
        parse_script(json.dumps({"rules": [{"match": ""}]}))


def test_the_default_script_plays_the_text_of_a_prefixed_message(tmp_path: Path) -> None:
    # the fault-only prefix rules are skipped when playing: "fault-cut-2-…" with "reject" is rejected
    provider = ScriptedProvider()
    assert provider.answers_with_message("message", "fault-cut-2-abc", tmp_path)
    assert not provider.answers_with_message("hello", "fault-cut-2-abc", tmp_path)


# --- attempts: counted per caller and messageId, and bounded


def test_attempts_are_counted_per_caller_and_message_id_and_the_oldest_forgotten(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(faults, "MAX_REMEMBERED", 3)
    counting = Faults(lambda workspace, text, message_id: None)
    alice = Caller("alice", "isolated", Workspace(tmp_path, owner_id="o"))
    bob = Caller("bob", "isolated", Workspace(tmp_path, owner_id="o"))
    assert [counting.attempt(alice, "m-1") for _ in range(3)] == [1, 2, 3]
    assert counting.attempt(bob, "m-1") == 1
    for other in ("m-2", "m-3", "m-4"):
        counting.attempt(alice, other)
    assert counting.attempt(alice, "m-1") == 1  # forgotten: four others came after it


# --- a stream, event by event


class FakeOutlet:
    def __init__(self) -> None:
        self.gone = False
        self.cuts = 0
        self.lost: list[Callable[[], object]] = []

    def on_lost(self, callback: Callable[[], object]) -> None:
        self.lost.append(callback)

    def cut(self) -> None:
        self.cuts += 1


FRAMES = [b'data: {"n":1}\n\n', b": keep-alive\n\n", b'data: {"n":2}\n\ndata: {"n":3}\n\n', b'data: {"n":4}\n\n']


def shaped(fault: Fault, outlet: FakeOutlet | None = None) -> tuple[list[bytes], bool]:
    closed = []

    async def source() -> AsyncIterator[bytes]:
        try:
            for chunk in FRAMES:
                yield chunk
        finally:
            closed.append(True)

    async def read() -> list[bytes]:
        return [chunk async for chunk in faults._shaped(source, fault, outlet)()]  # type: ignore[arg-type]

    return asyncio.run(read()), bool(closed)


def test_a_stream_with_no_stream_fault_is_its_events_one_by_one() -> None:
    sent, closed = shaped(Fault())
    assert b"".join(sent) == b"".join(FRAMES) and closed


def test_a_cut_stream_ends_after_its_events_and_cuts_the_connection() -> None:
    outlet = FakeOutlet()
    sent, closed = shaped(Fault(cut_after=2), outlet)
    assert sent == [b'data: {"n":1}\n\n', b": keep-alive\n\n", b'data: {"n":2}\n\n']  # a keep-alive is no event
    assert outlet.cuts == 1 and closed  # the source is closed: the stream leaves its task


def test_a_garbled_frame_follows_the_first_event() -> None:
    sent, _ = shaped(Fault(bad_frame=True))
    assert sent[:2] == [b'data: {"n":1}\n\n', b'data: {"n\n\n'] and len(sent) == 6


def test_events_drip_and_a_client_that_leaves_ends_the_drip() -> None:
    outlet = FakeOutlet()

    async def leave_soon() -> list[bytes]:
        async def source() -> AsyncIterator[bytes]:
            for chunk in FRAMES:
                yield chunk

        body = faults._shaped(source, Fault(event_delay=5.0), outlet)()  # type: ignore[arg-type]
        first = await anext(body)
        asyncio.get_running_loop().call_later(0.05, lambda: [callback() for callback in outlet.lost])
        rest = [chunk async for chunk in body]
        return [first, *rest]

    sent = asyncio.run(asyncio.wait_for(leave_soon(), 2.0))  # not 5 s: the client's leaving ends the wait
    assert sent == [b'data: {"n":1}\n\n', b": keep-alive\n\n"]
