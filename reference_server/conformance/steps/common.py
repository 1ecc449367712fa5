"""Steps shared by every area: workspaces and callers, keys and versions, success and failure."""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.support.error_views import SPEC_ERRORS
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import Reply, StreamReply, described
from reference_server.conformance.support.target import TARGET_KEY
from reference_server.conformance.world import Situation, World, earlier
from reference_server.model.caller import Workspace

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")  # the server's ids
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")  # design README: RFC 3339, ms, Z
WAIT_SECONDS = 10.0


def wait_until(condition: Callable[[], Any], what: str, timeout: float = WAIT_SECONDS) -> Any:
    """Poll until condition returns something truthy (no fixed sleeps); fail naming `what` after timeout."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f}s waiting for {what}"
        time.sleep(0.02)
    return value


def new_key() -> str:
    return "k_" + secrets.token_hex(16)


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def add_workspace(world: World, owner: str, entries: list[dict[str, Any]]) -> Workspace:
    path = world.root / owner
    path.mkdir(parents=True, exist_ok=True)
    workspace = Workspace(path, owner_id=owner, scope_prefix="spec")
    write_json(workspace.callers_file, entries)
    world.workspaces[owner] = workspace
    world.server.workspaces.add(workspace)
    return workspace


def workspace_of(world: World) -> Workspace:
    assert not world.external, "this step needs the reference server's workspace; tag the scenario accordingly"
    workspace: Workspace = next(iter(world.workspaces.values()))
    return workspace


def reply_of(world: World) -> Reply | StreamReply | None:
    return world.stream if world.reply is None else world.reply


def answer_of(world: World) -> Reply:
    """The last call's answer, or a failure saying what came instead (a stream, or nothing)."""
    reply = world.reply
    assert reply is not None, f"expected an answer, got {described(world.stream)}"
    return reply


def field_of(value: Any, name: str, what: str) -> Any:
    """value[name] of an answer's JSON object, or a failure saying what was expected and what came instead: `what`
    names the value ("a task", "the answer")."""
    assert isinstance(value, dict) and name in value, f"expected {what} with the field {name}, got {shown(value)}"
    return value[name]


@given(parsers.parse('a workspace of "{owner}" with the caller "{name}"'))
def _(world: World, owner: str, name: str) -> None:
    if world.external:  # another server: its own workspace, and the key its owner gave us
        world.caller, world.key = name, TARGET_KEY
        return
    key = new_key()
    add_workspace(world, owner, [{"name": name, "key": key, "mode": "isolated"}])
    world.caller, world.key = name, key
    world.keys[name] = key


@given(parsers.parse('the caller presents the key "{key}"'))
def _(world: World, key: str) -> None:
    world.key = key


@given("the caller presents no key")
def _(world: World) -> None:
    world.key = None


@given(parsers.parse('the caller sends A2A-Version "{version}"'))
def _(world: World, version: str) -> None:
    world.version = version


@then("the call succeeds")
def _(world: World) -> None:
    reply = reply_of(world)
    assert reply is not None and reply.error is None, f"expected success, got {described(reply)}"


def camel(path: str) -> str:
    """A field path in JSON names: message.message_id -> message.messageId."""
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), path)


def assert_fails_with(world: World, name: str) -> None:
    """The last call failed with this error, as the protocol tells it: the JSON-RPC code (§5.4, §9.5), or the HTTP
    status with the ErrorInfo reason of an A2A error (§11.6). This server is held to its error name too."""
    reply = reply_of(world)
    assert reply is not None, f"expected {name}, got {world.sent.unreadable or 'no answer'}"
    error = reply.error
    assert error is not None, f"expected {name}, got success: {reply}"
    if world.ours:
        assert error.name == name, f"expected {name}, got {error}"
    code, status, reason = SPEC_ERRORS[name]
    if world.protocol.binding == "jsonrpc" or (world.protocol.binding == "none" and error.code is not None):
        assert error.code == code, f"expected {name} (JSON-RPC code {code}), got {error}"
        return
    if reason is not None and world.protocol.version == "1.0" and error.reason is not None and not world.ours:
        # A2A §11.6: the ErrorInfo reason names an A2A error; its HTTP status is HTTP_JSON-STATUS-001's to check
        assert error.reason == reason, f"expected {name} (ErrorInfo reason {reason}), got {error}"
        return
    assert error.http_status == status, f"expected {name} (HTTP {status}), got {error}"
    if reason is not None and world.protocol.version == "1.0":  # 0.3 HTTP+JSON defines no error body (A23)
        if error.reason is None and not world.ours:
            pytest.skip(f"expected {name}, and the answer has its HTTP status {status} but no ErrorInfo, so which "
                        f"A2A error it is cannot be told (the missing ErrorInfo is HTTP_JSON-ERR-002's)")
        assert error.reason == reason, f"expected {name} (ErrorInfo reason {reason}), got {error}"


@then(parsers.parse("the call fails with {name}"))
def _(world: World, name: str) -> None:
    assert_fails_with(world, name)


@then(parsers.parse('the error message says "{text}"'))
def _(world: World, text: str) -> None:
    reply = reply_of(world)
    error = reply.error if reply is not None else None
    assert error is not None, f'expected an error whose message says "{text}", got {described(reply)}'
    if world.ours:  # the wording is this server's; another server's error is checked by its code and fields
        assert text in error.message, f'expected the error message to say "{text}", got {error}'


