"""A per-session publish/subscribe event bus: `a2a.inbound { hops, caller }` and the session events."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

Handler = Callable[[dict[str, Any]], None]

log = logging.getLogger(__name__)


class EventBus:
    """Synchronous fan-out by event name; a failing handler is logged, never raised to the publisher."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = {}

    def subscribe(self, name: str, handler: Handler) -> Callable[[], None]:
        """Call handler for every event published under name; returns the function that unsubscribes."""
        self._handlers.setdefault(name, []).append(handler)

        def unsubscribe() -> None:
            handlers = self._handlers.get(name, [])
            if handler in handlers:
                handlers.remove(handler)

        return unsubscribe

    def wants(self, name: str) -> bool:
        """True when someone subscribes to name (so a publisher can skip building the payload)."""
        return bool(self._handlers.get(name))

    def publish(self, name: str, payload: dict[str, Any]) -> None:
        """Hand payload to every current subscriber of name, in subscription order."""
        for handler in list(self._handlers.get(name, ())):
            try:
                handler(payload)
            except Exception:
                log.exception("event bus handler for %r failed", name)
