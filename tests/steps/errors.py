"""Steps about the shape of an error on each binding, as A2A v1.0.1 defines it: a JSON-RPC error object (§9.5), a
google.rpc.Status (§11.6), the codes and statuses of §5.4, and the ErrorInfo of an A2A error."""

from __future__ import annotations

from typing import Any

from pytest_bdd import parsers, then
from support.exchanges import shown

from steps.common import described, reply_of

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def the_error(world: Any) -> Any:
    reply = reply_of(world)
    error = reply.error if reply is not None else None
    assert error is not None, f"expected an error, got {described(reply)}"
    return error


def details_of(world: Any) -> list[Any]:
    """The error's details: JSON-RPC error.data, HTTP+JSON error.details."""
    raw = the_error(world).raw
    inner = raw.get("error", {}) if isinstance(raw, dict) else {}
    if not isinstance(inner, dict):
        return []
    return inner.get("data" if world.protocol.binding == "jsonrpc" else "details") or []


@then("the error has a message")
def _(world: Any) -> None:
    # A2A §3.3.2: every error conveys a human-readable message
    error = the_error(world)
    assert error.message.strip(), f"expected the error to have a message, got {error}: {shown(error.raw)}"


@then("the error is a JSON-RPC error object whose data, if any, is a list of objects with an @type")
def _(world: Any) -> None:
    raw = the_error(world).raw
    error = raw.get("error") if isinstance(raw, dict) else None
    assert isinstance(error, dict), f"expected a JSON-RPC error object, got {shown(raw)}"
    # JSON-RPC 2.0 §5.1
    assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str), \
        f"expected a JSON-RPC error object with a numeric code and a message, got {shown(raw)}"
    if "data" in error:  # A2A §9.5: error.data is an array of objects, each with its @type
        assert isinstance(error["data"], list), f"expected error.data to be a list, got {shown(error['data'])}"
        for detail in error["data"]:
            assert isinstance(detail, dict) and isinstance(detail.get("@type"), str), \
                f"expected every object of error.data to have its @type, got {shown(detail)}"


@then("the error's JSON-RPC code is between -32099 and -32001")
def _(world: Any) -> None:
    error = the_error(world)
    code = error.code
    assert isinstance(code, int) and -32099 <= code <= -32001, \
        f"expected a JSON-RPC code between -32099 and -32001, got {error}"


@then(parsers.parse("the error's JSON-RPC code is {code:d}"))
def _(world: Any, code: int) -> None:
    error = the_error(world)
    assert error.code == code, f"expected the JSON-RPC code {code}, got {error}"


@then(parsers.parse('the error\'s details hold an ErrorInfo with the reason {reason} and the domain "{domain}"'))
def _(world: Any, reason: str, domain: str) -> None:
    details = details_of(world)
    infos = [d for d in details if isinstance(d, dict) and d.get("@type") == ERROR_INFO]
    assert infos, f"expected a google.rpc.ErrorInfo among the error's details, got {shown(details)}"
    assert [(i.get("reason"), i.get("domain")) for i in infos] == [(reason, domain)], \
        f'expected one ErrorInfo with the reason {reason} and the domain "{domain}", got {shown(infos)}'


@then(parsers.parse("the answer is a google.rpc.Status whose code is its HTTP status {status:d}"))
def _(world: Any, status: int) -> None:
    reply = world.reply
    assert reply is not None, f"expected a google.rpc.Status with HTTP {status}, got no answer"
    assert reply.http_status == status, f"expected HTTP {status}, got HTTP {reply.http_status}: {reply}"
    body = reply.raw
    error = body.get("error") if isinstance(body, dict) else None
    # A2A §11.6 (AIP-193)
    assert isinstance(error, dict), f"expected a google.rpc.Status ({{\"error\": {{…}}}}), got {shown(body)}"
    assert error.get("code") == status, \
        f"expected error.code to be the HTTP status {status}, got {shown(error.get('code'))}"
    assert isinstance(error.get("status"), str) and error["status"], \
        f"expected error.status to name the status, got {shown(error)}"
    assert isinstance(error.get("message"), str), f"expected error.message, got {shown(error)}"
    for detail in error.get("details") or []:
        assert isinstance(detail, dict) and isinstance(detail.get("@type"), str), \
            f"expected every detail to have its @type, got {shown(detail)}"


@then(parsers.parse("the answer's HTTP status is {status:d}"))
def _(world: Any, status: int) -> None:
    reply = reply_of(world)
    assert reply is not None, f"expected HTTP {status}, got no answer"
    assert reply.http_status == status, f"expected HTTP {status}, got HTTP {reply.http_status}: {reply}"


@then(parsers.parse('the answer\'s content type is "{media}"'))
def _(world: Any, media: str) -> None:
    reply = world.reply
    headers = reply.headers if reply is not None else None
    assert headers is not None and headers.get("content-type", "").startswith(media), \
        f'expected the content type "{media}", got ' + (
            headers.get("content-type") or "none" if headers is not None else described(reply))
