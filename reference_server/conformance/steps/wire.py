"""Steps about the bindings themselves: versions, JSON-RPC envelopes, REST routes, the error table."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.capabilities import capability
from reference_server.conformance.steps.common import field_of
from reference_server.conformance.steps.errors import named_error
from reference_server.conformance.steps.prefixes import send_prefixed
from reference_server.conformance.steps.tasks import reached_state, send, task_id, text_message
from reference_server.conformance.support.answers import MALFORMED
from reference_server.conformance.support.exchanges import body_text, shown
from reference_server.conformance.support.raw import raw_request
from reference_server.conformance.support.replies import Reply, WireProblem, described, json_of
from reference_server.conformance.support.schemas import assert_valid

UNKNOWN_TASK = "00000000-0000-4000-8000-000000000000"


@given(parsers.parse('the caller sends A2A-Version "{version}" as a query parameter only'))
def _(world: Any, version: str) -> None:
    world.version = version
    world.notes["version_in_query"] = True


@given("the caller sends no A2A-Version")
def _(world: Any) -> None:
    world.version = ""


@when(parsers.parse('the caller calls the 0.3 method "{method}"'))
def _(world: Any, method: str) -> None:
    _call_v03(world, method, world.version)


@when(parsers.parse('the caller calls the 0.3 method "{method}" as A2A 1.0'))
def _(world: Any, method: str) -> None:
    _call_v03(world, method, "1.0")


def _call_v03(world: Any, method: str, sent_version: str | None) -> None:
    client = world.client(version="0.3")
    client.sent_version = sent_version or ""
    request_id = client.next_id()
    response = world.http.post(world.jsonrpc_path, json={"jsonrpc": "2.0", "id": request_id, "method": method},
                               headers=client.headers())
    world.reply = client.jsonrpc_reply(response, None, request_id)


@when(parsers.parse("the caller posts the JSON-RPC body {body}"))
def _(world: Any, body: str) -> None:
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


def _raw_jsonrpc(world: Any, method: str, params: dict[str, Any], request_id: Any, path: str | None = None) -> Reply:
    client = world.client()
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    response = world.http.post(path or world.jsonrpc_path, json=body, headers=client.headers())
    reply: Reply = client.jsonrpc_reply(response, method, request_id)
    return reply


@when(parsers.parse("the caller fetches the extended agent card with the JSON-RPC id {request_id}"))
def _(world: Any, request_id: str) -> None:
    world.reply = _raw_jsonrpc(world, "GetExtendedAgentCard", {}, json.loads(request_id))


@when(parsers.parse("the caller sends a message with the JSON-RPC id {request_id}"))
def _(world: Any, request_id: str) -> None:
    # SendMessage: the one operation every server answers with a result (A2A §3.1.1)
    message = {**text_message("A message of the conformance suite")}
    world.reply = _raw_jsonrpc(world, "SendMessage", {"message": message}, json.loads(request_id))


@when(parsers.parse('the caller gets the task "{task_id}" with the JSON-RPC id "{request_id}"'))
def _(world: Any, task_id: str, request_id: str) -> None:
    world.reply = _raw_jsonrpc(world, "GetTask", {"id": task_id}, request_id)


@then(parsers.parse("the answer carries the JSON-RPC id {request_id}"))
def _(world: Any, request_id: str) -> None:
    expected = json.loads(request_id)
    reply = world.reply
    assert reply is not None, f"expected an answer with the JSON-RPC id {request_id}, got no answer"
    got = field_of(reply.raw, "id", "a JSON-RPC response")
    assert got == expected and type(got) is type(expected), \
        f"expected the JSON-RPC id {request_id}, the id as sent, got {shown(got)}"


@when(parsers.parse('the caller fetches the extended agent card at "{path}"'))
def _(world: Any, path: str) -> None:
    world.reply = _raw_jsonrpc(world, "GetExtendedAgentCard", {}, 1, path)


@when(parsers.parse("the caller sends a message of {mebibytes:d} MiB"))
def _(world: Any, mebibytes: int) -> None:
    message = {**text_message("x" * (mebibytes * 1024 * 1024))}
    world.reply = world.client().call("SendMessage", {"message": message})


@then("the call is refused as too large, with the limit in the message")
def _(world: Any) -> None:
    reply = world.reply
    assert reply.http_status == 413 and reply.error is not None, \
        f"expected a refusal as too large (HTTP 413), got HTTP {reply.http_status}: {reply}"
    assert "Request body too large" in reply.error.message and "A2A__MaxBodyBytes" in reply.error.message, \
        f'expected the message to say "Request body too large" and name A2A__MaxBodyBytes, got {reply.error}'


@when(parsers.re(r"the caller requests (?P<verb>GET|POST|PUT|PATCH|DELETE) (?P<route>/\S*)$"))
def _(world: Any, verb: str, route: str) -> None:
    client = world.client()
    response = world.http.request(verb, world.rest_prefix + route, headers=client.headers())
    world.notes["response"] = response
    if response.status_code != 200:
        world.reply = client.rest_reply(response, None)
    else:
        world.reply = Reply(200, body=json_of(response, f"{verb} {route}"), headers=response.headers)


@when(parsers.parse('the caller sends "{text}" in the 0.3 proto shape'))
def _(world: Any, text: str) -> None:
    """The body the Python SDK's 0.3 HTTP+JSON transport sends (REAL-CLIENTS §4.5), answered in the same proto."""
    assert world.protocol.binding == "rest", "the 0.3 proto shape is the 0.3 HTTP+JSON body"
    client = world.client()
    body = {"request": {"message_id": str(uuid.uuid4()), "role": "ROLE_USER", "content": [{"text": text}]},
            "configuration": {"blocking": True}}
    response = world.http.post(world.rest_prefix + "/message:send", json=body, headers=client.headers())
    world.reply = (Reply(200, body=json_of(response, "SendMessage"), headers=response.headers)
                   if response.status_code == 200 else client.rest_reply(response, None))


