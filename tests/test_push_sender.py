"""HttpPushSender without a network: what is sent, in which order, how failures are retried, and shutdown."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import Any

import pytest

from reference_server.bindings.push_sender import HttpPushSender
from reference_server.model.types import AuthenticationInfo, PushConfig, StoredTask, Task, TaskState, TaskStatus
from reference_server.platform.outbound import Download, Outbound, OutboundError


class FakeOutbound(Outbound):
    """Records each POST; answers with the statuses given (then 200); an OutboundError for a status of 0."""

    def __init__(self, statuses: list[int] | None = None, *, hang: asyncio.Event | None = None) -> None:
        self.posts: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.statuses = statuses or []
        self.hang = hang
        self.closed = False

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> int:
        self.posts.append((url, json.loads(body), dict(headers)))
        if self.hang is not None:
            await self.hang.wait()
        status = self.statuses.pop(0) if self.statuses else 200
        if status == 0:
            raise OutboundError("refused to connect to hooks.example.com: 10.0.0.1 is private 10.0.0.0/8")
        return status

    async def download(self, url: str, max_bytes: int) -> Download:
        raise AssertionError("not used")

    async def aclose(self) -> None:
        self.closed = True


def stored(*configs: PushConfig, state: TaskState = TaskState.WORKING) -> StoredTask:
    return StoredTask(Task("t1", "c1", TaskStatus(state)), "bot", list(configs))


async def settle(sender: HttpPushSender) -> None:
    while sender._workers:  # the workers end when their queues are empty
        await asyncio.sleep(0)


def test_each_config_gets_the_task_as_it_was_when_notified_in_order() -> None:
    outbound = FakeOutbound()
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def scenario() -> None:
        sender = HttpPushSender(outbound, sleep=sleep)
        task = stored(PushConfig("https://a.example/hook", id="a", token="tok-a"),
                      PushConfig("https://b.example/hook", id="b", a2a_version="0.3",
                                 authentication=AuthenticationInfo("Bearer", "s3cret")))
        sender.notify(task)
        task.task.status = TaskStatus(TaskState.COMPLETED)  # changed after notify: the next push's business
        sender.notify(task)
        await settle(sender)

    asyncio.run(scenario())
    to_a = [(body["task"]["status"]["state"], headers) for url, body, headers in outbound.posts if "a.example" in url]
    assert [state for state, _ in to_a] == ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]
    assert all(h["X-A2A-Notification-Token"] == "tok-a" and h["Content-Type"] == "application/a2a+json"
               and "Authorization" not in h for _, h in to_a)
    to_b = [(body, headers) for url, body, headers in outbound.posts if "b.example" in url]
    assert [body["status"]["state"] for body, _ in to_b] == ["working", "completed"]  # the bare 0.3 Task
    assert all(body["kind"] == "task" for body, _ in to_b)
    assert all(h["Authorization"] == "Bearer s3cret" and h["Content-Type"] == "application/json"
               and "X-A2A-Notification-Token" not in h for _, h in to_b)
    assert waits == []


def test_a_failing_webhook_gets_three_attempts_then_one_log_line_without_secrets(
        caplog: pytest.LogCaptureFixture) -> None:
    outbound = FakeOutbound([500, 0, 302])
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def scenario() -> None:
        sender = HttpPushSender(outbound, sleep=sleep)
        sender.notify(stored(PushConfig("https://hooks.example.com/secret-path?key=k1", id="p1", token="tok-x",
                                        authentication=AuthenticationInfo("Bearer", "s3cret"))))
        await settle(sender)

    with caplog.at_level(logging.WARNING, logger="reference_server.push"):
        asyncio.run(scenario())
    assert len(outbound.posts) == 3 and waits == [1.0, 5.0]
    [line] = [r.getMessage() for r in caplog.records if r.name == "reference_server.push"]
    assert "t1" in line and "p1" in line and "hooks.example.com" in line and "after 3 attempts" in line
    assert "HTTP 302" in line
    for secret in ("tok-x", "s3cret", "secret-path", "k1"):
        assert secret not in line, line


def test_a_slow_webhook_delays_no_other_config() -> None:
    hang = asyncio.Event()

    class Split(FakeOutbound):
        async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> int:
            if "slow" in url:
                await hang.wait()
            self.posts.append((url, json.loads(body), dict(headers)))
            return 200

    outbound = Split()

    async def scenario() -> None:
        sender = HttpPushSender(outbound)
        sender.notify(stored(PushConfig("https://slow.example/hook", id="slow"),
                             PushConfig("https://fast.example/hook", id="fast")))
        for _ in range(100):
            if outbound.posts:
                break
            await asyncio.sleep(0)
        assert [url for url, _, _ in outbound.posts] == ["https://fast.example/hook"]
        hang.set()
        await settle(sender)

    asyncio.run(scenario())
    assert len(outbound.posts) == 2


def test_shutdown_drops_pending_pushes_and_closes_the_client() -> None:
    outbound = FakeOutbound(hang=asyncio.Event())  # a webhook that never answers

    async def scenario() -> None:
        sender = HttpPushSender(outbound)
        sender.notify(stored(PushConfig("https://hooks.example.com/hook", id="p1")))
        while not outbound.posts:
            await asyncio.sleep(0)
        await asyncio.wait_for(sender.aclose(), 5)  # bounded: a hang fails the test instead of the run
        assert not sender._workers

    asyncio.run(scenario())
    assert outbound.closed


def test_a_config_replaced_while_its_pushes_wait_sends_each_push_where_its_headers_belong() -> None:
    outbound = FakeOutbound([500, 500, 500])  # the first push fails three times, so the second waits behind it
    old = PushConfig("https://old.example/hook", id="p1", token="old-token")

    async def scenario() -> None:
        sender = HttpPushSender(outbound, sleep=lambda seconds: asyncio.sleep(0))
        task = stored(old)
        sender.notify(task)
        task.push_configs = [PushConfig("https://new.example/hook", id="p1", token="new-token")]  # set again
        task.task.status = TaskStatus(TaskState.COMPLETED)
        sender.notify(task)
        await settle(sender)

    asyncio.run(scenario())
    sent = [(url, headers["X-A2A-Notification-Token"]) for url, _, headers in outbound.posts]
    assert sent == [("https://old.example/hook", "old-token")] * 3 + [("https://new.example/hook", "new-token")]
