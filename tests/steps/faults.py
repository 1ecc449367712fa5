"""Steps about the faults a message asks for (docs/scripted-agent.md): a cut or garbled stream, a refusal, a reset,
an answer that is not JSON; each step that sees one says so, so the stream steps let it pass."""

from __future__ import annotations

from pytest_bdd import parsers, then, when

from reference_server.conformance.steps.common import answer_of
from reference_server.conformance.steps.tasks import STATE, STATES, send
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import described
from reference_server.conformance.world import World, earlier


@then(parsers.re(r"the stream breaks after (?P<count>\d+) events?, without its end$"))
def _(world: World, count: str) -> None:
    stream = world.stream
    assert stream is not None and stream.error is None, f"expected a stream, got {described(stream)}"
    assert stream.broken, f"expected the stream to break before its end, it ended as usual: {stream}"
    assert len(stream.events) == int(count), f"expected the stream to break after {count} events, got {stream}"
    last = stream.events[-1]
    state = (last.get("statusUpdate") or last.get("task") or {}).get("status", {}).get("state")
    assert state not in ("TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED"), \
        f"expected the stream to break before the task ended, its last event is {shown(last)}"
    world.streams.fault_checked = True


@then("right after the stream's first event comes a frame that is not JSON")
def _(world: World) -> None:
    stream = world.stream
    assert stream is not None and not stream.broken, f"expected a stream that goes on, got {described(stream)}"
    assert len(stream.garbled) == 1, f"expected one frame that is not JSON, got {shown(stream.garbled)}"
    assert stream.raw_events, "expected an event before the frame that is not JSON, got none"
    world.streams.fault_checked = True


@when("the caller sends the same message again")
def _(world: World) -> None:
    sent = earlier(world.sent.last, "a message sent")
    send(world, sent["message"], **sent["configuration"])


REFUSALS = {"too many requests": 429, "unavailable": 503}  # RFC 6585 §4, RFC 9110 §15.6.4


@then(parsers.re(r"the call is refused as (?P<what>too many requests|unavailable), to retry after "
                 r"(?P<seconds>\d+) seconds?$"))
def _(world: World, what: str, seconds: str) -> None:
    reply = world.reply
    assert reply is not None and reply.error is not None, f"expected a refusal, got {described(reply)}"
    assert reply.http_status == REFUSALS[what], f"expected HTTP {REFUSALS[what]}, got {reply.error}"
    retry = reply.headers.get("retry-after") if reply.headers is not None else None
    assert retry == seconds, f"expected Retry-After: {seconds}, got {retry or 'no Retry-After'}"
    assert f"retry after {seconds} s" in reply.error.message, \
        f'expected the message to say "retry after {seconds} s", got {reply.error}'


@then("the connection is reset before any answer")
def _(world: World) -> None:
    no_answer, world.sent.no_answer = world.sent.no_answer, None
    assert world.reply is None and no_answer is not None, \
        f"expected the connection reset before any answer, got {described(world.reply)}"


@then("the answer's body is not JSON")
def _(world: World) -> None:
    body, world.sent.not_json = world.sent.not_json, None
    assert world.reply is None and body is not None, \
        f"expected an answer whose body is not JSON, got {described(world.reply)}"
    assert body.startswith('{"'), f"expected the first half of a JSON answer, got {shown(body[:200])}"


@then(parsers.re(rf"the list holds one task, {STATE}$"))
def _(world: World, state: str) -> None:
    tasks = answer_of(world).body["tasks"]
    assert [task["status"]["state"] for task in tasks] == [STATES[state]], \
        f"expected one task, {state}, got {shown(tasks)}"
