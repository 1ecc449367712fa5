"""The A2A service: one method per A2A operation, transport-free (design: Request flow, Other methods)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace

from reference_server.a2a.broadcast import Broadcast, Follower, ends_send_stream, ends_subscription
from reference_server.a2a.capabilities import Capabilities
from reference_server.a2a.listing import ACTIVE, check_cursor
from reference_server.a2a.ports import Ports, Session
from reference_server.a2a.push import Change, PushSender, checked, drop_config, put_config
from reference_server.a2a.runner import CANCELED_BY_CALLER, TaskRun, agent_message
from reference_server.a2a.runs import RunKey, RunRegistry
from reference_server.a2a.sending import (
    Prepared,
    check_continuation,
    check_send,
    new_task,
    over_hop_limit,
    prepare_run,
)
from reference_server.model.caller import Caller
from reference_server.model.errors import (
    FieldViolation,
    InvalidParams,
    TaskNotCancelable,
    TaskNotFound,
    UnsupportedOperation,
)
from reference_server.model.types import (
    ListTasksQuery,
    Message,
    PushConfig,
    SendRequest,
    StoredTask,
    StreamEvent,
    Task,
    TaskPage,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    utc_now,
)
from reference_server.settings import Settings

log = logging.getLogger("reference_server.service")

SERVER_RESTARTED = "server restarted"


class A2AService:
    """What the bindings call. Tasks live in their files; only the live runs are in memory, in the registry."""

    def __init__(self, settings: Settings, ports: Ports, *, runs: RunRegistry[TaskRun] | None = None,
                 push: PushSender | None = None) -> None:
        """ports: the sessions, tools, task files, workspace files, URL rule, lane and notifier (a2a/ports.py)."""
        self.settings = settings
        self.ports = ports
        self.stores = ports.stores
        self.push = push
        self.runs: RunRegistry[TaskRun] = runs if runs is not None else RunRegistry()
        self.broadcast = Broadcast()  # the streams following each task, across its runs
        self.lane = ports.lane  # what may wait while new requests get their first answers
        self.capabilities = Capabilities.of(settings)  # what the card declares (A2A §3.3.4)

    # --- SendMessage / SendStreamingMessage ---

    async def send_message(self, caller: Caller, request: SendRequest) -> Task | Message:
        prepared = await self._prepare(caller, request)
        run = prepared.run
        prepared.start()
        history_length = request.configuration.history_length
        # A2A §3.2.2: returnImmediately has no effect when the answer is a message
        if request.configuration.return_immediately and not prepared.direct:
            await run.persist()  # the caller learns of the task now: its file is written first
            return trim(run.task, history_length)
        # A2A §3.2.2: blocking waits for a terminal or interrupted state
        await run.done.wait()
        return run.reply or trim(run.task, history_length)

    async def stream_message(self, caller: Caller, request: SendRequest) -> AsyncIterator[StreamEvent]:
        self.capabilities.require_streaming("SendStreamingMessage")
        prepared = await self._prepare(caller, request)
        run = prepared.run
        if prepared.direct:
            # A2A §3.1.2: the stream is the one message; a run that ends without it gives its task, then ends
            prepared.start()
            await run.done.wait()
            yield run.reply or trim(run.task, request.configuration.history_length)
            return

        def begin() -> None:
            prepared.start()
            run.persist_soon()

        with self.broadcast.follow(run.task.id) as follower:
            snapshot = run.snapshot()  # the stream starts with the task as created
            self.lane.defer(begin)  # its run, once the streams opened meanwhile have their first events too
            yield trim(snapshot, request.configuration.history_length)
            async for event in follower.events(ends_send_stream):
                yield event

    async def _prepare(self, caller: Caller, request: SendRequest) -> Prepared:
        """Design steps 1-4: check, find or create the task, claim its context, then ready the run."""
        settings = self.settings
        message = request.message
        hops = check_send(request, settings, self.ports.url_refusal)
        push_config = request.configuration.push_config
        if push_config is not None:  # checked before any task exists, like the message
            self.capabilities.require_push("A push config in a message's configuration")
            push_config = checked(push_config, self.ports.url_refusal, "configuration.taskPushNotificationConfig.url")
        continued = None
        if message.task_id is not None:
            # A2A §3.4.2: an unknown taskId is TaskNotFound (load raises it); a client cannot choose a task id
            continued = await self.load(caller, message.task_id)
            check_continuation(message, continued.task)
        stored = continued or new_task(caller, message.context_id or str(uuid.uuid4()))
        task = stored.task
        if push_config is not None:
            put_config(push_config, settings.max_push_configs)(stored)
        run = TaskRun(stored, self.stores.of(caller.workspace), caller, self.runs.ended, self.broadcast,
                      self.ports.files, max_file_bytes=settings.max_file_bytes, push=self.push)
        over_limit = hops > settings.max_hops
        # design step 1 comes first: a task over the hop limit fails whether or not its context is busy
        key = None if over_limit else RunKey(caller.workspace.path, caller.name, task.context_id)
        if not self.runs.claim(key, task.id, run):
            raise UnsupportedOperation("context busy, retry when the current task ends",
                                       metadata={"contextId": task.context_id})
        try:
            inbound = replace(message, context_id=task.context_id, task_id=task.id)
            task.history.append(inbound)
            if over_limit:
                return over_hop_limit(run, inbound)
            workspace = caller.workspace

            sessions = self.ports.sessions

            def open_session() -> Session:
                return sessions.session(workspace.path, caller.name, task.context_id, workspace.scope_prefix)

            return prepare_run(run, open_session, sessions.foresight(workspace.path), inbound, hops, self.ports,
                               settings.max_file_bytes, new=continued is None)
        except BaseException:
            self.runs.ended(task.id)  # never leave the context busy behind a failed start
            raise

    # --- tasks ---

    async def get_task(self, caller: Caller, task_id: str, history_length: int | None) -> Task:
        return trim((await self.load(caller, task_id)).task, history_length)

    async def list_tasks(self, caller: Caller, query: ListTasksQuery) -> TaskPage:
        check_cursor(query.page_token)
        store = self.stores.of(caller.workspace)
        # copies a disk thread can read while the runs go on changing their tasks
        live = {run.task.id: trim(run.task, None) for run in self.runs.live_runs(caller.workspace.path, caller.name)
                if not run.direct}  # a run answering with a message has no task anybody knows of
        listing = await store.page(caller.name, query, live, self.runs.knows)
        if listing.stale:  # design: lazy restart recovery applies to every task a listing reads
            for task_id in listing.stale:
                if not self.runs.is_live(task_id):
                    await self._update(caller, task_id, _restarted)
            listing = await store.page(caller.name, query, live, lambda _: True)
        assert listing.page is not None
        return TaskPage(tasks=[trim(stored.task, query.history_length) for stored in listing.tasks],
                        next_page_token=listing.page.next_page_token, page_size=listing.page.page_size,
                        total_size=listing.page.total_size)

    async def cancel_task(self, caller: Caller, task_id: str) -> Task:
        stored = await self.load(caller, task_id)
        _check_cancelable(stored.task)
        run = self.runs.run_of(task_id)
        if run is not None:
            await run.cancel()  # design: aborts the live run
            return run.task
        canceled = await self._update(caller, task_id, _canceled)
        if canceled is None:
            raise TaskNotFound(f"Task {task_id} was not found", metadata={"taskId": task_id})
        _check_cancelable(canceled.task, unless=TaskState.CANCELED)
        return canceled.task

    async def subscribe_to_task(self, caller: Caller, task_id: str) -> AsyncIterator[StreamEvent]:
        """The task now, then its events until it is terminal (A2A §3.1.6), through the runs its answers start.

        A subscription waiting on an interrupted task ends when its consumer closes it (a client gone), or once
        SessionIdleTimeout passes with no event and no live run (docs/configuration.md).
        """
        self.capabilities.require_streaming("SubscribeToTask")
        with self.broadcast.follow(task_id) as follower:  # before the task is read: no event can fall in between
            yield await self._subscription_start(caller, task_id, follower)
            idle = self.settings.session_idle_timeout.total_seconds()
            async for event in follower.events(ends_subscription, idle_seconds=idle,
                                               busy=lambda: self.runs.run_of(task_id) is not None):
                yield event

    async def _subscription_start(self, caller: Caller, task_id: str, follower: Follower) -> Task:
        """The first event of a subscription: the task as it is now, holding every event the follower got so far."""
        while True:
            stored = await self.load(caller, task_id)
            state = stored.task.status.state
            if state.terminal:
                # A2A §3.1.6: terminal → UnsupportedOperationError
                raise UnsupportedOperation(
                    f"Task {task_id} is {state.value}; a terminal task has no more events to subscribe to",
                    metadata={"taskId": task_id},
                )
            run = self.runs.run_of(task_id)
            if run is not None:
                follower.discard()  # the live run's snapshot holds what it published so far
                return run.snapshot()
            if not follower.discard():
                return stored.task  # an interrupted task between runs: the subscriber waits for the next one
            # a run started and ended while the task file was read: read it again

    # --- push notification configs (A2A §3.1.7-3.1.10) ---

    async def set_push_config(self, caller: Caller, config: PushConfig, field: str = "url") -> PushConfig:
        """Create (or, with the id of an existing one, replace) a config of the caller's task."""
        self.capabilities.require_push("CreateTaskPushNotificationConfig")
        task_id = config.task_id
        if not task_id:
            raise InvalidParams(violations=[FieldViolation("taskId", "is required: the task to notify about")])
        config = checked(config, self.ports.url_refusal, field)
        stored = await self._change(caller, task_id, put_config(config, self.settings.max_push_configs))
        return next(c for c in stored.push_configs if c.id == config.id)

    async def get_push_config(self, caller: Caller, task_id: str, config_id: str | None) -> PushConfig:
        """The config with this id; no id (0.3 allows it) means the task's first config."""
        self.capabilities.require_push("GetTaskPushNotificationConfig")
        configs = (await self.load(caller, task_id)).push_configs
        found = next((c for c in configs if config_id is None or c.id == config_id), None)
        if found is None:
            # A2A §3.1.8: a missing config is TaskNotFoundError, like a task the caller cannot see
            which = f"{config_id!r} " if config_id is not None else ""
            raise TaskNotFound(f"Task {task_id} has no push notification config {which}".rstrip(),
                               metadata={"taskId": task_id, **({"id": config_id} if config_id else {})})
        return found

    async def list_push_configs(self, caller: Caller, task_id: str, page_token: str | None = None) -> list[PushConfig]:
        """Every config of the task, in one page (A2A §3.1.9: MAY paginate), so no page token is ever valid."""
        self.capabilities.require_push("ListTaskPushNotificationConfigs")
        if page_token:
            raise InvalidParams(violations=[FieldViolation(
                "pageToken", "is not a token this server gave: every push config is in the first page")])
        return list((await self.load(caller, task_id)).push_configs)

    async def delete_push_config(self, caller: Caller, task_id: str, config_id: str) -> None:
        """Remove the config; an id the task does not have is no error (A2A §3.1.10: idempotent)."""
        self.capabilities.require_push("DeleteTaskPushNotificationConfig")
        await self._change(caller, task_id, drop_config(config_id))

    async def _change(self, caller: Caller, task_id: str, change: Change) -> StoredTask:
        """Apply change to the caller's task: to its live run's task (and file), else to its file."""
        run = self.runs.run_of(task_id)
        if run is not None and run.caller == caller:
            if change(run.stored):
                await run.store.save(run.stored, durable=True)
            return run.stored
        await self.load(caller, task_id)  # TaskNotFound, and restart recovery, as for any read
        stored = await self._update(caller, task_id, change)
        if stored is None:
            raise TaskNotFound(f"Task {task_id} was not found", metadata={"taskId": task_id})
        run = self.runs.run_of(task_id)
        if run is not None and run.caller == caller and change(run.stored):
            # a continuation started after the read: its copy of the task must not drop the change when saved
            await run.persist()
        return stored

    # --- shared ---

    async def load(self, caller: Caller, task_id: str) -> StoredTask:
        """The caller's task: its live run's, else its file's (recovered if its run died with the server)."""
        run = self.runs.run_of(task_id)
        if run is not None and run.caller == caller:
            if run.task.status.state not in ACTIVE:
                await run.done.wait()  # the run is writing its final state: answer once it is on disk
            return run.stored
        store = self.stores.of(caller.workspace)
        stored = await store.load(task_id, caller.name)
        if stored is not None and stored.task.status.state in ACTIVE:
            stored = await self._current(caller, stored)
        if stored is None:
            raise TaskNotFound(f"Task {task_id} was not found", metadata={"taskId": task_id})
        return stored

    async def _current(self, caller: Caller, stored: StoredTask) -> StoredTask | None:
        """A task file read as submitted/working: the live run's task, the final file of a run that just ended,
        or, with no run at all, the task recovered as failed (design: lazy restart recovery)."""
        task_id = stored.task.id
        run = self.runs.run_of(task_id)
        if run is not None:
            return run.stored if run.caller == caller else None
        store = self.stores.of(caller.workspace)
        if self.runs.is_live(task_id):  # the finished grace: the file was read before the run's final write
            return await store.load(task_id, caller.name)
        return await self._update(caller, task_id, _restarted)

    async def _update(self, caller: Caller, task_id: str, change: Change) -> StoredTask | None:
        """Change the caller's task file (read afresh under its write lock); a new state is published to the
        task's followers (a subscriber of a task canceled while it waited for input) and pushed."""
        before: list[TaskState] = []

        def tracked(stored: StoredTask) -> bool:
            before.append(stored.task.status.state)
            return change(stored)

        stored = await self.stores.of(caller.workspace).update(task_id, caller.name, tracked)
        if stored is None or not before or before[0] is stored.task.status.state:
            return stored
        task = stored.task
        self.broadcast.publish(task_id, TaskStatusUpdateEvent(task.id, task.context_id, task.status))
        if self.push is not None:
            self.push.notify(stored)
        return stored


