"""SessionPool: scopes, sessions kept per context, idle eviction and the idle cap, resume, isolation."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

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


def test_a_context_keeps_its_session(workspace: Path, clock: _Clock) -> None:
    pool = _pool(clock)
    session = pool.session(workspace, "bot", "c1", "p")

    assert session.scope == "p-a2a-bot_c1"
    assert pool.session(workspace, "bot", "c1", "p") is session
    assert pool.session(workspace, "bot", "c2", "p") is not session


def test_idle_session_is_evicted_and_resumes_from_its_jsonl(workspace: Path, clock: _Clock) -> None:
    provider = Recording()
    pool = _pool(clock, provider)
    first = pool.session(workspace, "bot", "c1", "p")
    collect(first, "remember the blue door")

    clock.now += 29 * 60
    assert pool.evict_idle() == 0
    clock.now += 2 * 60
    assert pool.evict_idle() == 1

    resumed = pool.session(workspace, "bot", "c1", "p")
    assert resumed is not first
    collect(resumed, "what did I say?")
    assert [m["content"] for m in provider.requests[-1].messages] == [
        "remember the blue door", "remember the blue door", "what did I say?"]


def test_running_session_is_never_evicted(workspace: Path, clock: _Clock) -> None:
    pool = _pool(clock)
    session = pool.session(workspace, "bot", "c1", "p")

    async def scenario() -> int:
        events = session.run("sleep 30")
        await anext(events)  # the run is under way
        clock.now += 24 * 3600
        evicted = pool.evict_idle()
        session.abort()
        async for _ in events:
            pass
        return evicted

    assert run(scenario()) == 0
    assert pool.session(workspace, "bot", "c1", "p") is session  # still the one kept


def test_beyond_max_idle_the_least_recently_used_sessions_go(workspace: Path, clock: _Clock) -> None:
    pool = SessionPool(SessionFactory(lambda _: ScriptedProvider()), idle_timeout=timedelta(minutes=30),
                       max_idle=2, clock=clock)
    one = pool.session(workspace, "bot", "c1", "p")
    two = pool.session(workspace, "bot", "c2", "p")
    assert pool.session(workspace, "bot", "c1", "p") is one  # c1 used again: c2 is now the oldest

    pool.session(workspace, "bot", "c3", "p")

    assert pool.session(workspace, "bot", "c1", "p") is one
    assert pool.session(workspace, "bot", "c2", "p") is not two  # dropped, so opened afresh


def test_two_contexts_of_one_caller_never_see_each_others_history(workspace: Path, clock: _Clock) -> None:
    provider = Recording()
    pool = _pool(clock, provider)
    one = pool.session(workspace, "bot", "c1", "p")
    two = pool.session(workspace, "bot", "c2", "p")

    collect(one, "secret of context one")
    collect(two, "hello from context two")

    assert "secret" not in str(two.history())
    assert "secret" not in str(provider.requests[-1].messages)
    assert [m["content"] for m in provider.requests[-1].messages] == ["hello from context two"]
    files = sorted(p.name for p in (workspace / ".volcanic" / "sessions").iterdir())
    assert files == ["p-a2a-bot_c1.jsonl", "p-a2a-bot_c2.jsonl"]


def test_two_callers_with_one_context_id_get_two_sessions(workspace: Path, clock: _Clock) -> None:
    pool = _pool(clock)

    alice = pool.session(workspace, "alice-bot", "same", "p")
    bob = pool.session(workspace, "bob-bot", "same", "p")

    assert alice is not bob
    assert pool.session(workspace, "alice-bot", "same", "p") is alice


def test_beyond_max_bytes_idle_sessions_go_and_a_log_line_says_so(workspace: Path, clock: _Clock,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    pool = SessionPool(SessionFactory(lambda _: ScriptedProvider()), idle_timeout=timedelta(minutes=30),
                       max_bytes=5_000, clock=clock)
    big = pool.session(workspace, "bot", "c1", "p")
    collect(big, "x" * 4_000)  # echoed: about 8 KB of conversation
    assert big.size > 5_000

    with caplog.at_level("INFO", logger="reference_server.pool"):
        pool.session(workspace, "bot", "c2", "p")

    assert pool.session(workspace, "bot", "c1", "p") is not big  # dropped, so opened afresh (and resumed)
    assert "over A2A__MaxSessionBytes" in caplog.text


def test_a_running_session_is_never_dropped_for_the_caps(workspace: Path, clock: _Clock) -> None:
    pool = SessionPool(SessionFactory(lambda _: ScriptedProvider()), idle_timeout=timedelta(minutes=30),
                       max_idle=0, max_bytes=0, clock=clock)
    session = pool.session(workspace, "bot", "c1", "p")

    async def scenario() -> bool:
        events = session.run("sleep 30")
        await anext(events)  # running now
        pool.session(workspace, "bot", "c2", "p")  # over both caps: the idle one goes, the running one stays
        kept = pool.session(workspace, "bot", "c1", "p") is session
        session.abort()
        async for _ in events:
            pass
        return kept

    assert run(scenario())
