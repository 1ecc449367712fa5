"""Callers: <workspace>/.volcanic/a2a/callers.json, the directory over workspaces that checks each by stat, and the one
writer of its entries (the demo workspace, the admin command and the pytest fixtures use it)."""

from __future__ import annotations

import hmac
import json
import logging
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from reference_server.model.caller import Caller, Workspace
from reference_server.platform.disk import StatCache, replace_now

log = logging.getLogger("reference_server.callers")

NAME_PATTERN = re.compile(r"^[a-z0-9-]{1,40}$")
KNOWN_MODES = ("isolated",)


@dataclass(frozen=True, slots=True)  # slots: an owner host holds one per caller of every owner
class CallerEntry:
    """One valid entry of a callers.json file."""

    name: str
    key: str
    mode: str = "isolated"
    note: str | None = None

    def __repr__(self) -> str:  # keys never reach a log line
        return f"CallerEntry(name={self.name!r}, key={masked_key(self.key)!r}, mode={self.mode!r})"


def masked_key(key: str) -> str:
    """A key as logs and the a2a command show it (design: …last4); a short key shows nothing of itself, since
    its last four characters would be a good part of it."""
    return "…" + key[-4:] if len(key) >= 12 else "…"


class CallerDirectory(Protocol):
    async def find(self, key: str) -> list[Caller]:
        """Every caller whose key is `key` (more than one means the key is ambiguous)."""
        ...


def read_callers(path: Path) -> list[CallerEntry]:
    """The valid entries of a callers.json, as the file is now (an edit applies to the next request)."""
    return _CALLERS.get(path)


@dataclass(frozen=True)
class CallersCheck:
    """What a callers.json holds: its valid entries, and why anything else in it is not a caller."""

    entries: list[CallerEntry]
    problems: list[str]  # each names the file, never a key


def check_callers(path: Path) -> CallersCheck:
    """The valid entries of a callers.json; missing file = none; malformed = none, and the problem said."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return CallersCheck([], [])
    except OSError as exc:
        return CallersCheck([], [f"callers file {path} cannot be read ({exc.strerror}); no callers"])
    return callers_in(path, data)


def callers_in(path: Path | str, data: bytes) -> CallersCheck:
    """What the bytes of the callers.json at path hold (check_callers, for bytes already read)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return CallersCheck([], [f"callers file {path} is not UTF-8 text; no callers"])
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        # design: malformed callers.json = empty, plus a warning naming the file (never the keys)
        return CallersCheck([], [f"callers file {path} is not valid JSON (line {exc.lineno}); no callers"])
    if not isinstance(raw, list):
        return CallersCheck([], [f"callers file {path} must hold a JSON array; no callers"])
    return _valid_entries(path, raw)


def _parse_callers(path: Path) -> list[CallerEntry]:
    """check_callers with one warning per problem (the cache calls it again only when the file changed)."""
    checked = check_callers(path)
    for problem in checked.problems:
        log.warning("%s", problem)
    return checked.entries


def _valid_entries(path: Path | str, raw: list[Any]) -> CallersCheck:
    checked = CallersCheck([], [])
    seen: set[str] = set()
    for index, item in enumerate(raw):
        problem = _entry_problem(item)
        if problem is not None:
            checked.problems.append(f"callers file {path}: entry {index} {problem}; skipped")
            continue
        if item["name"] in seen:
            checked.problems.append(f"callers file {path}: entry {index} repeats the name {item['name']!r}; skipped")
            continue
        seen.add(item["name"])
        note = item.get("note")
        checked.entries.append(CallerEntry(name=item["name"], key=item["key"], mode=item.get("mode", "isolated"),
                                           note=note if isinstance(note, str) else None))
    return checked


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
    """Callers of every workspace the function yields, as their callers.json files are now: each file checked by
    stat on every lookup (A2A__FileChanges=stat; caller_index.CallerIndex answers from an index instead)."""

    def __init__(self, workspaces: Callable[[], Iterable[Workspace]]) -> None:
        self._workspaces = workspaces

    async def find(self, key: str) -> list[Caller]:
        presented = _secret(key)
        return [
            Caller(name=entry.name, mode=entry.mode, workspace=workspace)
            for workspace in self._workspaces()
            for entry in read_callers(workspace.callers_file)
            # in constant time: how long a refusal takes tells nothing of how much of a key was right
            if hmac.compare_digest(_secret(entry.key), presented)
        ]


def _secret(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")


# --- writing callers.json: the one writer of its entries (the demo workspace, the admin command, the fixtures) ---


def new_key() -> str:
    """A fresh caller key: 32 random bytes in hex, as `openssl rand -hex 32` makes them."""
    return secrets.token_hex(32)


def caller_entry(name: str, key: str, note: str | None = None, mode: str = "isolated") -> dict[str, Any]:
    """One callers.json entry as the design spells it (design: "callers.json"); without a note, none is written."""
    entry: dict[str, Any] = {"name": name, "key": key, "mode": mode}
    if note is not None:
        entry["note"] = note
    return entry


def write_callers(path: Path, entries: Iterable[dict[str, Any]], *, mode: int | None = None) -> None:
    """callers.json with these entries, written atomically: a request never reads half a file. mode: its permission
    bits (default 0o600 less the umask)."""
    replace_now(path, (json.dumps(list(entries), indent=2) + "\n").encode(), mode=mode)


def add_caller(path: Path, entry: dict[str, Any]) -> None:
    """One more entry, after the file's own (which are kept as they are, valid or not). ValueError, with the file
    untouched, when an entry already has the name, or when the file cannot be read or is not a JSON list: rewriting
    it would lose what its owner wrote."""
    target, entries, mode = _entries_of(path)
    if any(_named(item, entry["name"]) for item in entries):
        raise ValueError(f"{path} already has a caller named {entry['name']!r}; choose another name, or remove that "
                         "caller first")
    write_callers(target, [*entries, entry], mode=mode)


def remove_caller(path: Path, name: str) -> None:
    """The file without the entries named name (the others kept as they are); ValueError, with the file untouched,
    when none has that name, or when the file cannot be read or is not a JSON list."""
    target, entries, mode = _entries_of(path)
    kept = [item for item in entries if not _named(item, name)]
    if len(kept) == len(entries):
        raise ValueError(f"{path} has no caller named {name!r}; nothing was removed")
    write_callers(target, kept, mode=mode)


def _named(item: Any, name: str) -> bool:
    return isinstance(item, dict) and item.get("name") == name


def _entries_of(path: Path) -> tuple[Path, list[Any], int | None]:
    """The file to rewrite (a symbolic link's target, so the link stays one), what it holds, and its permission bits
    (kept: a server that may read the file now may read it after); a missing file holds nothing yet."""
    target = path.resolve()
    try:
        with open(target, "rb") as file:
            data = file.read()
            mode = stat.S_IMODE(os.fstat(file.fileno()).st_mode)
    except FileNotFoundError:
        return target, [], None
    except OSError as error:
        raise ValueError(f"{path} cannot be read ({error.strerror}); it was left as it is") from None
    mend = "mend it by hand before callers are added or removed"
    try:
        entries = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text; {mend}") from None
    except json.JSONDecodeError as error:  # its message never quotes the file: no key reaches the screen
        raise ValueError(f"{path} is not valid JSON (line {error.lineno}); {mend}") from None
    if not isinstance(entries, list):
        raise ValueError(f"{path} is not a JSON list of callers; {mend}")
    return target, entries, mode
