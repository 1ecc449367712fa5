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

import errno
import logging
import os
import threading
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path

from reference_server import inotify
from reference_server.settings import SettingsError

log = logging.getLogger("reference_server.changes")

# a folder on the way to a followed path: its entries appearing, going or moving, and itself moving or going
_ON_THE_WAY = (inotify.CREATE | inotify.DELETE | inotify.MOVED_FROM | inotify.MOVED_TO | inotify.DELETE_SELF
               | inotify.MOVE_SELF | inotify.ONLYDIR)
# the folder holding a followed file, or a followed folder: also its entries' content and attributes changing
# (MODIFY: a write that has returned counts, even before its file is closed)
_HOLDING = _ON_THE_WAY | inotify.MODIFY | inotify.CLOSE_WRITE | inotify.ATTRIB
_GONE = inotify.DELETE_SELF | inotify.MOVE_SELF | inotify.IGNORED | inotify.UNMOUNT
_MISSING = (errno.ENOENT, errno.ENOTDIR)  # the folder is not there (yet): the folder above it says when it is
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


@dataclass(eq=False, slots=True)
class _Dir:
    """A folder some followed path passes through, and its watch (wd -1: none now)."""

    path: str
    wd: int = -1
    mask: int = 0
    leaves: int = 0  # for how many followed paths this is the last folder (then its entries' content matters too)
    by_name: dict[str, list[_Followed]] = field(default_factory=dict)  # which entry matters to whom
    holding: list[_Followed] = field(default_factory=list)  # followed folders that are this folder


class Notifications:
    """One inotify queue shared by its followers (the caller index, the owners file, the task stores); each gets
    its own changes. Thread-safe: a follower may ask from the event loop or from a disk thread."""

    def __init__(self, kernel: inotify.Inotify | None = None) -> None:
        self._kernel = kernel or inotify.Inotify()
        self._lock = threading.Lock()
        self._dirs: dict[str, _Dir] = {}
        self._by_wd: dict[int, list[_Dir]] = {}
        self._followed: dict[tuple[Hashable, str], _Followed] = {}
        self._pending: dict[Hashable, Changes] = {}
        self._blind: dict[Hashable, set[str]] = {}
        self._refusal_said = False

    def fileno(self) -> int:
        return self._kernel.fd

    @property
    def watches(self) -> int:
        """How many watches the kernel holds for this queue now."""
        with self._lock:
            return len(self._by_wd)

    # --- following ---

    def follow(self, who: Hashable, path: Path | str, anchor: Path | str, *, folder: bool = False) -> None:
        """Tell `who` of every change to the file at path (folder: of every entry of the folder at path), including
        those of the folders from anchor (an ancestor of path) down to it. Afterwards, what is read of path is what
        changes() speaks of: read it after this returns."""
        name, top = os.fspath(path), os.fspath(anchor)
        chain = _chain(top, name if folder else os.path.dirname(name))
        with self._lock:
            if (who, name) in self._followed:
                return
            followed = _Followed(who, name, folder, chain)
            self._followed[(who, name)] = followed
            for n, folder_path in enumerate(chain):
                entry = self._dirs.get(folder_path) or self._dirs.setdefault(folder_path, _Dir(folder_path))
                if n + 1 < len(chain):
                    entry.by_name.setdefault(os.path.basename(chain[n + 1]), []).append(followed)
                    continue
                entry.leaves += 1
                if folder:
                    entry.holding.append(followed)
                else:
                    entry.by_name.setdefault(os.path.basename(name), []).append(followed)
            self._place(followed, verify=False)

    def unfollow(self, who: Hashable, path: Path | str) -> None:
        name = os.fspath(path)
        with self._lock:
            followed = self._followed.pop((who, name), None)
            if followed is None:
                return
            self._blind.get(who, set()).discard(name)
            for n, folder_path in enumerate(followed.chain):
                entry = self._dirs[folder_path]
                if n + 1 < len(followed.chain):
                    _forget(entry.by_name, os.path.basename(followed.chain[n + 1]), followed)
                else:
                    entry.leaves -= 1
                    if followed.folder:
                        entry.holding.remove(followed)
                    else:
                        _forget(entry.by_name, os.path.basename(name), followed)
                if not entry.by_name and not entry.holding:
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
            mine = [followed for (owner, _), followed in self._followed.items() if owner == who]
        for start in range(0, len(mine), _RECHECK_BATCH):
            with self._lock:
                for followed in mine[start:start + _RECHECK_BATCH]:
                    if self._followed.get((who, followed.path)) is followed:
                        self._place(followed, verify=True)

    # --- what changed ---

    def changes(self, who: Hashable) -> Changes:
        """What changed for `who` since it last asked: the kernel's queue is read first (never blocking)."""
        with self._lock:
            self._drain()
            return self._pending.pop(who, None) or Changes()

    def drain(self) -> None:
        """Read the kernel's queue into each follower's changes (the event loop calls this when the queue has some,
        so that it never fills up between two asks)."""
        with self._lock:
            self._drain()

    def close(self) -> None:
        with self._lock:
            self._kernel.close()

    # --- under the lock ---

    def _drain(self) -> None:
        replace: dict[int, _Followed] = {}
        for event in self._kernel.read():
            if event.mask & inotify.Q_OVERFLOW:
                self._overflowed()
                continue
            for entry in self._by_wd.get(event.wd, ()):
                if event.mask & _GONE:  # the folder itself moved or went: every path through it, whole
                    for followed in _everyone(entry):
                        self._tell(followed, followed.path)
                        replace[id(followed)] = followed
                    continue
                for followed in entry.by_name.get(event.name, ()):
                    self._tell(followed, followed.path)
                    if followed.folder or entry.path != followed.chain[-1]:
                        replace[id(followed)] = followed  # a folder on its way changed: follow the names again
                for followed in entry.holding:
                    self._tell(followed, os.path.join(followed.path, event.name) if event.name else followed.path)
        for followed in replace.values():
            if self._followed.get((followed.who, followed.path)) is followed:
                self._place(followed, verify=True)

    def _tell(self, followed: _Followed, path: str) -> None:
        changes = self._pending.get(followed.who)
        if changes is None:
            changes = self._pending[followed.who] = Changes()
        changes.paths.add(path)

    def _overflowed(self) -> None:
        log.warning("the kernel's queue of file notifications overflowed (fs.inotify.max_queued_events = %s): "
                    "every followed file is read again", _limit("max_queued_events"))
        for who in {who for who, _ in self._followed}:
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
                    for gone in followed.chain[n:]:  # not there: nothing below it is either
                        self._unwatch(self._dirs[gone])
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
                self._by_wd.setdefault(wd, []).append(entry)
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
        sharing = self._by_wd.get(entry.wd, [])
        if entry in sharing:
            sharing.remove(entry)
        if not sharing:
            self._by_wd.pop(entry.wd, None)
            self._kernel.rm_watch(entry.wd)
        entry.wd, entry.mask = -1, 0


