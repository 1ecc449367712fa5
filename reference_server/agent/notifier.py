"""The owner-notifier protocol and the default host's notifier, which logs (design: IA2AOwnerNotifier)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger("reference_server.owner")


class OwnerNotifier(Protocol):
    """Reaches the owner of a workspace; absent means no notify_owner tool (design "Components")."""

    async def notify(self, owner_id: str, caller: str, text: str) -> None: ...


@dataclass(frozen=True)
class Notification:
    """One message a caller's session sent to the owner."""

    owner_id: str
    caller: str
    text: str


class LoggingNotifier:
    """The default host's notifier: one INFO line per notification, kept in memory in `.sent`."""

    def __init__(self) -> None:
        self.sent: list[Notification] = []

    async def notify(self, owner_id: str, caller: str, text: str) -> None:
        self.sent.append(Notification(owner_id, caller, text))
        log.info("owner %s notified by %s: %s", owner_id, caller, text)
