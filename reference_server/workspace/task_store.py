"""Task files: <workspace>/.volcanic/a2a/tasks/<taskId>.json, written atomically on disk threads, in order."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Protocol

from reference_server.a2a.listing import Listing, TaskIndex, TaskSummary
from reference_server.model.caller import Workspace
from reference_server.model.types import ListTasksQuery, StoredTask, Task
from reference_server.platform.changes import Notifications
from reference_server.platform.disk import WRITER, finished, is_racy, off_loop, stat_key, temp_stem
from reference_server.workspace.written import Written, copy_of

log = logging.getLogger("reference_server.tasks")

# design: task ids are UUIDs; anything else never touches the file system
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_YIELD_EVERY = 256  # files a scan looks at between two chances for the event loop to run
Read = tuple[str, str | None, TaskSummary | None, int]  # a task file as read: id, caller, summary, stat fingerprint


def is_task_id(text: str) -> bool:
    return bool(_UUID.fullmatch(text))  # fullmatch: `$` would also accept a trailing newline


def _is_task_file(name: str) -> bool:
    """<taskId>.json: what a listing reads (the writer's temp files and anything else are never told)."""
    return name.endswith(".json") and is_task_id(name[:-5])


class TaskFileFormat(Protocol):
    """What the store needs of the task file's bytes (a port); codecs/task_file.TaskFileCodec is handed in."""

    def encode(self, stored: StoredTask) -> bytes: ...

    def decode(self, data: bytes) -> StoredTask | None:
        """The task file, or None when it is malformed (design: a malformed file reads as missing)."""
        ...


class TaskStore:
    """The task files of one workspace, scoped to one caller on every read.

    Every file operation runs on a disk thread. Writes of one task are applied in the order they were asked
    for. ListTasks reads an index of summaries (listing.TaskIndex) brought up to date before each listing: by
    the kernel's notifications, which name the files that changed since the last listing, or, without them
    (A2A__FileChanges=stat, or a folder the kernel refused to watch), by a stat of every file. Either way a file
    edited or deleted by hand is seen on the next listing, and unchanged files are not read again.
    """

    def __init__(self, workspace: Workspace, codec: TaskFileFormat, notifications: Notifications | None = None,
                 written: Written | None = None) -> None:
        self.workspace = workspace
        self._written = written or Written()  # the files this server wrote last, while they are unchanged
        self.directory = workspace.tasks_dir
        self._codec = codec
        self._notes = notifications
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}  # task id -> its write lock and how many use it
        self._index = TaskIndex()
        self._followed = False  # the folder is followed, and the index was built from a scan since
        self._scan_lock = threading.Lock()

    def path_for(self, task_id: str) -> Path | None:
        return self.directory / f"{task_id}.json" if is_task_id(task_id) else None

    # --- on the event loop ---

    async def load(self, task_id: str, caller: str) -> StoredTask | None:
        """The caller's task, or None: missing, malformed, not a UUID and another caller's all look alike."""
        path = self.path_for(task_id)
        if path is None:
            return None
        held = self._written.recall(path)  # a file as this server wrote it: no disk thread needed
        if held is not None:
            return held if held.caller == caller else None
        return await off_loop(self.read, task_id, caller)

    async def save(self, stored: StoredTask, *, durable: bool) -> None:
        """Write the task as it is now; durable: fsynced before this returns (see docs/workspace.md)."""
        path = self.path_for(stored.task.id)
        if path is None:
            raise ValueError(f"task id {stored.task.id!r} is not a UUID")
        now = copy_of(stored)  # as it is now: a live run goes on changing its lists
        async with self._write_lock(stored.task.id):
            await finished(WRITER.replace(path, self._encoding(now), durable=durable,
                                                     then=self._remember(path, now)))

    def save_soon(self, stored: StoredTask) -> None:
        """Queue a write of the task as it is now (not fsynced), ahead of any write asked for later; a failure
        is logged. For a live run's task, which no recovery touches, so the write lock is not needed."""
        path = self.path_for(stored.task.id)
        if path is None:
            raise ValueError(f"task id {stored.task.id!r} is not a UUID")
        now = copy_of(stored)  # as it is now: a live run goes on changing its lists
        WRITER.replace(path, self._encoding(now), durable=False,
                       then=self._remember(path, now)).add_done_callback(_log_failure)

    def _encoding(self, now: StoredTask) -> Callable[[], bytes]:
        """The task file's bytes, made on the writer thread just before they are written."""
        return lambda: self._codec.encode(now)

    def _remember(self, path: Path, now: StoredTask) -> Callable[[bytes], None]:
        """Once the file is in place (on the writer thread): held with its stat key, for the reads that follow."""
        return lambda data: self._written.remember(path, now, data)

    async def update(self, task_id: str, caller: str, change: Callable[[StoredTask], bool]) -> StoredTask | None:
        """Read the task afresh and, if change(stored) changed it, write it durably, with no write in between."""
        path = self.path_for(task_id)
        if path is None:
            return None
        async with self._write_lock(task_id):
            stored = await off_loop(self.read, task_id, caller)
            if stored is not None and change(stored):
                now = copy_of(stored)  # as it is now: a live run goes on changing its lists
                await finished(WRITER.replace(path, self._encoding(now), durable=True,
                                                         then=self._remember(path, now)))
            return stored

    @asynccontextmanager
    async def _write_lock(self, task_id: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(task_id) or (asyncio.Lock(), 0)
        self._locks[task_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[task_id]
            if users == 1:
                del self._locks[task_id]  # no one else waits: memory stays flat
            else:
                self._locks[task_id] = (lock, users - 1)

    # --- on a disk thread ---

    def read(self, task_id: str, caller: str) -> StoredTask | None:
        path = self.path_for(task_id)
        stored = self._file(path, task_id) if path is not None else None
        return stored if stored is not None and stored.caller == caller else None

    def _file(self, path: Path, task_id: str) -> StoredTask | None:
        """The task file at path, or None when it is missing, malformed or holds another task's id."""
        try:
            stored = self._codec.decode(path.read_bytes())
        except OSError:
            return None
        return stored if stored is not None and stored.task.id == task_id else None

    async def page(self, caller: str, query: ListTasksQuery, live: dict[str, Task],
                   is_live: Callable[[str], bool]) -> Listing:
        """listing, on a disk thread."""
        return await off_loop(self.listing, caller, query, live, is_live)

    def listing(self, caller: str, query: ListTasksQuery, live: dict[str, Task],
                is_live: Callable[[str], bool]) -> Listing:
        """A page of the caller's tasks: the files, with the live runs' tasks (given) in place of theirs.

        is_live(task_id) must be safe to call from this thread. A task file that says submitted or working
        with no live run is stale: its id is returned instead of a page, for recovery first.
        """
        with self._scan_lock:
            self._bring_up_to_date()
            stale = [task_id for task_id in self._index.active(caller)
                     if task_id not in live and not is_live(task_id)]
            if stale:
                return Listing(stale=stale)
            page = self._index.page(caller, query, [TaskSummary.of(task) for task in live.values()])
        tasks: list[StoredTask] = []
        for summary in page.summaries:
            if summary.id in live:
                tasks.append(StoredTask(live[summary.id], caller))
            elif (stored := self.read(summary.id, caller)) is not None:
                tasks.append(stored)  # a file deleted since the index saw it is left out of the page
        return Listing(page=page, tasks=tasks)

    def close(self) -> None:
        """Stop following the folder (the server stops)."""
        with self._scan_lock:
            if self._notes is not None and self._followed:
                self._notes.unfollow(self, self.directory)
            self._followed = False

    def _bring_up_to_date(self) -> None:
        """The index as the folder is now: only the files the kernel named since the last listing are looked at;
        the whole folder when it is first listed, after a queue overflow, when the folder itself was replaced, and
        on every listing when there are no notifications."""
        notes = self._notes
        if notes is None or os.fspath(self.directory) in notes.blind(self):
            self._scan()
            return
        if not self._followed:
            # follow first, scan after: a change from now on is in the queue (the folder's own folders are
            # already watched for the caller index: one more watch, for tasks/)
            notes.follow(self, self.directory, self.workspace.path, folder=True, wanted=_is_task_file)
            self._followed = True
            notes.changes(self)
            self._scan()
            return
        changes = notes.changes(self)
        if changes.everything:
            notes.recheck(self)
        if changes.everything or os.fspath(self.directory) in changes.paths:
            self._scan()
            return
        for path in changes.paths:
            name = os.path.basename(path)
            if _is_task_file(name):
                self._look(name[:-5], os.path.join(self.directory, name))

    def _scan(self) -> None:
        """Every file of the folder, by stat: read only those whose stat changed; forget those that are gone."""
        try:
            entries = os.scandir(self.directory)
        except (FileNotFoundError, NotADirectoryError):
            for task_id in list(self._index.files):
                self._index.drop(task_id)
            return
        present: set[str] = set()
        changed: list[Read] = []
        with entries:
            for n, entry in enumerate(entries):
                if n % _YIELD_EVERY == 0:
                    time.sleep(0)  # let the event loop's thread take the GIL: a long scan never starves it
                if not _is_task_file(entry.name):
                    continue
                task_id = entry.name[:-5]
                present.add(task_id)
                if (read := self._read_if_changed(task_id, entry.path)) is not None:
                    changed.append(read)
        self._index.put_all(changed)
        for task_id in [t for t in self._index.files if t not in present]:  # files deleted by hand
            self._index.drop(task_id)

    def _look(self, task_id: str, path: str) -> None:
        """One task file the kernel named."""
        if (read := self._read_if_changed(task_id, path)) is not None:
            self._index.put(*read)

    def _read_if_changed(self, task_id: str, path: str) -> Read | None:
        """A task file read again, unless its stat is the one seen when it was last read (and trusted then); a file
        gone is dropped from the index here."""
        try:
            stat = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            self._index.drop(task_id)
            return None
        seen = hash(stat_key(stat)) or 1  # 0 means "read it again"
        known = self._index.files.get(task_id)
        if known is not None and known.seen == seen:
            return None
        read_at = time.time_ns()
        stored = self._file(Path(path), task_id)
        # a file that may change again within the same timestamp tick is read again next time (disk.RACY_NS)
        trusted = 0 if is_racy(stat, read_at) else seen
        if stored is None:  # malformed (or gone): remembered as such until the file changes
            return task_id, None, None, trusted
        return task_id, sys.intern(stored.caller), TaskSummary.of(stored.task, task_id), trusted


def remove_stray_temp_files(workspace: Workspace) -> int:
    """Delete the temp files an interrupted write left in tasks/ (a kill -9 between create and rename); how many.

    Only at start, before any write of this process: a temp file then belongs to no write in progress.
    """
    try:
        names = os.listdir(workspace.tasks_dir)
    except (FileNotFoundError, NotADirectoryError):
        return 0
    removed = 0
    for name in names:
        stem = temp_stem(name)  # the writer's temp file for a task file (disk.py)
        if stem is not None and is_task_id(stem):
            with contextlib.suppress(FileNotFoundError):
                (workspace.tasks_dir / name).unlink()
                removed += 1
    return removed


class TaskStores:
    """One TaskStore per workspace, kept for the life of the server (their write locks and listing index)."""

    def __init__(self, codec: TaskFileFormat, notifications: Notifications | None = None) -> None:
        self._codec = codec
        self._notes = notifications
        self._stores: dict[Path, TaskStore] = {}
        self._written = Written()  # one for every workspace: bounded for the process, not per owner

    def of(self, workspace: Workspace) -> TaskStore:
        store = self._stores.get(workspace.path)
        if store is None or store.workspace != workspace:
            if store is not None:
                store.close()
            store = self._stores[workspace.path] = TaskStore(workspace, self._codec, self._notes, self._written)
        return store

    def close(self) -> None:
        """Every store stops following its folder (the server stops)."""
        for store in self._stores.values():
            store.close()


def _log_failure(done: Future[None]) -> None:
    if not done.cancelled() and (error := done.exception()) is not None:
        log.error("a task file could not be written: %s", error)
