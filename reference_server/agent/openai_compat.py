"""A provider for OpenAI-compatible chat-completions APIs over httpx: streamed text and tool calls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

import httpx

from reference_server.agent.conversation import as_written
from reference_server.agent.provider import ProviderError, ProviderEvent, ProviderRequest, TextChunk, ToolCall
from reference_server.agent.tools import Tool

TIMEOUT = httpx.Timeout(120.0, connect=10.0)
_DETAIL_LIMIT = 300


class OpenAICompatibleProvider:
    """POST {base_url}/chat/completions with stream=true; the API key is sent, never logged or shown."""

    def __init__(self, base_url: str, model: str, api_key: str | None, *,
                 client: httpx.AsyncClient | None = None) -> None:
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._api_key = api_key
        self._client = client

    def __repr__(self) -> str:  # design "Security notes": keys are never logged
        return f"OpenAICompatibleProvider(url={self._url!r}, model={self._model!r})"

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        try:
            async with self._session() as client, client.stream(
                "POST", self._url, json=self._body(request), headers=headers
            ) as response:
                if response.status_code >= 400:
                    detail = _error_detail((await response.aread()).decode("utf-8", "replace"))
                    raise ProviderError(f"the provider answered HTTP {response.status_code}: {detail}")
                async for event in _events(response.aiter_lines()):
                    yield event
        except httpx.HTTPError as error:
            raise ProviderError(f"the request to the provider failed ({type(error).__name__})") from None
        except ProviderError as error:  # the provider's own words may echo what we sent
            raise ProviderError(self._redact(str(error))) from None

    def _session(self) -> AbstractAsyncContextManager[httpx.AsyncClient]:
        return nullcontext(self._client) if self._client is not None else httpx.AsyncClient(timeout=TIMEOUT)

    def _body(self, request: ProviderRequest) -> dict[str, Any]:
        system = {"role": "system", "content": request.system_prompt}
        messages = [system, *map(_chat_message, request.messages)]
        body: dict[str, Any] = {"model": self._model, "messages": messages, "stream": True}
        if request.tools:
            body["tools"] = [_tool_spec(t) for t in request.tools]
        return body

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text


def _chat_message(message: dict[str, Any]) -> dict[str, Any]:
    message = as_written(message)  # a preamble goes before the content: the API takes one text
    if message.get("tool_calls") and not message.get("content"):
        return {**message, "content": None}  # some servers refuse "" next to tool calls
    return message


def _tool_spec(tool: Tool) -> dict[str, Any]:
    return {"type": "function",
            "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters}}


def _error_detail(body: str) -> str:
    """The error message of an OpenAI-style error body, else the start of the body."""
    try:
        message = _error_message(json.loads(body))
    except ValueError:
        message = None
    return (message or body.strip() or "no detail")[:_DETAIL_LIMIT]


def _error_message(data: Any) -> str | None:
    """The message of {"error": {"message": ...}} or {"error": "..."}."""
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) and message else None


async def _events(lines: AsyncIterator[str]) -> AsyncIterator[ProviderEvent]:
    """Text chunks as they come; the tool calls, assembled from their fragments, when the message ends."""
    calls: dict[int, dict[str, str]] = {}
    async for line in lines:
        if not line.startswith("data:"):
            continue  # blank separators, comments, event names
        data = line[len("data:"):].strip()
        if data == "[DONE]":
            break
        delta = _delta(data)
        if delta.get("content"):
            yield TextChunk(str(delta["content"]))
        for fragment in delta.get("tool_calls") or ():
            _merge(calls, fragment)
    for index in sorted(calls):
        yield _tool_call(calls[index], index)


def _delta(data: str) -> dict[str, Any]:
    try:
        chunk = json.loads(data)
    except ValueError:
        raise ProviderError("the provider sent a malformed stream chunk") from None
    if not isinstance(chunk, dict):
        raise ProviderError("the provider sent a malformed stream chunk")
    if chunk.get("error"):
        detail = (_error_message(chunk) or "no detail")[:_DETAIL_LIMIT]
        raise ProviderError(f"the provider reported an error: {detail}")
    choices = chunk.get("choices") or [{}]
    delta = choices[0].get("delta") if isinstance(choices[0], dict) else None
    return delta if isinstance(delta, dict) else {}


def _merge(calls: dict[int, dict[str, str]], fragment: Any) -> None:
    if not isinstance(fragment, dict):
        return
    index = fragment.get("index")
    if not isinstance(index, int):  # servers that omit it: an id starts a new call, else it continues
        index = len(calls) if fragment.get("id") or not calls else max(calls)
    call = calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
    call["id"] = str(fragment.get("id") or call["id"])
    function = fragment.get("function")
    if isinstance(function, dict):
        call["name"] += str(function.get("name") or "")
        call["arguments"] += str(function.get("arguments") or "")


def _tool_call(call: dict[str, str], index: int) -> ToolCall:
    call_id = call["id"] or f"call_{index}"
    try:
        arguments = json.loads(call["arguments"] or "{}")
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        return ToolCall(call_id, call["name"], {}, "the tool arguments were not a JSON object")
    return ToolCall(call_id, call["name"], arguments)
