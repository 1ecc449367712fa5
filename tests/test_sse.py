"""SSE framing after the first event (bindings/sse.py): events in order, a keep-alive after a silence, an end."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

from reference_server.bindings import sse
from reference_server.model.errors import TaskNotFound


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
                                     max_unsent=1 << 20, heartbeat=heartbeat)
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


def test_a_large_event_is_framed_in_pieces_that_join_into_the_whole_event() -> None:
    payload = {"text": "é" + "x" * (sse.PIECE_CHARS * 2) + "\u2603"}
    pieces = sse.framed(payload)
    assert len(pieces) == 3 and all(len(piece) <= 2 * sse.PIECE_CHARS for piece in pieces)
    joined = b"".join(pieces)
    assert joined == sse.data_event(payload) and joined.startswith(b"data: ") and joined.endswith(b"\n\n")
    assert json.loads(joined[len(b"data: "):-2]) == payload
    assert sse.framed({"e": 1}) == [b'data: {"e":1}\n\n']


def test_an_event_is_one_line_by_the_sse_rules_whatever_its_text_holds() -> None:
    # SSE ends a line at CRLF, LF or CR only; JSON escapes those in a string, and keeps U+0085, U+2028, U+2029 as
    # they are (str.splitlines() would cut there: a client that splits so is wrong, and this server shows it)
    payload = {"text": "a\r\nb\rc\nd\x85e\u2028f\u2029g"}
    event = sse.data_event(payload).decode("utf-8")
    lines = re.split(r"\r\n|\r|\n", event)
    assert lines == ["data: " + json.dumps(payload, ensure_ascii=False, separators=(",", ":")), "", ""]
    assert json.loads(lines[0][len("data: "):]) == payload


class FakeOutlet:
    """An Outlet whose connection the test loses."""

    def __init__(self) -> None:
        self.callbacks: list[Any] = []
        self.gone = False

    def unsent(self) -> int:
        return 0

    def guard_stalls(self, seconds: float) -> None:
        pass

    def on_lost(self, callback: Any) -> None:
        self.callbacks.append(callback)

    def lose(self) -> None:
        self.gone = True
        for callback in self.callbacks:
            callback()


class Follower:
    """Events as a task's follower gives them: as many as are asked for, counting them; closed when it leaves."""

    def __init__(self) -> None:
        self.pulled = 0
        self.closed = False

    def __aiter__(self) -> Follower:
        return self

    async def __anext__(self) -> int:
        self.pulled += 1
        await asyncio.sleep(0)
        return self.pulled

    async def aclose(self) -> None:
        self.closed = True


def test_a_stream_takes_no_more_events_than_its_cap_while_its_client_reads_none() -> None:
    async def run() -> tuple[int, int, int]:
        follower, outlet = Follower(), FakeOutlet()
        chunks = sse._rest_of_stream(FakeRequest(gone_after=0), follower, lambda e: {"e": e},  # type: ignore[arg-type]
                                     lambda e: {}, max_unsent=100, outlet=outlet, heartbeat=60)
        first = await anext(chunks)  # the client takes one write, then reads nothing more
        for _ in range(1000):  # turns enough for the pump to frame 1,000 events, were it not held back
            await asyncio.sleep(0)
        held = follower.pulled
        outlet.lose()
        rest = [chunk async for chunk in chunks]
        return len(first), held, len(rest)

    first, held, rest = asyncio.run(asyncio.wait_for(run(), 10))
    frame = len(b'data: {"e":10}\n\n')
    assert first <= sse.COALESCE_BYTES
    assert held * frame <= first + 100 + 2 * frame, f"{held} events taken from the follower"
    assert rest == 0  # a lost connection ends the stream at once, with nothing more framed


def test_a_lost_connection_ends_the_stream_and_its_follower_leaves() -> None:
    async def run() -> tuple[list[bytes], bool]:
        outlet = FakeOutlet()
        follower = then_silence(1)
        closed = False

        async def watched() -> AsyncIterator[Any]:
            nonlocal closed
            try:
                async for event in follower:
                    yield event
            finally:
                closed = True

        chunks = sse._rest_of_stream(FakeRequest(gone_after=0), watched(), lambda e: {"e": e},  # type: ignore[arg-type]
                                     lambda e: {}, max_unsent=1 << 20, outlet=outlet, heartbeat=60)
        got = [await anext(chunks)]
        outlet.lose()
        got += [chunk async for chunk in chunks]
        return got, closed

    got, closed = asyncio.run(asyncio.wait_for(run(), 10))
    assert got == [b'data: {"e":1}\n\n'] and closed
