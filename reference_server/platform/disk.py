"""The disk, kept off the event loop: the disk threads, atomic file writes, and reads cached by file stat."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import itertools
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

T = TypeVar("T")
log = logging.getLogger("reference_server.disk")  # the name its log lines have always had


def _yield_to_the_loop() -> None:
    """Run this thread at a lower priority (Linux: a nice value per thread), so that when a long read such as a
    ListTasks scan, or the writer's batch after a burst of new tasks, and the event loop want the same core, the
    loop gets it (measured: 1,000 streams opened at once, the writer's system time during their first events went
    from 290-350 ms to 70-80 ms, and their first event p99 from 1.1-1.35 s to 0.54-0.59 s)."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)


# Every blocking file read of a request runs on these threads, never on the event loop (writes go to WRITER).
THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="disk", initializer=_yield_to_the_loop)

# A file whose modification time is this close to the moment it was read may still change within the same
# timestamp tick (the file system's clock is coarse): such a read is not trusted for the next request.
RACY_NS = 50_000_000


# How the work of the request being served learns that its client is gone: on_gone(callback) calls callback then.
# Set (bindings/http.unless_gone) only around work whose one effect is its answer, such as GetTask or ListTasks.
ON_GONE: ContextVar[Callable[[Callable[[], object]], None] | None] = ContextVar("on_gone", default=None)


async def off_loop(function: Callable[..., T], *args: object) -> T:
    """Run a blocking function on a disk thread and wait for it without blocking the event loop. Within ON_GONE,
    a read whose client leaves is dropped if it has not started yet (a burst of abandoned listings then does not
    queue on the disk threads), and the wait for it ends at once with CancelledError."""
    future = asyncio.get_running_loop().run_in_executor(THREADS, function, *args)
    on_gone = ON_GONE.get()
    if on_gone is not None:
        on_gone(future.cancel)
    return await future


async def finished(done: Future[T]) -> T:
    """Wait for a write of the writer thread. Unlike asyncio.wrap_future, which wakes the loop once per write, the
    writes a batch completes together wake each loop once (_Settler); the write goes on if the waiter is cancelled."""
    loop = asyncio.get_running_loop()
    settler = _SETTLERS.get(loop)
    if settler is None:
        settler = _SETTLERS[loop] = _Settler(loop)
    waiter: asyncio.Future[T] = loop.create_future()
    done.add_done_callback(functools.partial(settler.add, waiter))
    return await waiter


class _Settler(Generic[T]):
    """The writes completed for one event loop since it last looked: the first schedules the loop's one look."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._ready: list[tuple[asyncio.Future[T], Future[T]]] = []

    def add(self, waiter: asyncio.Future[T], done: Future[T]) -> None:
        """On the writer thread, as a write's future completes."""
        with self._lock:
            self._ready.append((waiter, done))
            first = len(self._ready) == 1
        if first and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._settle)

    def _settle(self) -> None:
        with self._lock:
            ready, self._ready = self._ready, []
        for waiter, done in ready:
            if waiter.done():  # its waiter went away
                continue
            if done.cancelled():
                waiter.cancel()
            elif (error := done.exception()) is not None:
                waiter.set_exception(error)
            else:
                waiter.set_result(done.result())


_SETTLERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Settler[Any]] = weakref.WeakKeyDictionary()


Data = bytes | Callable[[], bytes]  # a write's bytes, or the function that makes them on the writer thread


_Write = tuple[Path, Data, bool, bool, Future[None], Callable[[bytes], object] | None]  # path, bytes, durable, append


