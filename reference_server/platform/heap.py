"""The C library's heap, kept from holding on to the memory of large payloads after they are freed (glibc only;
elsewhere nothing is done).

Two settings, both measured with `make probe-memory` (20 streams of a 4 MB echo) and `make bench`:

- glibc mmaps a block at least as large as its threshold, and gives it back to the kernel when it is freed. The
  threshold starts at 128 KiB and rises with every larger block freed, up to 32 MiB: after the first large message
  the texts of the next ones (a 4 MB prompt, its JSON, its task file) came from the heap, and the heap kept their
  pages (20 streams left +263 MB after they ended). A fixed threshold keeps them mmapped. It is 1 MiB, not glibc's
  128 KiB: every socket read of asyncio's asks for a 256 KiB buffer and shrinks it to what came, and at 128 KiB each
  read was an mmap and an munmap (the card's rate fell from about 6,600 to 4,800 requests a second).
- What is freed below the threshold (an event's pieces, sse.PIECE_CHARS; the socket buffers) stays in the heap
  until malloc_trim gives its pages back. The Trimmer does that four times a second, on its own thread, when the
  heap holds more than `slack` free bytes: after 20 streams ended, 181 MB stayed without it, 160 MB with it (the
  session pool's bytes, what the streams' sessions hold by design); while they ran, the peak was 244-248 MB with a
  trim a second, 237-240 MB with four.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import threading
from collections.abc import Callable

MMAP_THRESHOLD_BYTES = 1024 * 1024
TRIM_INTERVAL_SECONDS = 0.25
TRIM_SLACK_BYTES = 8 * 1024 * 1024  # free heap bytes the process keeps without a trim
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The process's own C library, if it is glibc (the functions below are glibc's); looked up once."""
    with contextlib.suppress(OSError):
        libc = ctypes.CDLL(None)
        if all(hasattr(libc, name) for name in ("mallopt", "malloc_trim", "mallinfo2")):
            libc.mallinfo2.restype = _MallInfo2
            return libc
    return None


def fix_mmap_threshold(threshold: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Keep glibc's mmap threshold at `threshold` bytes; False where the C library is not glibc."""
    libc = _libc()
    if libc is None:
        return False
    libc.mallopt(_M_MMAP_THRESHOLD, threshold)
    return True


def free_heap_bytes() -> int:
    """Bytes the heap holds free (glibc's mallinfo2 `fordblks`), which malloc_trim can give back."""
    libc = _libc()
    return 0 if libc is None else int(libc.mallinfo2().fordblks)


def trim_heap() -> None:
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)  # ctypes lets go of the GIL for the call: the loop's thread goes on meanwhile


class Trimmer:
    """Gives the heap's free pages back every `interval` seconds while it runs, when there are more than `slack`
    bytes of them, on a thread of its own: giving back 190 MB took 12-18 ms here, and a trim with nothing left to
    give back (the pages free but already returned) under 1 ms. The GIL is let go meanwhile, but glibc locks each
    arena while it trims or counts, so the loop's thread waits if it asks the C library for memory then (small
    objects come from Python's own allocator, which does not ask it). Start it only where the C library is glibc
    (fix_mmap_threshold says)."""

    def __init__(self, *, interval: float = TRIM_INTERVAL_SECONDS, slack: int = TRIM_SLACK_BYTES,
                 free_bytes: Callable[[], int] = free_heap_bytes, trim: Callable[[], None] = trim_heap) -> None:
        self._interval = interval
        self._slack = slack
        self._free_bytes = free_bytes
        self._trim = trim
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> bool:
        """Trim if the free bytes are over the slack: whether it did."""
        if self._free_bytes() <= self._slack:
            return False
        self._trim()
        return True

    def start(self) -> None:
        self._stopped.clear()
        self._thread = threading.Thread(target=self._run, name="heap-trimmer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        while not self._stopped.wait(self._interval):
            self.check()
