"""Push delivery (A2A §4.3.3; design "Push sending" and its deviations): the task, POSTed to each webhook.

On each new state of a task, every config of the task gets one POST of the task as it is then: `{"task": <1.0
Task>}` as application/a2a+json, or the bare 0.3 Task as application/json for a config set over A2A 0.3 (what 0.3
receivers parse). Headers: `X-A2A-Notification-Token` when the config has a token, `Authorization: <scheme>
<credentials>` when it has authentication. Each POST goes through the guarded outbound client (no redirects, no
proxy, every connect-time address checked): 3 attempts, waiting 1 s then 5 s, then one log line and it is dropped.

Deliveries never block the run or the caller: each (task, config) has its own queue and worker, so one task's
notifications arrive at a webhook in state order, and a slow webhook delays nobody else. Shutdown cancels what
is pending. Nothing here logs a token, credentials, or a URL beyond its host.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from reference_server.a2a.catalogue import V0_3, V1_0
from reference_server.bindings.http import dumps
from reference_server.bindings.push_receiver import TOKEN_HEADER
from reference_server.codecs import v03, v1
from reference_server.model.types import PushConfig, StoredTask, Task
from reference_server.platform.addresses import host_of
from reference_server.platform.outbound import Outbound, OutboundError

log = logging.getLogger("reference_server.push")

_CONTENT_TYPES = {V0_3: "application/json", V1_0: "application/a2a+json"}
WAITS = (1.0, 5.0)  # design deviation: 1 s, then 5 s, so 3 attempts in all
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class _Push:
    task_id: str
    state: str
    config_id: str | None
    url: str  # the config's as it was at notify time, with the headers made for it
    body: bytes
    headers: dict[str, str]


class HttpPushSender:
    """The domain's PushSender over HTTP: notify() queues, per-config workers send."""

    def __init__(self, outbound: Outbound, *, waits: Sequence[float] = WAITS, sleep: Sleep = asyncio.sleep) -> None:
        self._outbound = outbound
        self._waits = tuple(waits)
        self._sleep = sleep
        self._queues: dict[tuple[str, str], asyncio.Queue[_Push]] = {}
        self._workers: set[asyncio.Task[None]] = set()

    def notify(self, stored: StoredTask) -> None:
        task, bodies = stored.task, dict[str, bytes]()
        for config in stored.push_configs:
            push = _push_for(task, config, bodies)
            key = (task.id, config.id or config.url)
            queue = self._queues.get(key)
            if queue is None:
                queue = self._queues[key] = asyncio.Queue()
                worker = asyncio.create_task(self._work(key, queue))
                self._workers.add(worker)
                worker.add_done_callback(self._workers.discard)
            queue.put_nowait(push)

    async def aclose(self) -> None:
        """Cancel pending deliveries (a shutdown does not wait for webhooks), then close the client."""
        workers = list(self._workers)
        for worker in workers:
            worker.cancel()
        for worker in workers:
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        self._queues.clear()
        await self._outbound.aclose()

    async def _work(self, key: tuple[str, str], queue: asyncio.Queue[_Push]) -> None:
        try:
            while not queue.empty():
                await self._deliver(queue.get_nowait())
        finally:
            if self._queues.get(key) is queue:
                del self._queues[key]

    async def _deliver(self, push: _Push) -> None:
        reason = ""
        for attempt in range(len(self._waits) + 1):
            if attempt:
                await self._sleep(self._waits[attempt - 1])
            try:
                status = await self._outbound.post(push.url, push.body, push.headers)
            except OutboundError as error:
                reason = error.reason
                continue
            if 200 <= status < 300:
                return
            reason = f"HTTP {status}" + (" (redirects are not followed)" if 300 <= status < 400 else "")
        # design: after the last attempt, one log line (the host only: a URL's path or query may hold a secret)
        log.warning("push for task %s (%s, config %s) to %s dropped after %d attempts: %s", push.task_id,
                    push.state, push.config_id, host_of(push.url), len(self._waits) + 1, reason)


def _push_for(task: Task, config: PushConfig, bodies: dict[str, bytes]) -> _Push:
    """The POST for one config, made now: later changes to the task are the next notification's. bodies: the task
    encoded once per A2A version, shared by the configs of one notification."""
    version = V0_3 if config.a2a_version == V0_3 else V1_0
    if version not in bodies:  # 0.3 receivers parse the Task itself; 1.0 ones a StreamResponse
        bodies[version] = dumps(v03.encode_task(task) if version == V0_3 else {"task": v1.encode_task(task)})
    body, content_type = bodies[version], _CONTENT_TYPES[version]
    headers = {"Content-Type": content_type}
    if config.token:
        headers[TOKEN_HEADER.decode()] = config.token
    if config.authentication is not None and config.authentication.credentials:
        headers["Authorization"] = f"{config.authentication.scheme} {config.authentication.credentials}"
    return _Push(task.id, task.status.state.value, config.id, config.url, body, headers)
