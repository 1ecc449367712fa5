"""An agent session: one conversation, run prompt by prompt, resumable from its JSONL file."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from reference_server.a2a.events import (
    TERMINAL,
    Aborted,
    Crashed,
    MessageEnd,
    RunFailed,
    Sent,
    SessionEvent,
    Settled,
    TextDelta,
    ToolEnd,
    ToolStart,
    bus_name,
    bus_payload,
)
from reference_server.a2a.ports import Foreseer, Prompt
from reference_server.agent.bus import EventBus
from reference_server.agent.context import system_prompt
from reference_server.agent.conversation import (
    INTERRUPTED,
    assistant_record,
    provider_messages,
    tool_record,
    user_record,
)
from reference_server.agent.hooks import ProviderHooks
from reference_server.agent.journal import Journal
from reference_server.agent.provider import (
    Provider,
    ProviderError,
    ProviderRequest,
    TextChunk,
    ToolCall,
)
from reference_server.agent.tools import Tool, ToolContext, ToolError, workspace_tools
from reference_server.model.layout import session_file as session_file_of
from reference_server.platform.disk import off_loop

log = logging.getLogger(__name__)

MAX_STEPS = 50  # assistant messages in one run, so a model looping on tools cannot run forever
_SCOPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,250}")


class SessionBusy(RuntimeError):
    """run() was called while a run of the session is live."""


class AgentSession:
    """One conversation (design: "Context = session, task = run"), appended to its JSONL file."""

    def __init__(self, scope: str, workspace: Path, provider: Provider, *, tools: Sequence[Tool],
                 session_file: Path, bus: EventBus | None = None) -> None:
        self.scope = scope
        self.workspace = workspace
        self.bus = bus or EventBus()
        self._provider = provider
        self._tools = list(tools)
        self._journal = Journal(session_file)
        self._records: list[dict[str, Any]] | None = None  # loaded when the first run starts
        self.size = 0  # about how many bytes the records in memory take (the text they hold)
        self.on_growth: Callable[[int], None] | None = None  # told each change of size (the pool keeps a total)
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def system_prompt(self) -> str:
        """What the next run uses: read from the workspace files every time, so edits apply."""
        return system_prompt(self.workspace)

    def history(self) -> list[dict[str, Any]]:
        """The conversation records, as loaded and appended (blocking: it may read the file)."""
        if self._records is None:
            self._records = self._loaded(self._journal.load())
        return [dict(r) for r in self._records]

    async def _resume(self) -> list[dict[str, Any]]:
        """The records; design: an existing file resumes the conversation (read on a disk thread)."""
        if self._records is None:
            # a new context has no file yet: one stat here spares a disk thread round trip
            exists = self._journal.path.exists()
            self._records = self._loaded(await off_loop(self._journal.load) if exists else [])
        return self._records

    def _loaded(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self._grow(sum(_size_of(r) for r in records) - self.size)
        return records

    def _grow(self, delta: int) -> None:
        self.size += delta
        if self.on_growth is not None:
            self.on_growth(delta)

    async def run(self, prompt: str | Prompt, *, message_id: str | None = None,
                  extra_tools: Sequence[Tool] = ()) -> AsyncIterator[SessionEvent]:
        """Run prompt to its end: the session events, the last of them terminal."""
        prompt = prompt if isinstance(prompt, Prompt) else Prompt(prompt)
        if self.running:
            raise SessionBusy(f"session {self.scope} is already running")
        queue: asyncio.Queue[SessionEvent] = asyncio.Queue()
        tools = {t.name: t for t in [*self._tools, *extra_tools]}
        run = _Run(self, queue, tools, message_id)
        # the run is a task of its own, so abort() can cancel it wherever it waits
        self._loop = asyncio.get_running_loop()
        task = self._task = asyncio.create_task(run.drive(prompt), name=f"run {self.scope}")
        # aborted before its first step, the task never enters drive(): the consumer still gets its Aborted
        task.add_done_callback(lambda t: queue.put_nowait(Aborted()) if t.cancelled() else None)
        try:
            while True:
                event = await queue.get()
                yield event
                if isinstance(event, TERMINAL):
                    return
        finally:
            task.cancel()  # the consumer went away: stop the run (no-op once it has ended)

    def abort(self) -> None:
        """End the current run with Aborted, promptly; a no-op when idle. Safe from any task or thread."""
        task, loop = self._task, self._loop
        if task is None or loop is None or task.done():
            return
        try:
            same_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            same_loop = False
        if same_loop:
            task.cancel()
        else:
            loop.call_soon_threadsafe(task.cancel)

    def _record(self, record: dict[str, Any]) -> None:
        assert self._records is not None, "records are loaded when a run starts"
        stored = self._journal.append(record)
        self._records.append(stored)
        self._grow(_size_of(stored))


def _size_of(record: dict[str, Any]) -> int:
    """About the bytes a record takes in memory: its text, and a little for the rest."""
    content = record.get("content")
    return (200 + (len(content) if isinstance(content, str) else 0) + len(record.get("preamble") or "")
            + len(str(record.get("tool_calls") or "")))


class _Run:
    """The state of one run: its event queue, its tools, the tool calls not yet answered."""

    def __init__(self, session: AgentSession, queue: asyncio.Queue[SessionEvent], tools: dict[str, Tool],
                 message_id: str | None) -> None:
        self.session = session
        self.queue = queue
        self.tools = tools
        self.message_id = message_id
        self.unanswered: list[ToolCall] = []

    def emit(self, event: SessionEvent) -> None:
        self.queue.put_nowait(event)
        bus, name = self.session.bus, bus_name(event)
        if bus.wants(name):
            bus.publish(name, {"scope": self.session.scope, **bus_payload(event)})

    async def deliver(self, item: Sent) -> None:
        """The run's chat channel: a send becomes a Sent event, in order with the others."""
        self.emit(item)

    async def drive(self, prompt: Prompt) -> None:
        """Play the run and emit exactly one terminal event, whatever happens."""
        try:
            terminal: SessionEvent = await self._play(prompt)
        except asyncio.CancelledError:
            terminal = Aborted()
        except ProviderError as error:
            terminal = RunFailed(str(error))
        except Exception as error:
            log.exception("run of session %s crashed", self.session.scope)
            terminal = Crashed(f"{type(error).__name__}: {error}")
        if not isinstance(terminal, Settled):
            self._answer_unanswered()
        try:
            await self.session._journal.written()  # the run's conversation is in its file when the run ends
        except OSError:
            log.exception("session %s: the conversation could not be written", self.session.scope)
        self.emit(terminal)

    async def _play(self, prompt: Prompt) -> SessionEvent:
        await self.session._resume()
        self.session._record(user_record(prompt, self.message_id))
        system = self.session.system_prompt()  # design: context files are read when a run starts
        for _ in range(MAX_STEPS):
            calls = await self._assistant_message(system)
            if not calls or await self._execute_all(calls):
                return Settled()
        raise ProviderError(f"the run stopped after {MAX_STEPS} assistant messages")

    async def _assistant_message(self, system: str) -> list[ToolCall]:
        session = self.session
        request = ProviderRequest(system, provider_messages(await session._resume()), list(self.tools.values()),
                                  self.message_id, session.workspace)
        parts: list[str] = []
        calls: list[ToolCall] = []
        try:
            async for event in session._provider.stream(request):
                if isinstance(event, TextChunk):
                    if event.text:
                        parts.append(event.text)
                        self.emit(TextDelta(event.text))
                elif isinstance(event, ToolCall):
                    calls.append(event)
                else:  # an artifact, a state or a message: passed on in order, not part of the conversation text
                    self.emit(event)
        except BaseException:
            if parts:  # keep the text the caller already saw
                session._record(assistant_record("".join(parts), []))
            raise
        text = "".join(parts)
        session._record(assistant_record(text, calls))
        self.unanswered = list(calls)
        self.emit(MessageEnd(text))
        return calls

    async def _execute_all(self, calls: list[ToolCall]) -> bool:
        """Execute calls in order; True when one that ends the turn succeeded."""
        ends_turn = False
        for call in calls:
            self.emit(ToolStart(call.call_id, call.name, call.arguments))
            result, is_error, ends = await self._execute(call)
            self.unanswered.remove(call)
            self.session._record(tool_record(call, result, is_error))
            self.emit(ToolEnd(call.call_id, call.name, result, is_error))
            ends_turn = ends_turn or ends
        return ends_turn

    async def _execute(self, call: ToolCall) -> tuple[str, bool, bool]:
        tool = self.tools.get(call.name)
        if tool is None:
            return f"unknown tool '{call.name}'", True, False
        if call.arguments_error is not None:
            return call.arguments_error, True, False
        try:
            context = ToolContext(self.session.workspace, self, call.call_id)
            result = await tool.execute(call.arguments, context)
        except ToolError as error:
            return str(error), True, False
        except Exception as error:  # a failing tool never crashes the run
            log.warning("tool %s of session %s failed", call.name, self.session.scope, exc_info=True)
            return f"{type(error).__name__}: {error}", True, False
        return str(result), False, tool.ends_turn

    def _answer_unanswered(self) -> None:
        # keep the conversation well-formed for the next run: every tool call gets a result
        try:
            for call in self.unanswered:
                self.session._record(tool_record(call, INTERRUPTED, True))
        except Exception:
            log.exception("session %s: could not record the interrupted tool calls", self.session.scope)
        self.unanswered = []