@then(parsers.parse('the error names the field "{field}" because it {reason}'))
def _(world: World, field: str, reason: str) -> None:
    reply = reply_of(world)
    error = reply.error if reply is not None else None
    if error is None and not world.ours:
        unreadable = world.sent.unreadable
        got = f"got no A2A answer ({unreadable})" if unreadable else f"was taken ({described(reply)})"
        pytest.skip(f"the message {got}, so there is no refusal to name a field in (whether it is refused as "
                    "InvalidParams is CORE-ERR-002's)")
    assert error is not None, f'expected an error naming the field "{field}", got {described(reply)}'
    if world.ours:
        assert error.name == "InvalidParams", f"expected InvalidParams, got {error}"
    if not world.asserts("should"):
        return  # A2A §3.3.2: naming the field that failed validation is a SHOULD
    assert all(isinstance(v, dict) for v in error.violations), \
        f"expected the field violations of a google.rpc.BadRequest, got {shown(error.violations)}: {error}"
    found: dict[str, Any] = {}
    for violation in error.violations:
        named = violation.get("field")
        found[named if isinstance(named, str) else shown(named)] = violation.get("description", "")
    if not world.ours:  # google.rpc.BadRequest names a field by its proto name or its JSON name: both name it
        found = {camel(name): text for name, text in found.items()}
    assert field in found, (f'expected the error to name the field "{field}" among its field violations '
                            f"(google.rpc.BadRequest), got {violations_said(found)}: {error}")
    if world.ours:  # the wording of the reason is this server's
        assert reason in found[field], (f'expected the violation of "{field}" to say "{reason}", '
                                        f'got {shown(found[field])}')


def violations_said(found: dict[str, Any]) -> str:
    """The field violations of an error, in a line: "none", or each field with its description."""
    if not found:
        return "none"
    return "; ".join(f'"{name}": {shown(text)}' for name, text in found.items())


@then("the call is refused as unauthenticated")
def _(world: World) -> None:
    # A2A §3.3.2: missing or invalid credentials MUST be refused; HTTP says so with 401 on both bindings
    reply = reply_of(world)
    assert reply is not None and reply.error is not None, \
        f"expected a refusal as unauthenticated (HTTP 401), got {described(reply)}"
    assert reply.http_status == 401, f"expected a refusal as unauthenticated with HTTP 401, got {reply.error}"
    if world.ours:  # this server's name for it (JSON-RPC -32000) and its challenge (a SHOULD of its own scenario)
        assert reply.error.name == "Unauthenticated", f"expected Unauthenticated, got {reply.error}"
        headers = getattr(reply, "headers", None)
        if headers is not None:
            assert "WWW-Authenticate" in headers, "expected a WWW-Authenticate challenge with the 401, got none"


@when(parsers.re(r"the caller calls (?P<operation>[A-Z][A-Za-z]+)$"))
def _(world: World, operation: str) -> None:
    every: dict[str, dict[str, Any]] = {
        "SendMessage": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
        "SendStreamingMessage": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
        "GetTask": {"id": "00000000-0000-4000-8000-000000000000"},
        "ListTasks": {},
        "CancelTask": {"id": "00000000-0000-4000-8000-000000000000"},
        "SubscribeToTask": {"id": "00000000-0000-4000-8000-000000000000"},
        "GetExtendedAgentCard": {},
    }
    params = every[operation]
    client = world.client()
    world.reply = None
    world.situation = Situation((operation, params))
    if operation in ("SendStreamingMessage", "SubscribeToTask"):
        world.stream = client.stream(operation, params)
    else:
        world.reply = client.call(operation, params)


@then("the other binding refuses the call as unauthenticated exactly when this one does")
def _(world: World) -> None:
    # A2A §5.1: every binding supports the same authentication schemes the card declares; whether the call is
    # refused at all is AUTH-SERVER-002's, so a server that refuses it on neither binding is alike here
    other = {"jsonrpc": "rest", "rest": "jsonrpc"}[world.protocol.binding]
    if other not in world.server_bindings():
        pytest.skip(f"the server's card offers no {other} interface in A2A {world.protocol.version}: a second binding "
                    "is needed to compare")
    here = reply_of(world)
    there = world.on_binding(other, earlier(world.situation, "a call made on purpose").call)

    def refused(reply: Reply | StreamReply | None) -> bool:
        return reply is not None and reply.error is not None and reply.http_status == 401

    assert refused(here) == refused(there), \
        f"expected {other} to refuse the call as unauthenticated exactly when {world.protocol.binding} does; " \
        f"{world.protocol.binding} answered {described(here)}, {other} {described(there)}"


@then(parsers.parse('a warning names {what} but not the key'))
def _(world: World, caplog: pytest.LogCaptureFixture, what: str) -> None:
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings, "expected a warning in the server's log, got none"
    joined = "\n".join(warnings)
    for key in [k for k in [world.key, *world.keys.values()] if k]:
        assert key not in joined, "expected no caller's key in a log line, but a warning holds one"
    if what.startswith('the owners "'):
        owners = what.removeprefix('the owners "').removesuffix('"')
        assert f"(owners: {owners})" in joined, f'expected a warning naming "(owners: {owners})", got:\n{joined}'
    elif what == "the callers file":
        path = workspace_of(world).callers_file
        assert str(path) in joined, f"expected a warning naming the callers file {path}, got:\n{joined}"
    elif what == "the card file":
        path = workspace_of(world).card_file
        assert str(path) in joined, f"expected a warning naming the card file {path}, got:\n{joined}"
    else:
        raise AssertionError(f'the suite knows no warning subject "{what}"')
