"""The workspace's layout: every path under <workspace>/.volcanic in one place (design: "Workspace"), and the one
writer of callers.json entries, which the demo workspace, the admin command and the pytest fixtures use."""

from __future__ import annotations

import json
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reference_server.platform.disk import replace_now

VOLCANIC = ".volcanic"
A2A_DIR = os.path.join(VOLCANIC, "a2a")  # design: all of A2A under <workspace>/.volcanic/a2a/
CALLERS_NAME = "callers.json"
SCRIPT = Path(A2A_DIR) / "script.json"  # the scripted agent's script, relative to the workspace


def a2a_dir(workspace: Path) -> Path:
    return workspace / A2A_DIR


def callers_file(workspace: Path) -> Path:
    return workspace / A2A_DIR / CALLERS_NAME


def script_file(workspace: Path) -> Path:
    return workspace / SCRIPT


def session_file(workspace: Path, scope: str) -> Path:
    """A session's history (JSONL), per scope (design: "<workspace>/.volcanic/sessions/<scope>.jsonl")."""
    return workspace / VOLCANIC / "sessions" / f"{scope}.jsonl"


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
