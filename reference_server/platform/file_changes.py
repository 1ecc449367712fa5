"""The queue of file changes A2A__FileChanges asks for, one per process: inotify instances are few
(fs.inotify.max_user_instances), so every app of a process (the tests start many) follows its files through one."""

from __future__ import annotations

import logging
import threading

from reference_server.platform.changes import Notifications
from reference_server.settings import SettingsError

log = logging.getLogger("reference_server.changes")  # the name its log lines have always had


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