class Writer:
    """One thread that writes files in the order asked for, in batches (design: atomic task files).

    replace(): a temp file in the same folder, then a rename, so no reader ever sees half a file; a process
    crash leaves the old file or the new one. durable: also fsynced, the file and its folder, before the
    future completes, so the new content survives a power loss. A batch syncs each folder once, so that part
    of the cost of durability is shared by every write waiting at that moment. (Not syncfs: its cost grows
    with everything else cached on the file system, and it showed as system time under load.)
    append(): text added to the end of a file (the session journals), never fsynced.
    The bytes can be a function that makes them, called on the writer thread just before they are written (what it
    reads must not change meanwhile): then a queued write holds the task or the record, not its bytes. then(bytes),
    if given, is called on the writer thread once a replace has renamed its file into place (not when it failed).
    """

    def __init__(self) -> None:
        self._queue: list[_Write] = []
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None

    def replace(self, path: Path, data: Data, *, durable: bool,
                then: Callable[[bytes], object] | None = None) -> Future[None]:
        return self._put(path, data, durable=durable, append=False, then=then)

    def append(self, path: Path, text: str | Callable[[], str]) -> Future[None]:
        if isinstance(text, str):
            return self._put(path, text.encode("utf-8"), durable=False, append=True)
        return self._put(path, lambda: text().encode("utf-8"), durable=False, append=True)

    def _put(self, path: Path, data: Data, *, durable: bool, append: bool,
             then: Callable[[bytes], object] | None = None) -> Future[None]:
        done: Future[None] = Future()
        with self._ready:
            self._queue.append((path, data, durable, append, done, then))
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="disk-writer", daemon=True)
                self._thread.start()
            self._ready.notify()
        return done

    def _serve(self) -> None:
        _yield_to_the_loop()
        while True:
            with self._ready:
                while not self._queue:
                    self._ready.wait()
                batch, self._queue = self._queue, []
            try:
                self._write(batch)
            except Exception:  # the writer thread must outlive any one batch
                log.exception("disk writer: a batch of %d writes failed", len(batch))
            del batch  # not held while the writer waits: a burst's batch can be many MB of task files

    def _write(self, batch: list[_Write]) -> None:
        failed: dict[int, BaseException] = {}
        folders: dict[Path, list[int]] = {}  # folders whose renames must be made durable, and by whom
        for n, (path, data, durable, append, _, then) in enumerate(batch):
            try:
                # bytes made only now, one write at a time: a burst of large tasks is not all encoded at once
                ready = data if isinstance(data, bytes) else data()
                if append:
                    _append(path, ready)
                else:
                    _replace(path, ready, durable=durable)
                    if durable:
                        folders.setdefault(path.parent, []).append(n)
                    if then is not None:
                        _follow_up(then, ready, path)
            except OSError as error:
                failed[n] = error
            except Exception as error:  # a function that could not make its bytes fails its own write only
                log.exception("disk writer: the bytes for %s could not be made", path)
                failed[n] = error
            batch[n] = (path, b"", durable, append, batch[n][4], None)  # done with: its bytes are let go
        for folder, waiting in folders.items():
            try:
                _fsync(folder)  # once per folder and batch: the renames of every durable write in it
            except OSError as error:
                failed.update(dict.fromkeys(waiting, error))
        for n, (*_, done, _then) in enumerate(batch):
            # a waiter that went away (its request was cancelled) cancelled its future; the write was done anyway
            with contextlib.suppress(InvalidStateError):
                if n in failed:
                    done.set_exception(failed[n])
                else:
                    done.set_result(None)


def _follow_up(then: Callable[[bytes], object], data: bytes, path: Path) -> None:
    """What follows a write: its failure is logged, and the write stays done."""
    try:
        then(data)
    except Exception:
        log.exception("disk writer: what follows the write of %s failed", path)


def _append(path: Path, data: bytes) -> None:
    name = os.fspath(path)
    fd = _in_folder(functools.partial(os.open, name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666), name)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


TEMP_SUFFIX = ".tmp"


