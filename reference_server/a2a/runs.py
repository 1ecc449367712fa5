"""The live runs: the one place that knows which run serves a task and whether a context is busy."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Generic, TypeVar

R = TypeVar("R")


@dataclass(frozen=True)
class RunKey:
    """Whose run and where: a caller's context in a workspace (design: one message at a time per context)."""

    workspace: Path
    caller: str
    context_id: str


class RunRegistry(Generic[R]):
    """Live runs by task id and by context, and the runs that ended less than the finished grace ago.

    design "Deviations": a just-finished run still counts as live for a grace period (one minute). Here it
    protects lazy restart recovery from a stale read: a task file read on a disk thread while its run was
    working, and looked at here only after the run ended, must not be taken for a run that died with the
    server and rewritten as failed ("server restarted") over its real final state.

    Ended runs are kept in the order they ended and forgotten from the oldest, so no request scans them all,
    and what is remembered of an ended run is its task id and a time.
    """

    def __init__(self, *, finished_grace: timedelta = timedelta(minutes=1),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._grace = finished_grace.total_seconds()
        self._clock = clock
        self._runs: dict[str, tuple[RunKey | None, R]] = {}
        self._busy: dict[RunKey, str] = {}  # context -> the task whose run is live there
        self._ended: dict[str, float] = {}  # task id -> when its run ended, oldest first

    def claim(self, key: RunKey | None, task_id: str, run: R) -> bool:
        """Register run as the live run of task_id in its context; False when that context is busy.

        key None: a run that holds no context (a task failed over the hop limit, which never reaches a session).
        """
        if key is not None:
            if key in self._busy:
                return False  # design "Decisions": one message at a time per context
            self._busy[key] = task_id
        self._runs[task_id] = (key, run)
        self._ended.pop(task_id, None)
        return True

    def ended(self, task_id: str) -> None:
        """The run of task_id ended: its context is free, and it is remembered for the finished grace."""
        found = self._runs.pop(task_id, None)
        if found is None:
            return
        if found[0] is not None:
            self._busy.pop(found[0], None)
        self._ended[task_id] = self._clock()
        self._forget_expired()

    def run_of(self, task_id: str) -> R | None:
        """The live run serving task_id, if any."""
        found = self._runs.get(task_id)
        return found[1] if found is not None else None

    def is_live(self, task_id: str) -> bool:
        """Running, or ended less than the finished grace ago: its task file must not be recovered."""
        self._forget_expired()
        return self.knows(task_id)

    def knows(self, task_id: str) -> bool:
        """is_live without forgetting anything, so a disk thread may ask (a lookup; the grace may run long)."""
        return task_id in self._runs or task_id in self._ended

    def live_runs(self, workspace: Path, caller: str) -> Iterator[R]:
        """The live runs of one caller of one workspace (as many as that caller has contexts busy)."""
        for key, task_id in list(self._busy.items()):
            if key.workspace == workspace and key.caller == caller:
                yield self._runs[task_id][1]

    def _forget_expired(self) -> None:
        horizon = self._clock() - self._grace
        while self._ended:
            task_id, ended_at = next(iter(self._ended.items()))
            if ended_at > horizon:
                return
            del self._ended[task_id]
