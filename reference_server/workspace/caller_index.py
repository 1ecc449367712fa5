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
from pathlib import Path

from reference_server.model.caller import Caller, Workspace
from reference_server.platform.changes import Notifications
from reference_server.platform.disk import off_loop, reread
from reference_server.workspace.callers import CallerEntry, callers_in, check_callers, read_callers

log = logging.getLogger("reference_server.callers")

ON_LOOP = 16  # callers files read on the event loop at most (small files, as the stat cache reads them); more: a
#               disk thread (the first lookup of a big host, a change to its owner list, a queue overflow)


@dataclass(slots=True)
class _File:
    """One callers.json and what the index holds of it (small: an owner host keeps one for each owner)."""

    workspaces: tuple[Workspace, ...]  # one; two listed workspaces on one folder share their file
    entries: Sequence[CallerEntry] = ()
    version: bytes = b""  # a digest of the bytes last read: one warning per version of a malformed file


@dataclass
class _Work:
    """What a refresh does: compare the workspaces listed now with those followed, read files again."""

    source: object = None  # what workspaces() returned, when it may have changed
    listed: tuple[Workspace, ...] | None = None  # the workspaces in it
    changed: set[str] = field(default_factory=set)
    everything: bool = False

    @property
    def size(self) -> int:
        return len(self.listed or ()) + len(self.changed)


class CallerIndex:
    """A caller directory (design: IA2ACallerDirectory) over the workspaces the function yields, answering from an
    index by key. Before each lookup it reads the kernel's pending notifications and reads again the callers.json
    files they name, so an edit that returned before the request applies to it (design README: reading files on
    every request). A file the kernel refused to watch is checked by stat on every lookup instead.

    workspaces() is asked on every lookup too, so a host may change its list at any time: the very same tuple as last
    time is known unchanged at once (the owner host's list is one); another sequence is compared with the last,
    element by element (by identity first), and what came or went is worked out on a disk thread when there are
    many workspaces.
    """

    def __init__(self, workspaces: Callable[[], Iterable[Workspace]], notifications: Notifications) -> None:
        self._workspaces = workspaces
        self._notes = notifications
        self._listed: object = None  # what workspaces() returned last
        self._last: tuple[Workspace, ...] = ()  # the workspaces in it
        self._served: dict[Workspace, str] = {}  # listed workspace -> its callers file's path
        self._files: dict[str, _File] = {}
        self._by_key: dict[bytes, tuple[tuple[str, Caller], ...]] = {}  # key digest -> (key, caller) of each
        self._secret = secrets.token_bytes(32)  # keys are indexed by a keyed digest: a lookup's time tells nothing
        self._job: asyncio.Future[None] | None = None
        self._linked: set[str] = set()  # callers files that are symbolic links: their target's edits are not told

    async def find(self, key: str) -> list[Caller]:
        await self._fresh()
        presented = _secret(key)
        # in constant time: how long a refusal takes tells nothing of how much of a key was right
        return [caller for held, caller in self._by_key.get(self._digest(presented), ())
                if hmac.compare_digest(_secret(held), presented)]

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
        self._listed, self._last = None, ()

    # --- keeping current ---

    async def _fresh(self) -> None:
        while (job := self._job) is not None:  # one refresh at a time; a request that goes away does not stop it
            await asyncio.shield(job)
            if self._job is job:  # done, its callback not run yet: awaiting a done job again would never yield
                self._job = None
        work = self._work()
        if work.size <= ON_LOOP and not work.everything:
            self._apply(work)
        else:
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
            now = tuple(listed)
            if now == self._last:  # the same workspaces (most likely the same objects: compared by identity)
                self._listed = listed
            else:
                work.source, work.listed = listed, now  # which ones came or went: in _apply, on a disk thread
                # when there are many
        changes = self._notes.changes(self)
        work.everything = changes.everything
        work.changed = changes.paths & self._files.keys()
        return work

    def _apply(self, work: _Work) -> None:
        """Follow, forget and read what the work says (on the loop for a few files, else on a disk thread)."""
        now = dict.fromkeys(work.listed or ())
        gone = [] if work.listed is None else [w for w in self._served if w not in now]
        for workspace in gone:
            path = self._served.pop(workspace)
            known = self._files[path]
            entries = known.entries
            self._hold(known, [])
            known.workspaces = tuple(w for w in known.workspaces if w != workspace)
            if known.workspaces:  # another listed workspace shares the folder: its callers stay
                self._hold(known, entries)
                continue
            self._notes.unfollow(self, path)
            self._linked.discard(path)
            del self._files[path]
        for workspace in [w for w in now if w not in self._served]:
            path = self._served[workspace] = workspace.callers_path()
            shared = self._files.get(path)
            if shared is not None:
                entries = shared.entries
                self._hold(shared, [])
                shared.workspaces += (workspace,)
                self._hold(shared, entries)
                continue
            known = self._files[path] = _File((workspace,))
            # follow first, read after: a change from now on is in the queue
            self._notes.follow(self, path, os.path.dirname(workspace.path))
            self._read(path, known)
        if work.everything:
            self._notes.recheck(self)
        for path in list(self._files) if work.everything else work.changed:
            if path in self._files:  # not one forgotten above
                self._read(path, self._files[path])
        if work.listed is not None:
            # only now: a refresh that failed is compared again by the next
            self._listed, self._last = work.source, work.listed

    def _read(self, path: str, known: _File) -> None:
        """Read the file again; index what it holds unless its bytes are the ones read last time."""
        if os.path.islink(path):  # the kernel tells of the link, not of its target: checked by stat on each lookup
            self._linked.add(path)
        else:
            self._linked.discard(path)
        changed = reread(path, known.version)
        if changed is None:
            return  # the same bytes as last read (a file touched, or one edit told twice): no second warning
        known.version, read = changed
        # missing (no callers, no warning), or unreadable (check_callers says why)
        checked = check_callers(Path(path)) if isinstance(read, OSError) else callers_in(path, read)
        for problem in checked.problems:
            log.warning("%s", problem)
        self._hold(known, [])
        self._hold(known, checked.entries)

    def _by_stat(self, path: str) -> None:
        """A file the kernel will not tell of: its stat on every lookup, a read when it changed (the stat cache)."""
        known = self._files.get(path)
        if known is None:
            return
        entries = read_callers(Path(path))
        if entries is not known.entries:  # the stat cache gives the same list while the file is unchanged
            known.version = b""
            self._hold(known, [])
            self._hold(known, entries)

    def _hold(self, known: _File, entries: Sequence[CallerEntry]) -> None:
        """Put the file's callers in the index (none: take out what it held)."""
        if not entries:
            for entry in known.entries:
                digest = self._digest(_secret(entry.key))
                left = tuple(held for held in self._by_key.get(digest, ()) if held[1].workspace not in known.workspaces)
                if left:
                    self._by_key[digest] = left
                else:
                    self._by_key.pop(digest, None)
            known.entries = entries
            return
        known.entries = entries
        for workspace in known.workspaces:
            for entry in entries:
                digest = self._digest(_secret(entry.key))
                caller = Caller(name=entry.name, mode=entry.mode, workspace=workspace)
                self._by_key[digest] = (*self._by_key.get(digest, ()), (entry.key, caller))

    def _digest(self, presented: bytes) -> bytes:
        return hashlib.blake2b(presented, key=self._secret, digest_size=16).digest()


def _secret(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")
