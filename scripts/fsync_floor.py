"""The floor a durable task file sets on a blocking send: what an fdatasync per final state costs on this disk when a
batch of 8 (8 clients sending at once) or of 1 waits for the writer, and what group commit (several tasks per sync)
would save. Each way is timed on the same folder, in interleaved rounds, as the writer does it (platform/disk.py).

    python scripts/fsync_floor.py [--dir /tmp] [--batches 100] [--rounds 5] [--size 1200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

Way = Callable[[Path, list[bytes]], None]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the package from this checkout

from reference_server.platform import disk  # noqa: E402

_sync = disk._datasync  # the writer's own sync calls, so that the floor is measured on what the server does
_count = iter(range(10**12))


def _temp(folder: Path, data: bytes, *, sync: bool) -> tuple[str, str]:
    """A temp file written (and synced): its name and the name it replaces, as disk._replace makes them."""
    n = next(_count)
    tmp, name = os.path.join(folder, f".t{n}.tmp"), os.path.join(folder, f"t{n % 64}.json")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        if sync:
            _sync(fd)
    finally:
        os.close(fd)
    return tmp, name


def each_synced(folder: Path, batch: list[bytes]) -> None:
    """Today's writer: each file written, fdatasynced and renamed in turn, then one fsync of the folder per batch."""
    for n, data in enumerate(batch):
        disk._replace(folder / f"t{n}.json", data, durable=True)
    disk._fsync(folder)


_POOL = ThreadPoolExecutor(max_workers=8)


def synced_at_once(folder: Path, batch: list[bytes]) -> None:
    """The batch's files fdatasynced at the same time from 8 threads (the file system may join them in one journal
    commit), then renamed, then one fsync of the folder."""
    for tmp, name in list(_POOL.map(lambda data: _temp(folder, data, sync=True), batch)):
        os.replace(tmp, name)
    disk._fsync(folder)


def one_log_sync(folder: Path, batch: list[bytes]) -> None:
    """Group commit: the batch's final states appended to one log and fdatasynced once; the task files are then
    written and renamed without a sync of their own (a restart would replay the log)."""
    fd = os.open(os.path.join(folder, "commit.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, b"".join(batch))
        _sync(fd)
    finally:
        os.close(fd)
    for data in batch:
        os.replace(*_temp(folder, data, sync=False))


def not_synced(folder: Path, batch: list[bytes]) -> None:
    """No sync at all, as the peers keep their tasks in memory: the files written and renamed only."""
    for data in batch:
        os.replace(*_temp(folder, data, sync=False))


WAYS: dict[str, Way] = {"each file fdatasynced in turn (today)": each_synced,
                        "fdatasynced at once from 8 threads": synced_at_once,
                        "one log append + one fdatasync (group commit)": one_log_sync,
                        "no sync": not_synced}


def timed(way: Way, folder: Path, size: int, per_batch: int, batches: int) -> list[float]:
    """Seconds per batch, for `batches` batches of `per_batch` files of `size` bytes."""
    data = [os.urandom(size // 2).hex().encode()[:size] for _ in range(per_batch)]
    took = []
    for _ in range(batches):
        started = time.perf_counter()
        way(folder, data)
        took.append(time.perf_counter() - started)
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()),
                        help="a folder on the disk to measure (default: the temp folder, where the bench's "
                        "workspaces are)")
    parser.add_argument("--batches", type=int, default=100, help="batches per way and round (default 100)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--size", type=int, default=1200, help="bytes per task file (default 1200, a one-message task)")
    args = parser.parse_args()
    per_task: dict[tuple[str, int], list[float]] = {}
    per_batch: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="a2a-fsync-", dir=args.dir) as tmp:
        folder = Path(tmp)
        for _ in range(args.rounds):
            for size in (1, 8):
                for name, way in WAYS.items():
                    if size == 1 and way is synced_at_once:
                        continue
                    took = timed(way, folder, args.size, size, args.batches)
                    per_batch.setdefault((name, size), []).append(statistics.median(took))
                    per_task.setdefault((name, size), []).append(sum(took) / len(took) / size)
    print(f"{args.dir}: {args.rounds} rounds of {args.batches} batches, {args.size} bytes per task file; "
          "medians over the rounds")
    print("| way | tasks per batch | µs per batch (p50) | µs per task | tasks/s the writer can make durable |")
    print("| --- | --- | --- | --- | --- |")
    for (name, size), values in per_task.items():
        task = statistics.median(values)
        print(f"| {name} | {size} | {1e6 * statistics.median(per_batch[name, size]):.0f} | {1e6 * task:.0f} | "
              f"{1 / task:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