@then("the answer is in the 0.3 proto shape")
def _(world: Any) -> None:
    assert_valid(world.reply.body, "urn:a2a:v0.3-proto#/$defs/SendMessageResponse")
    task = world.reply.body["task"]
    assert task["status"]["state"].startswith("TASK_STATE_"), \
        f"expected a proto enum name (TASK_STATE_…), got the status {shown(task['status'])}"
    assert all("content" in m and "parts" not in m for m in task["history"]), \
        f"expected every message of the history with content, not parts, got {shown(task['history'])}"
    assert all("kind" not in m for m in task["history"]), \
        f"expected no kind in the messages of the history, got {shown(task['history'])}"


def _extended_card_as_declared(world: Any) -> None:
    reply = world.reply
    if capability(world, "extendedAgentCard"):
        assert reply.http_status == 200, \
            f"expected HTTP 200 and the extended card, which the card declares, got HTTP {reply.http_status}: {reply}"
        assert_valid(reply.body, "urn:a2a:v1#/$defs/AgentCard")
    else:
        assert (reply.http_status, reply.error and reply.error.reason) == (400, "UNSUPPORTED_OPERATION"), (
            f"expected UnsupportedOperation (HTTP 400, reason UNSUPPORTED_OPERATION), as the card declares no "
            f"extended card, got HTTP {reply.http_status}: {reply}")


@then(parsers.parse("the answer is HTTP {status:d} {outcome}"))
def _(world: Any, status: int, outcome: str) -> None:
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


# --- the error table ---

