"""The A2A service: one method per A2A operation, transport-free (design: Request flow, Other methods)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace

from reference_server.agent.notifier import OwnerNotifier
from reference_server.agent.pool import SessionPool
from reference_server.discovery.card import CardDetails, extended_details
from reference_server.domain.callers import Caller
from reference_server.domain.errors import TaskNotCancelable, TaskNotFound, UnsupportedOperation
from reference_server.domain.listing import page_of
from reference_server.domain.model import (
    ListTasksQuery,
    Message,
    SendRequest,
    StreamEvent,
    Task,
    TaskPage,
    TaskState,
    TaskStatus,
    utc_now,
)
from reference_server.domain.runner import TaskRun, agent_message
from reference_server.domain.sending import Sender
from reference_server.domain.task_store import StoredTask, TaskStore
from reference_server.settings import Settings

log = logging.getLogger("reference_server.service")

SERVER_RESTARTED = "server restarted"


class A2AService:
    """What the bindings call. Reads task files on every request; keeps only the live runs in memory."""

    def __init__(self, settings: Settings, pool: SessionPool, notifier: OwnerNotifier | None) -> None:
        self.settings = settings
        self.pool = pool
        self.notifier = notifier
        self.runs: dict[str, TaskRun] = {}
        self._sender = Sender(self)

    # --- SendMessage / SendStreamingMessage ---

    async def send_message(self, caller: Caller, request: SendRequest) -> Task | Message:
        prepared = self._sender.prepare(caller, request)
        run = prepared.run
        prepared.start()
        history_length = request.configuration.history_length
        if request.configuration.return_immediately:
            return trim(run.task, history_length)
        # A2A §3.2.2: blocking waits for a terminal or interrupted state
        await run.done.wait()
        return trim(run.task, history_length)

    async def stream_message(self, caller: Caller, request: SendRequest) -> AsyncIterator[StreamEvent]:
        prepared = self._sender.prepare(caller, request)
        snapshot, events = prepared.run.subscribe()  # the stream starts with the task as created
        prepared.start()
        yield trim(snapshot, request.configuration.history_length)
        async for event in events:
            yield event

    # --- tasks ---

    async def get_task(self, caller: Caller, task_id: str, history_length: int | None) -> Task:
        return trim(self.load(caller, task_id).task, history_length)

    async def list_tasks(self, caller: Caller, query: ListTasksQuery) -> TaskPage:
        store = TaskStore(caller.workspace)
        tasks = [self._recovered(stored, store).task for stored in store.list(caller)]
        page = page_of(tasks, query)
        page.tasks = [trim(task, query.history_length) for task in page.tasks]
        return page

    async def cancel_task(self, caller: Caller, task_id: str) -> Task:
        stored = self.load(caller, task_id)
        if stored.task.status.state.terminal:
            # A2A §3.1.5: a terminal task cannot be canceled
            raise TaskNotCancelable(
                f"Task {task_id} is {stored.task.status.state.value} and cannot be canceled",
                metadata={"taskId": task_id},
            )
        run = self.runs.get(task_id)
        if run is not None:
            await run.cancel()  # design: aborts the live run
            return run.task
        stored.task.status = TaskStatus(TaskState.CANCELED, agent_message(stored.task, "Canceled by the caller"),
                                        utc_now())
        TaskStore(caller.workspace).save(stored)
        return stored.task

    async def subscribe_to_task(self, caller: Caller, task_id: str) -> AsyncIterator[StreamEvent]:
        stored = self.load(caller, task_id)
        state = stored.task.status.state
        if state.terminal:
            # A2A §3.1.6: terminal → UnsupportedOperationError
            raise UnsupportedOperation(
                f"Task {task_id} is {state.value}; a terminal task has no more events to subscribe to",
                metadata={"taskId": task_id},
            )
        run = self.runs.get(task_id)
        if run is None:  # an interrupted task with no live run: its current state, then the stream ends
            yield stored.task
            return
        snapshot, events = run.subscribe()
        yield snapshot
        async for event in events:
            yield event

    async def extended_card(self, caller: Caller) -> CardDetails:
        return extended_details(caller, self.settings)

    # --- shared ---

    def load(self, caller: Caller, task_id: str) -> StoredTask:
        """The caller's task (recovered if its run died with the server) or TaskNotFound."""
        run = self.runs.get(task_id)
        if run is not None and run.caller == caller:
            return run.stored
        store = TaskStore(caller.workspace)
        stored = store.load(task_id, caller)
        if stored is None:
            raise TaskNotFound(f"Task {task_id} was not found", metadata={"taskId": task_id})
        return self._recovered(stored, store)

    def _recovered(self, stored: StoredTask, store: TaskStore) -> StoredTask:
        """Design, lazy restart recovery: submitted/working with no live run → failed "server restarted"."""
        task = stored.task
        if task.id in self.runs or task.status.state not in (TaskState.SUBMITTED, TaskState.WORKING):
            return stored
        if self.pool.is_live(task.id):
            return stored  # design deviation: the finished-run grace window
        task.status = TaskStatus(TaskState.FAILED, agent_message(task, SERVER_RESTARTED), utc_now())
        store.save(stored)
        return stored

    def run_ended(self, run: TaskRun) -> None:
        self.runs.pop(run.task.id, None)
        self.pool.release(run.task.id)


def trim(task: Task, history_length: int | None) -> Task:
    """A2A §3.2.4: at most the last N messages; 0 means none."""
    if history_length is None or len(task.history) <= history_length:
        return replace(task, history=list(task.history), artifacts=list(task.artifacts))
    kept = task.history[len(task.history) - history_length:] if history_length else []
    return replace(task, history=kept, artifacts=list(task.artifacts))
