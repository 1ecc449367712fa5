"""Callers: <workspace>/.volcanic/a2a/callers.json, checked on every request, and the directory over workspaces."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from reference_server.disk import StatCache

log = logging.getLogger("reference_server.callers")

NAME_PATTERN = re.compile(r"^[a-z0-9-]{1,40}$")
KNOWN_MODES = ("isolated",)


@dataclass(frozen=True)
class Workspace:
    """An assistant's workspace: its folder, its owner and the prefix of its session scopes."""

    path: Path
    owner_id: str = "owner"
    scope_prefix: str = "reference"

    @cached_property
    def a2a_dir(self) -> Path:
        return self.path / ".volcanic" / "a2a"

    @cached_property
    def callers_file(self) -> Path:
        return self.a2a_dir / "callers.json"

    @cached_property
    def card_file(self) -> Path:
        return self.a2a_dir / "card.json"

    @cached_property
    def tasks_dir(self) -> Path:
        return self.a2a_dir / "tasks"

    @cached_property
    def watches_file(self) -> Path:
        return self.a2a_dir / "watches.json"

    @cached_property
    def pushes_dir(self) -> Path:
        return self.a2a_dir / "pushes"


@dataclass(frozen=True)
class CallerEntry:
    """One valid entry of a callers.json file."""

    name: str
    key: str
    mode: str = "isolated"
    note: str | None = None

    def __repr__(self) -> str:  # keys never reach a log line
        return f"CallerEntry(name={self.name!r}, key='…{self.key[-4:]}', mode={self.mode!r})"


@dataclass(frozen=True)
class Caller:
    """An authenticated caller: who it is and whose workspace it talks to."""

    name: str
    mode: str
    workspace: Workspace

    @property
    def owner_id(self) -> str:
        return self.workspace.owner_id


class CallerDirectory(Protocol):
    def find(self, key: str) -> list[Caller]:
        """Every caller whose key is `key` (more than one means the key is ambiguous)."""
        ...


def read_callers(path: Path) -> list[CallerEntry]:
    """The valid entries of a callers.json, as the file is now (an edit applies to the next request)."""
    return _CALLERS.get(path)


def _parse_callers(path: Path) -> list[CallerEntry]:
    """The valid entries of a callers.json; missing file = none; malformed = none plus one warning."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("callers file %s cannot be read (%s); no callers", path, exc.strerror)
        return []
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        # design: malformed callers.json = empty, plus a warning naming the file (never the keys)
        log.warning("callers file %s is not valid JSON (line %d); no callers", path, exc.lineno)
        return []
    if not isinstance(raw, list):
        log.warning("callers file %s must hold a JSON array; no callers", path)
        return []
    return _valid_entries(path, raw)


def _valid_entries(path: Path, raw: list[Any]) -> list[CallerEntry]:
    entries: list[CallerEntry] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        entry = _entry(path, index, item)
        if entry is None:
            continue
        if entry.name in seen:
            log.warning("callers file %s: entry %d repeats the name %r; skipped", path, index, entry.name)
            continue
        seen.add(entry.name)
        entries.append(entry)
    return entries


def _entry(path: Path, index: int, item: Any) -> CallerEntry | None:
    problem = _entry_problem(item)
    if problem is not None:
        log.warning("callers file %s: entry %d %s; skipped", path, index, problem)
        return None
    note = item.get("note")
    return CallerEntry(name=item["name"], key=item["key"], mode=item.get("mode", "isolated"),
                       note=note if isinstance(note, str) else None)


def _entry_problem(item: Any) -> str | None:
    """Why an entry is skipped (design: name pattern, a key, a known mode), or None; never shows the key."""
    if not isinstance(item, dict):
        return "is not an object"
    name, key, mode = item.get("name"), item.get("key"), item.get("mode", "isolated")
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        return "has no valid name (expected [a-z0-9-]{1,40})"
    if not isinstance(key, str) or not key:
        return f"({name}) has no key (expected a non-empty string)"
    if mode not in KNOWN_MODES:
        return f"({name}) has the unknown mode {mode!r} (known: {', '.join(KNOWN_MODES)})"
    return None


_CALLERS: StatCache[list[CallerEntry]] = StatCache(_parse_callers)


class WorkspaceCallerDirectory:
    """Callers of every workspace the function yields, as their callers.json files are now."""

    def __init__(self, workspaces: Callable[[], Iterable[Workspace]]) -> None:
        self._workspaces = workspaces

    def find(self, key: str) -> list[Caller]:
        return [
            Caller(name=entry.name, mode=entry.mode, workspace=workspace)
            for workspace in self._workspaces()
            for entry in read_callers(workspace.callers_file)
            if entry.key == key
        ]
