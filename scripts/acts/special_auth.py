"""Runner-special tests about push deliveries (to the runner's webhook) and about credentials (a second caller,
requests without a key)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from scripts.acts import streams, wire
from scripts.acts.assertions import Failure
from scripts.acts.execute import NOT_RUN, Context, Stop, request_for
from scripts.acts.special import Special


@dataclass
class PushDelivery(Special):
    """After the test: what the server POSTed to this test's webhook URL within --push-wait seconds. check: "any"
    (at least one delivery), "auth" (each carries `Authorization: <scheme> <credentials>` of the config, A2A
    §4.3.3), "format" (each is a StreamResponse of the test's task: exactly one of task, message, statusUpdate,
    artifactUpdate)."""

    check: str = "any"
    note: str = ""
    delivers = True

    def not_run(self, ctx: Context) -> str | None:
        return None if ctx.webhook is not None else "needs the runner's webhook endpoint (not started)"

    def after_test(self, ctx: Context) -> Failure | None:
        url = str(ctx.scope.variables.get("webhookUrl"))
        deliveries = ctx.webhook.wait(url, ctx.options.push_wait)
        if not deliveries:
            return Failure("webhook", f"no push notification arrived at {url} within {ctx.options.push_wait:g} s")
        task_id = ctx.scope.steps.get("create", ctx.scope.steps.get("create-task", {})).get("taskId")
        for index, delivery in enumerate(deliveries):
            failure = self._one(ctx, delivery.headers, delivery.body, task_id)
            if failure:
                return Failure(f"delivery[{index}]", failure)
        return None

    def _one(self, ctx: Context, headers: dict[str, str], body: bytes, task_id: Any) -> str | None:
        if self.check == "auth":
            auth = self._authentication(ctx)
            wanted = f"{auth.get('scheme', '')} {auth.get('credentials', '')}".strip()
            got = headers.get("authorization")
            return None if got == wanted else f"Authorization {got!r}, the config's authentication is {wanted!r}"
        if self.check == "format":
            try:
                event = json.loads(body)
            except ValueError:
                return f"the body is not JSON: {body[:120]!r}"
            members = [m for m in streams.MEMBERS if isinstance(event, dict) and m in event]
            if not isinstance(event, dict) or len(members) != 1 or len(event) != 1:
                return f"not a StreamResponse (exactly one of {', '.join(streams.MEMBERS)}): {body[:200]!r}"
            payload = event[members[0]]
            about = payload.get("id") if members[0] == "task" else payload.get("taskId")
            if members[0] != "message" and about != task_id:
                return f"about task {about!r}, the test's task is {task_id!r}"
        return None

    def _authentication(self, ctx: Context) -> dict[str, Any]:
        for step in ctx.test.steps:
            config = (step.get("params") or {}).get("pushNotificationConfig")
            if isinstance(config, dict) and isinstance(config.get("authentication"), dict):
                return dict(config["authentication"])
        return {}


@dataclass
class OtherCaller(Special):
    """A task of a second caller (--other-key), in otherUserTaskId; after the test, getting it must fail exactly
    like getting a task that does not exist (same error, same HTTP status)."""

    own_step: str = ""  # the step that gets the other caller's task ("" = the runner does it after the test)
    missing_step: str = ""
    note: str = ""
    provides: tuple[str, ...] = ("otherUserTaskId",)

    def not_run(self, ctx: Context) -> str | None:
        return None if ctx.options.other_key else "needs a second caller's key (--other-key)"

    def setup(self, ctx: Context) -> None:
        step = {"id": "runner-other-task", "operation": "send_message", "params": {"message": {
            "role": "ROLE_USER", "parts": [{"text": "tck-complete-task the other caller's task"}]}}}
        request, _ = request_for(ctx, step)
        request.headers["X-API-Key"] = str(ctx.options.other_key)
        exchange = ctx.http.send(request)
        wire.read_answer(exchange, ctx.binding, raw=False)
        task_id = exchange.root.get("task", {}).get("id") if isinstance(exchange.root, dict) else None
        if not isinstance(task_id, str):
            raise Stop(NOT_RUN, f"could not create a task as the other caller: {exchange.show_response()[:200]}")
        ctx.scope.variables["otherUserTaskId"] = task_id

    def after_test(self, ctx: Context) -> Failure | None:
        missing = ctx.exchanges[self.missing_step]
        if self.own_step:
            other = ctx.exchanges[self.own_step]
        else:
            step = {"id": "runner-get-other", "operation": "get_task",
                    "params": {"id": ctx.scope.variables["otherUserTaskId"]}}
            other = ctx.http.send(request_for(ctx, step)[0])
            wire.read_answer(other, ctx.binding, raw=False)
        if other.error is None:
            return Failure("other caller's task", f"got it: {other.show_response()[:200]}")
        if missing.error is None or (other.error.type, other.status) != (missing.error.type, missing.status):
            shown = missing.error.show() if missing.error else "no error"
            return Failure("other caller's task", f"{other.error.show()} (HTTP {other.status}) differs from a "
                                                  f"missing task's {shown} (HTTP {missing.status})")
        return None


NO_KEY_METHODS = ("SendMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask",
                  "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
                  "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig", "GetExtendedAgentCard")


@dataclass
class EveryMethodNeedsKey(Special):
    """After the test: every JSON-RPC method of A2A 1.0, without credentials, is refused (HTTP 401/403 or an
    error answer), never answered with a result."""

    note: str = ""

    def after_test(self, ctx: Context) -> Failure | None:
        url = ctx.target.interfaces["jsonrpc"]
        for method in NO_KEY_METHODS:
            body = json.dumps({"jsonrpc": "2.0", "id": method, "method": method,
                               "params": {"id": "00000000-0000-0000-0000-000000000000"}}).encode()
            request = wire.Request("POST", url, {"Content-Type": "application/json", "A2A-Version": "1.0"}, body)
            exchange = ctx.http.send(request)
            if exchange.status in (401, 403):
                continue
            if exchange.status is None or (isinstance(exchange.body, dict) and "result" in exchange.body):
                return Failure(method, f"without credentials: {exchange.show_response()[:200]}")
        return None


@dataclass
class RestChallenge(Special):
    """After the test: an A2A operation over HTTP+JSON without credentials is HTTP 401 (A2A §3.3.2: an
    authentication error is 401 / UNAUTHENTICATED), since the steps only get the public card."""

    note: str = ""

    def after_test(self, ctx: Context) -> Failure | None:
        url = ctx.target.interfaces["rest"].rstrip("/") + "/tasks"
        exchange = ctx.http.send(wire.Request("GET", url, {"A2A-Version": "1.0", "Accept": "application/a2a+json"}))
        if exchange.status == 401:
            return None
        return Failure("GET /tasks without credentials", f"expected HTTP 401, got {exchange.show_response()[:200]}")
