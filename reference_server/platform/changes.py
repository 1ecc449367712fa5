"""File changes told by the kernel: files and folders followed through every folder between them and an anchor.

design README, "Reading files on every request": an index kept by the kernel's file notifications keeps the promise
exactly when the pending notifications are read before each lookup, since the kernel queues them when a write
completes. So a follower asks changes() before it answers from what it knows, and reads again what changed.

A followed file is seen whatever happens to it: an edit in place, a replacement by rename (editors, mv), a folder
on its way moved, removed or created. Each folder from the anchor down is watched, so a move of any of them is an
event; the watches then follow the names again. Two limits of the kernel are never silently stale:
- a watch it refuses (fs.inotify.max_user_watches, or another errno): the path is blind; blind(follower) names it,
  and the follower reads it by stat on every request instead; one warning says so;
- a queue overflow (fs.inotify.max_queued_events): every follower is told everything may have changed, and
  recheck() places its watches again before it reads everything again; one warning says so.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

from reference_server.platform import inotify

log = logging.getLogger("reference_server.changes")  # the name its log lines have always had

# a folder on the way to a followed path: its entries appearing, going or moving, and itself moving or going
_ON_THE_WAY = (inotify.CREATE | inotify.DELETE | inotify.MOVED_FROM | inotify.MOVED_TO | inotify.DELETE_SELF
               | inotify.MOVE_SELF | inotify.ONLYDIR)
# the folder holding a followed file, or a followed folder: also its entries' content and attributes changing
# (MODIFY: a write that has returned counts, even before its file is closed)
_HOLDING = _ON_THE_WAY | inotify.MODIFY | inotify.CLOSE_WRITE | inotify.ATTRIB
_GONE = inotify.DELETE_SELF | inotify.MOVE_SELF | inotify.IGNORED | inotify.UNMOUNT
_MISSING = (errno.ENOENT, errno.ENOTDIR)  # the folder is not there (yet): the folder above it says when it is
MOST_ENTRIES = 4096  # changed entries of followed folders kept for a follower; beyond, "read the folder whole"
_RECHECK_BATCH = 256  # followed paths placed again per hold of the lock (a recheck never holds it long)


@dataclass
class Changes:
    """What changed for one follower since its last ask: followed files; entries of followed folders (their full
    paths); a followed folder's own path when it must be read whole; everything after a queue overflow."""

    paths: set[str] = field(default_factory=set)
    everything: bool = False


@dataclass(eq=False, slots=True)
class _Followed:
    who: Hashable
    path: str
    folder: bool
    chain: tuple[str, ...]  # the folders from the anchor down to the one holding path (path itself, for a folder)
    wanted: Callable[[str], bool] | None = None  # a followed folder's entries told, by name (None: every one)


@dataclass(eq=False, slots=True)
class _Dir:
    """A folder some followed paths pass through, and its watch (wd -1: none now). Small: there are three for each
    owner of a host."""

    path: str
    users: int = 0  # how many followed paths pass through it
    leaves: int = 0  # for how many it is the last folder (then its entries' content matters too)
    wd: int = -1
    mask: int = 0
    holding: list[_Followed] | None = None  # followed folders that are this folder
    twins: list[_Dir] | None = None  # other folders on the same inode (a symbolic link): rare


Interest = _Followed | list[_Followed]  # one follower (nearly always), or several


