"""Running one test on one binding, start to verdict, with its runner-special hooks."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from scripts.acts import corpus, evaluate, wire
from scripts.acts.assertions import Failure
from scripts.acts.execute import (
    FAIL,
    NOT_RUN,
    PASS,
    Context,
    Options,
    Outcome,
    Stop,
    applicable,
    exchange_once,
    resolve,
    run_step,
    runner_inputs,
    scope_for,
    webhook_for,
)
from scripts.acts.receiver import Receiver
from scripts.acts.special import AsWritten, Header, NotRun, Resubscribe, Schema, Special, TwoStreams
from scripts.acts.special_auth import EveryMethodNeedsKey, OtherCaller, PushDelivery, RestChallenge
from scripts.acts.target import Target
from scripts.acts.template import Unresolved

_NO_KEY = "its raw steps go without credentials, as written (auth pass)"
SPECIALS: dict[str, Special] = {
    "CARD-CACHE-001": Header("step-1", ("Cache-Control", "ETag"), note="checks the card has Cache-Control or ETag"),
    "CARD-SCHEMA-001": Schema("step-1", "AgentCard", note="validates the card against spec/schemas AgentCard"),
    "DM-SERIAL-002": Schema("send", "SendMessageResponse", note="validates against spec/schemas SendMessageResponse"),
    "REST-CT-001": Header("send", ("Content-Type",), "application/a2a+json", note="checks the Content-Type header"),
    "JSONRPC-CT-001": Header("send-raw", ("Content-Type",), "application/json", note="checks the Content-Type header"),
    "STREAM-MULTI-001": TwoStreams(note="a SubscribeToTask beside the send stream: both carry the same events"),
    "STREAM-MULTI-002": TwoStreams(close_second=True, note="a SubscribeToTask closed after its first event; the "
                                                           "send stream must still end in a terminal state"),
    "STREAM-RESUB-001": Resubscribe(note="subscribes, drops the stream after one event, then the step subscribes"),
    "PUSH-DELIV-001": PushDelivery("auth", note="waits for pushes at the runner's webhook; checks Authorization"),
    "SEC-PUSH-001": PushDelivery("auth", note="waits for pushes at the runner's webhook; checks Authorization"),
    "PUSH-DELIV-002": PushDelivery("any", note="waits for at least one push at the runner's webhook"),
    "PUSH-DELIV-003": PushDelivery("format", note="checks each push is a StreamResponse of the task"),
    "SEC-PUSH-002": NotRun(reason="a requirement on the client's webhook receiver (it must reject pushes with "
                                  "invalid auth), not on the server under test"),
    "CORE-CTX-001": AsWritten(note="the steps already send a client-chosen contextId (beside message, as written)"),
    "CORE-ERR-009": OtherCaller(missing_step="get-missing", note="also gets a second caller's task (--other-key) "
                                                                 "and compares the two errors"),
    "SEC-AUTH-003": OtherCaller("get-other-user-task", "get-missing-task",
                                note="creates otherUserTaskId as a second caller (--other-key); compares errors"),
    "SEC-AUTH-001": AsWritten(note=_NO_KEY),
    "SEC-AUTH-002": AsWritten(note=_NO_KEY + "; needs --var insufficientAuthToken=<a key without the right>"),
    "SEC-AUTH-004": EveryMethodNeedsKey(note=_NO_KEY + "; also sends every JSON-RPC method without a key"),
    "SEC-AUTH-006": RestChallenge(note=_NO_KEY + "; also GETs /tasks without a key, wanting HTTP 401"),
    "SEC-EXTCARD-001": AsWritten(note=_NO_KEY),
    "SEC-EXTCARD-002": AsWritten(note=_NO_KEY + "; needs --var insufficientAuthToken=<a key without the right>"),
    "SEC-EXTCARD-004": AsWritten(note=_NO_KEY),
}


@dataclass
class Run:
    """What every test of one binding's run shares."""

    http: wire.Http
    target: Target
    binding: str
    options: Options
    receiver: Receiver | None


def run_test(test: corpus.Test, run: Run) -> Outcome:
    started = time.monotonic()
    outcome = _run(test, run)
    outcome.notes = corpus.notes(test) + outcome.notes
    outcome.duration_ms = int((time.monotonic() - started) * 1000)
    return outcome


