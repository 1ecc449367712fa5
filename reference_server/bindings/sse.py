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

log = logging.getLogger("reference_server.sse")

HEARTBEAT_SECONDS = 15.0
_END = object()
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
    request: Request, events: AsyncIterator[Any], frame: Frame, error_frame: ErrorFrame
) -> Response:
    """Pull the first event before committing to 200, so an early error stays a plain response."""
    first = await anext(events)  # an A2AError raised here is rendered by the binding as usual

    async def body() -> AsyncIterator[bytes]:
        yield data_event(frame(first))
        async for chunk in _rest_of_stream(request, events, frame, error_frame):
            yield chunk

    return Response(200, list(_HEADERS), StreamedContent(b"text/event-stream", body))


def one_event_stream(payload: Any) -> Response:
    """A 200 event stream of one `data:` event, then its end (0.3 JSON-RPC: a stream refused before it starts)."""
    return Response(200, list(_HEADERS), Content(b"text/event-stream", data_event(payload)))


async def _rest_of_stream(
    request: Request, events: AsyncIterator[Any], frame: Frame, error_frame: ErrorFrame
) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[Any] = asyncio.Queue()
    pump = asyncio.create_task(_pump(events, queue))
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
            except TimeoutError:
                # writes to a gone client fail silently: poll for the disconnect (stack notes §1.4)
                if await request.is_disconnected():
                    return
                yield b": keep-alive\n\n"
                continue
            # the events ready now leave in one write: under load, one send per event would cost more than the
            # framing (a burst of streams then waits on each other's sends)
            chunk, ended = _frames([item, *_ready(queue)], frame, error_frame)
            if chunk:
                yield chunk
            if ended:
                return
    finally:
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump


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
