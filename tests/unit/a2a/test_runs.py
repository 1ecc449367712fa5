"""domain/runs.py: the one registry of live runs, busy contexts and the finished-run grace."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from reference_server.a2a.runs import RunKey, RunRegistry


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def registry(clock: Clock) -> RunRegistry[str]:
    return RunRegistry(finished_grace=timedelta(minutes=1), clock=clock)


def key(context: str, caller: str = "bot") -> RunKey:
    return RunKey(Path("/ws"), caller, context)


def test_a_busy_context_cannot_be_claimed_until_its_run_ends() -> None:
    runs = registry(Clock())

    assert runs.claim(key("c1"), "t1", "run 1")
    assert not runs.claim(key("c1"), "t2", "run 2")
    assert runs.claim(key("c2"), "t3", "run 3")  # another context is free
    assert runs.claim(key("c1", caller="other"), "t4", "run 4")  # so is another caller's context of that name
    assert runs.run_of("t1") == "run 1" and runs.run_of("t2") is None

    runs.ended("t1")

    assert runs.run_of("t1") is None
    assert runs.claim(key("c1"), "t2", "run 2")  # the context is free again


def test_a_run_without_a_context_never_makes_one_busy() -> None:
    runs = registry(Clock())

    assert runs.claim(None, "t1", "over the hop limit")
    assert runs.claim(key("c1"), "t2", "run")
    assert runs.run_of("t1") == "over the hop limit"
    runs.ended("t1")
    assert not runs.claim(key("c1"), "t3", "another run")  # c1 is still busy with t2


def test_an_ended_run_stays_live_for_the_finished_grace() -> None:
    clock = Clock()
    runs = registry(clock)
    runs.claim(key("c1"), "t1", "run")
    assert runs.is_live("t1") and runs.knows("t1")

    runs.ended("t1")
    clock.now += 59
    assert runs.is_live("t1") and runs.run_of("t1") is None

    clock.now += 2
    assert not runs.is_live("t1") and not runs.knows("t1")
    assert not runs.is_live("never-ran")


def test_ended_runs_are_forgotten_oldest_first_without_a_scan() -> None:
    clock = Clock()
    runs = registry(clock)
    for n in range(1000):
        runs.claim(key(f"c{n}"), f"t{n}", "run")
        runs.ended(f"t{n}")
        clock.now += 0.1  # 1,000 runs over 100 s: the first 400 are past the grace
    assert not runs.knows("t398") and runs.knows("t402")
    assert runs.run_of("t999") is None


def test_live_runs_are_listed_per_caller_of_a_workspace() -> None:
    runs = registry(Clock())
    runs.claim(key("c1"), "t1", "mine 1")
    runs.claim(key("c2"), "t2", "mine 2")
    runs.claim(key("c1", caller="other"), "t3", "theirs")
    runs.claim(RunKey(Path("/elsewhere"), "bot", "c1"), "t4", "another workspace")

    assert sorted(runs.live_runs(Path("/ws"), "bot")) == ["mine 1", "mine 2"]


def test_ending_an_unknown_run_is_harmless() -> None:
    runs = registry(Clock())
    runs.ended("never-claimed")
    assert runs.run_of("never-claimed") is None and not runs.is_live("never-claimed")
