"""One run of one task: session events become A2A events, are broadcast, and saved when they matter (step 5)."""

from __future__ import annotations

import asyncio
import logging
import mimetypes
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from reference_server.a2a import events as ev
from reference_server.a2a.broadcast import Broadcast
from reference_server.a2a.ports import Files, Prompt, Session, TaskStore
from reference_server.a2a.push import PushSender
from reference_server.model.caller import Caller
from reference_server.model.types import (
    Artifact,
    Message,
    Part,
    Role,
    StoredTask,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    utc_now,
)

log = logging.getLogger("reference_server.tasks")

RESPONSE_ARTIFACT_ID = "response"
UNEXPECTED = "The run failed unexpectedly."
CANCELED_BY_CALLER = "Canceled by the caller"


def agent_message(task: Task, text: str) -> Message:
    return Message(
        message_id=str(uuid.uuid4()), role=Role.AGENT, parts=[Part.of_text(text)],
        context_id=task.context_id, task_id=task.id,
    )


@dataclass(frozen=True)
class End:
    """How a run ends: the task's state, its status message, and the metadata of the last status update."""

    state: TaskState
    message: Message | None = None
    metadata: dict[str, Any] | None = None


MakePrompt = Callable[[], Awaitable[Prompt]]  # made when the run starts: it may fetch the message's files first


class RunRefused(Exception):
    """The run cannot begin (a file part could not be fetched): the task fails with this text."""


