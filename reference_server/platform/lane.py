"""The back lane: work that may wait while the requests already here get their first answers.

A stream's first event is the task as created; opening its session, starting its run and queueing its file can
come a moment later. On one event loop, a burst of new streams otherwise serves each stream's run before the next
stream's first event, so the last first event waits for every run before it (measured: 1,000 streams opened at
once, docs/performance.md).

So that work waits here, and runs on the loop's turns in proportion to what else the loop does: while other work
keeps the loop busy and many jobs wait (a burst), the lane takes a small share of its time (`share`); once a turn
passes with nothing else to do, or only a few jobs wait (a few streams in flight: nothing to make room for), a
whole slice. A busy loop never starves it (its share grows with the time that passes), and an idle loop runs its
jobs one slice after another, at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable

log = logging.getLogger("reference_server.lane")  # the name its log lines have always had

SHARE = 0.1  # of a busy loop's time
SLICE_SECONDS = 0.002  # at most, per turn
QUIET_SECONDS = 0.0002  # a turn this short did nothing but the lane's own step
FEW = 16  # no more jobs than this waiting: no burst to make room for (a few streams in flight, say)


class Lane:
    """Jobs (plain callables, quick: no awaiting) run in the order given, on later turns of the event loop."""

    def __init__(self, *, share: float = SHARE, slice_seconds: float = SLICE_SECONDS,
                 quiet_seconds: float = QUIET_SECONDS, few: int = FEW,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._share = share
        self._few = few
        self._slice = slice_seconds
        self._quiet = quiet_seconds
        self._clock = clock
        self._jobs: deque[Callable[[], object]] = deque()
        self._worker: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._jobs)

    def defer(self, job: Callable[[], object]) -> None:
        """Run job on a later turn of the running loop, after every job deferred before it."""
        self._jobs.append(job)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work(), name="back lane")

    async def turn(self) -> None:
        """Wait until the jobs deferred before now have run: what follows is work for the lane too."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def go() -> None:
            if not ready.done():  # a waiter cancelled meanwhile is no error
                ready.set_result(None)

        self.defer(go)
        await ready

    async def _work(self) -> None:
        jobs, clock = self._jobs, self._clock
        credit = 0.0  # seconds the lane may still use
        mark = clock()
        while jobs:
            await asyncio.sleep(0)  # the rest of this turn first: the requests that are ready now
            now = clock()
            gap = now - mark  # what the loop did since the lane's last step
            if gap < self._quiet or len(jobs) <= self._few:  # a quiet loop, or no burst behind: a whole slice
                credit = max(credit, self._slice)
            else:
                credit = min(self._slice, credit + self._share * gap)
            while jobs and credit > 0:
                job = jobs.popleft()
                try:
                    job()
                except Exception:  # one job's failure is its own: the lane goes on
                    log.exception("back lane: a job failed")
                done = clock()
                credit -= done - now
                now = done
            mark = now