class Notifications:
    """One inotify queue shared by its followers (the caller index, the owners file, the task stores); each gets
    its own changes. Thread-safe: a follower may ask from the event loop or from a disk thread."""

    def __init__(self, kernel: inotify.Inotify | None = None) -> None:
        self._kernel = kernel or inotify.Inotify()
        self._lock = threading.Lock()
        self._dirs: dict[str, _Dir] = {}
        self._by_wd: dict[int, _Dir] = {}
        # an entry's full path (the next folder of a chain, or a followed file) -> who follows something through it
        self._interest: dict[str, Interest] = {}
        self._by_who: dict[Hashable, dict[str, _Followed]] = {}
        self._pending: dict[Hashable, Changes] = {}
        self._blind: dict[Hashable, set[str]] = {}
        self._refusal_said = False
        self._loop_threads: set[int] = set()  # the threads of the event loops that read the queue (read_on)

    def fileno(self) -> int:
        return self._kernel.fd

    @property
    def watches(self) -> int:
        """How many watches the kernel holds for this queue now."""
        with self._lock:
            return len(self._by_wd)

    # --- following ---

    def follow(self, who: Hashable, path: Path | str, anchor: Path | str, *, folder: bool = False,
               wanted: Callable[[str], bool] | None = None) -> None:
        """Tell `who` of every change to the file at path (folder: of every entry of the folder at path whose name
        is wanted), including those of the folders from anchor (an ancestor of path) down to it. Afterwards, what is
        read of path is what changes() speaks of: read it after this returns."""
        name, top = _normal(path), _normal(anchor)  # a path is told as it was given, normalized
        chain = _chain(top, name if folder else os.path.dirname(name))
        with self._lock:
            mine = self._by_who.setdefault(who, {})
            if name in mine:
                return
            followed = mine[name] = _Followed(who, name, folder, chain, wanted)
            for n, folder_path in enumerate(chain):
                entry = self._dirs.get(folder_path)
                if entry is None:
                    entry = self._dirs[folder_path] = _Dir(folder_path)
                entry.users += 1
                if n + 1 < len(chain):
                    _add(self._interest, chain[n + 1], followed)
                    continue
                entry.leaves += 1
                if folder:
                    entry.holding = [*(entry.holding or ()), followed]
                else:
                    _add(self._interest, name, followed)
            self._place(followed, verify=False)

    def unfollow(self, who: Hashable, path: Path | str) -> None:
        name = _normal(path)
        with self._lock:
            mine = self._by_who.get(who, {})
            followed = mine.pop(name, None)
            if followed is None:
                return
            self._blind.get(who, set()).discard(name)
            if not mine:  # its last path: nothing of it is kept
                del self._by_who[who]
                self._pending.pop(who, None)
                self._blind.pop(who, None)
            chain = followed.chain
            for n, folder_path in enumerate(chain):
                entry = self._dirs[folder_path]
                entry.users -= 1
                if n + 1 < len(chain):
                    _remove(self._interest, chain[n + 1], followed)
                else:
                    entry.leaves -= 1
                    if followed.folder and entry.holding is not None:
                        entry.holding = [f for f in entry.holding if f is not followed] or None
                    elif not followed.folder:
                        _remove(self._interest, name, followed)
                if not entry.users:
                    self._unwatch(entry)
                    del self._dirs[folder_path]

    def blind(self, who: Hashable) -> set[str]:
        """The paths of `who` that the kernel refused a watch for: read them by stat instead (a copy)."""
        with self._lock:
            return set(self._blind.get(who, ()))

    def recheck(self, who: Hashable) -> None:
        """Place the watches of every path of `who` again, following the names as they are now (after an overflow
        told it everything may have changed; call it before reading everything again). A few at a time."""
        with self._lock:
            mine = list(self._by_who.get(who, {}).values())
        for start in range(0, len(mine), _RECHECK_BATCH):
            with self._lock:
                for followed in mine[start:start + _RECHECK_BATCH]:
                    if self._by_who.get(who, {}).get(followed.path) is followed:
                        self._place(followed, verify=True)

    # --- what changed ---

    def changes(self, who: Hashable) -> Changes:
        """What changed for `who` since it last asked: the kernel's queue is read first (never blocking), unless
        the asking thread runs an event loop that reads it (read_on)."""
        with self._lock:
            if threading.get_ident() not in self._loop_threads:
                self._drain()
            return self._pending.pop(who, None) or Changes()

    def drain(self) -> None:
        """Read the kernel's queue into each follower's changes."""
        with self._lock:
            self._drain()

    def read_on(self, loop: asyncio.AbstractEventLoop) -> None:
        """Call on the loop's thread: the loop drains the queue as soon as it has events (its reader), so that it
        never fills up between two asks, and a follower asking from that thread needs no read of its own. The
        promise holds: the poll that sees a request's first bytes sees the notifications queued before them, and
        runs their reader before the request's task takes its first step (asyncio schedules that step after the
        callbacks of the poll that made the task). A read of its own was a system call on every request, and each
        let a disk thread take the GIL from the loop: GetTask lost about a tenth of its rate."""
        loop.add_reader(self.fileno(), self.drain)
        with self._lock:
            self._loop_threads.add(threading.get_ident())

    def stop_reading_on(self, loop: asyncio.AbstractEventLoop) -> None:
        """Call on the loop's thread: the loop no longer reads the queue; its thread reads it when it asks."""
        loop.remove_reader(self.fileno())
        with self._lock:
            self._loop_threads.discard(threading.get_ident())

    def close(self) -> None:
        with self._lock:
            self._kernel.close()

    # --- under the lock ---

    def _drain(self) -> None:
        replace: dict[int, _Followed] = {}
        gone: set[str] = set()  # folders that moved or went themselves
        for event in self._kernel.read():
            if event.mask & inotify.Q_OVERFLOW:
                self._overflowed()
                continue
            head = self._by_wd.get(event.wd)
            if head is None:
                continue  # a watch let go of (its IGNORED), or of a folder no longer followed
            for entry in (head, *head.twins) if head.twins else (head,):
                if event.mask & _GONE:
                    gone.add(entry.path)
                    continue
                entry_path = os.path.join(entry.path, event.name)
                for followed in _each(self._interest.get(entry_path)):
                    self._tell(followed, followed.path)
                    if followed.folder or entry.path != followed.chain[-1]:
                        replace[id(followed)] = followed  # a folder on its way changed: follow the names again
                for followed in entry.holding or ():
                    if not event.name:  # the folder itself (its attributes): read it whole
                        self._tell(followed, followed.path)
                    elif followed.wanted is None or followed.wanted(event.name):
                        self._tell_entry(followed, entry_path)
        if gone:  # every path through a folder that moved or went, whole (rare: one pass for them all)
            for mine in self._by_who.values():
                for followed in mine.values():
                    if not gone.isdisjoint(followed.chain):
                        self._tell(followed, followed.path)
                        replace[id(followed)] = followed
        for followed in replace.values():
            if self._by_who.get(followed.who, {}).get(followed.path) is followed:
                self._place(followed, verify=True)

    def _tell(self, followed: _Followed, path: str) -> Changes:
        changes = self._pending.get(followed.who)
        if changes is None:
            changes = self._pending[followed.who] = Changes()
        changes.paths.add(path)
        return changes

    def _tell_entry(self, followed: _Followed, path: str) -> None:
        """An entry of a followed folder changed. Past MOST_ENTRIES entries untold, the folder itself is told instead
        (to be read whole): what waits for a follower that does not ask stays bounded."""
        changes = self._pending.get(followed.who)
        if changes is not None and followed.path in changes.paths:
            return  # the folder is to be read whole anyway
        changes = self._tell(followed, path)
        if len(changes.paths) > MOST_ENTRIES:
            changes.paths = {p for p in changes.paths if os.path.dirname(p) != followed.path}
            changes.paths.add(followed.path)

    def _overflowed(self) -> None:
        log.warning("the kernel's queue of file notifications overflowed (fs.inotify.max_queued_events = %s): "
                    "every followed file is read again", _limit("max_queued_events"))
        for who in self._by_who:
            changes = self._pending.get(who)
            if changes is None:
                changes = self._pending[who] = Changes()
            changes.everything = True

    def _place(self, followed: _Followed, *, verify: bool) -> None:
        """Watch each folder of the chain that exists now, top down; a folder's wd tells whether the inode at its
        name is still the one watched (a moved folder's watch went with it: dropped). verify=False trusts a watch
        already placed for another path (its events will re-place this one too if it moved)."""
        blind = self._blind.setdefault(followed.who, set())
        for n, folder_path in enumerate(followed.chain):
            entry = self._dirs[folder_path]
            mask = _HOLDING if entry.leaves else _ON_THE_WAY
            if entry.wd >= 0 and not verify and entry.mask == mask:
                continue
            try:
                # MASK_ADD: a folder watched for two paths (a symbolic link) keeps what each asked for
                wd = self._kernel.add_watch(folder_path, mask | inotify.MASK_ADD)
            except OSError as error:
                if error.errno in _MISSING and n > 0:
                    for below in followed.chain[n:]:  # not there: nothing below it is either
                        self._unwatch(self._dirs[below])
                    break
                if error.errno in _MISSING:  # the anchor itself is missing: nothing would tell of its return
                    log.debug("%s is missing: %s is read by stat", folder_path, followed.path)
                else:
                    self._refused(followed, folder_path, error)
                blind.add(followed.path)
                return
            if wd != entry.wd:
                self._unwatch(entry)
                entry.wd = wd
                head = self._by_wd.setdefault(wd, entry)
                if head is not entry:
                    head.twins = [*(head.twins or ()), entry]
            entry.mask = mask
        blind.discard(followed.path)

    def _refused(self, followed: _Followed, folder_path: str, error: OSError) -> None:
        if self._refusal_said:
            log.debug("no watch for %s (%s): read by stat", folder_path, error.strerror)
            return
        self._refusal_said = True
        log.warning("the kernel refused to watch %s (%s; fs.inotify.max_user_watches = %s, %d watches held): %s and "
                    "every other path refused a watch are read by stat on every request instead", folder_path,
                    error.strerror, _limit("max_user_watches"), len(self._by_wd), followed.path)

    def _unwatch(self, entry: _Dir) -> None:
        if entry.wd < 0:
            return
        head = self._by_wd.get(entry.wd)
        if head is entry and entry.twins:  # a twin on the same inode keeps the watch
            twin, *rest = entry.twins
            twin.twins, entry.twins = rest or None, None
            self._by_wd[entry.wd] = twin
        elif head is entry:
            del self._by_wd[entry.wd]
            self._kernel.rm_watch(entry.wd)
        elif head is not None and head.twins:
            head.twins = [twin for twin in head.twins if twin is not entry] or None
        entry.wd, entry.mask = -1, 0


