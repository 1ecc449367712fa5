"""disk.py: the writer thread (order, durability, failures) and the stat-checked cache of small files."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from reference_server.platform import disk


def test_writes_to_one_file_land_in_the_order_asked(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    futures = [disk.WRITER.replace(path, f"version {n}".encode(), durable=n % 3 == 0) for n in range(50)]
    for future in futures:
        future.result(timeout=10)
    assert path.read_text() == "version 49"
    assert [p.name for p in tmp_path.iterdir()] == ["task.json"]  # no temp file left


def test_appends_keep_their_order(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "s.jsonl"
    futures = [disk.WRITER.append(path, f"{n}\n") for n in range(100)]
    futures[-1].result(timeout=10)
    assert path.read_text().splitlines() == [str(n) for n in range(100)]


def test_a_folder_that_is_missing_or_was_removed_is_made_again(tmp_path: Path) -> None:
    tasks, sessions = tmp_path / "a" / "tasks", tmp_path / "b" / "sessions"
    for round_ in range(2):  # the first time the folders never existed; the second time they were removed
        disk.WRITER.replace(tasks / "t.json", f"task {round_}".encode(), durable=False).result(timeout=10)
        disk.WRITER.append(sessions / "s.jsonl", f"line {round_}\n").result(timeout=10)
        assert (tasks / "t.json").read_text() == f"task {round_}"
        assert (sessions / "s.jsonl").read_text() == f"line {round_}\n"
        for path in (tasks / "t.json", sessions / "s.jsonl"):
            path.unlink()
            path.parent.rmdir()


def test_a_durable_write_syncs_the_data_before_the_rename_and_the_folder_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    replace, datasync, fsync = os.replace, disk._datasync, disk._fsync
    monkeypatch.setattr(disk, "_datasync", lambda fd: (calls.append("sync data"), datasync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (calls.append("rename"), replace(a, b))[1])
    monkeypatch.setattr(disk, "_fsync", lambda folder: (calls.append(f"sync {folder.name}"), fsync(folder))[1])

    disk.WRITER.replace(tmp_path / "t.json", b"{}", durable=True).result(timeout=10)
    assert calls == ["sync data", "rename", f"sync {tmp_path.name}"]

    calls.clear()
    disk.WRITER.replace(tmp_path / "t.json", b"[]", durable=False).result(timeout=10)
    assert calls == ["rename"]  # not durable: atomic, nothing synced
    assert (tmp_path / "t.json").read_bytes() == b"[]"


def test_a_write_now_is_durable_and_takes_the_permission_bits_it_is_given(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    replace, datasync, fsync = os.replace, disk._datasync, disk._fsync
    monkeypatch.setattr(disk, "_datasync", lambda fd: (calls.append("sync data"), datasync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (calls.append("rename"), replace(a, b))[1])
    monkeypatch.setattr(disk, "_fsync", lambda folder: (calls.append(f"sync {folder.name}"), fsync(folder))[1])
    old_umask = os.umask(0o077)
    try:
        disk.replace_now(tmp_path / "callers.json", b"[]", mode=0o644)  # exactly these bits, whatever the umask
        disk.replace_now(tmp_path / "card.json", b"{}")
    finally:
        os.umask(old_umask)

    assert calls == ["sync data", "rename", f"sync {tmp_path.name}"] * 2
    assert (tmp_path / "callers.json").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "card.json").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["callers.json", "card.json"]


def test_a_failed_write_fails_its_waiter_and_the_writer_goes_on(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    failing = disk.WRITER.replace(blocked / "t.json", b"{}", durable=True)
    with pytest.raises(OSError):
        failing.result(timeout=10)
    disk.WRITER.replace(tmp_path / "t.json", b"{}", durable=True).result(timeout=10)
    assert (tmp_path / "t.json").read_bytes() == b"{}"


def test_bytes_given_as_a_function_are_made_on_the_writer_thread_when_written(tmp_path: Path) -> None:
    made_on: list[str] = []

    def make() -> bytes:
        made_on.append(threading.current_thread().name)
        return b"made late"

    disk.WRITER.replace(tmp_path / "t.json", make, durable=False).result(timeout=10)
    disk.WRITER.append(tmp_path / "s.jsonl", lambda: "a line\n").result(timeout=10)
    assert (tmp_path / "t.json").read_bytes() == b"made late"
    assert (tmp_path / "s.jsonl").read_text() == "a line\n"
    assert made_on and made_on[0] != threading.current_thread().name


def test_a_function_that_cannot_make_its_bytes_fails_only_its_own_write(tmp_path: Path) -> None:
    def broken() -> bytes:
        raise ValueError("cannot encode")

    failing = disk.WRITER.replace(tmp_path / "bad.json", broken, durable=True)
    fine = disk.WRITER.replace(tmp_path / "good.json", b"{}", durable=True)
    with pytest.raises(ValueError):
        failing.result(timeout=10)
    fine.result(timeout=10)
    assert (tmp_path / "good.json").read_bytes() == b"{}" and not (tmp_path / "bad.json").exists()


def test_the_stat_cache_reads_a_file_again_only_when_it_changed(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "callers.json"
    reads: list[str] = []

    def parse(p: Path) -> Any:
        text = p.read_text() if p.exists() else None
        reads.append(str(text))
        return text

    cache = disk.StatCache(parse)
    assert cache.get(path) is None  # missing
    path.write_text("one")
    assert cache.get(path) == "one"  # appeared
    path.write_text("two")  # same size, within the same instant: the racy rule reads it again
    assert cache.get(path) == "two"

    monkeypatch.setattr(disk, "RACY_NS", 0)  # as if the file had been written long ago
    path.write_text("three")
    assert cache.get(path) == "three"
    reads.clear()
    assert [cache.get(path) for _ in range(5)] == ["three"] * 5
    assert reads == []  # unchanged: not read again


def test_the_writes_a_batch_completes_wake_the_loop_once(tmp_path: Path) -> None:
    """finished(): eight writes completed together settle their eight waiters with one wake-up of the loop (an
    asyncio.wrap_future each would be eight), each with its own result, a failed one with its own error."""
    writer = disk.Writer()
    gate = threading.Event()
    wakes: list[object] = []

    async def main() -> list[object]:
        loop = asyncio.get_running_loop()
        wake = loop.call_soon_threadsafe

        def counted(callback: Any, *args: Any) -> Any:
            wakes.append(callback)
            return wake(callback, *args)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign]

        def held() -> bytes:
            gate.wait(10)  # the first write waits until every other one is queued: they make one batch
            return b"first"

        waits = [disk.finished(writer.replace(tmp_path / "0.json", held, durable=False))]
        waits += [disk.finished(writer.replace(tmp_path / f"{n}.json", b"x", durable=False)) for n in range(1, 8)]
        waits.append(disk.finished(writer.replace(tmp_path / "missing" / "deeper" / "\0.json", b"x", durable=False)))
        gate.set()
        return await asyncio.gather(*waits, return_exceptions=True)

    results = asyncio.run(main())
    assert results[:8] == [None] * 8 and isinstance(results[8], ValueError), results
    assert len(wakes) <= 2, f"expected the batch to wake the loop once or twice, not {len(wakes)} times"
    assert (tmp_path / "0.json").read_bytes() == b"first"
