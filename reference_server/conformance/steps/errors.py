"""Steps about the shape of an error on each binding, as A2A v1.0.1 defines it: a JSON-RPC error object (§9.5), a
google.rpc.Status (§11.6), the codes and statuses of §5.4, and the ErrorInfo of an A2A error."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_bdd import parsers, then

from reference_server.conformance.steps.common import reply_of
from reference_server.conformance.support.error_views import SPEC_ERRORS
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import ErrorView, Reply, described
from reference_server.conformance.world import World, earlier

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def the_error(world: World) -> ErrorView:
    reply = reply_of(world)
    error = reply.error if reply is not None else None
    assert error is not None, f"expected an error, got {described(reply)}"
    return error


def details_of(world: World) -> list[Any]:
    """The error's details: JSON-RPC error.data, HTTP+JSON error.details."""
    raw = the_error(world).raw
    inner = raw.get("error", {}) if isinstance(raw, dict) else {}
    if not isinstance(inner, dict):
        return []
    details = inner.get("data" if world.protocol.binding == "jsonrpc" else "details")
    return [details] if isinstance(details, dict) else details or []  # an object for the list: JSONRPC-ERR-001's


@then("the error has a message")
def _(world: World) -> None:
    # A2A §3.3.2: every error conveys a human-readable message
    error = the_error(world)
    assert error.message.strip(), f"expected the error to have a message, got {error}: {shown(error.raw)}"


@then("the error is a JSON-RPC error object whose data, if any, is a list of objects with an @type")
def _(world: World) -> None:
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
def _(world: World) -> None:
    error = the_error(world)
    not_an_a2a_error(world)
    code = error.code
    assert isinstance(code, int) and -32099 <= code <= -32001, \
        f"expected a JSON-RPC code between -32099 and -32001, got {error}"


@then(parsers.parse("the error's JSON-RPC code is {code:d}"))
def _(world: World, code: int) -> None:
    error = the_error(world)
    assert error.code == code, f"expected the JSON-RPC code {code}, got {error}"


@then(parsers.parse('the error\'s details hold an ErrorInfo with the reason {reason} and the domain "{domain}"'))
def _(world: World, reason: str, domain: str) -> None:
    details = details_of(world)
    infos = [d for d in details if isinstance(d, dict) and d.get("@type") == ERROR_INFO]
    assert infos, f"expected a google.rpc.ErrorInfo among the error's details, got {shown(details)}"
    assert [(i.get("reason"), i.get("domain")) for i in infos] == [(reason, domain)], \
        f'expected one ErrorInfo with the reason {reason} and the domain "{domain}", got {shown(infos)}'


@then("the answer is a google.rpc.Status whose code is its HTTP status")
def _(world: World) -> None:
    # A2A §11.6 (AIP-193): whatever the error, its body is a google.rpc.Status carrying its own HTTP status
    reply = world.reply
    assert reply is not None and reply.error is not None, f"expected an error, got {described(reply)}"
    is_status(reply, reply.http_status)


@then(parsers.parse("the answer is a google.rpc.Status whose code is its HTTP status {status:d}"))
def _(world: World, status: int) -> None:
    reply = world.reply
    assert reply is not None, f"expected a google.rpc.Status with HTTP {status}, got no answer"
    assert reply.http_status == status, f"expected HTTP {status}, got HTTP {reply.http_status}: {reply}"
    is_status(reply, status)


def is_status(reply: Reply, status: int) -> None:
    """The answer's body is a google.rpc.Status (A2A §11.6, AIP-193) whose code is this HTTP status."""
    body = reply.raw
    error = body.get("error") if isinstance(body, dict) else None
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
def _(world: World, status: int) -> None:
    reply = reply_of(world)
    assert reply is not None, f"expected HTTP {status}, got no answer"
    assert reply.http_status == status, f"expected HTTP {status}, got HTTP {reply.http_status}: {reply}"


@then(parsers.parse('the answer\'s content type is "{media}"'))
def _(world: World, media: str) -> None:
    reply = world.reply
    headers = reply.headers if reply is not None else None
    assert headers is not None and headers.get("content-type", "").startswith(media), \
        f'expected the content type "{media}", got ' + (
            headers.get("content-type") or "none" if headers is not None else described(reply))


