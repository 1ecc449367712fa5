"""The back lane (lane.py): jobs in order, a small share of a busy loop, everything at once on an idle one."""

from __future__ import annotations

import asyncio
import logging

import pytest

from reference_server.platform.lane import Lane


class Clock:
    """Time that moves only when the test says: what other work and each job cost."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_jobs_run_in_the_order_given_and_a_failure_stops_no_other(caplog: pytest.LogCaptureFixture) -> None:
    ran: list[int] = []

    def job(n: int) -> None:
        ran.append(n)
        if n == 2:
            raise RuntimeError("job 2 broke")

    async def main() -> None:
        lane = Lane()
        for n in range(5):
            lane.defer(lambda n=n: job(n))  # type: ignore[misc]
        while len(lane):
            await asyncio.sleep(0)

    with caplog.at_level(logging.ERROR, logger="reference_server.lane"):
        asyncio.run(main())
    assert ran == [0, 1, 2, 3, 4]
    assert "a job failed" in caplog.text


def run_beside_busy_work(busy_turns: int, busy_seconds: float, jobs: int, job_seconds: float,
                         few: int = 16) -> tuple[int, int]:
    """How many jobs ran while other work kept the loop busy, and how many in all once it stopped."""
    clock = Clock()
    lane = Lane(share=0.1, slice_seconds=0.002, quiet_seconds=0.0002, few=few, clock=clock)
    ran: list[int] = []

    def job(n: int) -> None:
        clock.now += job_seconds
        ran.append(n)

    async def busy() -> int:
        for _ in range(busy_turns):
            clock.now += busy_seconds  # a turn's requests
            await asyncio.sleep(0)
        return len(ran)

    async def main() -> tuple[int, int]:
        for n in range(jobs):
            lane.defer(lambda n=n: job(n))  # type: ignore[misc]
        during = await busy()
        while len(lane):
            await asyncio.sleep(0)
        return during, len(ran)

    return asyncio.run(main())


def test_a_busy_loop_gives_the_lane_its_share_of_the_time() -> None:
    # 100 turns of 10 ms of other work: 1 s, of which a tenth is 100 jobs of 1 ms
    during, total = run_beside_busy_work(busy_turns=100, busy_seconds=0.010, jobs=1000, job_seconds=0.001)
    assert 95 <= during <= 105
    assert total == 1000  # and once the loop is quiet, the lane runs every job left


def test_a_busy_loop_never_starves_the_lane() -> None:
    # turns shorter than one job: the share still adds up to a job now and then
    during, _ = run_beside_busy_work(busy_turns=1000, busy_seconds=0.001, jobs=1000, job_seconds=0.002)
    assert 45 <= during <= 55  # 1 s of other work, a tenth of it is 50 jobs of 2 ms


def test_a_few_jobs_are_no_burst_and_run_at_once_beside_busy_work() -> None:
    few, _ = run_beside_busy_work(busy_turns=3, busy_seconds=0.001, jobs=5, job_seconds=0.0001)
    throttled, _ = run_beside_busy_work(busy_turns=3, busy_seconds=0.001, jobs=5, job_seconds=0.0001, few=0)
    assert few == 5  # all of them while the loop is busy
    assert throttled < 5  # a lane told that any queue is a burst keeps to its share


def test_an_idle_loop_runs_a_whole_slice_of_jobs_each_turn() -> None:
    clock = Clock()
    lane = Lane(share=0.1, slice_seconds=0.002, quiet_seconds=0.0002, few=16, clock=clock)

    def job() -> None:
        clock.now += 0.0001

    async def turns_to_drain() -> int:
        for _ in range(300):
            lane.defer(job)
        turns = 0
        while len(lane) and turns < 1000:
            await asyncio.sleep(0)
            turns += 1
        return turns

    # 300 jobs of 0.1 ms, 20 to a 2 ms slice: 15 turns (and one for the lane's own start), not one job a turn
    assert asyncio.run(turns_to_drain()) <= 17


def test_a_turn_comes_after_the_jobs_deferred_before_it_and_a_cancelled_waiter_harms_none() -> None:
    ran: list[str] = []

    async def main() -> None:
        lane = Lane()
        lane.defer(lambda: ran.append("job"))
        gone = asyncio.create_task(lane.turn())
        await asyncio.sleep(0)
        gone.cancel()
        await lane.turn()
        ran.append("turn")
        lane.defer(lambda: ran.append("after"))
        while len(lane):
            await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(main(), 10))
    assert ran == ["job", "turn", "after"]
