"""A step's expectations on its exchange (ACTS §6, §7) and the named/collection assertions (§5.5).

For an abstract operation the assertion root is the A2A object (§4.2); an error answer's root is {"error": …}
(the JSON-RPC error object, or the HTTP+JSON google.rpc.Status body). An `expect` of an abstract operation wants a
success answer unless it asks for the error (`status: error`, or an `error` key). A raw step's root is the body as
it came, and its `expect` applies to it as it is."""

from __future__ import annotations

from typing import Any

from scripts.acts import assertions, paths, streams, wire
from scripts.acts.assertions import Failure, show
from scripts.acts.paths import MISSING


def _aliased(spec: Any) -> Any:
    """ACTS §6.2's names A2A 1.0 does not have, as 1.0 names them."""
    if isinstance(spec, str):
        return wire.ERROR_ALIASES.get(spec, spec)
    if isinstance(spec, list):
        return [_aliased(s) for s in spec]
    if isinstance(spec, dict):
        return {k: _aliased(v) for k, v in spec.items()}
    return spec


def expect_block(spec: dict[str, Any], exchange: wire.Exchange, raw: bool) -> Failure | None:
    status = spec.get("status", MISSING)
    body = dict(spec.get("body") or {})
    body.update({k: v for k, v in spec.items() if k not in ("status", "body")})  # the corpus's body-less form
    wants_error = status == "error" or "error" in body
    if status == "error":
        if exchange.error is None:
            return Failure("error", f"expected an error answer, got {show(exchange.root)}")
    elif not raw and not wants_error and exchange.error is not None:
        return Failure("", f"expected a success answer, got HTTP {exchange.status} {exchange.error.show()}")
    elif status is not MISSING:
        failure = assertions.check(exchange.status, status, "HTTP status")
        if failure:
            return failure
    if not raw and exchange.problem and exchange.events is None:
        return Failure("", exchange.problem)
    if body:
        return assertions.check(exchange.root, body)
    return None


def expect_error(spec: dict[str, Any], exchange: wire.Exchange) -> Failure | None:
    error = exchange.error
    wanted = _aliased(spec.get("error_type", spec.get("code", MISSING)))
    if error is None:
        named = f" ({show(wanted)})" if wanted is not MISSING else ""
        return Failure("error", f"expected an error{named}, got a success answer: {show(exchange.root)}")
    if wanted is not MISSING:
        if isinstance(wanted, int) and not isinstance(wanted, bool):
            failure = assertions.check(error.code, wanted, "error.code")
        else:
            failure = assertions.check(error.type, wanted, "error type")
        if failure:
            return Failure("error type", f"expected {show(wanted)}, got {error.show()}", wanted, error.type)
        if error.problem:
            return Failure("error type", error.problem)
    if "message" in spec:
        failure = assertions.check(error.message, spec["message"], "error.message")
        if failure:
            return failure
    details = spec.get("details", spec.get("data", MISSING))
    if details is not MISSING:
        return assertions.check(error.details, details, "error.details")
    return None


def expect_stream(spec: dict[str, Any], exchange: wire.Exchange, raw: bool) -> Failure | None:
    if exchange.events is None:
        got = exchange.error.show() if exchange.error else f"HTTP {exchange.status} {exchange.text[:200]}"
        return Failure("stream", f"expected a stream, got {got}")
    failure = streams.check(exchange.events, spec, raw)
    if failure:
        return failure
    if exchange.problem:
        return Failure("stream", exchange.problem)
    return None


def step_expectations(step: dict[str, Any], exchange: wire.Exchange, raw: bool) -> Failure | None:
    """The first expectation of the step that fails (specs already rendered)."""
    if exchange.status is None:
        return Failure("", exchange.problem or "no answer")
    if "expect_error" in step:
        return expect_error(step["expect_error"], exchange)
    if "expect" in step:
        failure = expect_block(step["expect"], exchange, raw)
        if failure:
            return failure
    if "expect_stream" in step:
        return expect_stream(step["expect_stream"], exchange, raw)
    if "expect" not in step and not raw and exchange.error is not None:
        return Failure("", f"unexpected error answer: {exchange.error.show()}")
    return None


def captures(capture: dict[str, str], exchange: wire.Exchange) -> tuple[dict[str, Any], Failure | None]:
    values: dict[str, Any] = {}
    for name, path in capture.items():
        value = paths.get(exchange.root, str(path))
        if value is MISSING:
            return values, Failure(str(path), f"capture {name}: {path} is not in the answer")
        values[name] = value
    return values, None


def collection(value: Any, mode: str, match: dict[str, Any], label: str) -> Failure | None:
    """`any` / `all` / `none` of the elements the path reaches (ACTS §5.5)."""
    elements = paths.collect(value, str(match.get("path", "")))
    spec = match.get("match", {})
    held = [assertions.holds(element, spec) for element in elements]
    if mode == "any" and not any(held):
        return Failure(label, f"no element of {match.get('path')} ({len(elements)}) matches {show(spec)}")
    if mode == "all" and not all(held):
        bad = held.index(False)
        failure = assertions.check(elements[bad], spec, f"{match.get('path')}#{bad}")
        return Failure(label, f"not every element of {match.get('path')} matches: {failure.text() if failure else ''}")
    if mode == "none" and any(held):
        return Failure(label, f"an element of {match.get('path')} matches {show(spec)}")
    return None


def named(assertion: dict[str, Any], source: Any) -> Failure | None:
    """A named or inline assertion, its source already resolved to a value."""
    label = str(assertion.get("id") or assertion.get("description") or "assertion")
    value = paths.get(source, str(assertion["path"])) if "path" in assertion else source
    if "match" in assertion:
        failure = assertions.check(value, assertion["match"], str(assertion.get("path", "")))
        if failure:
            return Failure(failure.path, f"{label}: {failure.message}", failure.expected, failure.actual)
    for mode in ("any", "all", "none"):
        if mode in assertion:
            failure = collection(value, mode, assertion[mode], label)
            if failure:
                return failure
    return None
