"""Inbound files (design step 4): a message's file parts saved to <workspace>/inbox/, never over an earlier file;
a part given by URL is downloaded straight to disk, a bounded buffer at a time."""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO, Protocol

from reference_server.a2a.prompt import inbox_name
from reference_server.a2a.runner import RunRefused
from reference_server.model.caller import Caller, Workspace
from reference_server.model.types import Message, Part, utc_now
from reference_server.platform.disk import THREADS, off_loop
from reference_server.platform.outbound import Download, OutboundError, Sink

# a download on its way: a hidden file in inbox/ until it is complete (a crash can leave one: swept at start)
DOWNLOAD_PREFIX = ".a2a-download-"
DOWNLOAD_SUFFIX = ".part"
_FLUSH_BYTES = 256 * 1024  # what a download holds in memory before it goes to disk


class Fetcher(Protocol):
    """How a file part given by URL is fetched: the guarded outbound client (reference_server/platform/outbound.py)."""

    async def download(self, url: str, max_bytes: int, sink: Sink) -> Download: ...


class WorkspaceFiles:
    """The service's Files port (a2a/ports.py) over the workspaces: inbound files saved here, sent files read on a
    disk thread."""

    def __init__(self, fetcher: Fetcher) -> None:
        self._fetcher = fetcher

    async def save_inbound(self, caller: Caller, message: Message, max_bytes: int) -> list[str]:
        return await save_inbound_files(caller, message, self._fetcher, max_bytes)

    async def read_sent(self, path: Path, max_bytes: int) -> bytes | int:
        return await off_loop(_read_sent, path, max_bytes)


def _read_sent(path: Path, max_bytes: int) -> bytes | int:
    size = path.stat().st_size
    return size if size > max_bytes else path.read_bytes()


def inbox_of(workspace: Workspace) -> Path:
    return workspace.path / "inbox"


async def save_inbound_files(caller: Caller, message: Message, fetcher: Fetcher, max_bytes: int) -> list[str]:
    """The message's file parts saved in inbox/ (URL parts downloaded first), as the prompt lists them; a failed
    download fails the task (design deviation "File-part errors") and leaves nothing in the inbox."""
    inbox = inbox_of(caller.workspace)
    files: list[tuple[int, Part, _Download | None]] = []
    try:
        for index, part in enumerate(message.parts):
            if part.url is not None:
                download = _Download(inbox)
                files.append((index, part, download))
                try:
                    got = await fetcher.download(part.url, max_bytes, download)
                except OutboundError as error:
                    raise RunRefused(f"file: message.parts[{index}].url could not be downloaded: "
                                     f"{error.reason}") from None
                await download.complete()
                files[-1] = (index, replace(part, url=None, filename=part.filename or got.filename,
                                            media_type=part.media_type or got.media_type), download)
            elif part.raw is not None:
                files.append((index, part, None))
        return await off_loop(_name_files, caller, files) if files else []
    except Exception:
        for _, _, started in files:
            if started is not None:
                await off_loop(started.remove)
        raise
    except BaseException:  # cancelled (the run was): the removal must not wait
        for _, _, started in files:
            if started is not None:
                THREADS.submit(started.remove)
        raise


def _name_files(caller: Caller, files: list[tuple[int, Part, _Download | None]]) -> list[str]:
    """Each file under its inbox name (on a disk thread): an inline part written, a download moved into place."""
    saved: list[str] = []
    now = utc_now()
    inbox = inbox_of(caller.workspace)
    for index, part, download in files:
        inbox.mkdir(parents=True, exist_ok=True)
        path = _claim(inbox / inbox_name(caller.name, part, index, now))
        if download is None:
            assert part.raw is not None
            path.write_bytes(part.raw)
        else:
            os.replace(download.path, path)  # over the name just claimed, which is ours
        saved.append(f"inbox/{path.name}")
    return saved


def _claim(path: Path) -> Path:
    """An empty new file at path, or at path-2, path-3... if it exists: created exclusively, so two messages saving
    the same name at once never overwrite each other."""
    candidate, n = path, 2
    while True:
        try:
            candidate.open("xb").close()
            return candidate
        except FileExistsError:
            candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
            n += 1


class _Download:
    """A download's sink: a hidden file in inbox/, written on a disk thread whenever _FLUSH_BYTES have come, so that
    ten downloads at once hold a few MB, not ten times the cap; named by _name_files once complete, or removed."""

    def __init__(self, inbox: Path) -> None:
        self.path = inbox / f"{DOWNLOAD_PREFIX}{uuid.uuid4().hex}{DOWNLOAD_SUFFIX}"
        self._buffer = bytearray()
        self._file: BinaryIO | None = None
        self._lock = threading.Lock()  # a write still on a disk thread when the download is dropped
        self._dropped = False

    async def write(self, data: bytes) -> None:
        self._buffer += data
        if len(self._buffer) >= _FLUSH_BYTES:
            await self._flush()

    async def complete(self) -> None:
        await self._flush()
        await off_loop(self._finish)

    async def _flush(self) -> None:
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            await off_loop(self._append, data)

    def _append(self, data: bytes) -> None:
        with self._lock:
            if self._dropped:
                return
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("xb")
            self._file.write(data)

    def _finish(self) -> None:
        with self._lock:
            if self._file is None:  # an empty file: nothing was written yet
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("xb")
            self._file.close()

    def remove(self) -> None:
        """Drop what was written (on a disk thread); a write still under way there finds it dropped."""
        with self._lock:
            self._dropped = True
            if self._file is not None:
                self._file.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()


def remove_stray_downloads(workspace: Workspace) -> int:
    """Delete the downloads a stopped server left half-done in inbox/; how many. Only at start, before any
    download of this process."""
    try:
        names = os.listdir(inbox_of(workspace))
    except (FileNotFoundError, NotADirectoryError):
        return 0
    removed = 0
    for name in names:
        if name.startswith(DOWNLOAD_PREFIX) and name.endswith(DOWNLOAD_SUFFIX):
            with contextlib.suppress(FileNotFoundError):
                (inbox_of(workspace) / name).unlink()
                removed += 1
    return removed
