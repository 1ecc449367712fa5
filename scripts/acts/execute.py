"""One test against one binding: applicability, steps in order (a failed step ends the test), captures, repeat,
expect / expect_error / expect_stream, and the named assertions (ACTS §4-§9)."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml  # type: ignore[import-untyped]

from scripts.acts import assertions, corpus, paths, wire
from scripts.acts.assertions import Failure
from scripts.acts.corpus import Test
from scripts.acts.target import DRIVEN, Target, card_request, unmet
from scripts.acts.template import Scope, Unresolved, names, render

PASS, FAIL, SKIP, NOT_RUN = "PASS", "FAIL", "SKIP", "NOT RUN"
_UNTIL = re.compile(r"^\s*(\S+)\s*(==|!=|\bin\b)\s*(.+?)\s*$")


@dataclass
class Options:
    key: str | None = None
    other_key: str | None = None
    timeout: float = 60.0  # one answer
    stream_timeout: float = 60.0  # a stream, unless its expect_stream says timeout_ms
    push_wait: float = 30.0
    variables: dict[str, str] = field(default_factory=dict)  # --var
    derive_authentication: bool = False


@dataclass
class Context:
    """What the steps of one test share."""

    http: wire.Http
    target: Target
    binding: str
    options: Options
    test: Test
    scope: Scope
    raw_credentials: bool  # whether raw steps get the key (not in the auth pass: there they go as written)
    webhook: Any = None  # special.Receiver when one runs
    exchanges: dict[str, wire.Exchange] = field(default_factory=dict)

    def headers(self, key: str | None = None) -> dict[str, str]:
        """An abstract operation's headers (ACTS §12.4: A2A-Version is the document's spec_version)."""
        headers = {"A2A-Version": self.test.spec_version}
        key = key if key is not None else self.options.key
        if key:
            headers["X-API-Key"] = key
        return headers


@dataclass
class Outcome:
    verdict: str
    reason: str = ""
    step_id: str | None = None
    failure: Failure | None = None
    exchange: wire.Exchange | None = None
    notes: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    duration_ms: int = 0


class Stop(Exception):
    """Ends a test early with a verdict."""

    def __init__(self, verdict: str, reason: str, failure: Failure | None = None,
                 exchange: wire.Exchange | None = None) -> None:
        super().__init__(reason)
        self.verdict, self.reason, self.failure, self.exchange = verdict, reason, failure, exchange


def applicable(test: Test, target: Target, binding: str, options: Options, receiver: Any) -> tuple[str, str] | None:
    """(SKIP or NOT RUN, why) before anything is sent, or None when the test can run."""
    if any("client_response" in step for step in test.steps):
        return NOT_RUN, "a client test (client_response): it needs a client SDK under test; this runner tests servers"
    if test.transport and binding not in test.transport:
        offered = [t for t in test.transport if t in target.declared and t not in DRIVEN]
        if offered:
            return NOT_RUN, f"for {'/'.join(test.transport)} only; the card declares it but this runner drives " \
                            "JSON-RPC and HTTP+JSON only"
        if any(t not in DRIVEN for t in test.transport):
            return SKIP, f"for {'/'.join(test.transport)} only, which the card does not declare"
        return SKIP, f"for {'/'.join(test.transport)} only; this run is {binding}"
    reason = unmet(test, target, binding)
    if reason:
        return SKIP, f"precondition: {reason}"
    for requirement in test.body.get("runner_requirements") or []:
        if requirement == "webhook_endpoint" and receiver is None:
            return NOT_RUN, "needs a webhook endpoint and none runs"
        if requirement == "auth_credentials" and not options.key:
            return NOT_RUN, "needs credentials (--key)"
    return None


# webhookUrl for a test that only stores and reads back a push config: https, on a name that never resolves (RFC 6761
# reserves .invalid), so that a server takes the config with its default settings and nothing it may push reaches a host
UNREACHABLE_WEBHOOK = "https://webhook.acts.invalid"


def webhook_for(test: Test, label: str, receiver: Any, delivers: bool) -> str:
    """The test's webhookUrl: the runner's receiver (http on 127.0.0.1) for a test that waits for pushes (a
    runner-special delivery test, or runner_requirements webhook_endpoint), else a fresh URL under UNREACHABLE_WEBHOOK.
    The receiver's URL would fail a test that never waits for a push on any server that refuses loopback webhooks, as
    A2A §13.2 advises (SSRF); the documents' own URL (https://example.com/...) is a real host a server might push to."""
    waits = delivers or "webhook_endpoint" in (test.body.get("runner_requirements") or [])
    if waits and receiver is not None:
        return str(receiver.url_for(label))
    return f"{UNREACHABLE_WEBHOOK}/{label}/{uuid.uuid4()}"


def scope_for(test: Test, target: Target, options: Options, webhook_url: str | None) -> Scope:
    """Document variables, then what the runner provides (its webhook, its key, --var), which take precedence."""
    variables: dict[str, Any] = dict(test.variables)
    variables["SUT_BASE_URL"] = target.url
    if options.key:
        for name in ("apiKey", "authToken", "validAuthToken"):
            variables.setdefault(name, options.key)
    if webhook_url:
        variables["webhookUrl"] = webhook_url
    variables.update(options.variables)
    return Scope(variables=variables)


def runner_inputs(test: Test, scope: Scope) -> list[str]:
    """The bare `{{name}}`s of the test that nothing defines: values only the runner could give."""
    step_ids = {str(step.get("id")) for step in test.steps}
    missing = []
    for expression in names(test.body.get("steps")) + names(test.body.get("assertions")):
        head = expression.split(".")[0]
        if expression.startswith(("$", "env.")) or head in step_ids or expression in scope.variables:
            continue
        missing.append(expression)
    return list(dict.fromkeys(missing))


