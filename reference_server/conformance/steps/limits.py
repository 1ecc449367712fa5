"""Steps about the reader's limits: bodies over the size limit, hostile JSON values, A2A-Versions and page sizes of
thousands of digits, messages of many parts or large metadata."""

from __future__ import annotations

import uuid

from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import answer_of
from reference_server.conformance.steps.tasks import send, text_message
from reference_server.conformance.world import World


@when(parsers.parse("the caller sends a message of {mebibytes:d} MiB"))
def _(world: World, mebibytes: int) -> None:
    message = {**text_message("x" * (mebibytes * 1024 * 1024))}
    world.reply = world.client().call("SendMessage", {"message": message})


@then("the call is refused as too large, with the limit in the message")
def _(world: World) -> None:
    reply = answer_of(world)
    assert reply.http_status == 413 and reply.error is not None, \
        f"expected a refusal as too large (HTTP 413), got HTTP {reply.http_status}: {reply}"
    assert "Request body too large" in reply.error.message and "A2A__MaxBodyBytes" in reply.error.message, \
        f'expected the message to say "Request body too large" and name A2A__MaxBodyBytes, got {reply.error}'



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
def _(world: World, value: str) -> None:
    # the message's metadata is where a hostile value would otherwise reach the task file and every answer
    keyed = value == "a key with a lone surrogate"
    metadata = '{"\\udc00": 1}' if keyed else '{"x": ' + HOSTILE_VALUES[value] + "}"
    message = (f'{{"messageId": "{uuid.uuid4()}", "role": "ROLE_USER", "parts": [{{"text": "hello"}}], '
               f'"metadata": {metadata}}}')
    client = world.client()
    headers = {**client.headers(), "Content-Type": "application/json"}
    if client.binding == "rest":
        body = f'{{"message": {message}}}'
        world.sent_bytes = len(body.encode())
        response = world.http.post(world.rest_prefix + "/message:send", content=body.encode(), headers=headers)
        world.reply = client.rest_reply(response, None)
    else:
        body = f'{{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {{"message": {message}}}}}'
        world.sent_bytes = len(body.encode())
        response = world.http.post(world.jsonrpc_path, content=body.encode(), headers=headers)
        world.reply = client.jsonrpc_reply(response, None, None if response.status_code == 401 else 1)


@given(parsers.parse("the caller sends an A2A-Version of {digits:,d} nines"))
def _(world: World, digits: int) -> None:
    world.version = "9" * digits + ".0"


@when(parsers.parse("the caller lists tasks with a pageSize of {digits:,d} nines"))
def _(world: World, digits: int) -> None:
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
def _(world: World, what: str) -> None:
    send(world, SIZED_MESSAGES[what](text_message("hello")))
