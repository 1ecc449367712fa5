"""The caller index: key -> callers across every workspace's callers.json, current on every lookup through the
kernel's file notifications (changes.py), so that a lookup costs the same for one owner or ten thousand."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from reference_server.changes import Notifications
from reference_server.disk import off_loop
from reference_server.domain.callers import (
    Caller,
    CallerEntry,
    Workspace,
    callers_in,
    check_callers,
    read_callers,
)

log = logging.getLogger("reference_server.callers")

ON_LOOP = 16  # callers files read on the event loop at most (small files, as the stat cache reads them); more: a
#               disk thread (the first lookup of a big host, a change to its owner list, a queue overflow)


@dataclass(slots=True)
class _File:
    """One callers.json and what the index holds of it."""

    workspaces: list[Workspace]  # usually one; two listed workspaces on one folder share their file
    followed: bool = False
    entries: Sequence[CallerEntry] = ()
    version: bytes = b""  # a digest of the bytes last read: one warning per version of a malformed file
    held: list[tuple[bytes, bytes, Caller]] = field(default_factory=list)  # (key digest, key, caller) in the index


@dataclass
class _Work:
    """What a refresh does: files to stop or start following, files to read again."""

    gone: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    changed: set[str] = field(default_factory=set)  # a path may be in new and changed: read twice, harmless
    everything: bool = False

    @property
    def size(self) -> int:
        return len(self.gone) + len(self.new) + len(self.changed)


class CallerIndex:
    """A caller directory (design: IA2ACallerDirectory) over the workspaces the function yields, answering from an
    index by key. Before each lookup it reads the kernel's pending notifications and reads again the callers.json
    files they name, so an edit that returned before the request applies to it (design README: reading files on
    every request). A file the kernel refused to watch is checked by stat on every lookup instead.

    workspaces() is asked on every lookup too; the very same tuple as last time is known unchanged at once (the owner
    host's list is one), any other sequence is compared with the last, so a host may change its list at any time.
    """

    def __init__(self, workspaces: Callable[[], Iterable[Workspace]], notifications: Notifications) -> None:
        self._workspaces = workspaces
        self._notes = notifications
        self._listed: object = None
        self._served: dict[Workspace, str] = {}  # listed workspace -> its callers file's path
        self._files: dict[str, _File] = {}
        self._by_key: dict[bytes, list[tuple[bytes, Caller]]] = {}
        self._secret = secrets.token_bytes(32)  # keys are indexed by a keyed digest: a lookup's time tells nothing
        self._job: asyncio.Future[None] | None = None
        self._linked: set[str] = set()  # callers files that are symbolic links: their target's edits are not told

    async def find(self, key: str) -> list[Caller]:
        await self._fresh()
        presented = _secret(key)
        # in constant time: how long a refusal takes tells nothing of how much of a key was right
        return [caller for held, caller in self._by_key.get(self._digest(presented), ())
                if hmac.compare_digest(held, presented)]

    async def start(self) -> None:
        """Build the index before the first request (on a disk thread: a big host has many files to read)."""
        await self._fresh()

    def close(self) -> None:
        """Stop following every file (the app stops)."""
        for path in self._files:
            self._notes.unfollow(self, path)
        self._files.clear()
        self._served.clear()
        self._by_key.clear()
        self._listed = None

    # --- keeping current ---

    async def _fresh(self) -> None:
        while self._job is not None:  # one refresh at a time; a request that goes away does not stop it
            await asyncio.shield(self._job)
        work = self._work()
        if work.size <= ON_LOOP and not work.everything:
            self._apply(work)
        elif work.size or work.everything:
            job = asyncio.ensure_future(off_loop(self._apply, work))
            self._job = job
            job.add_done_callback(self._done)
            await asyncio.shield(job)
        for path in self._notes.blind(self) | self._linked:
            self._by_stat(path)

    def _done(self, job: asyncio.Future[None]) -> None:
        self._job = None
        if not job.cancelled() and job.exception() is not None:
            log.error("the caller index could not be brought up to date", exc_info=job.exception())

    def _work(self) -> _Work:
        """On the event loop, without blocking: the owner list's changes, then the kernel's queue."""
        work = _Work()
        listed = self._workspaces()
        if listed is not self._listed or not isinstance(listed, tuple):  # a tuple cannot have changed since
            self._listed = listed
            now = dict.fromkeys(listed)
            for workspace in [w for w in self._served if w not in now]:
                path = self._served.pop(workspace)
                self._files[path].workspaces.remove(workspace)
                work.gone.append(path)
            for workspace in [w for w in now if w not in self._served]:
                path = self._served[workspace] = os.fspath(workspace.callers_file)
                self._files.setdefault(path, _File([])).workspaces.append(workspace)
                work.new.append(path)
        changes = self._notes.changes(self)
        work.everything = changes.everything
        work.changed = changes.paths & self._files.keys()
        return work

    def _apply(self, work: _Work) -> None:
        """Follow, forget and read what the work says (on the loop for a few files, else on a disk thread)."""
        for path in work.gone:
            known = self._files[path]
            if known.workspaces:  # another listed workspace shares the folder: its callers stay
                self._hold(known, known.entries)
                continue
            self._notes.unfollow(self, path)
            self._hold(known, [])
            self._linked.discard(path)
            del self._files[path]
        for path in work.new:
            known = self._files[path]
            if known.followed:
                self._hold(known, known.entries)
                continue
            # follow first, read after: a change from now on is in the queue
            self._notes.follow(self, path, os.path.dirname(known.workspaces[0].path))
            known.followed = True
            self._read(known)
        if work.everything:
            self._notes.recheck(self)
        for path in list(self._files) if work.everything else work.changed:
            if path in self._files:  # not one forgotten above
                self._read(self._files[path])

    def _read(self, known: _File) -> None:
        """Read the file again; index what it holds unless its bytes are the ones read last time."""
        path = known.workspaces[0].callers_file
        if path.is_symlink():  # the kernel tells of the link, not of its target: checked by stat on each lookup
            self._linked.add(os.fspath(path))
        else:
            self._linked.discard(os.fspath(path))
        try:
            data: bytes | None = path.read_bytes()
            version = hashlib.blake2b(data or b"", digest_size=16).digest()
        except OSError as error:  # missing (no callers, no warning), or unreadable (check_callers says why)
            data, version = None, f"{error.errno}".encode()
        if version == known.version:
            return  # the same bytes as last read (a file touched, or one edit told twice): no second warning
        known.version = version
        checked = check_callers(path) if data is None else callers_in(path, data)
        for problem in checked.problems:
            log.warning("%s", problem)
        self._hold(known, checked.entries)

    def _by_stat(self, path: str) -> None:
        """A file the kernel will not tell of: its stat on every lookup, a read when it changed (the stat cache)."""
        known = self._files.get(path)
        if known is None:
            return
        entries = read_callers(known.workspaces[0].callers_file)
        if entries is not known.entries:  # the stat cache gives the same list while the file is unchanged
            known.version = b""
            self._hold(known, entries)

    def _hold(self, known: _File, entries: Sequence[CallerEntry]) -> None:
        """Put the file's callers in the index in place of what it held before."""
        for digest, presented, caller in known.held:
            held = self._by_key[digest]
            held.remove((presented, caller))
            if not held:
                del self._by_key[digest]
        known.entries = entries
        known.held = []
        for workspace in known.workspaces:
            for entry in entries:
                presented = _secret(entry.key)
                digest = self._digest(presented)
                caller = Caller(name=entry.name, mode=entry.mode, workspace=workspace)
                self._by_key.setdefault(digest, []).append((presented, caller))
                known.held.append((digest, presented, caller))

    def _digest(self, presented: bytes) -> bytes:
        return hashlib.blake2b(presented, key=self._secret, digest_size=16).digest()


def _secret(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")