def _completed_task(world: Any) -> str:
    """A task the agent completed: asked for in its convention (the situation needs one; on another server a
    task the answer gave while it still ran is read again until it ends, and the situation is n/a when it never
    completes: whether a send waits is CORE-EXECUTION-MODE-001's)."""
    reply = send_prefixed(world, "tck-complete-task")
    assert reply is not None and reply.error is None, \
        f'expected a completed task for a "tck-complete-task" message, got {described(reply)}'
    task = field_of(reply.body, "task", 'an answer to a "tck-complete-task" message')
    reached_state(world, "completed")
    return str(field_of(task, "id", "a task"))


def _message_to(task: str) -> dict[str, Any]:
    return {"message": {**text_message("once more", task_id=task), "messageId": f"tck-complete-task-{uuid.uuid4()}"}}


# situation → (operation, params), or a function of the world giving them when the situation needs a task
SITUATIONS: dict[str, Any] = {
    "getting an unknown task": ("GetTask", {"id": UNKNOWN_TASK}),
    "getting a task that does not exist": ("GetTask", {"id": "tck-no-such-task"}),
    "canceling a completed task": lambda world: ("CancelTask", {"id": _completed_task(world)}),
    "sending a message to a completed task": lambda world: ("SendMessage", _message_to(_completed_task(world))),
    # an error found before a stream starts is a plain answer (DIGEST §10), so it is read like a unary one
    "subscribing to a completed task": lambda world: ("SubscribeToTask", {"id": _completed_task(world)}),
    "sending A2A-Version 9.9": ("GetTask", {"id": "tck-no-such-task"}),  # the version is read first (§3.6.2)
    "sending a message with no parts": ("SendMessage", {"message": {"messageId": "tck-complete-task-1",
                                                                   "role": "ROLE_USER", "parts": []}}),
    "sending a message without a messageId": ("SendMessage", {"message": {"role": "ROLE_USER",
                                                                         "parts": [{"text": "hi"}]}}),
}


# the requirement that says each situation fails, which a server that takes it fails
SITUATION_REQUIREMENTS = {
    "getting an unknown task": "CORE-GET-002",
    "getting a task that does not exist": "CORE-GET-002",
    "canceling a completed task": "CORE-CANCEL-002",
    "sending a message to a completed task": "CORE-SEND-002",
    "subscribing to a completed task": "STREAM-SUB-003",
    "sending A2A-Version 9.9": "VER-SERVER-002",
    "sending a message with no parts": "CORE-ERR-002",
    "sending a message without a messageId": "CORE-ERR-002",
}


@when(parsers.parse("the caller causes {error} by {situation}"))
def _(world: Any, error: str, situation: str) -> None:
    if situation == "calling an unknown method":
        world.reply = _unknown_method(world)
        return
    entry = SITUATIONS[situation]
    operation, params = entry(world) if callable(entry) else entry
    if situation == "sending A2A-Version 9.9":
        world.version = "9.9"
    world.notes["situation error"], world.notes["situation call"] = error, (operation, params)
    if world.ours:
        world.reply = world.client().call(operation, params)
        return
    # another server: what an A2A error carries can be seen only when the situation caused that error; anything
    # else is the finding of the requirement that says the situation fails so (one defect, one failure)
    whose = SITUATION_REQUIREMENTS.get(situation, "its operation")
    try:
        world.reply = world.client().call(operation, params)
    except WireProblem as problem:  # a stream, or an answer that is not JSON (a 5xx page)
        pytest.skip(f"{situation} got {problem}, so what an A2A error carries cannot be seen with it (that it fails "
                    f"with {error} is {whose}'s)")
    if world.reply.error is None:
        pytest.skip(f"{situation} caused no error here ({described(world.reply)}), so what an error carries cannot be "
                    f"seen with it (that it should fail is {whose}'s)")
    named = named_error(world)
    if named is not None and named != error:
        pytest.skip(f"{situation} caused {named}, not {error}, so what {error} carries cannot be seen with it (which "
                    f"error it calls for is {whose}'s)")


