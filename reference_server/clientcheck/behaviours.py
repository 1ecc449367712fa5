"""How the client behaved across its exchanges: one table of behaviours (each with its spec section, or the HTTP
RFC where the rule is HTTP's), and for each, from the records, held, broken (with the exchanges) or not exercised.

A check of checks.py looks at one request; a behaviour needs the requests around it: what the client did after a
stream broke, after a refusal, after a question, after a terminal state, after a page. Each is judged per caller,
from the records as written (what the client was shown, and what it sent next), whatever binding or version. A
behaviour with a time window is pending, not broken, while its window is still open at the report's time (`now`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl

from reference_server.a2a.catalogue import PAGED, SENDS
from reference_server.clientcheck.exchange import JSONRPC, match_route

RECOVERY_SECONDS = 30.0  # a client comes back for the task of a broken stream within this long
RUN_ENDED = math.inf  # the `now` of a run that is over: no request can come any more, so every window has closed
CLOCK_SLACK_SECONDS = 0.002  # record times are to the millisecond: two of them differ by up to this much more
TERMINAL = frozenset({"completed", "failed", "canceled", "rejected"})
INTERRUPTED = frozenset({"input-required", "auth-required"})


@dataclass(frozen=True)
class Behaviour:
    id: str
    section: str
    title: str  # what a well-behaved client does, in one plain sentence


BEHAVIOURS: dict[str, Behaviour] = {b.id: b for b in (
    Behaviour("stream-recovered", "A2A §3.5.2, §3.1.6, §3.1.3",
              f"When a stream breaks before its task ends, the client comes back for the task (SubscribeToTask or "
              f"GetTask) within {RECOVERY_SECONDS:g} s."),
    Behaviour("retry-after-honoured", "RFC 9110 §10.2.3; RFC 6585 §4",
              "A request refused with 429 or 503 and Retry-After is retried no sooner than Retry-After asks."),
    Behaviour("input-required-continued", "A2A §3.4.3",
              "A task waiting for input is answered with a message carrying its taskId and contextId."),
    Behaviour("no-polling-after-terminal", "A2A §3.1.3, §3.5.1, §4.1.3",
              "Once GetTask has shown a task in a terminal state, the client stops getting it."),
    Behaviour("pages-followed", "A2A §3.1.4",
              "A listing is followed page after page, with each nextPageToken, until the token is empty."),
    Behaviour("message-id-fresh", "a2a.proto Message.message_id; A2A §3.3.1",
              "Every new message has a messageId of its own (a retry of the same message keeps it)."),
)}


@dataclass
class Seen:
    """One record, with what the behaviours read from it."""

    where: str
    time: float
    data: dict[str, Any]
    operation: str | None
    message: dict[str, Any] | None  # the message a send carried
    target: str | None  # the task id a GetTask, SubscribeToTask or CancelTask named
    tasks: dict[str, tuple[str | None, str]]  # the tasks the answer showed: id -> (contextId, state), last wins

    @property
    def status(self) -> int | None:
        return (self.data.get("response") or {}).get("status")


@dataclass
class Finding:
    message: str
    exchanges: list[Seen]


@dataclass
class Result:
    behaviour: Behaviour
    instances: int = 0
    findings: list[Finding] = field(default_factory=list)  # the instances that broke it
    waiting: list[Finding] = field(default_factory=list)  # the instances whose window is still open

    @property
    def status(self) -> str:
        if not self.instances:
            return "not exercised"
        return "broken" if self.findings else "pending" if self.waiting else "held"

    def as_json(self) -> dict[str, Any]:
        return {"id": self.behaviour.id, "section": self.behaviour.section, "title": self.behaviour.title,
                "status": self.status, "instances": self.instances, "broken": len(self.findings),
                "pending": len(self.waiting),
                "findings": [_finding_json(f) for f in self.findings],
                "waiting": [_finding_json(f) for f in self.waiting]}


def _finding_json(found: Finding) -> dict[str, Any]:
    return {"message": found.message, "where": [s.where for s in found.exchanges],
            "exchanges": [{"where": s.where, "request": s.data.get("request"), "response": s.data.get("response")}
                          for s in found.exchanges]}


def assess(records: Iterable[tuple[str, dict[str, Any]]], now: float) -> list[dict[str, Any]]:
    """Every behaviour over the records (where, data) of a run, in time order, judged per caller at `now` (Unix
    seconds; RUN_ENDED for a run that is over): an instance whose window is still open then is pending."""
    by_caller: dict[str, list[Seen]] = {}
    for where, data in records:
        if data.get("caller") and data.get("operation"):
            by_caller.setdefault(data["caller"], []).append(seen(where, data))
    results = {behaviour_id: Result(behaviour) for behaviour_id, behaviour in BEHAVIOURS.items()}
    for calls in by_caller.values():
        for behaviour_id, judge in JUDGES.items():
            judge(calls, results[behaviour_id], now)
    return [result.as_json() for result in results.values()]


# --- what a record says


def seen(where: str, data: dict[str, Any]) -> Seen:
    request = data.get("request") or {}
    operation = data.get("operation")
    params = _params(data, request)
    message = None
    if operation in SENDS and isinstance(params, dict):
        found = params.get("message", params.get("request"))
        message = found if isinstance(found, dict) else None
    target = None
    if operation in ("GetTask", "SubscribeToTask", "CancelTask"):
        value = params.get("id") if isinstance(params, dict) else None
        target = value if isinstance(value, str) else None
    response = data.get("response") or {}
    answers = [event.get("data") for event in response.get("events") or []] or [response.get("body")]
    tasks: dict[str, tuple[str | None, str]] = {}
    for answer in answers:
        for task_id, context_id, state in _tasks_in(answer):
            tasks[task_id] = (context_id, state)
    time = datetime.fromisoformat(str(data.get("time")).replace("Z", "+00:00")).timestamp()
    return Seen(where, time, data, operation, message, target, tasks)


def _params(data: dict[str, Any], request: dict[str, Any]) -> Any:
    """The operation's parameters: JSON-RPC params; HTTP+JSON body, query and path values together."""
    body = request.get("body")
    if data.get("binding") == JSONRPC:
        return body.get("params") if isinstance(body, dict) else None
    matched = match_route(str(request.get("method")), str(request.get("path")))
    values: dict[str, Any] = dict(matched[1]) if matched else {}
    for name, value in parse_qsl(str(request.get("query") or ""), keep_blank_values=True):
        values.setdefault(name, value)
    return {**body, **values} if isinstance(body, dict) else values


