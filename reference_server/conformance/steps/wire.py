"""Steps about the bindings themselves: versions, JSON-RPC envelopes, REST routes, requests made by hand (the error
table is steps/error_table.py, the reader's limits steps/limits.py)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.capabilities import capability
from reference_server.conformance.steps.common import answer_of, field_of
from reference_server.conformance.steps.tasks import task_id, text_message
from reference_server.conformance.support.answers import MALFORMED
from reference_server.conformance.support.exchanges import body_text, shown
from reference_server.conformance.support.raw import raw_request
from reference_server.conformance.support.replies import Reply, json_of
from reference_server.conformance.support.schemas import assert_valid
from reference_server.conformance.world import World, earlier


@given(parsers.parse('the caller sends A2A-Version "{version}" as a query parameter only'))
def _(world: World, version: str) -> None:
    world.version = version
    world.version_in_query = True


@given("the caller sends no A2A-Version")
def _(world: World) -> None:
    world.version = ""


@when(parsers.parse('the caller calls the 0.3 method "{method}"'))
def _(world: World, method: str) -> None:
    _call_v03(world, method, world.version)


@when(parsers.parse('the caller calls the 0.3 method "{method}" as A2A 1.0'))
def _(world: World, method: str) -> None:
    _call_v03(world, method, "1.0")


def _call_v03(world: World, method: str, sent_version: str | None) -> None:
    client = world.client(version="0.3")
    client.sent_version = sent_version or ""
    request_id = client.next_id()
    response = world.http.post(world.jsonrpc_path, json={"jsonrpc": "2.0", "id": request_id, "method": method},
                               headers=client.headers())
    world.reply = client.jsonrpc_reply(response, None, request_id)


@when(parsers.parse("the caller posts the JSON-RPC body {body}"))
def _(world: World, body: str) -> None:
    client = world.client()
    response = world.http.post(world.jsonrpc_path, content=body.encode(), headers={**client.headers(),
                                                                       "Content-Type": "application/json"})
    sent = _sent_id(body)
    envelope = _as_json(body)
    # JSON-RPC 2.0 §4: a request object has jsonrpc "2.0", a method, and an id that is a string, a number or null
    valid = isinstance(envelope, dict) and envelope.get("jsonrpc") == "2.0" \
        and isinstance(envelope.get("method"), str) and sent == envelope.get("id")
    world.reply = client.jsonrpc_reply(response, None, sent if valid else MALFORMED)


def _as_json(body: str) -> Any:
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        return None


def _sent_id(body: str) -> Any:
    try:
        payload = json.loads(body)
    except json.JSONDecodeError:
        return None
    if isinstance(payload, dict):
        value = payload.get("id")
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
    return None


def raw_jsonrpc(world: World, method: str, params: dict[str, Any], request_id: Any, path: str | None = None) -> Reply:
    """A JSON-RPC request made by hand (its id as given), read as the client reads an answer."""
    client = world.client()
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    response = world.http.post(path or world.jsonrpc_path, json=body, headers=client.headers())
    reply: Reply = client.jsonrpc_reply(response, method, request_id)
    return reply


@when(parsers.parse("the caller fetches the extended agent card with the JSON-RPC id {request_id}"))
def _(world: World, request_id: str) -> None:
    world.reply = raw_jsonrpc(world, "GetExtendedAgentCard", {}, json.loads(request_id))


@when(parsers.parse("the caller sends a message with the JSON-RPC id {request_id}"))
def _(world: World, request_id: str) -> None:
    # SendMessage: the one operation every server answers with a result (A2A §3.1.1)
    message = {**text_message("A message of the conformance suite")}
    world.reply = raw_jsonrpc(world, "SendMessage", {"message": message}, json.loads(request_id))


@when(parsers.parse('the caller gets the task "{task_id}" with the JSON-RPC id "{request_id}"'))
def _(world: World, task_id: str, request_id: str) -> None:
    world.reply = raw_jsonrpc(world, "GetTask", {"id": task_id}, request_id)


@then(parsers.parse("the answer carries the JSON-RPC id {request_id}"))
def _(world: World, request_id: str) -> None:
    expected = json.loads(request_id)
    reply = world.reply
    assert reply is not None, f"expected an answer with the JSON-RPC id {request_id}, got no answer"
    got = field_of(reply.raw, "id", "a JSON-RPC response")
    assert got == expected and type(got) is type(expected), \
        f"expected the JSON-RPC id {request_id}, the id as sent, got {shown(got)}"


@when(parsers.parse('the caller fetches the extended agent card at "{path}"'))
def _(world: World, path: str) -> None:
    world.reply = raw_jsonrpc(world, "GetExtendedAgentCard", {}, 1, path)



@when(parsers.re(r"the caller requests (?P<verb>GET|POST|PUT|PATCH|DELETE) (?P<route>/\S*)$"))
def _(world: World, verb: str, route: str) -> None:
    client = world.client()
    response = world.http.request(verb, world.rest_prefix + route, headers=client.headers())
    if response.status_code != 200:
        world.reply = client.rest_reply(response, None)
    else:
        world.reply = Reply(200, body=json_of(response, f"{verb} {route}"), headers=response.headers)


@when(parsers.parse('the caller sends "{text}" in the 0.3 proto shape'))
def _(world: World, text: str) -> None:
    """The body the Python SDK's 0.3 HTTP+JSON transport sends (REAL-CLIENTS §4.5), answered in the same proto."""
    assert world.protocol.binding == "rest", "the 0.3 proto shape is the 0.3 HTTP+JSON body"
    client = world.client()
    body = {"request": {"message_id": str(uuid.uuid4()), "role": "ROLE_USER", "content": [{"text": text}]},
            "configuration": {"blocking": True}}
    response = world.http.post(world.rest_prefix + "/message:send", json=body, headers=client.headers())
    world.reply = (Reply(200, body=json_of(response, "SendMessage"), headers=response.headers)
                   if response.status_code == 200 else client.rest_reply(response, None))


