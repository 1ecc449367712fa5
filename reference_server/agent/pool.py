"""The session pool: (workspace, caller, contextId) -> session, one run at a time per context."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from reference_server.agent.session import AgentSession, SessionFactory

_Key = tuple[Path, str, str]


@dataclass
class _Entry:
    session: AgentSession
    task_id: str | None  # the task whose run is live in this context (the busy flag)
    last_used: float


@dataclass
class _TaskRun:
    key: _Key
    finished_at: float | None = None


class SessionPool:
    """Opens or resumes sessions through the factory, marks contexts busy, evicts idle sessions."""

    def __init__(self, factory: SessionFactory, *, idle_timeout: timedelta,
                 finished_grace: timedelta = timedelta(minutes=1),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._factory = factory
        self._idle = idle_timeout.total_seconds()
        self._grace = finished_grace.total_seconds()
        self._clock = clock
        self._entries: dict[_Key, _Entry] = {}
        self._runs: dict[str, _TaskRun] = {}

    @staticmethod
    def scope(scope_prefix: str, caller: str, context_id: str) -> str:
        """design "SendMessage" 2: <ScopePrefix>-a2a-<caller>_<contextId>."""
        return f"{scope_prefix}-a2a-{caller}_{context_id}"

    def claim(self, workspace: Path, caller: str, context_id: str, task_id: str,
              scope_prefix: str) -> AgentSession | None:
        """The context's session, marked busy with task_id live; None when a run is live there already."""
        self._forget_finished()
        key = (workspace.resolve(), caller, context_id)
        entry = self._entries.get(key)
        if entry is not None and (entry.task_id is not None or entry.session.running):
            return None  # design "Decisions": one message at a time per context
        if entry is None:
            session = self._factory.open(self.scope(scope_prefix, caller, context_id), workspace)
            entry = self._entries[key] = _Entry(session, None, self._clock())
        entry.task_id = task_id
        self._runs[task_id] = _TaskRun(key)
        return entry.session

    def release(self, task_id: str) -> None:
        """The run of task_id ended: its context is free; the task stays live for the finished grace."""
        run = self._runs.get(task_id)
        if run is None or run.finished_at is not None:
            return
        now = self._clock()
        run.finished_at = now
        entry = self._entries.get(run.key)
        if entry is not None and entry.task_id == task_id:
            entry.task_id = None
            entry.last_used = now

    def is_live(self, task_id: str) -> bool:
        """Running, or finished less than the grace ago (design "Deviations": the finished-run grace)."""
        run = self._runs.get(task_id)
        return run is not None and (run.finished_at is None or self._clock() - run.finished_at < self._grace)

    def is_running(self, task_id: str) -> bool:
        run = self._runs.get(task_id)
        return run is not None and run.finished_at is None

    def abort(self, task_id: str) -> bool:
        """Abort the running session of task_id; False when it has none."""
        if not self.is_running(task_id):
            return False
        entry = self._entries.get(self._runs[task_id].key)
        if entry is None:
            return False
        entry.session.abort()
        return True

    def evict_idle(self) -> int:
        """Drop sessions idle longer than the idle timeout (they stay resumable from JSONL); how many."""
        now = self._clock()
        idle = [key for key, e in self._entries.items()
                if e.task_id is None and not e.session.running and now - e.last_used > self._idle]
        for key in idle:
            del self._entries[key]
        self._forget_finished()
        return len(idle)

    def session_count(self) -> int:
        return len(self._entries)

    def _forget_finished(self) -> None:
        now = self._clock()
        done = [t for t, r in self._runs.items()
                if r.finished_at is not None and now - r.finished_at >= self._grace]
        for task_id in done:
            del self._runs[task_id]
