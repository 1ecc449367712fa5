"""SSE framing for both bindings: the domain yields events, this frames them (A2A §9.4.2, §11.7), and keeps what a
stream holds for a slow client bounded, like a broker with a slow consumer."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

from blacksheep import Content, Request, Response
from blacksheep.contents import StreamedContent

from reference_server.a2a.ports import Lane
from reference_server.bindings.http import Outlet, dumps_text, outlet_of
from reference_server.model.errors import A2AError, InternalError
from reference_server.settings import Settings

log = logging.getLogger("reference_server.sse")

HEARTBEAT_SECONDS = 15.0
COALESCE_BYTES = 64 * 1024  # events ready together leave in one write up to this size; a larger one leaves alone
_HEADERS = [(b"Cache-Control", b"no-store"), (b"X-Accel-Buffering", b"no")]

Frame = Callable[[Any], Any]
ErrorFrame = Callable[[A2AError], Any]


PIECE_CHARS = 128 * 1024  # a larger event is encoded and written in pieces of this many characters (heap blocks:
# once freed, heap.Trimmer gives their pages back)


def framed(payload: Any, prefix: bytes = b"data: ") -> list[bytes]:
    """One SSE event holding one JSON document on a single `data:` line, as the pieces it is written in. A large
    document is encoded a piece at a time: each piece leaves memory once written, so what waits for a slow client
    is only what it has not taken yet (a 4 MB event written whole was held whole, and copied twice more on its way:
    uvicorn frames every write as an HTTP chunk, and asyncio keeps what the socket did not take)."""
    text = dumps_text(payload)
    if len(text) <= PIECE_CHARS:
        return [b"".join((prefix, text.encode("utf-8"), b"\n\n"))]
    pieces = [prefix + text[:PIECE_CHARS].encode("utf-8")]
    pieces += [text[start:start + PIECE_CHARS].encode("utf-8") for start in range(PIECE_CHARS, len(text), PIECE_CHARS)]
    pieces[-1] += b"\n\n"
    return pieces


def data_event(payload: Any) -> bytes:
    """One SSE event holding one JSON document on a single `data:` line."""
    return b"".join(framed(payload))


def error_event(payload: Any) -> list[bytes]:
    # REAL-CLIENTS §7.5: a mid-stream error comes as `event: error`
    return framed(payload, b"event: error\ndata: ")


async def stream_response(
    request: Request, events: AsyncIterator[Any], frame: Frame, error_frame: ErrorFrame, lane: Lane,
    settings: Settings,
) -> Response:
    """Pull the first event before committing to 200, so an early error stays a plain response. What carries the
    rest of the stream waits in the back lane: in a burst of new streams, every first event goes out before it."""
    first = await anext(events)  # an A2AError raised here is rendered by the binding as usual
    outlet = outlet_of(request)
    if outlet is not None:
        outlet.guard_stalls(settings.stream_write_timeout.total_seconds())

    async def body() -> AsyncIterator[bytes]:
        nonlocal first
        head, first = deque(framed(frame(first))), None  # the task of the first event is not held by the stream
        while head:
            yield head.popleft()
        await lane.turn()  # the events meanwhile wait in the task's follower queue
        async for chunk in _rest_of_stream(request, events, frame, error_frame,
                                           max_unsent=settings.max_unsent_stream_bytes, outlet=outlet):
            yield chunk

    return Response(200, list(_HEADERS), StreamedContent(b"text/event-stream", body))


def one_event_stream(payload: Any) -> Response:
    """A 200 event stream of one `data:` event, then its end (0.3 JSON-RPC: a stream refused before it starts)."""
    return Response(200, list(_HEADERS), Content(b"text/event-stream", data_event(payload)))


async def _rest_of_stream(
    request: Request, events: AsyncIterator[Any], frame: Frame, error_frame: ErrorFrame, *,
    max_unsent: int, outlet: Outlet | None = None, heartbeat: float = HEARTBEAT_SECONDS,
) -> AsyncIterator[bytes]:
    """The events after the first, framed as they come, at most max_unsent bytes of them held for the client (the
    events beyond wait unframed in the task's follower queue); after `heartbeat` seconds with nothing sent, a
    keep-alive comment. The stream ends with its events, or at once when its connection is lost: then its
    follower leaves, and the run and the task's other streams go on."""
    box = _Outbox(max_unsent)
    if outlet is not None:
        outlet.on_lost(box.lose)
    pump = asyncio.create_task(_pump(events, box, frame, error_frame))
    silence = _Silence(box, heartbeat)
    try:
        while True:
            chunk = await box.take()
            silence.broken()
            if chunk is _LOST:
                return
            if chunk is _BEAT:
                # without an outlet, writes to a gone client fail silently: poll for it (stack notes §1.4)
                if outlet is None and await request.is_disconnected():
                    return
                yield b": keep-alive\n\n"
                continue
            if chunk is _END:
                return
            yield cast(bytes, chunk)
            if box.lost:
                return
            chunk = None  # not held while the next event is awaited
    finally:
        silence.cancel()
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump


_END = object()  # the stream's events are all framed
_BEAT = object()  # time for a keep-alive
_LOST = object()  # the connection is gone


class _Outbox:
    """A stream's framed events (in the pieces framed() cuts), waiting for its client: the pump puts them, the
    writer takes them (those ready together in one write, up to COALESCE_BYTES). The pump waits while more than
    max_unsent bytes wait here, so a client that stops reading holds that much framed (and one event more), and
    the rest stays unframed in the task's follower queue until the connection's stall guard closes it."""

    def __init__(self, max_unsent: int) -> None:
        self._frames: deque[bytes] = deque()
        self._held = 0
        self._max = max_unsent
        self._ended = False
        self._beat = False
        self.lost = False
        self._ready = asyncio.Event()  # something for the writer
        self._room = asyncio.Event()  # room for the pump
        self._room.set()

    async def room(self) -> None:
        while self._held > self._max and not self.lost:
            self._room.clear()
            await self._room.wait()

    def put(self, pieces: list[bytes]) -> None:
        """One event's frame, as framed() cut it."""
        self._frames.extend(pieces)
        self._held += sum(map(len, pieces))
        self._ready.set()

    def end(self) -> None:
        self._ended = True
        self._ready.set()

    def beat(self) -> None:
        self._beat = True
        self._ready.set()

    def lose(self) -> None:
        self.lost = True
        self._frames.clear()
        self._held = 0
        self._ready.set()
        self._room.set()

    async def take(self) -> object:
        while not (self._frames or self._ended or self._beat or self.lost):
            self._ready.clear()
            await self._ready.wait()
        if self.lost:
            return _LOST
        if self._frames:
            self._beat = False
            return self._coalesced()
        if self._ended:
            return _END
        self._beat = False
        return _BEAT

    def _coalesced(self) -> bytes:
        first = self._frames.popleft()
        size = len(first)
        if size >= COALESCE_BYTES or not self._frames:
            chunk = first
        else:
            # under load, one send per event would cost more than the framing (a burst of streams then waits on
            # each other's sends): the small events ready now leave in one write
            parts = [first]
            while self._frames and size + len(self._frames[0]) <= COALESCE_BYTES:
                parts.append(self._frames.popleft())
                size += len(parts[-1])
            chunk = b"".join(parts)
        self._held -= size
        if self._held <= self._max:
            self._room.set()
        return chunk


async def _pump(events: AsyncIterator[Any], box: _Outbox, frame: Frame, error_frame: ErrorFrame) -> None:
    """The events, framed as they come (one copy of each: the bytes the client gets), while the box has room."""
    try:
        async for event in events:
            await box.room()
            if box.lost:
                return
            box.put(framed(frame(event)))
    except A2AError as error:
        box.put(error_event(error_frame(error)))
    except Exception:
        log.exception("stream failed after it started")
        box.put(error_event(error_frame(InternalError())))
    finally:
        closer = getattr(events, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()  # the follower leaves the task's broadcast here
    box.end()


class _Silence:
    """Beats once `seconds` pass with nothing taken from the box: one timer per stream, re-armed only when it
    fires (a timeout per event, asyncio.wait_for, costs a task each time: too dear for a burst)."""

    def __init__(self, box: _Outbox, seconds: float) -> None:
        self._box = box
        self._seconds = seconds
        self._loop = asyncio.get_running_loop()
        self._last = self._loop.time()
        self._timer = self._loop.call_later(seconds, self._check)

    def broken(self) -> None:
        self._last = self._loop.time()

    def _check(self) -> None:
        quiet_until = self._last + self._seconds
        if self._loop.time() >= quiet_until:
            self._box.beat()
            quiet_until = self._loop.time() + self._seconds
        self._timer = self._loop.call_at(quiet_until, self._check)

    def cancel(self) -> None:
        self._timer.cancel()