def temp_stem(name: str) -> str | None:
    """For a temp name of _replace (.<stem>.<pid>-<n>.tmp), the stem of the file it was to replace; else None."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return None
    return name[1:].split(".", 1)[0]


def _replace(path: Path, data: bytes, *, durable: bool, mode: int | None = None) -> None:
    """A temp file in the same folder, then a rename; durable: the temp file's data is synced before the rename,
    so that after a power loss the name holds the old content or the new, never an empty file. mode: the new file's
    permission bits (default 0o600 less the umask)."""
    name = os.fspath(path)
    folder, base = os.path.split(name)
    while True:  # a name no other temp file has: this process's id and a counter (O_EXCL makes sure)
        tmp = os.path.join(folder, f".{os.path.splitext(base)[0]}.{os.getpid()}-{next(_TEMP_NUMBERS)}{TEMP_SUFFIX}")
        try:
            fd = _in_folder(functools.partial(os.open, tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp)
            break
        except FileExistsError:
            continue
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # exactly these bits, whatever the umask
            _write_all(fd, data)
            if durable:
                _datasync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


_TEMP_NUMBERS = itertools.count()


def reread(path: str | Path, last_version: bytes | None) -> tuple[bytes, bytes | OSError] | None:
    """The file read again (its bytes, or why they could not be read), with its new version (a digest of its bytes,
    or its errno), when that differs from
    last_version; None when it is the same (a file touched, or one edit told twice): so a follower parses and warns
    once per content. CallerIndex and OwnersFile follow their files by it."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        version = f"{error.errno}".encode()
        return None if version == last_version else (version, error)
    version = hashlib.blake2b(data, digest_size=16).digest()
    return None if version == last_version else (version, data)


def replace_now(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """replace(), durable, on the calling thread (the folder made when missing): for commands and set-up code that run
    before or beside the loop. mode: the new file's permission bits (a command rewriting a file keeps the old one's)."""
    _replace(path, data, durable=True, mode=mode)
    _fsync(path.parent)  # the rename too, as the writer makes a durable write's


def _in_folder(create: Callable[[], int], name: str) -> int:
    """create() a file; when its folder is missing, make the folder and create it again (the folder is not looked
    at before: it almost always exists, and a stat per write showed under load)."""
    try:
        return create()
    except FileNotFoundError:
        os.makedirs(os.path.dirname(name), exist_ok=True)
        return create()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


_datasync = getattr(os, "fdatasync", os.fsync)  # the data and the size, not the times: enough for a new file


def _fsync(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


WRITER = Writer()


StatKey = tuple[int, int, int, int]  # inode, size, mtime, ctime (ns): a file that changed has another key


def stat_key(stat: os.stat_result) -> StatKey:
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def is_racy(stat: os.stat_result, read_at_ns: int) -> bool:
    """True when the file may change again without its stat key changing (see RACY_NS)."""
    return max(stat.st_mtime_ns, stat.st_ctime_ns) >= read_at_ns - RACY_NS


@dataclass
class _Cached(Generic[T]):
    key: StatKey | None  # None: the file was missing
    value: T
    trusted: bool


class StatCache(Generic[T]):
    """Small files read on every request (callers.json, card.json, context files, scripts), parsed once per
    version: each call costs one stat on the caller's thread, and a read only when the file changed.

    So an edit still applies to the next request, as the design asks, without reading the file each time.
    parse(path) reads and parses the file; it is called on a miss, and must return the value for a missing file.
    """

    def __init__(self, parse: Callable[[Path], T]) -> None:
        self._parse = parse
        self._entries: dict[str, _Cached[T]] = {}  # by the path's text: cheaper to hash than a Path

    def get(self, path: Path) -> T:
        name = os.fspath(path)
        try:
            stat = os.stat(name)
            key: StatKey | None = stat_key(stat)
        except FileNotFoundError:
            stat, key = None, None
        except OSError:
            return self._parse(path)  # let parse report what is wrong, as it would without the cache
        entry = self._entries.get(name)
        if entry is not None and entry.trusted and entry.key == key:
            return entry.value
        now = time.time_ns()
        value = self._parse(path)
        self._entries[name] = _Cached(key, value, trusted=stat is None or not is_racy(stat, now))
        return value
