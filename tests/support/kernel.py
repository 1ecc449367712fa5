"""The kernel's limits on file notifications, for tests: a queue that refuses watches, the queue's length."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

from reference_server.platform import inotify


class Refusing(inotify.Inotify):
    """The kernel as it answers once fs.inotify.max_user_watches is reached: ENOSPC past `limit` watches."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.held: set[int] = set()

    def add_watch(self, path: str, mask: int) -> int:
        wd = super().add_watch(path, mask)
        if wd not in self.held and len(self.held) >= self.limit:
            super().rm_watch(wd)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        self.held.add(wd)
        return wd

    def rm_watch(self, wd: int) -> None:
        self.held.discard(wd)
        super().rm_watch(wd)


def queue_limit() -> int:
    try:
        return int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    except OSError:
        return sys.maxsize