def _unknown_method(world: Any) -> Reply:
    client = world.client()
    if client.binding == "rest":
        answer = world.http.get(world.rest_prefix + "/teleport", headers=client.headers())
        reply: Reply = client.rest_reply(answer, None)
        return reply
    return _raw_jsonrpc(world, "Teleport", {}, 1)


@then(parsers.parse("on JSON-RPC the code is {code:d}, on HTTP+JSON the status is {http:d} {status}"))
def _(world: Any, code: int, http: int, status: str) -> None:
    reply = world.reply
    if world.protocol.binding == "rest":
        assert reply.http_status == http, f"expected HTTP {http}, got HTTP {reply.http_status}: {reply}"
        assert reply.raw["error"]["status"] == status, \
            f"expected the status {status}, got {shown(reply.raw)}"
        assert reply.raw["error"]["code"] == http, f"expected error.code {http}, got {shown(reply.raw)}"
    else:
        assert reply.http_status == 200, f"expected HTTP 200, got HTTP {reply.http_status}: {reply}"
        assert reply.error.code == code, f"expected the JSON-RPC code {code}, got {reply}"


@then(parsers.parse("the error carries the reason {reason}"))
def _(world: Any, reason: str) -> None:
    error = world.reply.error
    if reason == "none":
        assert error.reason is None, f"expected no ErrorInfo reason, got {error}"
    else:
        assert error.reason == reason, f"expected the ErrorInfo reason {reason}, got {error}"


@then(parsers.parse('the error metadata names the task "{task_id}"'))
def _(world: Any, task_id: str) -> None:
    details = world.reply.raw["error"].get("data") or world.reply.raw["error"].get("details")
    info = next((d for d in details if d["@type"].endswith("ErrorInfo")), None)
    assert info is not None, f"expected an ErrorInfo among the error's details, got {shown(details)}"
    assert info["metadata"]["taskId"] == task_id, \
        f'expected the ErrorInfo metadata to name the task "{task_id}", got {shown(info)}'


@when("the caller sends a GET to the JSON-RPC endpoint")
def _(world: Any) -> None:
    client = world.client()
    response = world.http.get(world.jsonrpc_path, headers=client.headers())
    assert response.status_code == 405 and response.headers.get("Allow") == "POST", \
        f"expected HTTP 405 with Allow: POST, got HTTP {response.status_code} with Allow: " \
        f"{response.headers.get('Allow') or '(none)'}"
    world.reply = client.jsonrpc_reply(response, None, None)


@when("the caller posts a JSON-RPC body that is not UTF-8")
def _(world: Any) -> None:
    client = world.client()
    body = '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "é"}}'.encode("latin-1")
    response = world.http.post(world.jsonrpc_path, content=body,
                               headers={**client.headers(), "Content-Type": "application/json"})
    world.reply = client.jsonrpc_reply(response, None, None)


@when(parsers.re(r"the caller requests (?P<verb>GET|POST|PUT|PATCH|DELETE) on the server path (?P<path>\S+)$"))
def _(world: Any, verb: str, path: str) -> None:
    client = world.client()
    answer = raw_request(world.server.url, verb, path, client.headers())  # the path byte for byte
    world.notes["raw"] = answer
    response = httpx.Response(answer.status, headers=answer.headers, content=answer.body)
    if answer.status == 200:
        world.reply = Reply(200, body=answer.json())
    elif "jsonrpc" not in answer.json():  # a google.rpc.Status, validated as the REST binding's error
        world.reply = client.rest_reply(response, None)


@then("the server refuses it as unauthenticated")
def _(world: Any) -> None:
    answer = world.notes["raw"]
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
def _(world: Any) -> None:
    answer = world.notes["raw"]
    assert answer.status == 404, \
        f"expected HTTP 404, got HTTP {answer.status}: {body_text(answer.body, 'application/json')}"
    assert answer.json()["error"]["status"] == "NOT_FOUND", \
        f"expected the status NOT_FOUND, got {body_text(answer.body, 'application/json')}"


