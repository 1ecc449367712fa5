"""How the server is served: uvicorn's options in one place, and a protocol that times out slow headers."""

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
            super().on_headers_complete()

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
