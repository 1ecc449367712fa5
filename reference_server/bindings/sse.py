"""SSE framing for both bindings: the domain yields events, this frames them (A2A §9.4.2, §11.7)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from blacksheep import Content, Request, Response
from blacksheep.contents import StreamedContent

from reference_server.bindings.http import dumps
from reference_server.domain.errors import A2AError, InternalError
from reference_server.lane import Lane

log = logging.getLogger("reference_server.sse")

HEARTBEAT_SECONDS = 15.0
_END = object()  # the stream ended
_BEAT = object()  # time for a keep-alive
_HEADERS = [(b"Cache-Control", b"no-store"), (b"X-Accel-Buffering", b"no")]

Frame = Callable[[Any], Any]
ErrorFrame = Callable[[A2AError], Any]


def data_event(payload: Any) -> bytes:
    """One SSE event holding one JSON document on a single `data:` line."""
    return b"data: " + dumps(payload) + b"\n\n"


def error_event(payload: Any) -> bytes:
    # REAL-CLIENTS §7.5: a mid-stream error comes as `event: error`
    return b"event: error\ndata: " + dumps(payload) + b"\n\n"


async def stream_response(
    request: Request, events: AsyncIterator[Any], frame: Frame, error_frame: ErrorFrame, lane: Lane
) -> Response:
    """Pull the first event before committing to 200, so an early error stays a plain response. What carries the
    rest of the stream waits in the back lane: in a burst of new streams, every first event goes out before it."""
    first = await anext(events)  # an A2AError raised here is rendered by the binding as usual

    async def body() -> AsyncIterator[bytes]:
        yield data_event(frame(first))
        await lane.turn()  # the events meanwhile wait in the task's follower queue
        async for chunk in _rest_of_stream(request, events, frame, error_frame):
            yield chunk

    return Response(200, list(_HEADERS), StreamedContent(b"text/event-stream", body))


def one_event_stream(payload: Any) -> Response:
    """A 200 event stream of one `data:` event, then its end (0.3 JSON-RPC: a stream refused before it starts)."""
    return Response(200, list(_HEADERS), Content(b"text/event-stream", data_event(payload)))


async def _rest_of_stream(
    request: Request, events: AsyncIterator[Any], frame: Frame, error_frame: ErrorFrame,
    heartbeat: float = HEARTBEAT_SECONDS,
) -> AsyncIterator[bytes]:
    """The events after the first, framed; after `heartbeat` seconds with nothing sent, a keep-alive comment (or
    the end, when the client is gone)."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    pump = asyncio.create_task(_pump(events, queue))
    silence = _Silence(queue, heartbeat)
    try:
        while True:
            items = [await queue.get(), *_ready(queue)]
            silence.broken()
            items = [item for item in items if item is not _BEAT]
            if not items:  # only the silence broke
                # writes to a gone client fail silently: poll for the disconnect (stack notes §1.4)
                if await request.is_disconnected():
                    return
                yield b": keep-alive\n\n"
                continue
            # the events ready now leave in one write: under load, one send per event would cost more than the
            # framing (a burst of streams then waits on each other's sends)
            chunk, ended = _frames(items, frame, error_frame)
            if chunk:
                yield chunk
            if ended:
                return
    finally:
        silence.cancel()
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump


class _Silence:
    """Puts _BEAT in the queue once `seconds` pass with nothing taken from it: one timer per stream, re-armed
    only when it fires (a timeout per event, asyncio.wait_for, costs a task each time: too dear for a burst)."""

    def __init__(self, queue: asyncio.Queue[Any], seconds: float) -> None:
        self._queue = queue
        self._seconds = seconds
        self._loop = asyncio.get_running_loop()
        self._last = self._loop.time()
        self._timer = self._loop.call_later(seconds, self._check)

    def broken(self) -> None:
        self._last = self._loop.time()

    def _check(self) -> None:
        quiet_until = self._last + self._seconds
        if self._loop.time() >= quiet_until:
            self._queue.put_nowait(_BEAT)
            quiet_until = self._loop.time() + self._seconds
        self._timer = self._loop.call_at(quiet_until, self._check)

    def cancel(self) -> None:
        self._timer.cancel()


def _ready(queue: asyncio.Queue[Any]) -> list[Any]:
    items = []
    while not queue.empty():
        items.append(queue.get_nowait())
    return items


def _frames(items: list[Any], frame: Frame, error_frame: ErrorFrame) -> tuple[bytes, bool]:
    """The SSE bytes of items up to the end of the stream, and whether it ended (_END or an error)."""
    out: list[bytes] = []
    for item in items:
        if item is _END:
            return b"".join(out), True
        if isinstance(item, A2AError):
            out.append(error_event(error_frame(item)))
            return b"".join(out), True
        out.append(data_event(frame(item)))
    return b"".join(out), False


async def _pump(events: AsyncIterator[Any], queue: asyncio.Queue[Any]) -> None:
    try:
        async for event in events:
            queue.put_nowait(event)
    except A2AError as error:
        queue.put_nowait(error)
    except Exception:
        log.exception("stream failed after it started")
        queue.put_nowait(InternalError())
    finally:
        closer = getattr(events, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()
    queue.put_nowait(_END)
