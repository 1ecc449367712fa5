"""Drives a live server with the a2a-sdk 0.3.x client; run by tests/interop/test_python_sdk_v03.py in its own venv.

Usage: python drive.py <base url> <caller key>. Prints one JSON object: per scenario, what the SDK handed its
caller (event kinds, states, `final` flags, texts) or the exception it raised (its type, code and message).
This file imports the 0.3 SDK, so it never runs in the project's environment (which has a2a-sdk 1.x).
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, Task, TaskIdParams, TextPart

TIMEOUT = 20.0  # per scenario: a stream the server never closes fails the scenario instead of hanging


def user_message(text: str, task: Task | None = None) -> Message:
    return Message(message_id=str(uuid.uuid4()), role=Role.user, parts=[Part(root=TextPart(text=text))],
                   task_id=task.id if task else None, context_id=task.context_id if task else None)


def describe(item: Any) -> dict[str, Any]:
    """One item the SDK client yields: a (Task, update) pair or a Message."""
    if isinstance(item, Message):
        return {"kind": "message"}
    task, update = item
    if update is None:
        return {"kind": "task", "state": task.status.state.value}
    seen: dict[str, Any] = {"kind": update.kind}
    if update.kind == "status-update":
        seen.update(state=update.status.state.value, final=update.final)
    else:
        seen["text"] = "".join(part.root.text for part in update.artifact.parts if part.root.kind == "text")
    return seen


def refusal(error: Exception) -> dict[str, Any]:
    """What the caller of the SDK sees of an error: its type and, for a JSON-RPC error, the code and message."""
    kind = type(error)
    found: dict[str, Any] = {"raised": f"{kind.__module__}.{kind.__name__}", "text": str(error)}
    rpc_error = getattr(error, "error", None)
    if rpc_error is not None:
        found.update(code=rpc_error.code, message=rpc_error.message)
    return found


async def send(client: Client, message: Message) -> list[dict[str, Any]]:
    return [describe(item) async for item in client.send_message(message)]


async def finished_task(client: Client) -> Task:
    [(task, _)] = [item async for item in client.send_message(user_message("hello"))]
    assert task.status.state.value == "completed", task.status
    return task


async def stream(streaming: Client, blocking: Client) -> Any:
    return await send(streaming, user_message("interop over the 0.3 client"))


async def resubscribe_unknown(streaming: Client, blocking: Client) -> Any:
    try:
        return [describe(item) async for item in streaming.resubscribe(TaskIdParams(id=str(uuid.uuid4())))]
    except Exception as error:
        return refusal(error)


async def resubscribe_terminal(streaming: Client, blocking: Client) -> Any:
    task = await finished_task(blocking)
    try:
        return [describe(item) async for item in streaming.resubscribe(TaskIdParams(id=task.id))]
    except Exception as error:
        return refusal(error)


async def stream_to_terminal(streaming: Client, blocking: Client) -> Any:
    task = await finished_task(blocking)
    try:
        return await send(streaming, user_message("once more", task))
    except Exception as error:
        return refusal(error)


async def follow_through_input(streaming: Client, blocking: Client) -> Any:
    """Resubscribe to a task waiting for input, answer it, and read the subscription to its end."""
    [(asked, _)] = [item async for item in blocking.send_message(user_message("ask: Which city?"))]
    seen: list[dict[str, Any]] = []
    first = asyncio.Event()

    async def follow() -> None:
        async for item in streaming.resubscribe(TaskIdParams(id=asked.id)):
            seen.append(describe(item))
            first.set()

    following = asyncio.create_task(follow())
    await first.wait()  # the subscriber holds the task before the answer starts a run
    answered = [describe(item) async for item in blocking.send_message(user_message("Lisbon", asked))]
    await following
    return {"asked": asked.status.state.value, "answered": answered, "subscription": seen}


SCENARIOS: dict[str, Callable[[Client, Client], Awaitable[Any]]] = {
    "stream": stream,
    "resubscribe_unknown": resubscribe_unknown,
    "resubscribe_terminal": resubscribe_terminal,
    "stream_to_terminal": stream_to_terminal,
    "follow_through_input": follow_through_input,
}


async def main(base_url: str, key: str) -> dict[str, Any]:
    results: dict[str, Any] = {}
    async with httpx.AsyncClient(headers={"X-API-Key": key}, timeout=TIMEOUT) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()  # the card as 0.3 clients read it
        streaming = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
        blocking = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        results["card"] = {"url": card.url, "transport": card.preferred_transport}
        for name, scenario in SCENARIOS.items():
            try:
                async with asyncio.timeout(TIMEOUT):
                    results[name] = {"result": await scenario(streaming, blocking)}
            except Exception:
                results[name] = {"crashed": traceback.format_exc()}
    return results


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2]))))