def _chain(anchor: str, last: str) -> tuple[str, ...]:
    """The folders from anchor down to last (anchor must be last or above it)."""
    relative = os.path.relpath(last, anchor)
    if relative == ".":
        return (anchor,)
    if relative.startswith(".."):
        raise ValueError(f"{anchor} is not above {last}")
    chain = [anchor]
    for part in relative.split(os.sep):
        chain.append(os.path.join(chain[-1], part))
    return tuple(chain)


def _forget(by_name: dict[str, list[_Followed]], name: str, followed: _Followed) -> None:
    listed = by_name[name]
    listed.remove(followed)
    if not listed:
        del by_name[name]


def _everyone(entry: _Dir) -> list[_Followed]:
    return [followed for listed in entry.by_name.values() for followed in listed] + entry.holding


def _limit(name: str) -> str:
    try:
        with open(f"/proc/sys/fs/inotify/{name}", encoding="ascii") as limit:
            return limit.read().strip()
    except OSError:
        return "unknown"


_SHARED: list[Notifications] = []
_SHARED_LOCK = threading.Lock()


def shared() -> Notifications:
    """The process's one queue (inotify instances are few: fs.inotify.max_user_instances); OSError when the kernel
    gives none (not Linux, or no instance left)."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(Notifications())
        return _SHARED[0]


def notifications_for(mode: str) -> Notifications | None:
    """The queue A2A__FileChanges asks for: notify, the kernel's (SettingsError when there is none); stat, none
    (every file is checked by stat on each use); auto, the kernel's where it has one, else none."""
    if mode == "stat":
        return None
    try:
        return shared()
    except OSError as error:
        if mode == "notify":
            raise SettingsError(f"A2A__FileChanges (--file-changes) is notify, but the kernel gives no file "
                                f"notifications here ({error.strerror}); expected stat (or auto)") from None
        log.info("no file notifications from the kernel here (%s): files are checked by stat on each use",
                 error.strerror)
        return None
