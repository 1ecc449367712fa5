"""The task files this server wrote last, held in memory while each file is as it was written, so that GetTask and
the other reads of one task answer without a disk thread. The file stays the truth: each use first compares the
file's stat key with the one it had right after the write, so an edit by hand, a delete or a restart is seen at
once; a file changed within the last RACY_NS, whose key may not have moved yet, is read again instead. One holder
for the process (TaskStores hands it to each workspace's store), bounded in tasks and bytes, least recently used
first out: an owner host's memory does not grow with its owners."""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path

from reference_server.model.types import StoredTask
from reference_server.platform.disk import StatKey, is_racy, stat_key

MAX_TASKS = 256
MAX_BYTES = 8 * 1024 * 1024  # of the tasks' files: a few large tasks do not stay in memory for long


@dataclass(frozen=True, slots=True)
class _Held:
    key: StatKey
    stored: StoredTask  # a copy made when the write was asked for; never handed out itself
    size: int


class Written:
    def __init__(self, max_tasks: int = MAX_TASKS, max_bytes: int = MAX_BYTES) -> None:
        self._held: OrderedDict[str, _Held] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()  # the writer thread adds, the event loop reads
        self._max_tasks, self._max_bytes = max_tasks, max_bytes

    def remember(self, path: Path, stored: StoredTask, data: bytes) -> None:
        """On the writer thread, right after the file was renamed into place: its stat key, with what was written."""
        name = os.fspath(path)
        try:
            key = stat_key(os.stat(name))
        except OSError:
            self.forget(path)
            return
        with self._lock:
            old = self._held.pop(name, None)
            self._bytes -= old.size if old is not None else 0
            if len(data) > self._max_bytes // 4:  # a large task is read from its file, as before
                return
            self._held[name] = _Held(key, stored, len(data))
            self._bytes += len(data)
            while len(self._held) > self._max_tasks or self._bytes > self._max_bytes:
                _, dropped = self._held.popitem(last=False)
                self._bytes -= dropped.size

    def recall(self, path: Path) -> StoredTask | None:
        """A copy of the task as this server wrote it, when the file is still that one (one stat, on the loop);
        None: read the file."""
        name = os.fspath(path)
        with self._lock:
            held = self._held.get(name)
            if held is not None:
                self._held.move_to_end(name)
        if held is None:
            return None
        try:
            now = os.stat(name)
        except OSError:
            return None
        if stat_key(now) != held.key or is_racy(now, time.time_ns()):
            return None
        return copy_of(held.stored)

    def forget(self, path: Path) -> None:
        with self._lock:
            old = self._held.pop(os.fspath(path), None)
            self._bytes -= old.size if old is not None else 0


def copy_of(stored: StoredTask) -> StoredTask:
    """A copy its user may change: its own lists (the parts and messages in them are never changed)."""
    task = stored.task
    return StoredTask(replace(task, history=list(task.history), artifacts=list(task.artifacts),
                              metadata=dict(task.metadata) if task.metadata is not None else None),
                      stored.caller, list(stored.push_configs))
