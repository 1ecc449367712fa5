"""The runner-special tests (tag `runner-special`): what their descriptions ask of the runner beyond the steps.
A runner-special test without an entry here is NOT RUN. Each entry hooks into the test: before it, instead of a
step's exchange, after a step, after the test."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts.acts import streams, wire
from scripts.acts.assertions import Failure, show
from scripts.acts.execute import FAIL, Context, Stop, request_for

SCHEMAS = Path(__file__).resolve().parents[2] / "spec" / "schemas" / "a2a-v1.json"
ZERO_ID = "00000000-0000-0000-0000-000000000000"


class Special:
    note = ""
    provides: tuple[str, ...] = ()  # variables its setup defines (not asked of the user)
    delivers = False  # whether the test waits for pushes at the runner's webhook (its webhookUrl is the receiver's)

    def not_run(self, ctx: Context) -> str | None:
        return None

    def setup(self, ctx: Context) -> None:
        return None

    def step(self, ctx: Context, step: dict[str, Any]) -> wire.Exchange | None:
        """An exchange to use instead of running the step, or None to run it."""
        return None

    def after_step(self, ctx: Context, step: dict[str, Any], exchange: wire.Exchange) -> Failure | None:
        return None

    def after_test(self, ctx: Context) -> Failure | None:
        return None


@dataclass
class AsWritten(Special):
    """Nothing beyond the steps: what the description asks is what they do."""

    note: str = ""


@dataclass
class NotRun(Special):
    reason: str = ""

    def not_run(self, ctx: Context) -> str | None:
        return self.reason


@dataclass
class Header(Special):
    """A response header of one step (runner requirement header_inspection)."""

    step_id: str = ""
    names: tuple[str, ...] = ()
    prefix: str = ""  # the first header's value must start with it; "" = any of names present
    note: str = ""

    def after_step(self, ctx: Context, step: dict[str, Any], exchange: wire.Exchange) -> Failure | None:
        if step.get("id") != self.step_id:
            return None
        values = {name: exchange.headers.get(name.lower()) for name in self.names}
        if self.prefix:
            value = values[self.names[0]] or ""
            return None if value.startswith(self.prefix) else Failure(
                f"header {self.names[0]}", f"expected {self.prefix}…, got {value or 'none'}")
        if any(values.values()):
            return None
        return Failure("headers", f"none of {', '.join(self.names)} in the answer")


@dataclass
class Schema(Special):
    """A step's answer against the A2A 1.0 JSON Schema of spec/schemas (generated from a2a.proto)."""

    step_id: str = ""
    definition: str = ""
    note: str = ""

    def not_run(self, ctx: Context) -> str | None:
        try:
            import jsonschema  # noqa: F401
        except ImportError:
            return "needs jsonschema to validate against the A2A schema"
        return None if SCHEMAS.is_file() else f"no A2A JSON Schema at {SCHEMAS}"

    def after_step(self, ctx: Context, step: dict[str, Any], exchange: wire.Exchange) -> Failure | None:
        if step.get("id") != self.step_id:
            return None
        import jsonschema

        defs = json.loads(SCHEMAS.read_text(encoding="utf-8"))["$defs"]
        validator = jsonschema.Draft202012Validator({"$ref": f"#/$defs/{self.definition}", "$defs": defs})
        errors = sorted(validator.iter_errors(exchange.root), key=lambda e: list(e.absolute_path))
        if not errors:
            return None
        where = ".".join(str(p) for p in errors[0].absolute_path)
        return Failure(where, f"not a valid {self.definition} ({len(errors)} errors): {errors[0].message}"[:300])


def _opened(ctx: Context, data: Any) -> Any:
    return data.get("result") if ctx.binding == "jsonrpc" and isinstance(data, dict) else data


def _task_id(event: Any) -> str | None:
    if not isinstance(event, dict):
        return None
    task = event.get("task")
    if isinstance(task, dict) and isinstance(task.get("id"), str):
        return str(task["id"])
    for member in ("statusUpdate", "artifactUpdate"):
        body = event.get(member)
        if isinstance(body, dict) and isinstance(body.get("taskId"), str):
            return str(body["taskId"])
    return None