def _state(value: Any) -> str | None:
    """A task state in the 0.3 JSON-RPC spelling, whatever the version wrote (TASK_STATE_CANCELLED included)."""
    if not isinstance(value, str):
        return None
    state = value.removeprefix("TASK_STATE_").lower().replace("_", "-")
    return "canceled" if state == "cancelled" else state


def _tasks_in(value: Any) -> Iterator[tuple[str, str | None, str]]:
    """(task id, context id, state) of each task or status update in an answer, at any depth: a Task has an id
    and a status, a status update a taskId and a status, in every version's shape."""
    if isinstance(value, list):
        for item in value:
            yield from _tasks_in(item)
        return
    if not isinstance(value, dict):
        return
    status = value.get("status")
    state = _state(status.get("state")) if isinstance(status, dict) else None
    task_id = value.get("taskId", value.get("id"))
    if state is not None and isinstance(task_id, str):
        context_id = value.get("contextId")
        yield task_id, context_id if isinstance(context_id, str) else None, state
        return
    for name, item in value.items():
        if name not in ("history", "metadata", "artifacts", "message"):
            yield from _tasks_in(item)


def _message_field(message: dict[str, Any], name: str) -> Any:
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
    return message.get(name, message.get(snake))


# --- the judges, one per behaviour: (a caller's records in time order, its result, the report's time)


def _stream_recovered(calls: list[Seen], result: Result, now: float) -> None:
    for n, call in enumerate(calls):
        fault = call.data.get("fault") or {}
        if "cutAfter" not in fault or call.operation not in SENDS:
            continue
        unfinished = [task_id for task_id, (_, state) in call.tasks.items()
                      if state not in TERMINAL and state not in INTERRUPTED]
        for task_id in unfinished:  # the stream ended before its task did: it was cut
            result.instances += 1
            came_back = next((later for later in calls[n + 1:] if later.target == task_id
                              and later.operation in ("GetTask", "SubscribeToTask")), None)
            if came_back is None and now < call.time + RECOVERY_SECONDS:
                result.waiting.append(Finding(
                    f"the stream of task {task_id} broke after {len(_events(call))} events {now - call.time:.1f} s "
                    f"ago; the client has {RECOVERY_SECONDS:g} s to come back for the task", [call]))
            elif came_back is None or came_back.time - call.time > RECOVERY_SECONDS:
                late = f" (it came back after {came_back.time - call.time:.1f} s)" if came_back else ""
                result.findings.append(Finding(
                    f"the stream of task {task_id} broke after {len(_events(call))} events and the client did not "
                    f"come back for the task (SubscribeToTask or GetTask) within {RECOVERY_SECONDS:g} s{late}",
                    [call, *([came_back] if came_back else [])]))


def _events(call: Seen) -> list[Any]:
    return list((call.data.get("response") or {}).get("events") or [])


