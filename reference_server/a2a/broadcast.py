"""The streams that follow each task: every one gets the task's events in the same order, across its runs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager

from reference_server.model.types import StreamEvent, TaskState, TaskStatusUpdateEvent

Ends = Callable[[TaskState], bool]  # whether a stream ends after a status update in this state


def ends_send_stream(state: TaskState) -> bool:
    """design README: a send stream closes after a terminal or interrupted state (A2A §11.7)."""
    return state.ends_stream


def ends_subscription(state: TaskState) -> bool:
    """A2A §3.1.6: a subscription follows the task through interrupted states and ends when it is terminal."""
    return state.terminal


class Broadcast:
    """The followers of each task, by task id (A2A §3.5.2: every stream of a task gets the same events in order).

    A task's runs publish here, not to streams of their own, so a subscriber of a task waiting for input (which
    has no live run) hears the run that the caller's answer starts. A follower is registered only while its
    `follow` block runs: it leaves when its stream ends, fails or is closed (a client gone), and a task that
    nobody follows has no entry.
    """

    def __init__(self) -> None:
        self._followers: dict[str, list[Follower]] = {}

    def publish(self, task_id: str, event: StreamEvent) -> None:
        for follower in self._followers.get(task_id, ()):
            follower.put(event)

    @contextmanager
    def follow(self, task_id: str) -> Iterator[Follower]:
        """A follower of the task for the block: it gets every event published from now on."""
        follower = Follower()
        self._followers.setdefault(task_id, []).append(follower)
        try:
            yield follower
        finally:
            followers = self._followers[task_id]
            followers.remove(follower)
            if not followers:
                del self._followers[task_id]

    def following(self, task_id: str) -> int:
        """How many streams follow the task now."""
        return len(self._followers.get(task_id, ()))


class Follower:
    """One stream's queue of the events published since it began to follow."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[StreamEvent] = asyncio.Queue()

    def put(self, event: StreamEvent) -> None:
        self._queue.put_nowait(event)

    def discard(self) -> bool:
        """Drop the queued events (a snapshot taken now already holds them); True when there were any."""
        dropped = False
        while not self._queue.empty():
            self._queue.get_nowait()
            dropped = True
        return dropped

    async def events(self, ends: Ends, *, idle_seconds: float | None = None,
                     busy: Callable[[], bool] = lambda: False) -> AsyncIterator[StreamEvent]:
        """The events as they come, up to the status update whose state ends this stream.

        With idle_seconds, the stream also ends when that long passes without an event while busy() is false
        (for a subscription: no run of the task is live, so nothing would come until the caller answers). While
        busy() is true it waits without a bound: a live run always ends with a status update.
        """
        while True:
            try:
                event = await asyncio.wait_for(self._queue.get(), None if busy() else idle_seconds)
            except TimeoutError:
                if busy():  # a run began just as the time ran out
                    continue
                return
            yield event
            if isinstance(event, TaskStatusUpdateEvent) and ends(event.status.state):
                return
