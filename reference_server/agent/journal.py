"""The session's conversation as a JSONL file: one record per line, appended in order on a disk thread."""

from __future__ import annotations

import json
import logging
from concurrent.futures import Future, wait
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reference_server.agent.conversation import as_written
from reference_server.platform.disk import WRITER, finished

log = logging.getLogger(__name__)

ROLES = ("user", "assistant", "tool")


class Journal:
    """Appends records ({"role": ..., "ts": ...} in OpenAI chat shape) to one JSONL file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._last: Future[None] | None = None  # the write of the last line appended

    def load(self) -> list[dict[str, Any]]:
        """The records on disk; a malformed line is skipped with a warning, a torn last line is cut off.

        Blocking (it waits for this journal's pending lines): call it from a disk thread, not the event loop.
        """
        self.flush()
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        lines = data.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline
        parsed = (self._parse(line, n) for n, line in enumerate(lines, 1) if line.strip())
        records = [r for r in parsed if r is not None]
        if tail.strip():
            self._mend_tail(tail, len(data), records)
        return records

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Hand record (with a timestamp) to the disk writer as one line; returns the stored record.

        The event loop never waits for the file: the writer appends lines in order, in batches.
        `written()` waits for every line appended so far.
        """
        stored = {**record, "ts": _now()}
        # the line is made on the writer thread when its turn comes: a queued line holds the record, not a copy
        # of its text (a record is never changed once appended)
        self._last = WRITER.append(self.path, lambda: json.dumps(as_written(stored), ensure_ascii=False) + "\n")
        return stored

    async def written(self) -> None:
        """Wait, without blocking the event loop, until every appended line is in the file."""
        if self._last is not None:
            await finished(self._last)  # raises the OSError of a failed write

    def flush(self) -> None:
        """Block until every appended line is written or failed (for disk threads and tests)."""
        if self._last is not None:
            wait([self._last])

    def _parse(self, line: bytes, number: int) -> dict[str, Any] | None:
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict) or record.get("role") not in ROLES:
            log.warning("session file %s: skipping malformed line %d", self.path, number)
            return None
        return record

    def _mend_tail(self, tail: bytes, size: int, records: list[dict[str, Any]]) -> None:
        # a crash mid-write leaves a last line without its newline: keep it if whole, else cut it off,
        # so the next append starts on a line of its own
        try:
            record = json.loads(tail)
        except ValueError:
            record = None
        if isinstance(record, dict) and record.get("role") in ROLES:
            records.append(record)
            with self.path.open("ab") as f:
                f.write(b"\n")
            return
        log.warning("session file %s: skipping torn last line", self.path)
        with self.path.open("r+b") as f:
            f.truncate(size - len(tail))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