@then("the answer is in the 0.3 proto shape")
def _(world: World) -> None:
    body = answer_of(world).body
    assert_valid(body, "urn:a2a:v0.3-proto#/$defs/SendMessageResponse")
    task = body["task"]
    assert task["status"]["state"].startswith("TASK_STATE_"), \
        f"expected a proto enum name (TASK_STATE_…), got the status {shown(task['status'])}"
    assert all("content" in m and "parts" not in m for m in task["history"]), \
        f"expected every message of the history with content, not parts, got {shown(task['history'])}"
    assert all("kind" not in m for m in task["history"]), \
        f"expected no kind in the messages of the history, got {shown(task['history'])}"


def _extended_card_as_declared(world: World) -> None:
    reply = answer_of(world)
    if capability(world, "extendedAgentCard"):
        assert reply.http_status == 200, \
            f"expected HTTP 200 and the extended card, which the card declares, got HTTP {reply.http_status}: {reply}"
        assert_valid(reply.body, "urn:a2a:v1#/$defs/AgentCard")
    else:
        assert (reply.http_status, reply.error and reply.error.reason) == (400, "UNSUPPORTED_OPERATION"), (
            f"expected UnsupportedOperation (HTTP 400, reason UNSUPPORTED_OPERATION), as the card declares no "
            f"extended card, got HTTP {reply.http_status}: {reply}")


@then(parsers.parse("the answer is HTTP {status:d} {outcome}"))
def _(world: World, status: int, outcome: str) -> None:
    reply = world.reply
    assert reply is not None, f"expected HTTP {status} {outcome}, got no answer"
    if outcome == "as the card declares it":
        return _extended_card_as_declared(world)
    assert reply.http_status == status, f"expected HTTP {status} {outcome}, got HTTP {reply.http_status}: {reply}"
    if outcome == "for the missing message":  # A2A §3.3.2: a validation error; naming the field is a SHOULD
        assert reply.error is not None, f"expected an error for the missing message, got {reply}"
        if world.ours:
            fields = [v.get("field") for v in reply.error.violations]
            assert "message" in fields, \
                f'expected the error to name the field "message", got the fields {shown(fields)}: {reply.error}'
    elif outcome.startswith("naming the field"):
        field = outcome.split('"')[1]
        assert reply.error is not None, f'expected an error naming the field "{field}", got {reply}'
        fields = [v.get("field") for v in reply.error.violations]
        assert field in fields, f'expected the error to name the field "{field}", got the fields {shown(fields)}'
    elif outcome.startswith("with reason"):
        reason = outcome.split()[-1]
        assert reply.error is not None and reply.error.reason == reason, \
            f"expected an error with the ErrorInfo reason {reason}, got {reply}"
    elif outcome.startswith("with the status"):
        expected = outcome.split()[-1]
        error = reply.raw.get("error") if isinstance(reply.raw, dict) else None
        got = error.get("status") if isinstance(error, dict) else None
        assert got == expected, f"expected a google.rpc.Status with the status {expected}, got {shown(reply.raw)}"
    elif outcome == "with a task list":  # the route answers; the list's whole shape is every answer's check
        world.check(reply.body, "urn:a2a:v1#/$defs/ListTasksResponse", "ListTasks")
        assert isinstance(reply.body, dict) and isinstance(reply.body.get("tasks", []), list), \
            f"expected a task list, got {shown(reply.body)}"
    elif outcome == "with an agent card":
        world.check(reply.body, "urn:a2a:v1#/$defs/AgentCard", "GetExtendedAgentCard")
        assert isinstance(reply.body, dict) and reply.body.get("name"), \
            f"expected an agent card, got {shown(reply.body)}"
    elif outcome == "as the card declares it":  # A2A §3.3.4: the card, or UnsupportedOperation without the capability
        return _extended_card_as_declared(world)
    elif outcome == "with a 0.3 agent card":  # the 0.3 proto's AgentCard, in ProtoJSON
        assert_valid(reply.body, "urn:a2a:v0.3-proto#/$defs/AgentCard")
        assert reply.body["protocolVersion"].startswith("0.3"), \
            f"expected the protocol version 0.3, got {shown(reply.body['protocolVersion'])}"
        assert reply.body["supportsAuthenticatedExtendedCard"] is True, \
            f"expected supportsAuthenticatedExtendedCard true, got {shown(reply.body)}"
    else:
        raise AssertionError(f'the suite knows no outcome "{outcome}"')



