"""domain/caller_index.py: lookups by key that read nothing unless the kernel said a file changed, and that still see
every edit, a moved folder, a refused watch and a queue overflow."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.kernel import Refusing, queue_limit

from reference_server.hosting.owners import owner_workspace
from reference_server.model.caller import Workspace
from reference_server.platform.changes import Notifications
from reference_server.workspace import caller_index
from reference_server.workspace.caller_index import CallerIndex

KEY = "k_3f9c0123456789abcdef"


@pytest.fixture
def notes() -> Iterator[Notifications]:
    notifications = Notifications()
    yield notifications
    notifications.close()


def owners(root: Path, count: int) -> tuple[Workspace, ...]:
    """`count` owners under root, owner n with the caller "bot-n" of the key k_n."""
    workspaces = tuple(owner_workspace(root, f"owner-{n}") for n in range(count))
    for n, workspace in enumerate(workspaces):
        write(workspace, [{"name": f"bot-{n}", "key": f"k_{n}"}])
    return workspaces


def write(workspace: Workspace, entries: Any) -> None:
    workspace.callers_file.parent.mkdir(parents=True, exist_ok=True)
    text = entries if isinstance(entries, str) else json.dumps(entries)
    workspace.callers_file.write_text(text, encoding="utf-8")


def names(index: CallerIndex, key: str) -> list[str]:
    return [caller.name for caller in asyncio.run(index.find(key))]


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


class Reads:
    """Counts the callers files the index reads, by their owner's folder."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        self.threads: set[str] = set()
        self.begun = threading.Event()  # the first file is being read
        real = CallerIndex._read

        def counted(index: CallerIndex, path: str, known: Any) -> None:
            self.paths.append(Path(path).parts[-4])
            self.threads.add(threading.current_thread().name)
            self.begun.set()
            real(index, path, known)

        monkeypatch.setattr(CallerIndex, "_read", counted)


