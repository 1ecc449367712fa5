"""The session's conversation as a JSONL file: one record per line, appended and flushed per record."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

ROLES = ("user", "assistant", "tool")


class Journal:
    """Appends records ({"role": ..., "ts": ...} in OpenAI chat shape) to one JSONL file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> list[dict[str, Any]]:
        """The records on disk; a malformed line is skipped with a warning, a torn last line is cut off."""
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
        """Write record (with a timestamp) as one line, flushed; returns the stored record."""
        stored = {**record, "ts": _now()}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(stored, ensure_ascii=False) + "\n")
            f.flush()
        return stored

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