@when("the caller cancels the task with an empty body")
def _(world: Any) -> None:
    client = world.client()
    path = f"{world.rest_prefix}/tasks/{task_id(world)}:cancel"
    # REAL-CLIENTS §7.3: the JS client sends no body at all, with Content-Type: application/json
    response = world.http.post(path, headers={**client.headers(), "Content-Type": "application/json"})
    world.reply = client.rest_reply(response, "Task")


@when("the caller subscribes to the task with GET")
def _(world: Any) -> None:
    client = world.client()
    world.reply = None
    world.stream = client.sse("GET", f"{client.rest_prefix}/tasks/{task_id(world)}:subscribe", {}, request_id=None)


# --- the reader's limits ---

# the raw JSON put at metadata["x"] of a message, by the words of the scenario
HOSTILE_VALUES = {
    "arrays nested 10,000 deep": "[" * 10_000 + "]" * 10_000,
    "arrays nested 65 deep": "[" * 65 + "]" * 65,
    "arrays nested 40 deep": "[" * 40 + "]" * 40,
    "an integer of 4,301 digits": "9" * 4_301,
    "NaN": "NaN",
    "-Infinity": "-Infinity",
    "the number 1e400": "1e400",
    "a lone surrogate": '"\\ud800"',
    "50 arrays nested 60 deep": "[" + ", ".join(["[" * 59 + "]" * 59] * 50) + "]",
}


@when(parsers.parse("the caller sends a message whose metadata holds {value}"))
def _(world: Any, value: str) -> None:
    # the message's metadata is where a hostile value would otherwise reach the task file and every answer
    keyed = value == "a key with a lone surrogate"
    metadata = '{"\\udc00": 1}' if keyed else '{"x": ' + HOSTILE_VALUES[value] + "}"
    message = (f'{{"messageId": "{uuid.uuid4()}", "role": "ROLE_USER", "parts": [{{"text": "hello"}}], '
               f'"metadata": {metadata}}}')
    client = world.client()
    headers = {**client.headers(), "Content-Type": "application/json"}
    if client.binding == "rest":
        body = f'{{"message": {message}}}'
        world.notes["sent_bytes"] = len(body.encode())
        response = world.http.post(world.rest_prefix + "/message:send", content=body.encode(), headers=headers)
        world.reply = client.rest_reply(response, None)
    else:
        body = f'{{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {{"message": {message}}}}}'
        world.notes["sent_bytes"] = len(body.encode())
        response = world.http.post(world.jsonrpc_path, content=body.encode(), headers=headers)
        world.reply = client.jsonrpc_reply(response, None, None if response.status_code == 401 else 1)


@given(parsers.parse("the caller sends an A2A-Version of {digits:,d} nines"))
def _(world: Any, digits: int) -> None:
    world.version = "9" * digits + ".0"


@when(parsers.parse("the caller lists tasks with a pageSize of {digits:,d} nines"))
def _(world: Any, digits: int) -> None:
    client = world.client()
    response = world.http.get(world.rest_prefix + "/tasks", params={"pageSize": "9" * digits},
                              headers=client.headers())
    world.reply = client.rest_reply(response, None)


# what a message is made of, by the words of the scenario
SIZED_MESSAGES = {
    "101 parts": lambda m: {**m, "parts": [{"text": f"part {n}"} for n in range(101)]},
    "100 parts": lambda m: {**m, "parts": [{"text": f"part {n}"} for n in range(100)]},
    "metadata of 70,000 bytes": lambda m: {**m, "metadata": {"x": "a" * 70_000}},
    "a part whose metadata is 70,000 bytes":
        lambda m: {**m, "parts": [{"text": "hi", "metadata": {"x": "a" * 70_000}}]},
}


@when(parsers.parse("the caller sends a message made of {what}"))
def _(world: Any, what: str) -> None:
    send(world, SIZED_MESSAGES[what](text_message("hello")))