def test_a_lookup_reads_nothing_when_nothing_changed(tmp_path: Path, notes: Notifications,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    workspaces = owners(tmp_path, 50)
    index = CallerIndex(lambda: workspaces, notes)
    reads = Reads(monkeypatch)
    assert names(index, "k_7") == ["bot-7"]  # the first lookup builds the index: every file once
    assert sorted(reads.paths) == sorted(f"owner-{n}" for n in range(50))
    reads.paths.clear()
    assert names(index, "k_8") == ["bot-8"] and names(index, "k_unknown") == []
    assert reads.paths == []
    write(workspaces[3], [{"name": "new-bot", "key": "k_new"}])
    assert names(index, "k_new") == ["new-bot"] and names(index, "k_3") == []
    assert reads.paths == ["owner-3"]  # only the file the kernel named


@pytest.mark.parametrize("change", ["moved away", "removed", "its .volcanic moved", "replaced by rename"])
def test_a_folder_moved_or_removed_or_a_file_replaced_is_seen(tmp_path: Path, notes: Notifications,
                                                              change: str) -> None:
    workspaces = owners(tmp_path, 2)
    index = CallerIndex(lambda: workspaces, notes)
    assert names(index, "k_0") == ["bot-0"]
    folder = workspaces[0].path
    if change == "moved away":
        folder.rename(tmp_path / "elsewhere")
    elif change == "removed":
        shutil.rmtree(folder)
    elif change == "its .volcanic moved":
        (folder / ".volcanic").rename(folder / ".volcanic-old")
    else:
        replacement = workspaces[0].callers_file.with_name("callers.json.new")
        replacement.write_text(json.dumps([{"name": "new-bot", "key": "k_new"}]))
        os.replace(replacement, workspaces[0].callers_file)
    assert names(index, "k_0") == []
    if change == "moved away":
        (tmp_path / "elsewhere").rename(folder)  # and back
        assert names(index, "k_0") == ["bot-0"]
    elif change == "replaced by rename":
        assert names(index, "k_new") == ["new-bot"]
    else:  # made again from nothing
        write(workspaces[0], [{"name": "bot-0", "key": "k_0"}])
        assert names(index, "k_0") == ["bot-0"]
    assert names(index, "k_1") == ["bot-1"]


def test_a_callers_file_that_is_a_link_is_checked_by_stat(tmp_path: Path, notes: Notifications) -> None:
    (workspace,) = owners(tmp_path / "root", 1)
    target = tmp_path / "elsewhere" / "callers.json"
    target.parent.mkdir()
    target.write_text(json.dumps([{"name": "bot-0", "key": "k_0"}]))
    workspace.callers_file.unlink()
    workspace.callers_file.symlink_to(target)
    index = CallerIndex(lambda: (workspace,), notes)
    assert names(index, "k_0") == ["bot-0"]
    for n in range(5):  # the kernel tells nothing of the target's edits: the stat on each lookup sees them
        target.write_text(json.dumps([{"name": "bot-0", "key": f"k_{n}_linked"}]))
        assert names(index, f"k_{n}_linked") == ["bot-0"]


def test_a_malformed_file_is_warned_once_however_often_it_is_told(tmp_path: Path, notes: Notifications,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    (workspace,) = owners(tmp_path, 1)
    index = CallerIndex(lambda: (workspace,), notes)
    assert names(index, "k_0") == ["bot-0"]
    write(workspace, '[{"name": "bot-0", "key": "k_0"')
    assert names(index, "k_0") == []
    workspace.callers_file.touch()  # told again, the same bytes
    write(workspace, '[{"name": "bot-0", "key": "k_0"')  # rewritten, the same bytes
    assert names(index, "k_0") == []
    found = warnings(caplog)
    assert len(found) == 1 and str(workspace.callers_file) in found[0] and "not valid JSON" in found[0], found
    write(workspace, "{}")  # another malformed version: its own warning
    assert names(index, "k_0") == [] and len(warnings(caplog)) == 2


def test_a_workspace_the_kernel_will_not_watch_is_read_by_stat(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    notes = Notifications(Refusing(limit=4))  # the root and owner-0's three folders; owner-1 is refused
    try:
        workspaces = owners(tmp_path, 2)
        index = CallerIndex(lambda: workspaces, notes)
        assert names(index, "k_1") == ["bot-1"]
        assert notes.blind(index) == {str(workspaces[1].callers_file)}
        assert len([w for w in warnings(caplog) if "refused to watch" in w]) == 1
        for n in range(5):  # every edit still applies to the next lookup
            write(workspaces[1], [{"name": "bot-1", "key": f"k_1_{n}"}])
            assert names(index, f"k_1_{n}") == ["bot-1"] and names(index, "k_1") == []
    finally:
        notes.close()


@pytest.mark.skipif(queue_limit() > 100_000, reason="the kernel's queue is too long to fill in a test")
def test_an_overflow_reads_every_file_again(tmp_path: Path, notes: Notifications,
                                            caplog: pytest.LogCaptureFixture) -> None:
    workspaces = owners(tmp_path / "root", 3)
    index = CallerIndex(lambda: workspaces, notes)
    assert names(index, "k_0") == ["bot-0"]
    spill = tmp_path / "spill"
    spill.mkdir()
    notes.follow("another follower", spill, tmp_path, folder=True)
    for n in range(queue_limit() + 10):
        (spill / f"f{n}").touch()
    workspaces[0].path.rename(tmp_path / "root" / "moved")  # lost in the overflow, and made again
    write(workspaces[0], [{"name": "bot-0", "key": "k_made_again"}])
    write(workspaces[1], [{"name": "bot-1", "key": "k_changed"}])  # lost too
    assert names(index, "k_0") == [] and names(index, "k_made_again") == ["bot-0"]
    assert names(index, "k_changed") == ["bot-1"]
    assert len([w for w in warnings(caplog) if "overflowed" in w]) == 1
    write(workspaces[0], [{"name": "bot-0", "key": "k_0"}])  # the new folders are followed now
    assert names(index, "k_0") == ["bot-0"]


def test_a_big_refresh_runs_on_a_disk_thread_and_outlives_a_request_that_left(
        tmp_path: Path, notes: Notifications, monkeypatch: pytest.MonkeyPatch) -> None:
    workspaces = owners(tmp_path, caller_index.ON_LOOP * 3)
    index = CallerIndex(lambda: workspaces, notes)
    reads = Reads(monkeypatch)

    async def leave_then_ask() -> list[str]:
        first = asyncio.ensure_future(index.find("k_1"))
        assert await asyncio.to_thread(reads.begun.wait, 10)  # its refresh is reading, on a disk thread
        first.cancel()
        return [caller.name for caller in await index.find("k_1")]

    assert asyncio.run(leave_then_ask()) == ["bot-1"]
    assert len(reads.paths) == len(workspaces)  # each file once: the request that left did not stop the refresh
    assert reads.threads and all(name.startswith("disk") for name in reads.threads), reads.threads


def test_closing_lets_every_watch_go(tmp_path: Path, notes: Notifications) -> None:
    workspaces = owners(tmp_path, 3)
    index = CallerIndex(lambda: workspaces, notes)
    assert names(index, "k_2") == ["bot-2"]
    assert notes.watches == 1 + 3 * 3  # the root, and each owner's folder, .volcanic and .volcanic/a2a
    index.close()
    assert notes.watches == 0


def test_a_refresh_done_before_its_callback_ran_is_not_awaited_again(tmp_path: Path, notes: Notifications) -> None:
    """A finished refresh whose done callback has not run yet: a request waits for it once and goes on (awaiting a
    done future never yields, so waiting for it again and again would hold the loop for good)."""
    workspaces = owners(tmp_path, 2)
    index = CallerIndex(lambda: workspaces, notes)
    found: list[list[str]] = []

    async def with_a_finished_job() -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        index._job = done  # as _fresh leaves it between the job's end and its callback
        found.append([caller.name for caller in await index.find("k_1")])

    worker = threading.Thread(target=asyncio.run, args=(with_a_finished_job(),), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the request never ended: it kept awaiting a refresh that had finished"
    assert found == [["bot-1"]]