@when("the caller sends a GET to the JSON-RPC endpoint")
def _(world: World) -> None:
    client = world.client()
    response = world.http.get(world.jsonrpc_path, headers=client.headers())
    assert response.status_code == 405 and response.headers.get("Allow") == "POST", \
        f"expected HTTP 405 with Allow: POST, got HTTP {response.status_code} with Allow: " \
        f"{response.headers.get('Allow') or '(none)'}"
    world.reply = client.jsonrpc_reply(response, None, None)


@when("the caller posts a JSON-RPC body that is not UTF-8")
def _(world: World) -> None:
    client = world.client()
    body = '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "é"}}'.encode("latin-1")
    response = world.http.post(world.jsonrpc_path, content=body,
                               headers={**client.headers(), "Content-Type": "application/json"})
    world.reply = client.jsonrpc_reply(response, None, None)


@when(parsers.re(r"the caller requests (?P<verb>GET|POST|PUT|PATCH|DELETE) on the server path (?P<path>\S+)$"))
def _(world: World, verb: str, path: str) -> None:
    client = world.client()
    answer = raw_request(world.server.url, verb, path, client.headers())  # the path byte for byte
    world.raw = answer
    response = httpx.Response(answer.status, headers=answer.headers, content=answer.body)
    if answer.status == 200:
        world.reply = Reply(200, body=answer.json())
    elif "jsonrpc" not in answer.json():  # a google.rpc.Status, validated as the REST binding's error
        world.reply = client.rest_reply(response, None)


@then("the server refuses it as unauthenticated")
def _(world: World) -> None:
    answer = earlier(world.raw, "a request sent byte for byte")
    assert answer.status == 401, \
        f"expected HTTP 401, got HTTP {answer.status}: {body_text(answer.body, 'application/json')}"
    assert "WWW-Authenticate" in httpx.Headers(answer.headers), \
        "expected a WWW-Authenticate challenge with the 401, got none"
    body = answer.json()
    if "jsonrpc" in body:  # the JSON-RPC endpoint answers in its own envelope
        assert "No API key" in body["error"]["message"], f'expected the message to say "No API key", got {shown(body)}'
    else:
        assert body["error"]["status"] == "UNAUTHENTICATED", f"expected the status UNAUTHENTICATED, got {shown(body)}"


@then("the server knows no such route")
def _(world: World) -> None:
    answer = earlier(world.raw, "a request sent byte for byte")
    assert answer.status == 404, \
        f"expected HTTP 404, got HTTP {answer.status}: {body_text(answer.body, 'application/json')}"
    assert answer.json()["error"]["status"] == "NOT_FOUND", \
        f"expected the status NOT_FOUND, got {body_text(answer.body, 'application/json')}"


@when("the caller cancels the task with an empty body")
def _(world: World) -> None:
    client = world.client()
    path = f"{world.rest_prefix}/tasks/{task_id(world)}:cancel"
    # REAL-CLIENTS §7.3: the JS client sends no body at all, with Content-Type: application/json
    response = world.http.post(path, headers={**client.headers(), "Content-Type": "application/json"})
    world.reply = client.rest_reply(response, "Task")


@when("the caller subscribes to the task with GET")
def _(world: World) -> None:
    client = world.client()
    world.reply = None
    world.stream = client.sse("GET", f"{client.rest_prefix}/tasks/{task_id(world)}:subscribe", {}, request_id=None)

