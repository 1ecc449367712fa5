"""heap.py: the heap's free pages are given back when there are more than the slack of them, on a thread of the
Trimmer's own, which stops with the app; where the C library is glibc, its functions are really called."""

from __future__ import annotations

import threading

import pytest

from reference_server.platform import heap
from reference_server.platform.heap import Trimmer


class Heap:
    """Stands in for the C library's heap: the free bytes it reports, and the trims it was asked for."""

    def __init__(self, free: int) -> None:
        self.free = free
        self.trims = 0
        self.trimmed = threading.Event()

    def free_bytes(self) -> int:
        return self.free

    def trim(self) -> None:
        self.trims += 1
        self.free = 0
        self.trimmed.set()


def test_a_heap_within_its_slack_is_left_alone() -> None:
    fake = Heap(free=8)
    assert Trimmer(slack=8, free_bytes=fake.free_bytes, trim=fake.trim).check() is False
    assert fake.trims == 0


def test_a_heap_over_its_slack_is_trimmed() -> None:
    fake = Heap(free=9)
    assert Trimmer(slack=8, free_bytes=fake.free_bytes, trim=fake.trim).check() is True
    assert fake.trims == 1


def test_the_trimmer_trims_on_its_own_thread_until_it_stops() -> None:
    fake = Heap(free=100)
    trimmer = Trimmer(interval=0.01, slack=8, free_bytes=fake.free_bytes, trim=fake.trim)
    trimmer.start()
    try:
        assert fake.trimmed.wait(5.0)
    finally:
        trimmer.stop()
    assert not any(thread.name == "heap-trimmer" for thread in threading.enumerate())  # stopped: its thread is gone


@pytest.mark.skipif(heap._libc() is None, reason="the C library is not glibc")
def test_glibc_gives_back_what_the_heap_holds_free() -> None:
    assert heap.fix_mmap_threshold() is True
    kept, freed = [], []
    for _ in range(200):  # blocks below the threshold, kept apart by smaller ones that stay, so the heap cannot shrink
        freed.append(bytearray(b"x") * 200_000)  # written: its pages are in RSS
        kept.append(bytearray(b"y") * 50_000)
    del freed
    assert heap.free_heap_bytes() > 20 * 1024 * 1024
    rss = _rss_kib()
    heap.trim_heap()
    assert _rss_kib() < rss - 20 * 1024  # at least 20 MB of the 40 MB free went back to the kernel
    del kept  # alive until here: the trim could not take their pages


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
