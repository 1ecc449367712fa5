"""How the server is served: uvicorn's options in one place, and a protocol that times out slow headers and sends a
response's headers with the first bytes of its body."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import socket
import struct
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from reference_server.bindings.http import OUTLET
from reference_server.settings import Settings, SettingsError

log = logging.getLogger("reference_server.serving")


def guarded_protocol(header_seconds: float) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol, closing a connection whose request headers take longer than header_seconds
    to arrive, from the connection's start or from a request's first byte (a slowloris holds nothing)."""

    class GuardedHttpToolsProtocol(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None
        _view: HeadersWithBody | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._header_timer is None:  # a later request on the connection (the first one's timer runs)
                self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            before = self.cycle
            super().on_headers_complete()
            if self.cycle is not None and self.cycle is not before:  # a new request's cycle (not an upgrade)
                view = HeadersWithBody(self.transport, self.loop)
                self.cycle.transport = view  # type: ignore[assignment]
                self.cycle.scope[OUTLET] = view  # type: ignore[literal-required]
                self._view = view

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._view is not None:
                self._view.lost()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(header_seconds, self._headers_too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return GuardedHttpToolsProtocol


class HeadersWithBody:
    """What a request's response is written to: its status line and headers wait for the first bytes of its body
    and leave with them, in one send instead of two (a loopback send costs ~20 us: with 1,000 streams opened at
    once, that is the headers of the last stream's first event, and every answer pays it). Headers with no body
    right after them (a stream whose first event is not ready) leave on the loop's next turn all the same.

    It is also the request's Outlet (bindings/sse.py): how many bytes wait for the client, a stall guard that
    closes the connection of a client that stops reading, and a call when the connection is lost."""

    MERGE_LIMIT = 64 * 1024  # a larger body is not copied to sit behind the headers: two sends then

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None
        self._first = True
        self._written = 0  # bytes handed to the transport
        self._lost: list[Callable[[], object]] = []
        self._gone = False
        self._ended = False  # cut or aborted: the rest of the response is dropped
        self._stall: _StallGuard | None = None

    def write(self, data: bytes) -> None:
        if self._ended:
            return
        if self._first:  # the response's status line and headers (or a 100 Continue: it leaves as promptly)
            self._first = False
            self._held = data
            self._loop.call_soon(self._flush)
            return
        held, self._held = self._held, None
        if held is not None and len(data) <= self.MERGE_LIMIT:
            data = held + data
        elif held is not None:
            self._send(held)
        self._send(data)

    def _send(self, data: bytes) -> None:
        self._transport.write(data)
        self._written += len(data)
        if self._stall is not None:
            self._stall.watch()

    def _flush(self) -> None:
        held, self._held = self._held, None
        if held is not None and not self._transport.is_closing():
            self._send(held)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    # --- the Outlet ---

    @property
    def gone(self) -> bool:
        return self._gone

    def unsent(self) -> int:
        return len(self._held or b"") + self._transport.get_write_buffer_size()

    def taken(self) -> int:
        """Bytes the client's socket has taken so far."""
        return self._written - self._transport.get_write_buffer_size()

    def guard_stalls(self, seconds: float) -> None:
        if self._stall is None:
            self._stall = _StallGuard(self, seconds, self._loop)

    def on_lost(self, callback: Callable[[], object]) -> None:
        if self._gone:
            callback()
        else:
            self._lost.append(callback)

    def lost(self) -> None:
        """The connection is gone (the protocol's connection_lost)."""
        self._gone = True
        if self._stall is not None:
            self._stall.stop()
        callbacks, self._lost = self._lost, []
        for callback in callbacks:
            callback()

    def cut(self) -> None:
        """Close the connection after what waits is sent, the response unfinished: a stream cut short (a fault a
        message asked for, bindings/faults.py). The response's last writes, its end among them, are dropped."""
        self._flush()
        self._ended = True
        self._transport.close()

    def abort(self) -> None:
        """Drop the connection: a reset, with what waits for the client thrown away, here and in the kernel (a plain
        close would leave the kernel sending it to a client that never takes it, and the client none the wiser)."""
        self._ended = True
        sock = self._transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self._transport.abort()  # not close(): that would wait for a buffer the client never takes


class _StallGuard:
    """While bytes wait for the client, a check every `seconds / 4` (at most every second): when the client has
    taken none of them since `seconds` ago, the connection is aborted (a slow consumer is dropped, as a message
    broker drops one). No timer runs while nothing waits, so a client that keeps up costs a check per write."""

    def __init__(self, view: HeadersWithBody, seconds: float, loop: asyncio.AbstractEventLoop) -> None:
        self._view, self._seconds, self._loop = view, seconds, loop
        self._every = min(1.0, seconds / 4)
        self._timer: asyncio.TimerHandle | None = None
        self._taken = view.taken()
        self._since = loop.time()

    def watch(self) -> None:
        if self._timer is None and self._view.unsent():
            self._taken, self._since = self._view.taken(), self._loop.time()
            self._timer = self._loop.call_later(self._every, self._check)

    def _check(self) -> None:
        self._timer = None
        unsent = self._view.unsent()
        if not unsent:
            return
        now, taken = self._loop.time(), self._view.taken()
        if taken > self._taken:
            self._taken, self._since = taken, now
        elif now - self._since >= self._seconds:
            log.info("a stream's client took none of the %d bytes waiting for it in %g s (A2A__StreamWriteTimeout): "
                     "its connection is closed", unsent, self._seconds)
            self._view.abort()
            return
        self._timer = self._loop.call_later(self._every, self._check)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def event_loop(mode: str) -> str:
    """uvicorn's loop for A2A__EventLoop: uvloop, measured faster on every throughput of the bench (docs/performance.md,
    "uvloop"), where it can be imported; else asyncio's own (auto), or a SettingsError (uvloop)."""
    if mode == "asyncio":
        return "asyncio"
    try:
        importlib.import_module("uvloop")  # a dependency where it builds (not on Windows): it may still be missing
    except ImportError as error:
        if mode == "uvloop":
            raise SettingsError(f"A2A__EventLoop (--event-loop) is uvloop, but uvloop cannot be imported here "
                                f"({error}); expected asyncio (or auto)") from None
        log.info("uvloop cannot be imported here (%s): the server runs on asyncio's own event loop", error)
        return "asyncio"
    return "uvloop"


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The uvicorn settings every way of serving uses (the command, the tests, the bench)."""
    return {
        "http": guarded_protocol(settings.header_timeout.total_seconds()),
        "loop": event_loop(settings.event_loop),
        "timeout_keep_alive": 5,
        "timeout_graceful_shutdown": 3,
        "access_log": False,
        # the server never reads a client's address, so uvicorn's X-Forwarded-* middleware would be work per
        # request for nothing
        "proxy_headers": False,
    }
