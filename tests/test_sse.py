"""SSE framing after the first event (bindings/sse.py): events in order, a keep-alive after a silence, an end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from reference_server.bindings import sse
from reference_server.domain.errors import TaskNotFound


class FakeRequest:
    """Only what the stream asks of its request: whether the client is gone (the n-th time it asks)."""

    def __init__(self, gone_after: int) -> None:
        self.asked = 0
        self._gone_after = gone_after

    async def is_disconnected(self) -> bool:
        self.asked += 1
        return self.asked > self._gone_after


def collect(events: AsyncIterator[Any], request: FakeRequest, heartbeat: float) -> list[bytes]:
    async def run() -> list[bytes]:
        chunks = sse._rest_of_stream(request, events, lambda e: {"e": e}, lambda e: {"error": e.message},  # type: ignore[arg-type]
                                     heartbeat=heartbeat)
        return [chunk async for chunk in chunks]

    return asyncio.run(asyncio.wait_for(run(), 10))


async def items(*values: Any) -> AsyncIterator[Any]:
    for value in values:
        yield value


async def then_silence(value: Any) -> AsyncIterator[Any]:
    yield value
    await asyncio.Event().wait()  # nothing more, ever
    yield "never"


def test_events_are_framed_in_order_and_the_stream_ends_with_them() -> None:
    chunks = collect(items(1, 2, 3), FakeRequest(gone_after=0), heartbeat=60)
    assert b"".join(chunks) == b'data: {"e":1}\n\ndata: {"e":2}\n\ndata: {"e":3}\n\n'


def test_an_error_is_the_last_event() -> None:
    async def failing() -> AsyncIterator[Any]:
        yield 1
        raise TaskNotFound("gone")

    chunks = collect(failing(), FakeRequest(gone_after=0), heartbeat=60)
    assert b"".join(chunks) == b'data: {"e":1}\n\nevent: error\ndata: {"error":"gone"}\n\n'


def test_a_silence_brings_keep_alives_until_the_client_is_gone() -> None:
    request = FakeRequest(gone_after=2)
    chunks = collect(then_silence(1), request, heartbeat=0.05)
    assert chunks == [b'data: {"e":1}\n\n', b": keep-alive\n\n", b": keep-alive\n\n"]
    assert request.asked == 3  # the third silence found the client gone, and the stream ended there