def _normal(path: Path | str) -> str:
    """The path's text, normalized; the very same string when it already is (a host holds many)."""
    text = os.fspath(path)
    normal = os.path.normpath(text)
    return text if normal == text else normal


def _chain(anchor: str, last: str) -> tuple[str, ...]:
    """The folders from anchor down to last (anchor must be last or above it, both normalized); by text."""
    if last == anchor:
        return (anchor,)
    if not last.startswith(anchor.rstrip(os.sep) + os.sep):
        raise ValueError(f"{anchor} is not above {last}")
    chain = [anchor]
    for part in last[len(anchor):].strip(os.sep).split(os.sep):
        chain.append(os.path.join(chain[-1], part))
    return tuple(chain)


def _add(interest: dict[str, Interest], key: str, followed: _Followed) -> None:
    known = interest.get(key)
    interest[key] = followed if known is None else [*_each(known), followed]


def _remove(interest: dict[str, Interest], key: str, followed: _Followed) -> None:
    left = [f for f in _each(interest.get(key)) if f is not followed]
    if not left:
        interest.pop(key, None)
    else:
        interest[key] = left[0] if len(left) == 1 else left


def _each(interest: Interest | None) -> list[_Followed] | tuple[_Followed, ...]:
    if interest is None:
        return ()
    return interest if isinstance(interest, list) else (interest,)


def _limit(name: str) -> str:
    try:
        with open(f"/proc/sys/fs/inotify/{name}", encoding="ascii") as limit:
            return limit.read().strip()
    except OSError:
        return "unknown"