def _retry_after(calls: list[Seen], result: Result, _now: float) -> None:
    for n, call in enumerate(calls):
        response = call.data.get("response") or {}
        asked = response.get("retryAfter")
        if call.status not in (429, 503) or asked is None or call.message is None:
            continue
        message_id = _message_field(call.message, "messageId")
        retry = next((later for later in calls[n + 1:] if later.message is not None
                      and _message_field(later.message, "messageId") == message_id), None)
        if retry is None:
            continue  # never retried: nothing came too soon
        result.instances += 1
        waited = retry.time - call.time
        if str(asked).isdigit() and waited + CLOCK_SLACK_SECONDS < int(asked):
            result.findings.append(Finding(
                f"messageId {message_id!r} was refused with {call.status} and Retry-After: {asked}, and retried "
                f"after {waited:.3f} s", [call, retry]))


def _input_required_continued(calls: list[Seen], result: Result, _now: float) -> None:
    waiting: dict[str, tuple[str | None, Seen]] = {}  # task id -> (its context, the answer that showed it waiting)
    for call in calls:
        if call.message is not None:  # what the client sent, judged before what it was answered
            sent_task = _message_field(call.message, "taskId")
            sent_context = _message_field(call.message, "contextId")
            for task_id, (context_id, shown) in list(waiting.items()):
                if sent_task != task_id and (context_id is None or sent_context != context_id):
                    continue  # a message about something else
                del waiting[task_id]
                result.instances += 1
                if sent_task != task_id:
                    carried = "no taskId" if sent_task is None else f"taskId {sent_task!r}"
                    result.findings.append(Finding(
                        f"task {task_id} waited for input in context {context_id}; the next message to that context "
                        f"carried {carried}, so it started another task instead of continuing this one",
                        [shown, call]))
                elif sent_context is not None and context_id is not None and sent_context != context_id:
                    result.findings.append(Finding(
                        f"task {task_id} waited for input in context {context_id}; the answer carried its taskId "
                        f"but the contextId {sent_context!r}", [shown, call]))
        for task_id, (context_id, state) in call.tasks.items():
            if state == "input-required":
                waiting[task_id] = (context_id, call)
            else:
                waiting.pop(task_id, None)  # it moved on (a cancel, or another client's answer)


def _no_polling_after_terminal(calls: list[Seen], result: Result, _now: float) -> None:
    done: dict[str, Seen] = {}  # task id -> the GetTask that showed it terminal
    polled: dict[str, list[Seen]] = {}
    for call in calls:
        if call.operation != "GetTask" or call.target is None:
            continue
        if call.target in done:
            polled.setdefault(call.target, []).append(call)
            continue
        state = call.tasks.get(call.target, (None, ""))[1]
        if state in TERMINAL:
            done[call.target] = call
            result.instances += 1
    for task_id, again in polled.items():
        shown = done[task_id]
        result.findings.append(Finding(
            f"GetTask showed task {task_id} {shown.tasks[task_id][1]} (a terminal state), and the client got it "
            f"{len(again)} more time(s)", [shown, *again]))


def _pages_followed(calls: list[Seen], result: Result, _now: float) -> None:
    for n, call in enumerate(calls):
        if call.operation not in PAGED or _page_token(call) or call.status != 200:
            continue
        walk, token = [call], _next_token(call)
        if not token:
            continue  # one page was all there was: nothing to follow
        result.instances += 1
        for later in calls[n + 1:]:
            if later.operation == call.operation and _page_token(later) == token:
                walk.append(later)
                token = _next_token(later)
                if not token:
                    break
        if token:
            result.findings.append(Finding(
                f"{call.operation} answered {len(walk)} page(s) and the client stopped with nextPageToken "
                f"{token!r} still to follow", walk))


def _page_token(call: Seen) -> str:
    params = _params(call.data, call.data.get("request") or {})
    token = params.get("pageToken") if isinstance(params, dict) else None
    return token if isinstance(token, str) else ""


def _next_token(call: Seen) -> str:
    body = (call.data.get("response") or {}).get("body")
    if isinstance(body, dict) and call.data.get("binding") == JSONRPC:
        body = body.get("result")
    token = body.get("nextPageToken") if isinstance(body, dict) else None
    return token if isinstance(token, str) else ""


def _message_id_fresh(calls: list[Seen], result: Result, _now: float) -> None:
    for call in calls:
        if call.message is None:
            continue
        result.instances += 1
        reused = [v for v in (call.data.get("checks") or {}).get("violations") or []
                  if v.get("check") == "message-id-unique"]
        if reused:
            first_use = next((earlier for earlier in calls if earlier.message is not None and earlier is not call
                              and _message_field(earlier.message, "messageId")
                              == _message_field(call.message, "messageId")), None)
            result.findings.append(Finding(str(reused[0].get("message")), [*([first_use] if first_use else []), call]))


JUDGES: dict[str, Callable[[list[Seen], Result, float], None]] = {
    "stream-recovered": _stream_recovered,
    "retry-after-honoured": _retry_after,
    "input-required-continued": _input_required_continued,
    "no-polling-after-terminal": _no_polling_after_terminal,
    "pages-followed": _pages_followed,
    "message-id-fresh": _message_id_fresh,
}