# --- which error an answer is, told apart from how the binding says it (one defect, one failure) ---

REASON_OF = {name: reason for name, (_, _, reason) in SPEC_ERRORS.items() if reason}  # A2A §5.4
NAME_OF_REASON = {reason: name for name, reason in REASON_OF.items()}
NAME_OF_CODE = {code: name for name, (code, _, _) in SPEC_ERRORS.items()}
JSONRPC_CODES = {code for code, _, _ in SPEC_ERRORS.values()}


def named_error(world: World) -> str | None:
    """The A2A error an answer says it is: by its ErrorInfo reason when it has one (both bindings), else by its
    JSON-RPC code; None when neither names one."""
    error = the_error(world)
    if error.reason in NAME_OF_REASON:
        return NAME_OF_REASON[error.reason]
    return NAME_OF_CODE.get(error.code) if error.code is not None else None


def meant_error(world: World) -> str:
    """The error the answer names, or, when it names none, the one its situation calls for: a mapping table is
    checked against what the server says the error is, so that picking another error is its operation's failure
    (CORE-GET-002, …), not the table's."""
    named = named_error(world)
    if named is not None:
        return named
    situation = earlier(world.situation, "an error caused on purpose")
    assert situation.error is not None, "expected the scenario to name the error its situation causes, it names none"
    return situation.error


JSONRPC_OWN = {-32700, -32600, -32601, -32602, -32603}  # JSON-RPC 2.0's own errors, not A2A's (§9.5)


def not_an_a2a_error(world: World) -> None:
    """A scenario about what an A2A error carries cannot be observed when the situation got a JSON-RPC 2.0 error of
    its own (InvalidParams, …) or an ErrorInfo naming no A2A error: whether the situation calls for an A2A error is
    its operation's requirement (CORE-SEND-002, …), so here it is n/a, with the error that came."""
    error = the_error(world)
    own = error.code in JSONRPC_OWN if world.protocol.binding == "jsonrpc" else (
        error.reason is not None and error.reason not in NAME_OF_REASON)
    if own:
        pytest.skip(f"the answer is {error}, not an A2A error, so what an A2A error carries cannot be seen here "
                    "(which error this situation calls for is its operation's requirement)")


def google_status(raw: Any) -> dict[str, Any] | None:
    error = raw.get("error") if isinstance(raw, dict) else None
    return error if isinstance(error, dict) and isinstance(error.get("status"), str) else None


@then("the call is refused with an error in the binding's own terms")
def _(world: World) -> None:
    # A2A §3.3.2: an error says which error it is, in the binding's terms: a JSON-RPC code of JSON-RPC 2.0 or of
    # A2A's table (§9.5), or a google.rpc.Status (§11.6)
    error = the_error(world)
    if world.protocol.binding == "jsonrpc":
        assert error.code in JSONRPC_CODES, f"expected a JSON-RPC code of JSON-RPC 2.0 or of A2A, got {error}"
    else:
        assert google_status(error.raw) is not None, f"expected a google.rpc.Status, got {error}: {shown(error.raw)}"


@then("the call fails the same way on the other binding")
def _(world: World) -> None:
    # A2A §5.1: every binding maps an error to its own code for it, and it is the same error
    here = named_error(world) or the_error(world).name
    other = {"jsonrpc": "rest", "rest": "jsonrpc"}[world.protocol.binding]
    if other not in world.server_bindings():
        pytest.skip(f"the server's card offers no {other} interface in A2A {world.protocol.version}: a second binding "
                    "is needed to compare")
    saved = world.reply
    world.reply = world.on_binding(other, earlier(world.situation, "a call made on purpose").call)
    there = named_error(world) if world.reply.error is not None else None
    reply, world.reply = world.reply, saved
    assert reply.error is not None, f"expected {here} on {other} as well, got {described(reply)}"
    unnamed = [(binding, e) for binding, e in ((world.protocol.binding, the_error(world)), (other, reply.error))
               if binding == "rest" and world.protocol.version == "1.0" and e.reason is None]
    if unnamed and not world.ours:
        expected = (world.situation.error if world.situation is not None else None) or here
        wrong = [(b, e) for b, e in unnamed if e.http_status != SPEC_ERRORS.get(expected, (0, e.http_status))[1]]
        assert not wrong, f"expected {expected} on {wrong[0][0]}, got {wrong[0][1]}"
        pytest.skip(f"the HTTP+JSON answer has the HTTP status of {expected} and no ErrorInfo, so which A2A error "
                    "it is cannot be told (the missing ErrorInfo is HTTP_JSON-ERR-002's)")
    assert there == here or (there is None and reply.error.name == here), \
        f"expected {here} on {other} as well, got {reply.error}"


