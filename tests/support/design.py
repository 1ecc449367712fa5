"""What the design's own steps (tests/steps/) keep in a scenario beside the World of the portable ones: the owner host
they started, the a2a command's output, the file servers and the bytes they serve, the push receiver's pushes, a
message sent in the background, and the answer a step compares the next one with. The `design` fixture
(tests/conftest.py) gives each scenario its own."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from reference_server.conformance.support.replies import Reply
from reference_server.conformance.support.webhook import Webhook
from support.live import OwnerHostWorkspaces, OwnersFileWorkspaces
from support.telegram import FakeTelegram


@dataclass
class OwnerHost:
    """An owner host a scenario started: its root, the owners it serves, and the fake Telegram Bot API it notifies."""

    root: Path
    workspaces: OwnerHostWorkspaces | OwnersFileWorkspaces
    telegram: FakeTelegram


@dataclass
class ReceiverPushes:
    """What the scenario sent to the push receiver, and what the receiver last answered."""

    tokens: list[str] = field(default_factory=list)  # the watches' tokens, which no log line may hold
    sent: list[dict[str, Any]] = field(default_factory=list)  # the JSON bodies sent, in order
    first_sent_at: datetime | None = None  # when the first push went (the log's receivedAt comes after it)
    answer: httpx.Response | None = None


@dataclass
class Background:
    """A message sent on a thread of its own, and its answer to come."""

    message: dict[str, Any]
    answer: Future[Reply]


@dataclass
class DesignState:
    """What the design's steps of one scenario keep (tests/steps/)."""

    owner_host: OwnerHost | None = None
    command: tuple[str, str] | None = None  # how the a2a command printed ("text" or "JSON"), and what
    answers: dict[str, httpx.Response] = field(default_factory=dict)  # each route tried, with A2A switched off
    file_servers: dict[str, Webhook] = field(default_factory=dict)  # "file server", "other file server"
    file_bytes: bytes | None = None  # the bytes of the file the caller sent, or of the one its URL serves
    saved: str | None = None  # where the inbox saved it ("inbox/<name>")
    stale_file: dict[str, Any] | None = None  # a task file as it was set back
    receiver: ReceiverPushes = field(default_factory=ReceiverPushes)
    notified_before: int = 0  # what the owner notifier had sent before the scenario (the server is shared)
    background: Background | None = None
    answer_before: Reply | None = None  # the answer the next one is compared with