class TaskRun:
    """The live run of a task: owns its state until the run ends.

    The task file is written when its state matters to someone, not once per event: when a client first
    learns of the task (`persist`, before the first answer leaves) and when the run ends (fsynced before
    the final event is sent and before `done` is set, so a state a client is told is final is on disk).
    """

    def __init__(self, stored: StoredTask, store: TaskStore, caller: Caller, on_end: Callable[[str], None],
                 broadcast: Broadcast, files: Files, *, max_file_bytes: int, push: PushSender | None = None) -> None:
        self.stored = stored
        self.store = store
        self.caller = caller
        self._broadcast = broadcast  # the task's followers: its send streams and its subscribers
        self.done = asyncio.Event()
        self.direct = False  # the answer is to be a message, not this task (which is then never written)
        self.reply: Message | None = None  # that message, once the agent sent it
        self._end: End | None = None  # the end the agent chose (a question, a status step), applied when it settles
        self._on_end = on_end
        self._max_file_bytes = max_file_bytes
        self._files = files
        self._session: Session | None = None
        self._cancel_requested = False
        self._chunks = 0
        # the text streamed so far of the assistant message in progress, as its chunks (joined only for a late
        # subscriber's snapshot: a string grown by += is copied at every chunk)
        self._partial: list[str] = []
        self._started = time.monotonic()
        self._job: asyncio.Task[None] | None = None  # held so the event loop cannot drop the running task
        self._push = push
        self._pushed = stored.task.status.state  # the state the task's push configs last heard of

    @property
    def task(self) -> Task:
        return self.stored.task

    def snapshot(self) -> Task:
        """A copy of the task now that holds every event published so far (a stream starts with it)."""
        artifacts = list(self.task.artifacts)
        if self._partial:
            # a late subscriber sees the message in progress, so the appends that follow make sense
            partial = Artifact(RESPONSE_ARTIFACT_ID, [Part.of_text("".join(self._partial))], name="response")
            artifacts = _with_artifact(artifacts, partial)
        return replace(self.task, artifacts=artifacts, history=list(self.task.history))

    def set_question(self, question: str) -> None:
        self._end = End(TaskState.INPUT_REQUIRED, agent_message(self.task, question))

    def persist_soon(self) -> None:
        """Queue the write of the task as it is now, ahead of any later write of it, without waiting for it: a
        stream's first event leaves at once (a kill -9 in the next moment breaks the stream, and may lose the
        task's file; docs/workspace.md)."""
        self.store.save_soon(self.stored)

    async def persist(self) -> None:
        """Write the task as it is now, before any later write of it: a client is about to learn of it. In the
        file when this returns, so a kill -9 cannot lose a task a client knows; not fsynced (only a final state
        must survive a power loss before a client is told, docs/workspace.md)."""
        await self.store.save(self.stored, durable=False)

    def start(self, session: Session | None, prompt: MakePrompt, message_id: str, tools: Sequence[Any],
              *, failure: str | None = None, direct: bool = False) -> None:
        """Move to working now (so returnImmediately sees it), then run in the background. direct: the answer is
        to be a message; nobody is told of the task, unless the run ends without that message."""
        self._session = session
        self.direct = direct
        if failure is not None:  # design step 1: the task is created and immediately failed
            self._job = asyncio.create_task(self._finish(End(TaskState.FAILED, agent_message(self.task, failure))))
            return
        self._set_status(TaskState.WORKING, publish=not direct)
        self._job = asyncio.create_task(self._drive(prompt, message_id, tools))

    async def cancel(self) -> None:
        self._cancel_requested = True
        if self._session is not None:
            self._session.abort()
        await self.done.wait()

    async def _drive(self, prompt: MakePrompt, message_id: str, tools: Sequence[Any]) -> None:
        assert self._session is not None
        end = End(TaskState.FAILED, agent_message(self.task, UNEXPECTED))
        try:
            ready = None if self._cancel_requested else await prompt()
            if ready is None or self._cancel_requested:
                end = self._ended(TaskState.CANCELED, CANCELED_BY_CALLER)
            else:
                end = await self._map_events(self._session.run(ready, message_id=message_id, extra_tools=tools))
        except RunRefused as refused:
            end = self._ended(TaskState.FAILED, str(refused))
        except Exception:
            log.exception("a2a task %s: the run failed unexpectedly", self.task.id)
        await self._finish(end)

    def _ended(self, state: TaskState, text: str | None = None) -> End:
        return End(state, agent_message(self.task, text) if text else None)

    async def _map_events(self, events: AsyncIterator[ev.SessionEvent]) -> End:
        async for event in events:
            match event:
                case ev.TextDelta(text=text):
                    self._chunk(text)
                case ev.MessageEnd(text=text):
                    self._message_end(text)
                case ev.ToolStart(name=name):
                    # design: "using <tool>", never the arguments
                    self._set_status(TaskState.WORKING, f"using {name}")
                case ev.Sent():
                    await self._sent(event)
                case ev.ArtifactOut():
                    self._artifact_out(event)
                case ev.StateSet():
                    self._state_set(event)
                case ev.MessageOut():
                    self._message_out(event)
                case ev.Settled():
                    return self._end or End(TaskState.COMPLETED)
                case ev.RunFailed(message=message):
                    return self._ended(TaskState.FAILED, message)
                case ev.Aborted():
                    return self._ended(TaskState.CANCELED, CANCELED_BY_CALLER)
                case ev.Crashed(detail=detail):
                    # design: the redacted detail is logged only
                    log.error("a2a task %s: the run failed unexpectedly: %s", self.task.id, detail)
                    return self._ended(TaskState.FAILED, UNEXPECTED)
        return self._ended(TaskState.FAILED, UNEXPECTED)

    # --- what the agent emits besides its text: artifacts, states, messages (the scripted agent's shapes) ---

    def _artifact_out(self, out: ev.ArtifactOut) -> None:
        parts = [_part(p) for p in out.parts]
        earlier = self._earlier_artifact(out) if out.append else None
        if earlier is None:  # a new artifact (an append with nothing to append to starts one)
            artifact = Artifact(out.artifact_id or str(uuid.uuid4()), parts, name=out.name,
                                description=out.description, metadata=out.metadata)
            self._put_artifact(artifact)
            self._artifact_event(artifact, last_chunk=out.last_chunk)
            return
        # A2A TaskArtifactUpdateEvent.append: the parts are added to the artifact of that id, as sent
        metadata = {**(earlier.metadata or {}), **(out.metadata or {})} or None
        self._put_artifact(replace(earlier, parts=[*earlier.parts, *parts], metadata=metadata))
        self._artifact_event(Artifact(earlier.artifact_id, parts, name=earlier.name, metadata=out.metadata),
                             append=True, last_chunk=out.last_chunk)

    def _earlier_artifact(self, out: ev.ArtifactOut) -> Artifact | None:
        """The artifact an append adds to: the one with its id, else the latest with its name."""
        for artifact in reversed(self.task.artifacts):
            if (artifact.artifact_id == out.artifact_id if out.artifact_id is not None
                    else out.name is not None and artifact.name == out.name):
                return artifact
        return None

    def _state_set(self, out: ev.StateSet) -> None:
        state = _AGENT_STATES.get(out.state)
        if state is None:
            log.warning("a2a task %s: the agent set the unknown state %r; ignored", self.task.id, out.state)
            return
        message = self._agent_message(out.parts) if out.parts else None
        if state is TaskState.WORKING:
            self._set_status(state, message=message, metadata=out.metadata)
        else:  # a state that ends the run: taken when the run settles
            self._end = End(state, message, out.metadata)

    def _message_out(self, out: ev.MessageOut) -> None:
        message = self._agent_message(out.parts, out.metadata)
        if self.direct and self.reply is None:
            # A2A §3.1.1: the answer is this message; no task is created (nobody hears of it)
            self.reply = replace(message, task_id=None)
        else:  # within a task, a message is the status message of the state the run ends in
            self._end = End(TaskState.COMPLETED, message)

    def _agent_message(self, parts: Sequence[ev.OutPart], metadata: dict[str, Any] | None = None) -> Message:
        return Message(message_id=str(uuid.uuid4()), role=Role.AGENT, parts=[_part(p) for p in parts],
                       context_id=self.task.context_id, task_id=self.task.id, metadata=metadata)

    def _chunk(self, text: str) -> None:
        if not text:
            return
        # the first chunk of each assistant message starts the response afresh; later chunks append
        self._artifact_event(Artifact(RESPONSE_ARTIFACT_ID, [Part.of_text(text)], name="response"),
                             append=self._chunks > 0)
        self._chunks += 1
        self._partial.append(text)

    def _message_end(self, text: str) -> None:
        if self._chunks:
            self._artifact_event(Artifact(RESPONSE_ARTIFACT_ID, [Part.of_text("")], name="response"),
                                 append=True, last_chunk=True)
        elif text:
            self._artifact_event(Artifact(RESPONSE_ARTIFACT_ID, [Part.of_text(text)], name="response"),
                                 last_chunk=True)
        self._chunks = 0
        self._partial = []
        if text:
            # design: only the last assistant message's text is kept as the response artifact
            self._put_artifact(Artifact(RESPONSE_ARTIFACT_ID, [Part.of_text(text)], name="response"))

    async def _sent(self, sent: ev.Sent) -> None:
        artifact_id = str(uuid.uuid4())
        if sent.path is None:
            artifact = Artifact(artifact_id, [Part.of_text(sent.text or "")], name="message")
        else:
            artifact = await self._file_artifact(artifact_id, sent)
        self._put_artifact(artifact)
        self._artifact_event(artifact, last_chunk=True)

    async def _file_artifact(self, artifact_id: str, sent: ev.Sent) -> Artifact:
        """The artifact of a workspace file the agent sent (the file is read on a disk thread)."""
        assert sent.path is not None
        name = sent.filename or sent.path.name
        media_type = sent.media_type or mimetypes.guess_type(name)[0] or "application/octet-stream"
        data = await self._files.read_sent(sent.path, self._max_file_bytes)
        if isinstance(data, int):
            note = f"{name} was not attached: {data} bytes is over the limit of {self._max_file_bytes} bytes"
            return Artifact(artifact_id, [Part.of_text(note)], name=name)
        part = Part(raw=data, filename=name, media_type=media_type)
        parts = [part] if not sent.text else [Part.of_text(sent.text), part]
        return Artifact(artifact_id, parts, name=name)

    def _put_artifact(self, artifact: Artifact) -> None:
        self.task.artifacts = _with_artifact(self.task.artifacts, artifact)

    def _artifact_event(self, artifact: Artifact, *, append: bool = False, last_chunk: bool = False) -> None:
        self._broadcast.publish(self.task.id, TaskArtifactUpdateEvent(self.task.id, self.task.context_id, artifact,
                                                                      append=append, last_chunk=last_chunk))

    def _set_status(self, state: TaskState, text: str | None = None, *, publish: bool = True,
                    message: Message | None = None, metadata: dict[str, Any] | None = None) -> None:
        if text:
            message = agent_message(self.task, text)
        self.task.status = TaskStatus(state, message, utc_now())
        if message is not None and state.interrupted:
            self.task.history.append(message)
        if publish:
            self._publish_status(metadata)

    def _publish_status(self, metadata: dict[str, Any] | None = None) -> None:
        event = TaskStatusUpdateEvent(self.task.id, self.task.context_id, self.task.status, metadata=metadata)
        self._broadcast.publish(self.task.id, event)
        state = self.task.status.state
        if self._push is not None and state is not self._pushed:
            # design deviation "Push payload and trigger": on each new state, not per artifact chunk
            self._pushed = state
            self._push.notify(self.stored)

    async def _finish(self, end: End) -> None:
        elapsed = time.monotonic() - self._started
        if self.reply is not None:  # answered with a message: the task was never written, nobody knows of it
            log.info("a2a message %s owner=%s caller=%s answered with a message in %.2fs", self.reply.message_id,
                     self.caller.owner_id, self.caller.name, elapsed)
            self.done.set()
            self._on_end(self.task.id)
            return
        self._set_status(end.state, publish=False, message=end.message)
        try:
            await self.store.save(self.stored, durable=True)  # on disk before anyone is told
        except Exception:
            log.exception("a2a task %s: the task file could not be written", self.task.id)
        self._publish_status(end.metadata)
        # design: one log line per task end
        log.info("a2a task %s owner=%s caller=%s state=%s in %.2fs", self.task.id, self.caller.owner_id,
                 self.caller.name, end.state.short_name, elapsed)
        self.done.set()
        self._on_end(self.task.id)


def _with_artifact(artifacts: list[Artifact], artifact: Artifact) -> list[Artifact]:
    """The list with `artifact` replacing the one of the same id, or appended."""
    replaced = [artifact if a.artifact_id == artifact.artifact_id else a for a in artifacts]
    return replaced if any(a.artifact_id == artifact.artifact_id for a in artifacts) else [*artifacts, artifact]


# the states an agent may set, by the names the agent core gives them ("auth-required")
_AGENT_STATES = {state.short_name: state for state in TaskState if state is not TaskState.SUBMITTED}


def _part(part: ev.OutPart) -> Part:
    return Part(text=part.text, raw=part.raw, url=part.url, data=part.data, has_data=part.has_data,
                filename=part.filename, media_type=part.media_type, metadata=part.metadata)
