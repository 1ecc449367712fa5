"""Push notification configs (A2A §3.1.7-3.1.10, §4.3.3): checked, kept in the task file, handed to a sender.

A config belongs to one task of one caller; its URL must be https (http and private addresses only with
A2A__AllowPrivatePushUrls). How a push is sent is the sender's business; the domain says when: each time the
task enters a new state, never per artifact chunk (design deviation "Push payload and trigger").
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from reference_server.a2a.ports import UrlRefusal
from reference_server.model.errors import FieldViolation, InvalidParams
from reference_server.model.types import PushConfig, StoredTask

Change = Callable[[StoredTask], bool]


class PushSender(Protocol):
    def notify(self, stored: StoredTask) -> None:
        """The task entered a new state: send it to each of its configs, later and in state order; never blocks
        and never raises."""
        ...


def checked(config: PushConfig, url_refusal: UrlRefusal, field: str) -> PushConfig:
    """The config with an id (the server's when the caller gave none); InvalidParams names `field` when its URL
    may not be used (the connect-time address check happens again on every delivery)."""
    problem = url_refusal(config.url)
    if problem is not None:
        raise InvalidParams(violations=[FieldViolation(field, problem)])
    return replace(config, id=config.id or str(uuid.uuid4()))


def put_config(config: PushConfig, limit: int) -> Change:
    """Add the config to a task, or replace the one with its id (0.3 `set` sets or updates); a task that has
    `limit` configs takes no new one (A2A__MaxPushConfigs: each state change is one POST per config)."""

    def change(stored: StoredTask) -> bool:
        kept = [c for c in stored.push_configs if c.id != config.id]
        if len(kept) == len(stored.push_configs) and len(kept) >= limit:
            raise InvalidParams(
                f"Task {stored.task.id} already has {len(kept)} push notification configs, the most a task may "
                f"have (A2A__MaxPushConfigs is {limit}): delete one first, or give the id of one to replace it",
                metadata={"taskId": stored.task.id, "limit": str(limit)})
        stored.push_configs = [*kept, replace(config, task_id=stored.task.id)]
        return True

    return change


def drop_config(config_id: str) -> Change:
    """Remove the config with this id; no such config is no change (A2A §3.1.10: delete is idempotent)."""

    def change(stored: StoredTask) -> bool:
        kept = [c for c in stored.push_configs if c.id != config_id]
        changed = len(kept) != len(stored.push_configs)
        stored.push_configs = kept
        return changed

    return change
