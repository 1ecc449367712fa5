"""How the server is served: uvicorn's options in one place, and a protocol that times out slow headers and sends a
response's headers with the first bytes of its body."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from reference_server.settings import Settings


def guarded_protocol(header_seconds: float) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol, closing a connection whose request headers take longer than header_seconds
    to arrive, from the connection's start or from a request's first byte (a slowloris holds nothing)."""

    class GuardedHttpToolsProtocol(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None

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
                self.cycle.transport = HeadersWithBody(self.transport, self.loop)  # type: ignore[assignment]

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
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
    right after them (a stream whose first event is not ready) leave on the loop's next turn all the same."""

    MERGE_LIMIT = 64 * 1024  # a larger body is not copied to sit behind the headers: two sends then

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None
        self._first = True

    def write(self, data: bytes) -> None:
        if self._first:  # the response's status line and headers (or a 100 Continue: it leaves as promptly)
            self._first = False
            self._held = data
            self._loop.call_soon(self._flush)
            return
        held, self._held = self._held, None
        if held is not None and len(data) <= self.MERGE_LIMIT:
            data = held + data
        elif held is not None:
            self._transport.write(held)
        self._transport.write(data)

    def _flush(self) -> None:
        held, self._held = self._held, None
        if held is not None and not self._transport.is_closing():
            self._transport.write(held)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The uvicorn settings every way of serving uses (the command, the tests, the bench)."""
    return {
        "http": guarded_protocol(settings.header_timeout.total_seconds()),
        "loop": "asyncio",
        "timeout_keep_alive": 5,
        "timeout_graceful_shutdown": 3,
        "access_log": False,
        # the server never reads a client's address, so uvicorn's X-Forwarded-* middleware would be work per
        # request for nothing
        "proxy_headers": False,
    }
