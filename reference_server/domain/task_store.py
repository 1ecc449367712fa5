"""Task files: <workspace>/.volcanic/a2a/tasks/<taskId>.json, written atomically, read on every request."""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference_server.domain.callers import Caller, Workspace
from reference_server.domain.errors import A2AError
from reference_server.domain.model import PushConfig, Task
from reference_server.wire import v1

# design: task ids are UUIDs; anything else never touches the file system
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def is_task_id(text: str) -> bool:
    return bool(_UUID.fullmatch(text))  # fullmatch: `$` would also accept a trailing newline


@dataclass
class StoredTask:
    """A task file: the A2A task plus the envelope fields caller and pushConfigs."""

    task: Task
    caller: str
    push_configs: list[PushConfig] = field(default_factory=list)


class TaskStore:
    """The task files of one workspace, scoped to one caller on every read."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.directory = workspace.tasks_dir

    def path_for(self, task_id: str) -> Path | None:
        return self.directory / f"{task_id}.json" if is_task_id(task_id) else None

    def load(self, task_id: str, caller: Caller) -> StoredTask | None:
        """The caller's task, or None: missing, malformed, not a UUID and another caller's all look alike."""
        path = self.path_for(task_id)
        if path is None:
            return None
        stored = _read(path)
        if stored is None or stored.caller != caller.name or stored.task.id != task_id:
            return None
        return stored

    def list(self, caller: Caller) -> list[StoredTask]:
        """Every readable task file of this caller (A2A §3.1.4: only the caller's tasks)."""
        if not self.directory.is_dir():
            return []
        found = []
        for path in self.directory.glob("*.json"):
            if not is_task_id(path.stem):
                continue
            stored = _read(path)
            if stored is not None and stored.caller == caller.name and stored.task.id == path.stem:
                found.append(stored)
        return found

    def save(self, stored: StoredTask) -> None:
        """Write atomically: a temp file in the same folder, fsync, then rename over the old file."""
        path = self.path_for(stored.task.id)
        if path is None:
            raise ValueError(f"task id {stored.task.id!r} is not a UUID")
        self.directory.mkdir(parents=True, exist_ok=True)
        data = json.dumps(encode_stored(stored), ensure_ascii=False, indent=2).encode("utf-8")
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{stored.task.id}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def encode_stored(stored: StoredTask) -> dict[str, Any]:
    body = v1.encode_task(stored.task)
    body["caller"] = stored.caller
    body["pushConfigs"] = [v1.encode_push_config(config) for config in stored.push_configs]
    return body


def _read(path: Path) -> StoredTask | None:
    # design: a malformed task file reads as missing, without a log line
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict) or not isinstance(raw.get("caller"), str):
            return None
        configs = raw.get("pushConfigs") or []
        return StoredTask(
            task=v1.decode_task(raw),
            caller=raw["caller"],
            push_configs=[v1.decode_push_config(c) for c in configs],
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError, A2AError):
        return None
