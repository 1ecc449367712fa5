"""SessionPool: scopes, the busy flag, the finished-run grace, abort, idle eviction and resume, isolation."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest

from reference_server.agent.events import Aborted, TextDelta
from reference_server.agent.pool import SessionPool
from reference_server.agent.scripted import ScriptedProvider
from reference_server.agent.session import SessionFactory

from .helpers import Recording, collect, run


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> _Clock:
    return _Clock()


def _pool(clock: _Clock, provider: Recording | None = None) -> SessionPool:
    chosen = provider or ScriptedProvider()
    return SessionPool(SessionFactory(lambda _: chosen), idle_timeout=timedelta(minutes=30), clock=clock)


def test_scope_joins_prefix_caller_and_context(clock: _Clock) -> None:
    assert _pool(clock).scope("telegram-42", "travel-bot", "ctx-1") == "telegram-42-a2a-travel-bot_ctx-1"


def test_busy_context_cannot_be_claimed_until_released(workspace: Path, clock: _Clock) -> None:
    pool = _pool(clock)
    session = pool.claim(workspace, "bot", "c1", "t1", "p")

    assert session is not None
    assert session.scope == "p-a2a-bot_c1"
    assert pool.claim(workspace, "bot", "c1", "t2", "p") is None
    assert pool.claim(workspace, "bot", "c2", "t3", "p") is not None  # another context is free
    pool.release("t1")
    assert pool.claim(workspace, "bot", "c1", "t2", "p") is session


def test_finished_run_stays_live_for_the_grace(workspace: Path, clock: _Clock) -> None:
    pool = _pool(clock)
    pool.claim(workspace, "bot", "c1", "t1", "p")
    assert (pool.is_running("t1"), pool.is_live("t1")) == (True, True)

    pool.release("t1")
    clock.now += 59
    assert (pool.is_running("t1"), pool.is_live("t1")) == (False, True)

    clock.now += 2
    assert pool.is_live("t1") is False
    assert pool.is_live("unknown") is False


def test_idle_session_is_evicted_and_resumes_from_its_jsonl(workspace: Path, clock: _Clock) -> None:
    provider = Recording()
    pool = _pool(clock, provider)
    first = pool.claim(workspace, "bot", "c1", "t1", "p")
    assert first is not None
    collect(first, "remember the blue door")
    pool.release("t1")

    clock.now += 29 * 60
    assert pool.evict_idle() == 0
    clock.now += 2 * 60
    assert pool.evict_idle() == 1
    assert pool.session_count() == 0

    resumed = pool.claim(workspace, "bot", "c1", "t2", "p")
    assert resumed is not None and resumed is not first
    collect(resumed, "what did I say?")
    assert [m["content"] for m in provider.requests[-1].messages] == [
        "remember the blue door", "remember the blue door", "what did I say?"]


def test_busy_session_is_never_evicted(workspace: Path, clock: _Clock) -> None:
    pool = _pool(clock)
    pool.claim(workspace, "bot", "c1", "t1", "p")
    clock.now += 24 * 3600

    assert pool.evict_idle() == 0
    assert pool.session_count() == 1


def test_two_contexts_of_one_caller_never_see_each_others_history(workspace: Path, clock: _Clock) -> None:
    provider = Recording()
    pool = _pool(clock, provider)
    one = pool.claim(workspace, "bot", "c1", "t1", "p")
    two = pool.claim(workspace, "bot", "c2", "t2", "p")
    assert one is not None and two is not None

    collect(one, "secret of context one")
    collect(two, "hello from context two")

    assert "secret" not in str(two.history())
    assert "secret" not in str(provider.requests[-1].messages)
    assert [m["content"] for m in provider.requests[-1].messages] == ["hello from context two"]
    files = sorted(p.name for p in (workspace / ".volcanic" / "sessions").iterdir())
    assert files == ["p-a2a-bot_c1.jsonl", "p-a2a-bot_c2.jsonl"]


def test_two_callers_with_one_context_id_get_two_sessions(workspace: Path, clock: _Clock) -> None:
    pool = _pool(clock)

    alice = pool.claim(workspace, "alice-bot", "same", "t1", "p")
    bob = pool.claim(workspace, "bob-bot", "same", "t2", "p")

    assert alice is not None and bob is not None and alice is not bob
    assert pool.session_count() == 2


def test_abort_reaches_the_running_session(workspace: Path, clock: _Clock) -> None:
    pool = _pool(clock)
    session = pool.claim(workspace, "bot", "c1", "t1", "p")
    assert session is not None

    async def scenario() -> tuple[object, float]:
        aborted_at = 0.0
        last: object = None
        async for event in session.run("sleep 30"):
            last = event
            if isinstance(event, TextDelta) and not aborted_at:
                aborted_at = time.monotonic()
                assert pool.abort("t1") is True
        return last, time.monotonic() - aborted_at

    last, took = run(scenario())
    pool.release("t1")

    assert last == Aborted()
    assert took < 1.0
    assert pool.abort("t1") is False
    assert pool.abort("unknown") is False


def test_release_of_an_unknown_task_is_harmless(clock: _Clock) -> None:
    pool = _pool(clock)

    pool.release("never-claimed")

    assert pool.session_count() == 0
