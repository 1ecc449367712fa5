"""Linux inotify through the C library: one non-blocking queue of file notifications, its watches and its events.

A thin wrapper (man 7 inotify) rather than a library: three calls (inotify_init1, inotify_add_watch,
inotify_rm_watch) and a 16-byte event header read with os.read. The server needs exactly what the kernel gives:
the errno of a refused watch (ENOSPC: fs.inotify.max_user_watches), a queue overflow, a read that never blocks.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys
from dataclasses import dataclass

# event bits (linux/inotify.h)
MODIFY = 0x00000002
ATTRIB = 0x00000004
CLOSE_WRITE = 0x00000008
MOVED_FROM = 0x00000040
MOVED_TO = 0x00000080
CREATE = 0x00000100
DELETE = 0x00000200
DELETE_SELF = 0x00000400
MOVE_SELF = 0x00000800
UNMOUNT = 0x00002000
Q_OVERFLOW = 0x00004000
IGNORED = 0x00008000
ONLYDIR = 0x01000000
MASK_ADD = 0x20000000
ISDIR = 0x40000000

_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len (of the name that follows, NUL-padded)
_READ_BYTES = 64 * 1024
_LONGEST = _HEADER.size + 256  # one event with the longest name (NAME_MAX 255, and its NUL)


@dataclass(frozen=True, slots=True)
class Event:
    """One notification: the watch it came from (-1 for an overflow), what happened, the entry's name ("" for the
    watched folder itself)."""

    wd: int
    mask: int
    name: str


class Inotify:
    """One inotify instance, non-blocking and closed on exec. Raises OSError when the kernel refuses it."""

    def __init__(self) -> None:
        if not sys.platform.startswith("linux"):
            raise OSError(errno.ENOSYS, "inotify is Linux's")
        try:
            self._libc = ctypes.CDLL(None, use_errno=True)  # the process's own C library
            self._add = self._libc.inotify_add_watch
            self._rm = self._libc.inotify_rm_watch
            init = self._libc.inotify_init1
        except (OSError, AttributeError) as error:
            raise OSError(errno.ENOSYS, f"no inotify in the C library ({error})") from None
        fd = init(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))
        self.fd: int = fd

    def add_watch(self, path: str, mask: int) -> int:
        """The watch descriptor of the folder at path (the same one when its inode is already watched, with the mask
        replaced); OSError with the kernel's errno when refused (ENOSPC: the watch limit; ENOENT, ENOTDIR: gone)."""
        wd = int(self._add(self.fd, os.fsencode(path), ctypes.c_uint32(mask)))
        if wd < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), path)
        return wd

    def rm_watch(self, wd: int) -> None:
        """Stop a watch; one the kernel already dropped (its folder was deleted) is no error."""
        self._rm(self.fd, wd)

    def read(self) -> list[Event]:
        """Every event queued now; never blocks (an empty list when there is none)."""
        events: list[Event] = []
        while True:
            try:
                data = os.read(self.fd, _READ_BYTES)
            except BlockingIOError:
                return events
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
                offset += _HEADER.size
                raw = data[offset:offset + length].split(b"\0", 1)[0]
                offset += length
                events.append(Event(wd, mask, os.fsdecode(raw)))
            if len(data) < _READ_BYTES - _LONGEST:  # the read took the whole queue: no second system call
                return events

    def close(self) -> None:
        os.close(self.fd)
