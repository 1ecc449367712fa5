"""The shape of an answer: its ids and timestamps named, so two answers, or an answer and the docs, compare."""

from __future__ import annotations

import re
from typing import Any

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")  # design README: RFC 3339, ms, Z
# what a server-made UUID is named after, by the key that holds it; messages and artifacts are numbered
_KINDS = {"id": "taskId", "taskId": "taskId", "contextId": "contextId", "messageId": "message",
          "artifactId": "artifact"}


class Masker:
    """Names volatile values, the same value the same name across every payload it sees: the strings it is given,
    then UUIDs by the key holding them (<taskId>, <contextId>, <message-1>, <artifact-1>, ...) and timestamps."""

    def __init__(self, known: dict[str, str] | None = None) -> None:
        self.names = dict(known or {})
        self._counts: dict[str, int] = {}

    def __call__(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v, key) for v in value]
        if not isinstance(value, str):
            return value
        if value in self.names:
            return self.names[value]
        if TIMESTAMP.match(value):
            return "<timestamp>"
        if UUID.match(value) and key in _KINDS:
            kind = _KINDS[key]
            if kind in ("message", "artifact"):
                self._counts[kind] = self._counts.get(kind, 0) + 1
                kind = f"{kind}-{self._counts[kind]}"
            self.names[value] = f"<{kind}>"
            return self.names[value]
        return value
