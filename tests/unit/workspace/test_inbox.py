"""domain/inbox.py: file parts saved to inbox/, downloads written to disk as they come and removed when they fail."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from reference_server.a2a.runner import RunRefused
from reference_server.model.caller import Caller, Workspace
from reference_server.model.types import Message, Part, Role
from reference_server.platform.outbound import Download, OutboundError, Sink
from reference_server.workspace.inbox import DOWNLOAD_PREFIX, remove_stray_downloads, save_inbound_files


class Served:
    """A fetcher that writes the given pieces to the sink, then fails with `error` if there is one."""

    def __init__(self, pieces: list[bytes], error: str | None = None, filename: str | None = "notes.txt") -> None:
        self.pieces, self.error, self.filename = pieces, error, filename
        self.files_seen: list[list[str]] = []

    async def download(self, url: str, max_bytes: int, sink: Sink) -> Download:
        for piece in self.pieces:
            await sink.write(piece)
            self.files_seen.append(sorted(p.name for p in (Path(url) / "inbox").glob("*")))
        if self.error:
            raise OutboundError(self.error)
        return Download(sum(map(len, self.pieces)), "text/plain", self.filename)


def caller_in(folder: Path) -> Caller:
    return Caller("travel-bot", "isolated", Workspace(folder))


def message(*parts: Part) -> Message:
    return Message("m1", Role.USER, list(parts))


def saved(folder: Path, fetcher: Served, *parts: Part) -> list[str]:
    return asyncio.run(save_inbound_files(caller_in(folder), message(*parts), fetcher, 1 << 30))


def test_a_download_reaches_the_disk_before_it_ends_and_takes_its_name_once_complete(tmp_path: Path) -> None:
    piece = b"x" * (256 * 1024)  # the flush size: each piece goes to disk at once
    fetcher = Served([piece, piece, b"end"])
    names = saved(tmp_path, fetcher, Part(url=str(tmp_path)))
    assert len(names) == 1 and names[0].startswith("inbox/a2a-travel-bot-") and names[0].endswith("-notes.txt")
    assert (tmp_path / names[0]).read_bytes() == piece * 2 + b"end"
    # while it came, only the hidden download file was there
    assert all(len(seen) == 1 and seen[0].startswith(DOWNLOAD_PREFIX) for seen in fetcher.files_seen[1:])
    assert sorted(p.name for p in (tmp_path / "inbox").iterdir()) == [Path(names[0]).name]


def test_a_failed_download_leaves_nothing_in_the_inbox(tmp_path: Path) -> None:
    fetcher = Served([b"x" * (300 * 1024)], error="the file is larger than the cap of 1024 bytes")
    with pytest.raises(RunRefused, match=r"message\.parts\[1\]\.url could not be downloaded: the file is larger"):
        saved(tmp_path, fetcher, Part(raw=b"inline", filename="a.txt"), Part(url=str(tmp_path)))
    assert list((tmp_path / "inbox").glob("*")) == []


def test_an_empty_download_is_an_empty_file(tmp_path: Path) -> None:
    [name] = saved(tmp_path, Served([]), Part(url=str(tmp_path)))
    assert (tmp_path / name).read_bytes() == b""


def test_two_files_of_one_name_never_overwrite_each_other(tmp_path: Path) -> None:
    names = saved(tmp_path, Served([b"downloaded"], filename="same.txt"), Part(raw=b"inline", filename="same.txt"),
                  Part(url=str(tmp_path)))
    assert names[1].endswith("-same-2.txt")
    assert [(tmp_path / n).read_bytes() for n in names] == [b"inline", b"downloaded"]


def test_the_sweep_removes_unfinished_downloads_only(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / f"{DOWNLOAD_PREFIX}0123.part").write_bytes(b"half")
    (inbox / "a2a-travel-bot-20261201-120000-plan.pdf").write_bytes(b"kept")
    assert remove_stray_downloads(Workspace(tmp_path)) == 1
    assert [p.name for p in inbox.iterdir()] == ["a2a-travel-bot-20261201-120000-plan.pdf"]
    assert remove_stray_downloads(Workspace(tmp_path / "none")) == 0
