"""The task file codec: <taskId>.json is the A2A 1.0 task plus the envelope fields caller and pushConfigs."""

from __future__ import annotations

import json
from typing import Any

from reference_server.domain.errors import A2AError
from reference_server.domain.task_store import StoredTask
from reference_server.wire import v1


def encode_stored(stored: StoredTask) -> dict[str, Any]:
    body = v1.encode_task(stored.task)
    body["caller"] = stored.caller
    body["pushConfigs"] = [v1.encode_push_config(config) for config in stored.push_configs]
    return body


def decode_stored(raw: Any) -> StoredTask | None:
    """The task file's JSON as a StoredTask, or None when it is not one."""
    try:
        if not isinstance(raw, dict) or not isinstance(raw.get("caller"), str):
            return None
        configs = raw.get("pushConfigs") or []
        return StoredTask(
            task=v1.decode_task(raw),
            caller=raw["caller"],
            push_configs=[v1.decode_push_config(c) for c in configs],
        )
    except (ValueError, TypeError, KeyError, AttributeError, A2AError):
        return None


class TaskFileCodec:
    """Bytes of a task file: compact UTF-8 JSON (any JSON layout reads the same; compact is written by the fast
    C encoder, and deep nesting in metadata cannot grow the file by its indentation)."""

    def encode(self, stored: StoredTask) -> bytes:
        return json.dumps(encode_stored(stored), ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def decode(self, data: bytes) -> StoredTask | None:
        # design: a malformed task file reads as missing, without a log line
        try:
            raw = json.loads(data)
        except (ValueError, RecursionError):
            return None
        return decode_stored(raw)
