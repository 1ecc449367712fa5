"""collector.py: young collections wait while the loop is busy, run when it has room, and never wait forever."""

from __future__ import annotations

import asyncio
import gc

import pytest

from reference_server.platform.collector import Collector


class Counts:
    """Stands in for gc: the counts it reports, and the generations it was asked to collect."""

    def __init__(self, young: int, younger_runs: int = 0, older_runs: int = 0) -> None:
        self.counts = (young, younger_runs, older_runs)
        self.collected: list[int] = []

    def count(self) -> tuple[int, int, int]:
        return self.counts

    def collect(self, generation: int) -> int:
        self.collected.append(generation)
        return 0


def collector(counts: Counts) -> Collector:
    return Collector((1000, 20, 100), busy_lateness=0.005, max_wait=1.0, limit=8, count=counts.count,
                     collect=counts.collect)


def test_nothing_is_collected_below_the_threshold() -> None:
    counts = Counts(young=999)
    assert collector(counts).check(now=0.0, lateness=0.0) is None
    assert counts.collected == []


def test_a_due_collection_runs_when_the_tick_is_on_time() -> None:
    counts = Counts(young=1000)
    assert collector(counts).check(now=0.0, lateness=0.001) == 0
    assert counts.collected == [0]


def test_a_late_tick_means_a_busy_loop_and_the_collection_waits() -> None:
    counts = Counts(young=7999)
    assert collector(counts).check(now=0.0, lateness=0.2) is None
    assert counts.collected == []


def test_a_due_collection_waits_for_a_busy_loop_at_most_its_max_wait() -> None:
    counts = Counts(young=1000)
    waiting = collector(counts)
    assert waiting.check(now=10.0, lateness=0.2) is None
    assert waiting.check(now=10.9, lateness=0.2) is None
    assert waiting.check(now=11.0, lateness=0.2) == 0  # due since 10.0: a second is the most it waits
    assert waiting.check(now=11.1, lateness=0.2) is None  # the next one waits afresh


def test_far_over_the_threshold_it_collects_however_busy_the_loop_is() -> None:
    counts = Counts(young=8000)
    assert collector(counts).check(now=0.0, lateness=0.2) == 0


@pytest.mark.parametrize(("younger_runs", "older_runs", "generation"), [(20, 100, 0), (21, 100, 1), (21, 101, 2),
                                                                       (0, 101, 2)])
def test_the_generation_follows_cpythons_thresholds(younger_runs: int, older_runs: int, generation: int) -> None:
    counts = Counts(young=1000, younger_runs=younger_runs, older_runs=older_runs)
    assert collector(counts).check(now=0.0, lateness=0.0) == generation


def test_while_it_runs_automatic_collection_is_off_and_its_timer_collects() -> None:
    counts = Counts(young=1000)

    async def main() -> bool:
        running = Collector((1000, 20, 100), interval=0.01, count=counts.count, collect=counts.collect)
        running.start()
        try:
            off = not gc.isenabled()
            while not counts.collected:  # the timer's first on-time tick
                await asyncio.sleep(0.01)
            return off
        finally:
            running.stop()

    assert asyncio.run(asyncio.wait_for(main(), 10)) is True
    assert gc.isenabled()
    assert counts.collected[0] == 0