@then(parsers.parse("the call is served as A2A {version}"))
def _(world: World, version: str) -> None:
    # A2A §3.6.2: a request is served with the semantics of the version it names; a refusal of the version, or a
    # method that version does not have, means it was read as another
    reply = reply_of(world)
    assert reply is not None, "expected an answer, got none"
    error = reply.error
    if error is None:
        return
    assert named_error(world) != "VersionNotSupported", f"expected the call served as A2A {version}, got {error}"
    assert error.code != -32601 and error.reason != "METHOD_NOT_FOUND", \
        f"expected the call served as A2A {version}, got {error}: its method was not found"


@then("the call is answered as an A2A operation")
def _(world: World) -> None:
    # served in the binding's terms: a result, or an A2A error (a JSON-RPC error object that is not "no such method";
    # an HTTP+JSON google.rpc.Status naming an A2A error, or, without an ErrorInfo, the status of a task not found)
    reply = reply_of(world)
    assert reply is not None, "expected an answer, got none"
    error = reply.error
    if error is None:
        return
    if world.protocol.binding == "jsonrpc":
        assert error.code is not None and error.code != -32601, f"expected the method to be served, got {error}"
        return
    status = google_status(error.raw)
    assert status is not None, f"expected an A2A answer (a google.rpc.Status), got {error}: {shown(error.raw)}"
    assert error.reason in NAME_OF_REASON or (error.reason is None and error.http_status == 404), \
        f"expected the route to be served (a result, or an A2A error), got {error}"


@then(parsers.parse('the error\'s details hold the ErrorInfo of its error and the domain "{domain}"'))
def _(world: World, domain: str) -> None:
    # A2A §9.5, §11.6: an A2A error's details hold a google.rpc.ErrorInfo with its reason and the A2A domain; on
    # JSON-RPC the reason is the one of the error its code names
    not_an_a2a_error(world)
    infos = [d for d in details_of(world) if isinstance(d, dict) and d.get("@type") == ERROR_INFO]
    assert infos, f"expected a google.rpc.ErrorInfo among the details, got {shown(details_of(world))}"
    (info, *more) = infos
    assert not more, f"expected one google.rpc.ErrorInfo, got {shown(infos)}"
    assert info.get("domain") == domain, f'expected the domain "{domain}", got {shown(info)}'
    error = the_error(world)
    named = NAME_OF_CODE.get(error.code) if error.code is not None else None
    if world.protocol.binding == "jsonrpc" and named is not None and named in REASON_OF:
        expected = REASON_OF[named]
        assert info.get("reason") == expected, \
            f"expected the reason {expected} of the code {error.code}, got {shown(info)}"
    else:
        assert info.get("reason") in NAME_OF_REASON, f"expected the reason of an A2A error, got {shown(info)}"


@then("the error's JSON-RPC code is the one the mapping table gives its error")
def _(world: World) -> None:
    # A2A §5.4: each A2A error has its JSON-RPC code
    name = meant_error(world)
    expected = SPEC_ERRORS[name][0]
    assert the_error(world).code == expected, f"expected {name}'s code {expected}, got {the_error(world)}"


@then("the answer's HTTP status is the one the mapping table gives its error")
def _(world: World) -> None:
    # A2A §5.4 (v1.0.1): each A2A error has its HTTP status
    name = meant_error(world)
    expected = SPEC_ERRORS[name][1]
    reply = reply_of(world)
    assert reply is not None, f"expected {name}'s HTTP status {expected}, got no answer"
    got = reply.http_status
    assert got == expected, f"expected {name}'s HTTP status {expected}, got HTTP {got}: {the_error(world)}"
