"""Steps about the shape of an error on each binding, as A2A v1.0.1 defines it: a JSON-RPC error object (§9.5), a
google.rpc.Status (§11.6), the codes and statuses of §5.4, and the ErrorInfo of an A2A error."""

from __future__ import annotations

from typing import Any

from pytest_bdd import parsers, then

from steps.common import reply_of

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def the_error(world: Any) -> Any:
    error = reply_of(world).error
    assert error is not None, f"expected an error, got {getattr(reply_of(world), 'body', None)}"
    return error


def details_of(world: Any) -> list[Any]:
    """The error's details: JSON-RPC error.data, HTTP+JSON error.details."""
    raw = the_error(world).raw
    inner = raw.get("error", {}) if isinstance(raw, dict) else {}
    return inner.get("data" if world.protocol.binding == "jsonrpc" else "details") or []


@then("the error has a message")
def _(world: Any) -> None:
    # A2A §3.3.2: every error conveys a human-readable message
    assert the_error(world).message.strip(), the_error(world).raw


@then("the error is a JSON-RPC error object whose data, if any, is a list of objects with an @type")
def _(world: Any) -> None:
    raw = the_error(world).raw
    error = raw["error"]
    assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str), raw  # JSON-RPC 2.0 §5.1
    if "data" in error:  # A2A §9.5: error.data is an array of objects, each with its @type
        assert isinstance(error["data"], list), f"error.data is not a list: {error['data']!r}"
        for detail in error["data"]:
            assert isinstance(detail, dict) and isinstance(detail.get("@type"), str), f"no @type in {detail}"


@then("the error's JSON-RPC code is between -32099 and -32001")
def _(world: Any) -> None:
    code = the_error(world).code
    assert isinstance(code, int) and -32099 <= code <= -32001, f"the code {code}"


@then(parsers.parse("the error's JSON-RPC code is {code:d}"))
def _(world: Any, code: int) -> None:
    assert the_error(world).code == code, f"the code {the_error(world).code}, not {code}"


@then(parsers.parse('the error\'s details hold an ErrorInfo with the reason {reason} and the domain "{domain}"'))
def _(world: Any, reason: str, domain: str) -> None:
    infos = [d for d in details_of(world) if isinstance(d, dict) and d.get("@type") == ERROR_INFO]
    assert infos, f"no google.rpc.ErrorInfo among the details: {details_of(world)}"
    assert [(i.get("reason"), i.get("domain")) for i in infos] == [(reason, domain)], infos


@then(parsers.parse("the answer is a google.rpc.Status whose code is its HTTP status {status:d}"))
def _(world: Any, status: int) -> None:
    reply = world.reply
    assert reply.http_status == status, f"HTTP {reply.http_status}"
    body = reply.raw
    error = body.get("error") if isinstance(body, dict) else None
    assert isinstance(error, dict), f"not a google.rpc.Status: {body!r}"  # A2A §11.6 (AIP-193)
    assert error.get("code") == status, f"error.code {error.get('code')} is not the HTTP status {status}"
    assert isinstance(error.get("status"), str) and error["status"], f"no status name: {error}"
    assert isinstance(error.get("message"), str), f"no message: {error}"
    for detail in error.get("details") or []:
        assert isinstance(detail, dict) and isinstance(detail.get("@type"), str), f"a detail without @type: {detail}"


@then(parsers.parse("the answer's HTTP status is {status:d}"))
def _(world: Any, status: int) -> None:
    reply = reply_of(world)
    assert reply.http_status == status, f"HTTP {reply.http_status}: {getattr(reply.error, 'raw', None)}"


@then(parsers.parse('the answer\'s content type is "{media}"'))
def _(world: Any, media: str) -> None:
    headers = world.reply.headers
    assert headers is not None and headers.get("content-type", "").startswith(media), headers