def _subscribe(ctx: Context, task_id: str, on_event: Any = None, timeout: float | None = None) -> wire.Exchange:
    step = {"id": "runner-subscribe", "operation": "subscribe_to_task", "params": {"id": task_id}}
    request, _ = request_for(ctx, step)
    exchange = ctx.http.stream(request, timeout or ctx.options.stream_timeout, on_event)
    wire.read_answer(exchange, ctx.binding, raw=False)
    return exchange


@dataclass
class TwoStreams(Special):
    """A streamed send and a SubscribeToTask of its task at once. close_second: the subscription is closed after
    its first event and the send stream must still reach a terminal state (closing one stream does not affect
    another); otherwise both are read to the end and must carry the same events from the subscription's start."""

    step_id: str = "stream"
    close_second: bool = False
    note: str = ""

    def step(self, ctx: Context, step: dict[str, Any]) -> wire.Exchange | None:
        if step.get("id") != self.step_id:
            return None
        request, _ = request_for(ctx, step)
        known = threading.Event()
        first: dict[str, Any] = {}
        result: dict[str, wire.Exchange] = {}

        def on_first(data: Any) -> bool:
            task_id = _task_id(_opened(ctx, data))
            if task_id and not known.is_set():
                first["task_id"] = task_id
                known.set()
            return True

        def read_first() -> None:
            result["first"] = ctx.http.stream(request, ctx.options.stream_timeout, on_first)
            known.set()

        reader = threading.Thread(target=read_first, daemon=True)
        reader.start()
        known.wait(ctx.options.stream_timeout)
        if "task_id" in first:
            result["second"] = _subscribe(ctx, first["task_id"], (lambda _: False) if self.close_second else None)
        reader.join(ctx.options.stream_timeout + 5)
        exchange = result.get("first") or wire.Exchange(request, problem="the stream did not end")
        wire.read_answer(exchange, ctx.binding, raw=False)
        ctx.exchanges["runner-second-stream"] = result.get("second") or wire.Exchange(
            request, problem="no task id in the first stream: no second stream opened")
        return exchange

    def after_step(self, ctx: Context, step: dict[str, Any], exchange: wire.Exchange) -> Failure | None:
        if step.get("id") != self.step_id:
            return None
        second = ctx.exchanges["runner-second-stream"]
        if second.events is None or not second.events:
            got = second.error.show() if second.error else second.problem or f"HTTP {second.status}"
            return Failure("second stream", f"SubscribeToTask of the streamed task gave no events: {got}")
        first_events = exchange.events or []
        last = streams.state(first_events[-1]) if first_events else None
        if self.close_second:
            if last not in streams.TERMINAL:
                return Failure("first stream", f"after the second stream closed, the first ended at {last}")
            return None
        later = second.events[1:]
        if later and first_events[-len(later):] != later:
            return Failure("second stream", f"its events after the first ({len(later)}) are not the first stream's "
                                            f"last ones: {show(later)} vs {show(first_events[-len(later):])}")
        if streams.state(second.events[-1]) != last:
            return Failure("second stream", f"ended at {streams.state(second.events[-1])}, the first at {last}")
        return None


@dataclass
class Resubscribe(Special):
    """Before the step: a SubscribeToTask of the task, dropped after its first event; the step then subscribes
    again (the reconnection of A2A §3.5.2)."""

    step_id: str = "subscribe"
    note: str = ""

    def step(self, ctx: Context, step: dict[str, Any]) -> wire.Exchange | None:
        if step.get("id") != self.step_id:
            return None
        task_id = ctx.scope.steps.get("start", {}).get("taskId")
        if not isinstance(task_id, str):
            raise Stop(FAIL, "no task to subscribe to", Failure("start", "no taskId captured"))
        dropped = _subscribe(ctx, task_id, lambda _: False)
        if not dropped.events:
            got = dropped.error.show() if dropped.error else dropped.problem or f"HTTP {dropped.status}"
            raise Stop(FAIL, f"step {self.step_id}: the first subscription (to drop) failed: {got}",
                       Failure("first subscription", got), dropped)
        return None
