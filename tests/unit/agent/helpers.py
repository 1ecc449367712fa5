"""Shared helpers of the agent tests: run coroutines, collect a run's events, record provider requests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from reference_server.a2a.events import SessionEvent
from reference_server.a2a.ports import Prompt
from reference_server.agent.provider import Provider, ProviderEvent, ProviderRequest
from reference_server.agent.scripted import ScriptedProvider
from reference_server.agent.session import AgentSession, SessionFactory
from reference_server.agent.tools import Tool

T = TypeVar("T")
TIMEOUT = 10.0  # a hung test fails instead of hanging the suite


def run(awaitable: Awaitable[T]) -> T:
    """Run awaitable in a fresh event loop, bounded by TIMEOUT."""

    async def bounded() -> T:
        return await asyncio.wait_for(awaitable, TIMEOUT)

    return asyncio.run(bounded())


async def events_of(session: AgentSession, prompt: str | Prompt, *, message_id: str | None = None,
                    extra_tools: Sequence[Tool] = ()) -> list[SessionEvent]:
    return [e async for e in session.run(prompt, message_id=message_id, extra_tools=extra_tools)]


def collect(session: AgentSession, prompt: str, **kwargs: Any) -> list[SessionEvent]:
    """Every event of one run of prompt."""
    return run(events_of(session, prompt, **kwargs))


class Recording:
    """A provider that records every request it gets and delegates to another provider."""

    def __init__(self, inner: Provider | None = None) -> None:
        self.inner = inner or ScriptedProvider()
        self.requests: list[ProviderRequest] = []

    def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        return self.inner.stream(request)


def open_session(workspace: Path, provider: Provider | None = None,
                 scope: str = "test-a2a-bot_ctx") -> AgentSession:
    """A session over workspace with the workspace tools, scripted unless a provider is given."""
    chosen = provider or ScriptedProvider()
    return SessionFactory(lambda _: chosen).open(scope, workspace)


def write_script(workspace: Path, script: dict[str, Any] | str) -> None:
    """Put a script at <workspace>/.volcanic/a2a/script.json (a dict is dumped as JSON)."""
    path = workspace / ".volcanic" / "a2a" / "script.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script if isinstance(script, str) else json.dumps(script), encoding="utf-8")


def kinds(events: list[SessionEvent]) -> list[str]:
    return [type(e).__name__ for e in events]