class SessionFactory:
    """Opens a session per scope; an existing <workspace>/.volcanic/sessions/<scope>.jsonl resumes it."""

    def __init__(self, provider_for: Callable[[Path], Provider], *,
                 base_tools: Callable[[Path], list[Tool]] = workspace_tools,
                 on_open: Callable[[AgentSession], None] | None = None, hooks: ProviderHooks | None = None) -> None:
        self._provider_for = provider_for
        self.hooks = hooks or ProviderHooks(provider_for)  # shared with the HTTP edge's faults when given
        self._base_tools = base_tools
        self._on_open = on_open

    def foresight(self, workspace: Path) -> Foreseer | None:
        """ProviderHooks.foresight of this factory's providers (agent/hooks.py)."""
        return self.hooks.foresight(workspace)

    def open(self, scope: str, workspace: Path) -> AgentSession:
        if not _SCOPE.fullmatch(scope):
            raise ValueError(f"scope {scope!r} cannot name a session file")
        history = session_file_of(workspace, scope)
        session = AgentSession(scope, workspace, self._provider_for(workspace),
                               tools=self._base_tools(workspace), session_file=history)
        if self._on_open is not None:
            # design "Components": extensions attach to a new session, e.g. to read a2a.inbound on its bus
            self._on_open(session)
        return session
