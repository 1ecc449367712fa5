"""A tiny OpenAI-compatible chat-completions server on 127.0.0.1 (free port) for the provider tests."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any


@dataclass
class Stream:
    """Answer with these chunks as server-sent events; stall=True holds the stream open after the first."""

    chunks: list[dict[str, Any]]
    stall: bool = False


@dataclass
class Status:
    """Answer with this HTTP status and JSON body."""

    code: int
    body: dict[str, Any]


@dataclass
class Received:
    """A request the server got."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class FakeOpenAI:
    """Answers each request with the next response; `async with` starts it and stops it."""

    responses: list[Stream | Status]
    received: list[Received] = field(default_factory=list)

    async def __aenter__(self) -> FakeOpenAI:
        self._release = asyncio.Event()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        tb: TracebackType | None) -> None:
        self._release.set()
        self._server.close()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            self.received.append(await _read_request(reader))
            response = self.responses.pop(0)
            if isinstance(response, Status):
                await _write_status(writer, response)
            else:
                await self._write_stream(writer, response)
        finally:
            writer.close()

    async def _write_stream(self, writer: asyncio.StreamWriter, stream: Stream) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
        for chunk in stream.chunks:
            writer.write(f"data: {json.dumps(chunk)}\n\n".encode())
            await writer.drain()
            if stream.stall:
                await self._release.wait()
                return
        writer.write(b"data: [DONE]\n\n")
        await writer.drain()


async def _read_request(reader: asyncio.StreamReader) -> Received:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    path = head[0].split(" ")[1]
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return Received(path, headers, json.loads(body) if body else {})


async def _write_status(writer: asyncio.StreamWriter, status: Status) -> None:
    body = json.dumps(status.body).encode()
    writer.write(f"HTTP/1.1 {status.code} Error\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
    await writer.drain()


def text_chunk(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}}]}


def tool_chunks(call_id: str, name: str, arguments: str) -> list[dict[str, Any]]:
    """A tool call split over three chunks, the way streaming APIs send them."""
    half = len(arguments) // 2
    fragments = [
        {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}},
        {"index": 0, "function": {"arguments": arguments[:half]}},
        {"index": 0, "function": {"arguments": arguments[half:]}},
    ]
    return [{"choices": [{"index": 0, "delta": {"tool_calls": [f]}}]} for f in fragments]