def _run(test: corpus.Test, run: Run) -> Outcome:
    early = applicable(test, run.target, run.binding, run.options, run.receiver)
    if early:
        return Outcome(early[0], early[1])
    special = SPECIALS.get(test.id)
    if special is None and "runner-special" in test.tags:
        return Outcome(NOT_RUN, "runner-special: this runner has no implementation of what it asks "
                                f"({test.body.get('description', '')})")
    webhook_url = webhook_for(test, f"{run.binding}/{test.id}", run.receiver, special is not None and special.delivers)
    scope = scope_for(test, run.target, run.options, webhook_url)
    missing = [name for name in runner_inputs(test, scope) if not (special and name in special.provides)]
    if missing:
        return Outcome(NOT_RUN, f"needs values the runner was not given: {', '.join(missing)} (--var NAME=VALUE)")
    ctx = Context(run.http, run.target, run.binding, run.options, test, scope,
                  raw_credentials=corpus.pass_of(test) != "auth", webhook=run.receiver)
    notes = [f"runner-special: {special.note}"] if special and special.note else []
    if special:
        reason = special.not_run(ctx)
        if reason:
            return Outcome(NOT_RUN, reason, notes=notes)
    steps: list[dict[str, Any]] = []
    try:
        if special:
            special.setup(ctx)
        for step in test.steps:
            _step(ctx, step, special, steps)
        for assertion in test.body.get("assertions") or []:
            _fail_if(_named(ctx, assertion, "test"), "test assertions", None)
        if special:
            _fail_if(special.after_test(ctx), "runner-special", None)
    except Stop as stop:
        return Outcome(stop.verdict, stop.reason, _step_of(stop.reason), stop.failure, stop.exchange, notes, steps)
    except wire.OffLimits as error:
        return Outcome(NOT_RUN, f"the runner refused to send a request off the given URL: {error}", notes=notes)
    return Outcome(PASS, notes=notes, steps=steps)


def _step_of(reason: str) -> str | None:
    match = re.match(r"step (\S+?)[: ]", reason)
    return match.group(1) if match else None


def _fail_if(failure: Failure | None, where: str, exchange: wire.Exchange | None) -> None:
    if failure:
        raise Stop(FAIL, f"{where}: {failure.text()}", failure, exchange)


def _step(ctx: Context, step: dict[str, Any], special: Special | None, record: list[dict[str, Any]]) -> None:
    sid = str(step["id"])
    started = time.monotonic()
    try:
        if "assertion" in step:
            _fail_if(_named(ctx, step["assertion"], sid), f"step {sid}", None)
            record.append({"id": sid, "result": "pass", "duration_ms": int((time.monotonic() - started) * 1000)})
            return
        exchange = special.step(ctx, step) if special else None
        if exchange is None:
            exchange = run_step(ctx, step, exchange_once)
        ctx.exchanges[sid] = exchange
        expectations = resolve(ctx, {k: step[k] for k in ("expect", "expect_error", "expect_stream") if k in step}, sid)
        _fail_if(evaluate.step_expectations(expectations, exchange, raw="raw" in step), f"step {sid}", exchange)
        values, failure = evaluate.captures(step.get("capture") or {}, exchange)
        ctx.scope.steps[sid] = {**values, "response": exchange.root, "status": exchange.status,
                                "headers": exchange.headers, "events": exchange.events}
        _fail_if(failure, f"step {sid}", exchange)
        for assertion in step.get("assertions") or []:
            _fail_if(_named(ctx, assertion, sid), f"step {sid}", exchange)
        if special:
            _fail_if(special.after_step(ctx, step, exchange), f"step {sid} (runner-special)", exchange)
    except Stop:
        record.append({"id": sid, "result": "fail", "duration_ms": int((time.monotonic() - started) * 1000)})
        raise
    record.append({"id": sid, "result": "pass", "duration_ms": int((time.monotonic() - started) * 1000)})


def _named(ctx: Context, assertion: dict[str, Any], sid: str) -> Failure | None:
    source = assertion.get("source")
    try:
        if isinstance(source, str) and "{{" not in source:
            value = ctx.scope.lookup(source)  # §5.5: a dot path to a capture or a prior step's result
        else:
            value = resolve(ctx, source, sid)
    except Unresolved as error:
        return Failure("source", str(error))
    rest = resolve(ctx, {k: v for k, v in assertion.items() if k != "source"}, sid)
    return evaluate.named(rest, value)
