"""Garbage collection that waits while the event loop is busy.

CPython collects its young generation whenever enough new objects have piled up, whatever the loop is doing.
With many streams open, the new objects are the streams' own (alive, so every collection walks them all for
nothing): 1,000 streams opened at once set off collections of 30-50 ms each, 80-120 ms of the 470 ms the loop
needed for their first events (docs/performance.md).

So the server takes the trigger over: automatic collection is off, and a timer on the loop looks at the same
counts every `interval` seconds. When a collection is due, it runs at once if the timer fired on time (the
loop had room), and otherwise waits for a tick that is on time, but never longer than `max_wait` seconds,
nor once the young generation is `limit` times over its threshold: under a load that never lets up, it
runs as before, and memory stays bounded. Which generation is collected follows CPython's thresholds.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable

THRESHOLDS = (50_000, 20, 100)  # CPython's defaults: 700, 10, 10 (cli.tune_runtime says why)
INTERVAL_SECONDS = 0.05
BUSY_LATENESS_SECONDS = 0.005  # a tick this late found the loop busy
MAX_WAIT_SECONDS = 1.0  # a due collection waits no longer (a burst's first answers take a fraction of that)
LIMIT = 8  # young objects beyond this many thresholds: collect now, busy or not


class Collector:
    """Starts on the running loop (automatic collection off), stops with it (automatic collection back on)."""

    def __init__(self, thresholds: tuple[int, int, int] = THRESHOLDS, *, interval: float = INTERVAL_SECONDS,
                 busy_lateness: float = BUSY_LATENESS_SECONDS, max_wait: float = MAX_WAIT_SECONDS,
                 limit: int = LIMIT,
                 count: Callable[[], tuple[int, int, int]] = gc.get_count,
                 collect: Callable[[int], object] = gc.collect) -> None:
        self._thresholds = thresholds
        self._interval = interval
        self._busy_lateness = busy_lateness
        self._max_wait = max_wait
        self._due_since: float | None = None  # when the collection that waits for room became due
        self._limit = limit
        self._count = count
        self._collect = collect
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._due = 0.0

    def start(self) -> None:
        gc.disable()
        self._loop = asyncio.get_running_loop()
        self._schedule()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        gc.enable()

    def check(self, now: float, lateness: float) -> int | None:
        """Collect if a collection is due and the loop has room (or it cannot wait): the generation, or None."""
        young, younger_runs, older_runs = self._count()
        threshold, middle, oldest = self._thresholds
        if young < threshold:
            return None
        if self._due_since is None:
            self._due_since = now
        waited = now - self._due_since
        if lateness > self._busy_lateness and waited < self._max_wait and young < self._limit * threshold:
            return None  # busy: the next tick that is on time
        self._due_since = None
        # as CPython: the oldest generation whose count (of collections of the one below it) passed its threshold
        generation = 2 if older_runs > oldest else 1 if younger_runs > middle else 0
        self._collect(generation)
        return generation

    def _schedule(self) -> None:
        assert self._loop is not None
        self._due = self._loop.time() + self._interval
        self._timer = self._loop.call_at(self._due, self._tick)

    def _tick(self) -> None:
        assert self._loop is not None
        now = self._loop.time()
        self.check(now, now - self._due)
        self._schedule()