def resolve(ctx: Context, value: Any, step_id: str) -> Any:
    try:
        return render(value, ctx.scope)
    except Unresolved as error:
        verdict = NOT_RUN if error.runner_input else FAIL
        raise Stop(verdict, f"step {step_id}: {error}", Failure(step_id, str(error))) from error


def operation_of(step: dict[str, Any], params: dict[str, Any]) -> str:
    operation = corpus.OPERATION_ALIASES.get(step["operation"], step["operation"])
    if operation == "get_agent_card" and params.get("extended"):
        return "get_extended_agent_card"
    return str(operation)


def request_for(ctx: Context, step: dict[str, Any]) -> tuple[wire.Request, bool]:
    """The step's request, and whether it is raw."""
    sid = str(step["id"])
    if "raw" in step:
        return raw_request(ctx, resolve(ctx, step["raw"], sid)), True
    params = resolve(ctx, step.get("params") or {}, sid)
    message = params.get("message")
    if isinstance(message, dict) and "messageId" not in message:  # ACTS §4.3, §12.4
        params = {**params, "message": {**message, "messageId": wire.new_id()}}
    operation = operation_of(step, params)
    try:
        if operation == "get_agent_card":
            return card_request(ctx.target.card_url, ctx.headers()), False
        if operation not in wire.JSONRPC_METHODS:
            raise Stop(NOT_RUN, f"step {sid}: unknown operation {step['operation']!r}")
        if ctx.binding == "jsonrpc":
            return wire.jsonrpc_request(ctx.target.interfaces["jsonrpc"], operation, params, ctx.headers()), False
        return wire.rest_request(ctx.target.interfaces["rest"], operation, params, ctx.headers()), False
    except wire.StepError as error:
        raise Stop(FAIL, f"step {sid}: {error}", Failure(sid, str(error))) from error


def raw_url(ctx: Context, path: str) -> str:
    """A raw path: absolute as it is; /.well-known/… on the server's origin; otherwise under the binding's interface
    URL, `/` being the interface itself (the JSON-RPC endpoint)."""
    if path.startswith(("http://", "https://")):
        return path
    if path.startswith("/.well-known/"):
        return wire.origin(ctx.target.url) + path
    base = ctx.target.interfaces[ctx.binding]
    return base if path in ("", "/") else base.rstrip("/") + path


def raw_request(ctx: Context, raw: dict[str, Any]) -> wire.Request:
    headers = {str(k): str(v) for k, v in (raw.get("headers") or {}).items()}
    lowered = {k.lower() for k in headers}
    if ctx.raw_credentials and ctx.options.key and not lowered & {"authorization", "x-api-key"}:
        headers["X-API-Key"] = ctx.options.key
    if "body_raw" in raw:
        body: bytes | None = str(raw["body_raw"]).encode()
    elif "body" in raw:
        body = json.dumps(raw["body"]).encode()
    else:
        body = None
    accept = next((v for k, v in headers.items() if k.lower() == "accept"), "")
    method = str(raw.get("method", "GET")).upper()
    return wire.Request(method, raw_url(ctx, str(raw.get("path", "/"))), headers, body,
                        "text/event-stream" in accept, f"raw {method} {raw.get('path')}")


def exchange_once(ctx: Context, step: dict[str, Any]) -> wire.Exchange:
    request, raw = request_for(ctx, step)
    stream_spec = step.get("expect_stream") or {}
    if request.streaming or "expect_stream" in step:
        timeout = float(stream_spec.get("timeout_ms", ctx.options.stream_timeout * 1000)) / 1000
        exchange = ctx.http.stream(request, timeout)
    else:
        exchange = ctx.http.send(request)
    wire.read_answer(exchange, ctx.binding, raw)
    return exchange


def until_holds(expression: str, root: Any) -> bool:
    """ACTS §9.1: `path == value`, `path != value`, `path in [a, b]`."""
    match = _UNTIL.match(expression)
    if not match:
        raise ValueError(f"cannot read the until expression {expression!r}")
    path, operator, literal = match.groups()
    actual = paths.get(root, path)
    value = yaml.safe_load(literal)
    if operator == "in":
        return isinstance(value, list) and any(assertions.equal(actual, v) for v in value)
    same = assertions.equal(actual, value)
    return same if operator == "==" else not same


Once = Callable[[Context, dict[str, Any]], wire.Exchange]


def run_step(ctx: Context, step: dict[str, Any], once: Once) -> wire.Exchange:
    if step.get("delay_ms"):
        time.sleep(float(step["delay_ms"]) / 1000)
    repeat = step.get("repeat")
    if not repeat:
        return once(ctx, step)
    attempts = int(repeat.get("max_attempts", 10))
    delay = float(repeat.get("delay_ms", 1000)) / 1000
    backoff = repeat.get("backoff", "none")
    exchange = once(ctx, step)
    for attempt in range(1, attempts + 1):
        if attempt > 1:
            factor = attempt - 1 if backoff == "linear" else 2 ** (attempt - 2) if backoff == "exponential" else 1
            time.sleep(delay * factor)
            exchange = once(ctx, step)
        try:
            if until_holds(str(repeat["until"]), exchange.root):
                return exchange
        except ValueError as error:
            raise Stop(FAIL, f"step {step['id']}: {error}", Failure(str(step["id"]), str(error)), exchange) from error
        if exchange.status is None:
            break
    last = assertions.show(paths.get(exchange.root, str(repeat["until"]).split()[0]))
    failure = Failure("repeat", f"until {repeat['until']!r} did not hold after {attempts} attempts (last: {last})")
    raise Stop(FAIL, f"step {step['id']}: {failure.text()}", failure, exchange)
