"""domain/broadcast.py: the followers of each task, the end of each kind of stream, and no follower left behind."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from reference_server.a2a.broadcast import Broadcast, Ends, ends_send_stream, ends_subscription
from reference_server.model.types import (
    Artifact,
    Part,
    StreamEvent,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    utc_now,
)


def status(state: TaskState, task_id: str = "t1") -> TaskStatusUpdateEvent:
    return TaskStatusUpdateEvent(task_id, "c1", TaskStatus(state, None, utc_now()))


def chunk(text: str, task_id: str = "t1") -> TaskArtifactUpdateEvent:
    return TaskArtifactUpdateEvent(task_id, "c1", Artifact("response", [Part.of_text(text)]))


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in events]


def test_every_follower_of_a_task_gets_its_events_in_order() -> None:
    async def scenario() -> None:
        broadcast = Broadcast()
        with broadcast.follow("t1") as first, broadcast.follow("t1") as second, broadcast.follow("t2") as other:
            published = [status(TaskState.WORKING), chunk("a"), chunk("b"), status(TaskState.COMPLETED)]
            for event in published:
                broadcast.publish(event.task_id, event)
            elsewhere = status(TaskState.COMPLETED, "t2")
            broadcast.publish("t2", elsewhere)
            assert await collect(first.events(ends_send_stream)) == published
            assert await collect(second.events(ends_send_stream)) == published
            assert await collect(other.events(ends_send_stream)) == [elsewhere]

    asyncio.run(scenario())


def test_a_send_stream_ends_at_input_required_and_a_subscription_goes_on() -> None:
    async def scenario() -> None:
        broadcast = Broadcast()
        run1 = [status(TaskState.WORKING), status(TaskState.INPUT_REQUIRED)]
        run2 = [status(TaskState.WORKING), chunk("Ada"), status(TaskState.COMPLETED)]
        with broadcast.follow("t1") as send, broadcast.follow("t1") as subscription:
            for event in [*run1, *run2]:
                broadcast.publish("t1", event)
            assert await collect(send.events(ends_send_stream)) == run1
            assert await collect(subscription.events(ends_subscription)) == [*run1, *run2]

    asyncio.run(scenario())


def test_a_follower_leaves_when_its_stream_ends_or_is_closed() -> None:
    async def follow(broadcast: Broadcast, ends: Ends, started: asyncio.Event) -> list[StreamEvent]:
        with broadcast.follow("t1") as follower:
            started.set()
            return await collect(follower.events(ends))

    async def scenario() -> None:
        broadcast = Broadcast()
        started = asyncio.Event()
        ended = asyncio.create_task(follow(broadcast, ends_subscription, started))
        await started.wait()
        started.clear()
        gone = asyncio.create_task(follow(broadcast, ends_subscription, started))  # a client that goes away
        await started.wait()
        assert broadcast.following("t1") == 2

        asked, canceled = status(TaskState.INPUT_REQUIRED), status(TaskState.CANCELED)
        broadcast.publish("t1", asked)
        gone.cancel()  # the SSE binding cancels the stream's pump when it finds the client gone
        await asyncio.gather(gone, return_exceptions=True)
        assert broadcast.following("t1") == 1
        broadcast.publish("t1", canceled)
        assert await ended == [asked, canceled]
        assert broadcast.following("t1") == 0
        assert broadcast._followers == {}  # nothing kept for a task nobody follows
        broadcast.publish("t1", status(TaskState.COMPLETED))  # a task without followers: nobody to tell

    asyncio.run(scenario())


def test_an_idle_subscription_ends_unless_a_run_is_live() -> None:
    async def scenario() -> None:
        broadcast = Broadcast()
        live = [True]
        with broadcast.follow("t1") as follower:
            # idle_seconds 0: the subscription would end at once, were it not for the live run
            following = asyncio.create_task(collect(follower.events(ends_subscription, idle_seconds=0,
                                                                    busy=lambda: live[0])))
            for _ in range(5):
                await asyncio.sleep(0)  # let it wait
            assert not following.done()
            asked = status(TaskState.INPUT_REQUIRED)
            live[0] = False  # the run ends as it publishes its last state
            broadcast.publish("t1", asked)
            assert await following == [asked]  # then nothing comes within the idle time: the stream ends

        with broadcast.follow("t1") as follower:  # no run: the idle subscription ends without an event
            assert await collect(follower.events(ends_subscription, idle_seconds=0.01)) == []


def test_discard_drops_what_a_snapshot_already_holds() -> None:
    async def scenario() -> None:
        broadcast = Broadcast()
        with broadcast.follow("t1") as follower:
            assert not follower.discard()
            broadcast.publish("t1", chunk("a"))
            assert follower.discard()
            completed = status(TaskState.COMPLETED)  # one event: two made apart may differ in their timestamps
            broadcast.publish("t1", completed)
            assert await collect(follower.events(ends_subscription)) == [completed]

    asyncio.run(scenario())