def _restarted(stored: StoredTask) -> bool:
    """Design, lazy restart recovery: submitted/working with no live run → failed "server restarted"."""
    task = stored.task
    if task.status.state not in ACTIVE:
        return False
    task.status = TaskStatus(TaskState.FAILED, agent_message(task, SERVER_RESTARTED), utc_now())
    return True


def _canceled(stored: StoredTask) -> bool:
    task = stored.task
    if task.status.state.terminal:
        return False
    task.status = TaskStatus(TaskState.CANCELED, agent_message(task, CANCELED_BY_CALLER), utc_now())
    return True


def _check_cancelable(task: Task, *, unless: TaskState | None = None) -> None:
    state = task.status.state
    if state.terminal and state is not unless:
        # A2A §3.1.5: a terminal task cannot be canceled
        raise TaskNotCancelable(f"Task {task.id} is {state.value} and cannot be canceled",
                                metadata={"taskId": task.id})


def trim(task: Task, history_length: int | None) -> Task:
    """A copy of the task with at most the last N messages (A2A §3.2.4; 0 means none, None means all)."""
    if history_length is None or len(task.history) <= history_length:
        return replace(task, history=list(task.history), artifacts=list(task.artifacts))
    kept = task.history[len(task.history) - history_length:] if history_length else []
    return replace(task, history=kept, artifacts=list(task.artifacts))
