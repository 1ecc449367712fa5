"""changes.py: followed files and folders are told of every change, through every folder above them; a watch the
kernel refuses, or a queue overflow, is never silent."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.kernel import Refusing, queue_limit

from reference_server.platform import changes, file_changes
from reference_server.platform.changes import Notifications
from reference_server.settings import SettingsError

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


@pytest.fixture
def notes() -> Iterator[Notifications]:
    notifications = Notifications()
    yield notifications
    notifications.close()


def callers_of(root: Path, owner: str = "alice") -> Path:
    return root / owner / ".volcanic" / "a2a" / "callers.json"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def told(notes: Notifications, who: object) -> set[str]:
    return notes.changes(who).paths


def test_an_edit_in_place_is_told(tmp_path: Path, notes: Notifications) -> None:
    path = callers_of(tmp_path)
    write(path, "[]")
    notes.follow("index", path, tmp_path)
    assert told(notes, "index") == set()
    write(path, "[1]")
    assert told(notes, "index") == {str(path)}
    assert told(notes, "index") == set()  # told once


def test_a_write_is_told_before_its_file_is_closed(tmp_path: Path, notes: Notifications) -> None:
    path = callers_of(tmp_path)
    write(path, "[]")
    notes.follow("index", path, tmp_path)
    with path.open("a", encoding="utf-8") as file:
        file.write(" ")
        file.flush()  # the write has returned; the file is still open
        assert told(notes, "index") == {str(path)}


def test_a_file_replaced_by_rename_is_told(tmp_path: Path, notes: Notifications) -> None:
    path = callers_of(tmp_path)
    write(path, "[]")
    notes.follow("index", path, tmp_path)
    write(path.with_name("callers.json.swp"), "[2]")
    assert told(notes, "index") == set()  # another file of the folder: not followed
    os.replace(path.with_name("callers.json.swp"), path)  # as editors and mv do
    assert told(notes, "index") == {str(path)}


def test_a_file_whose_folders_come_later_is_told_when_it_appears(tmp_path: Path, notes: Notifications) -> None:
    path = callers_of(tmp_path)
    notes.follow("index", path, tmp_path)  # not even the owner's folder exists yet
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / ".volcanic" / "a2a").mkdir(parents=True)
    told(notes, "index")
    write(path, "[]")
    assert str(path) in told(notes, "index")
    write(path, "[3]")
    assert told(notes, "index") == {str(path)}


@pytest.mark.parametrize("moved", ["alice", "alice/.volcanic", "alice/.volcanic/a2a"])
def test_a_folder_on_the_way_moved_away_and_back_is_told(tmp_path: Path, notes: Notifications, moved: str) -> None:
    path = callers_of(tmp_path)
    write(path, "[]")
    notes.follow("index", path, tmp_path)
    folder = tmp_path / moved
    folder.rename(folder.with_name(folder.name + "-old"))
    assert told(notes, "index") == {str(path)}
    write(path, "[4]")  # a new file at the followed path, in new folders
    assert str(path) in told(notes, "index")
    write(path, "[5]")
    assert told(notes, "index") == {str(path)}
    write(folder.with_name(folder.name + "-old") / path.relative_to(folder), "[6]")
    assert told(notes, "index") == set()  # the moved-away file is no longer followed


def test_a_removed_folder_is_told_and_its_return_too(tmp_path: Path, notes: Notifications) -> None:
    path = callers_of(tmp_path)
    write(path, "[]")
    notes.follow("index", path, tmp_path)
    shutil.rmtree(tmp_path / "alice")
    assert str(path) in told(notes, "index")
    write(path, "[7]")
    assert str(path) in told(notes, "index")


def test_a_followed_folder_tells_each_entry_and_its_own_replacement(tmp_path: Path, notes: Notifications) -> None:
    tasks = tmp_path / "ws" / ".volcanic" / "a2a" / "tasks"
    tasks.mkdir(parents=True)
    notes.follow("store", tasks, tmp_path / "ws", folder=True)
    write(tasks / "a.json", "{}")
    (tasks / "b.json").write_text("{}")
    (tasks / "a.json").unlink()
    assert told(notes, "store") == {str(tasks / "a.json"), str(tasks / "b.json")}
    tasks.rename(tasks.with_name("tasks-old"))
    tasks.mkdir()
    assert str(tasks) in told(notes, "store")  # read the folder whole
    write(tasks / "c.json", "{}")
    assert told(notes, "store") == {str(tasks / "c.json")}


def test_a_followed_folder_tells_only_the_entries_wanted_and_at_most_so_many(
        tmp_path: Path, notes: Notifications, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(changes, "MOST_ENTRIES", 5)
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    notes.follow("store", tasks, tmp_path, folder=True, wanted=lambda name: name.endswith(".json"))
    for n in range(3):
        (tasks / f".{n}.tmp").write_text("{}")  # a writer's temp file: never told
        os.replace(tasks / f".{n}.tmp", tasks / f"{n}.json")
    assert told(notes, "store") == {str(tasks / f"{n}.json") for n in range(3)}
    for n in range(10):  # a follower that does not ask: what waits for it stays bounded
        (tasks / f"{n}.json").write_text("[]")
    notes.drain()
    assert told(notes, "store") == {str(tasks)}  # read the folder whole, instead of ten names


def test_each_follower_gets_its_own_changes(tmp_path: Path, notes: Notifications) -> None:
    alice, bob = callers_of(tmp_path, "alice"), callers_of(tmp_path, "bob")
    for path in (alice, bob):
        write(path, "[]")
    notes.follow("one", alice, tmp_path)
    notes.follow("two", bob, tmp_path)
    write(alice, "[1]")
    write(bob, "[1]")
    notes.drain()  # read by the event loop meanwhile: kept for each follower
    assert told(notes, "one") == {str(alice)}
    assert told(notes, "two") == {str(bob)}


def test_a_loop_that_reads_the_queue_tells_its_own_thread_before_a_request_takes_its_step(
        tmp_path: Path, notes: Notifications) -> None:
    path = callers_of(tmp_path)
    write(path, "[]")
    notes.follow("index", path, tmp_path)

    async def edited_then_requested() -> tuple[set[str], set[str], set[str]]:
        loop = asyncio.get_running_loop()
        notes.read_on(loop)
        server, client = socket.socketpair()
        asked: asyncio.Future[set[str]] = loop.create_future()
        tasks: list[asyncio.Task[None]] = []

        async def request() -> None:  # as a server's request: a task made when its bytes are read
            asked.set_result(told(notes, "index"))

        def bytes_arrived() -> None:
            server.recv(1)
            tasks.append(loop.create_task(request()))

        loop.add_reader(server.fileno(), bytes_arrived)
        try:
            write(path, "[1]")  # the edit has returned: its notification is queued
            unread = told(notes, "index")  # the loop's thread does not read the queue itself
            client.send(b"x")  # then the request is sent
            seen = await asyncio.wait_for(asked, 10)
            write(path, "[2]")
            other_thread = await asyncio.to_thread(told, notes, "index")  # any other thread reads it itself
        finally:
            loop.remove_reader(server.fileno())
            server.close()
            client.close()
            notes.stop_reading_on(loop)
        return unread, seen, other_thread

    unread, seen, other_thread = asyncio.run(edited_then_requested())
    assert unread == set()
    assert seen == {str(path)}
    assert other_thread == {str(path)}
    write(path, "[3]")
    assert told(notes, "index") == {str(path)}  # the loop has stopped reading: its thread reads again


def test_unfollowing_lets_the_watches_go(tmp_path: Path) -> None:
    kernel = Refusing(limit=100)  # it counts the watches the kernel holds
    notes = Notifications(kernel)
    try:
        alice, bob = callers_of(tmp_path, "alice"), callers_of(tmp_path, "bob")
        for path in (alice, bob):
            write(path, "[]")
        notes.follow("index", alice, tmp_path)
        notes.follow("index", bob, tmp_path)
        assert notes.watches == len(kernel.held) == 7  # the root, then three folders for each owner
        notes.unfollow("index", alice)
        assert notes.watches == len(kernel.held) == 4
        write(alice, "[1]")
        assert told(notes, "index") == set()
        notes.unfollow("index", bob)
        assert notes.watches == len(kernel.held) == 0
    finally:
        notes.close()


def test_a_moved_anchor_is_told_and_its_paths_are_read_by_stat_from_then_on(tmp_path: Path,
                                                                            notes: Notifications) -> None:
    root = tmp_path / "root"
    path = callers_of(root)
    write(path, "[]")
    notes.follow("index", path, root)
    root.rename(tmp_path / "root-old")  # nothing above the anchor is watched: only its own watch says so
    assert told(notes, "index") == {str(path)}
    assert notes.blind("index") == {str(path)}


def test_two_names_of_one_folder_are_both_told(tmp_path: Path, notes: Notifications) -> None:
    real = callers_of(tmp_path, "alice")
    write(real, "[]")
    (tmp_path / "alias").symlink_to(tmp_path / "alice")  # one inode, two paths: one watch for both
    alias = callers_of(tmp_path, "alias")
    notes.follow("index", real, tmp_path)
    notes.follow("index", alias, tmp_path)
    write(real, "[1]")
    assert told(notes, "index") == {str(real), str(alias)}
    notes.unfollow("index", real)
    write(real, "[2]")
    assert told(notes, "index") == {str(alias)}  # the watch stays for the name still followed


def test_a_refused_watch_makes_its_path_blind_with_one_warning(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    notes = Notifications(Refusing(limit=4))
    try:
        paths = [callers_of(tmp_path, owner) for owner in ("alice", "bob", "carol")]
        for path in paths:
            write(path, "[]")
        for path in paths:
            notes.follow("index", path, tmp_path)
        assert notes.blind("index") == {str(paths[1]), str(paths[2])}  # alice took the root and three folders
        refusals = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(refusals) == 1 and "refused to watch" in refusals[0] and "max_user_watches" in refusals[0]
        notes.unfollow("index", paths[2])
        assert notes.blind("index") == {str(paths[1])}
    finally:
        notes.close()


def test_the_kernel_itself_refuses_a_watch_past_its_limit(tmp_path: Path) -> None:
    """The real ENOSPC: in a user namespace of its own, a child process sets max_inotify_watches to 3."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) here")
    for owner in ("alice", "bob"):
        write(callers_of(tmp_path, owner), "[]")
    program = textwrap.dedent(f"""
        import logging, sys
        from pathlib import Path
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
        Path("/proc/sys/user/max_inotify_watches").write_text("3")
        from reference_server.platform.changes import Notifications
        notes = Notifications()
        root = Path({str(tmp_path)!r})
        for owner in ("alice", "bob"):
            notes.follow("index", root / owner / ".volcanic/a2a/callers.json", root)
        print("blind:", sorted(Path(p).parts[-4] for p in notes.blind("index")))
    """)
    done = subprocess.run(["unshare", "-Ur", sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[1])
    if done.returncode != 0 and "unshare" in done.stderr and "Traceback" not in done.stderr:
        pytest.skip(f"no user namespaces here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert "blind: ['alice', 'bob']" in done.stdout  # the root took one of three: neither chain is whole
    assert done.stderr.count("WARNING") == 1 and "No space left on device" in done.stderr, done.stderr


@pytest.mark.skipif(queue_limit() > 100_000, reason="the kernel's queue is too long to fill in a test")
def test_an_overflow_tells_everything_and_a_recheck_follows_the_names_again(
        tmp_path: Path, notes: Notifications, caplog: pytest.LogCaptureFixture) -> None:
    path = callers_of(tmp_path)
    write(path, "[]")
    spill = tmp_path / "spill"
    spill.mkdir()
    notes.follow("index", path, tmp_path)
    notes.follow("store", spill, tmp_path, folder=True)
    for n in range(queue_limit() + 10):  # each a distinct event: the kernel merges only repeats of the last one
        (spill / f"f{n}").touch()
    (tmp_path / "alice").rename(tmp_path / "alice-old")  # lost in the overflow
    write(path, "[8]")

    changes = notes.changes("index")
    assert changes.everything
    assert notes.changes("store").everything  # every follower is told
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "overflowed" in warnings[0] and "max_queued_events" in warnings[0]
    notes.recheck("index")
    write(path, "[9]")
    assert told(notes, "index") == {str(path)}


def test_notify_where_the_kernel_has_none_stops_start_up_and_auto_falls_back_to_stat(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def no_inotify() -> Notifications:
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(file_changes, "shared", no_inotify)  # as on macOS, or with no inotify instance left
    with pytest.raises(SettingsError, match=r"A2A__FileChanges \(--file-changes\) is notify, but the kernel gives no"):
        file_changes.notifications_for("notify")
    caplog.set_level(logging.INFO)
    assert file_changes.notifications_for("auto") is None
    assert any("checked by stat" in r.getMessage() for r in caplog.records)
    assert file_changes.notifications_for("stat") is None
