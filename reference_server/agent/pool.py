"""The session pool: (workspace, caller, contextId) -> session, kept while in use, evicted when idle."""

from __future__ import annotations

import itertools
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from reference_server.a2a.ports import Prompt
from reference_server.agent.session import AgentSession, SessionFactory

log = logging.getLogger("reference_server.pool")

_Key = tuple[Path, str, str]
_SCAN = 64


@dataclass
class _Entry:
    session: AgentSession
    last_used: float


class SessionPool:
    """Opens or resumes sessions through the factory; keeps them for the next message of their context.

    It knows sessions, not tasks: which context is busy is the domain's run registry's business. An idle
    session is dropped after the idle timeout, or sooner when more than max_idle are kept or their records
    take more than max_bytes (the least recently used first, never a running one); a dropped session
    resumes from its JSONL file, so memory stays bounded however many contexts and messages there were.
    """

    def __init__(self, factory: SessionFactory, *, idle_timeout: timedelta, max_idle: int = 256,
                 max_bytes: int = 256 * 1024 * 1024, clock: Callable[[], float] = time.monotonic) -> None:
        self._factory = factory
        self._idle = idle_timeout.total_seconds()
        self._max_idle = max_idle
        self._max_bytes = max_bytes
        self._clock = clock
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()  # least recently used first
        self._bytes = 0  # the kept sessions' sizes, kept up to date by the sessions themselves

    @staticmethod
    def scope(scope_prefix: str, caller: str, context_id: str) -> str:
        """design "SendMessage" 2: <ScopePrefix>-a2a-<caller>_<contextId>."""
        return f"{scope_prefix}-a2a-{caller}_{context_id}"

    def session(self, workspace: Path, caller: str, context_id: str, scope_prefix: str) -> AgentSession:
        """The context's session: the one in memory, else opened (resumed from its file when it has one)."""
        key = (workspace, caller, context_id)
        entry = self._entries.get(key)
        if entry is None:
            session = self._factory.open(self.scope(scope_prefix, caller, context_id), workspace)
            session.on_growth = self._grew
            entry = self._entries[key] = _Entry(session, self._clock())
            self._trim()
        else:
            entry.last_used = self._clock()
            self._entries.move_to_end(key)
            self._trim()  # its last run may have grown it past the byte cap
        return entry.session

    def foresight(self, workspace: Path) -> Callable[[Prompt, str | None], bool] | None:
        """SessionFactory.foresight: asked before a session is opened."""
        return self._factory.foresight(workspace)

    def evict_idle(self) -> int:
        """Drop sessions idle longer than the idle timeout (they stay resumable from JSONL); how many."""
        now = self._clock()
        idle = [key for key, e in self._entries.items() if not e.session.running and now - e.last_used > self._idle]
        for key in idle:
            self._drop(key)
        return len(idle)

    def _grew(self, delta: int) -> None:
        self._bytes += delta

    def _drop(self, key: _Key) -> None:
        session = self._entries.pop(key).session
        session.on_growth = None  # a dropped session may still run to its end: it no longer counts here
        self._bytes -= session.size

    def _trim(self) -> None:
        """Over max_idle sessions or max_bytes: drop the least recently used ones that are not running (nor the
        one just asked for)."""
        count, size = len(self._entries), self._bytes
        if count <= self._max_idle and size <= self._max_bytes:
            return
        over_bytes = size > self._max_bytes
        victims: list[_Key] = []
        # never the most recently used (the session just asked for, about to run); and at most _SCAN of the
        # oldest per call, so that many running sessions (which cannot go) cost no request a full scan
        for key, entry in itertools.islice(self._entries.items(), min(_SCAN, len(self._entries) - 1)):
            if count <= self._max_idle and size <= self._max_bytes:
                break
            if not entry.session.running:
                victims.append(key)
                count -= 1
                size -= entry.session.size
        for key in victims:
            self._drop(key)
        if victims and over_bytes:
            log.info("session pool: over A2A__MaxSessionBytes (%d MB); dropped the %d least recently used idle "
                     "sessions (they resume from their files)", self._max_bytes // 2**20, len(victims))
