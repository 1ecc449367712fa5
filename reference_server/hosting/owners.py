"""The owner host's owners (design "Telegram host"): <root>/<ownerId>/ for each owner listed now, the list given on
the command line or read from an owners file that may change while the server runs."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from reference_server.model.caller import Workspace
from reference_server.platform.changes import Notifications
from reference_server.platform.disk import StatCache, reread
from reference_server.settings import OWNER_ID

log = logging.getLogger("reference_server.owners")


def owner_workspace(root: Path, owner_id: str) -> Workspace:
    """An owner's workspace on an owner host: <root>/<ownerId>/, scopes prefixed owner-<ownerId>."""
    return Workspace(root / owner_id, owner_id=owner_id, scope_prefix=f"owner-{owner_id}")


def owner_workspaces(root: Path, owners: Callable[[], Iterable[str]]) -> Callable[[], tuple[Workspace, ...]]:
    """Owner-host mode (design "Telegram host": for each chat id in AllowedUserIds, on every call): the
    workspaces of the owners `owners()` lists now, so an owner added to the list is served from the next
    request. A folder under the root that is not listed is never read; an id that is not a plain folder name
    (OWNER_ID) is never looked up.

    While the owners are the same, the very same tuple is returned (so the caller index knows in constant time
    that nothing changed): owners() returning the very same tuple costs nothing more; another sequence is compared
    with the last. Safe to call from several threads."""
    known: dict[str, Workspace] = {}
    lock = threading.Lock()
    last: tuple[object, tuple[str, ...], tuple[Workspace, ...]] = (None, (), ())

    def listed() -> tuple[Workspace, ...]:
        nonlocal last
        now = owners()
        with lock:
            seen, ids, workspaces = last
            if now is seen and isinstance(now, tuple):  # a tuple cannot have changed since
                return workspaces
            if (fresh := tuple(now)) != ids:
                ids = fresh
                for owner_id in ids:
                    if OWNER_ID.fullmatch(owner_id) and owner_id not in known:
                        known[owner_id] = owner_workspace(root, owner_id)
                workspaces = tuple(known[owner_id] for owner_id in ids if owner_id in known)
            last = (now, ids, workspaces)
            return workspaces

    return listed


def parse_owners(path: Path, data: bytes) -> tuple[tuple[str, ...], list[str]]:
    """The owner ids of an owners file, in order and each once, and why any line is not one (each problem names
    the file and the line)."""
    owners: dict[str, None] = {}
    problems: list[str] = []
    for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not OWNER_ID.fullmatch(line):
            problems.append(f"owners file {path}: line {number} is not an owner id (1 to 64 letters, digits, '_' "
                            f"or '-'); skipped")
            continue
        owners[line] = None
    return tuple(owners), problems


class OwnersFile:
    """The owners listed in a file (A2A__OwnersFile): one owner id a line; blank lines and lines starting with `#`
    are skipped. Read again when it changes, told by the kernel's notifications (or found by a stat on each call
    without them), so an owner added or removed there applies to the next request. Returns the same tuple while the
    file is unchanged; safe to call from several threads."""

    def __init__(self, path: Path, notifications: Notifications | None) -> None:
        self.path = path
        self._name = os.fspath(path)
        self._notes = notifications
        self._lock = threading.Lock()
        self._owners: tuple[str, ...] = ()
        self._version: bytes | None = None
        self._by_stat: StatCache[object] = StatCache(lambda _: object())  # a new object each time the stat changed
        self._stat_seen: object = None
        self._linked = False
        if notifications is not None:
            notifications.follow(self, path, path.parent)  # first follow, then read: no change falls between
        self._read()

    def __call__(self) -> tuple[str, ...]:
        with self._lock:
            # by stat: without notifications, when the kernel refused the watch, or for a symbolic link (the
            # kernel tells of the link, not of its target)
            if self._notes is None or self._linked or self._name in self._notes.blind(self):
                if (seen := self._by_stat.get(self.path)) is not self._stat_seen:
                    self._stat_seen = seen
                    self._read()
                return self._owners
            changes = self._notes.changes(self)
            if changes.everything:
                self._notes.recheck(self)
            if changes.paths or changes.everything:
                self._read()
            return self._owners

    def _read(self) -> None:
        self._linked = self.path.is_symlink()
        changed = reread(self.path, self._version)
        if changed is None:
            return  # the same bytes (one edit told twice): the same tuple, no second warning
        self._version, read = changed
        if isinstance(read, OSError):
            log.warning("owners file %s cannot be read (%s); no owners are served", self.path, read.strerror)
            self._owners = ()
            return
        owners, problems = parse_owners(self.path, read)
        for problem in problems:
            log.warning("%s", problem)
        if owners != self._owners:
            self._owners = owners
