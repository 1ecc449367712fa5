"""The task file codec: <taskId>.json is the A2A 1.0 task plus the envelope fields caller and pushConfigs."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from reference_server.codecs import v1
from reference_server.model.errors import A2AError
from reference_server.model.types import PushConfig, StoredTask


def encode_stored(stored: StoredTask) -> dict[str, Any]:
    body = v1.encode_task(stored.task)
    body["caller"] = stored.caller
    body["pushConfigs"] = [_encode_config(config) for config in stored.push_configs]
    return body


def _encode_config(config: PushConfig) -> dict[str, Any]:
    out = v1.encode_push_config(config)
    if config.a2a_version != "1.0":
        out["a2aVersion"] = config.a2a_version  # ours: a 0.3 config is sent the 0.3 shape of the task
    return out


def _decode_config(raw: Any) -> PushConfig:
    fields = dict(raw)
    version = fields.pop("a2aVersion", "1.0")
    if version not in ("1.0", "0.3"):
        raise ValueError(f"a2aVersion {version!r}")
    return replace(v1.decode_push_config(fields), a2a_version=version)


def decode_stored(raw: Any) -> StoredTask | None:
    """The task file's JSON as a StoredTask, or None when it is not one."""
    try:
        if not isinstance(raw, dict) or not isinstance(raw.get("caller"), str):
            return None
        configs = raw.get("pushConfigs") or []
        return StoredTask(
            task=v1.decode_task(raw),
            caller=raw["caller"],
            push_configs=[_decode_config(c) for c in configs],
        )
    except (ValueError, TypeError, KeyError, AttributeError, A2AError):
        return None


class TaskFileCodec:
    """Bytes of a task file: compact UTF-8 JSON (any JSON layout reads the same; compact is written by the fast
    C encoder, and deep nesting in metadata cannot grow the file by its indentation)."""

    _ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # made once, not per call

    def encode(self, stored: StoredTask) -> bytes:
        return self._ENCODER.encode(encode_stored(stored)).encode("utf-8")

    def decode(self, data: bytes) -> StoredTask | None:
        # design: a malformed task file reads as missing, without a log line
        try:
            raw = json.loads(data)
        except (ValueError, RecursionError):
            return None
        return decode_stored(raw)
