"""The workspace's layout: every path under <workspace>/.volcanic in one place (design: "Workspace"), and the one
writer of callers.json entries, which the demo workspace and the pytest fixtures use."""

from __future__ import annotations

import json
import os
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


def caller_entry(name: str, key: str, note: str, mode: str = "isolated") -> dict[str, Any]:
    """One callers.json entry as the design spells it (design: "callers.json")."""
    return {"name": name, "key": key, "mode": mode, "note": note}


def write_callers(path: Path, entries: Iterable[dict[str, Any]]) -> None:
    """callers.json with these entries, written atomically: a request never reads half a file."""
    replace_now(path, (json.dumps(list(entries), indent=2) + "\n").encode())


def add_caller(path: Path, entry: dict[str, Any]) -> None:
    """One more entry, after the file's own (which are kept as they are, valid or not); a file that is not a JSON
    list is not touched: ValueError says so, since rewriting it would lose what its owner wrote."""
    existing: Any = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    if not isinstance(existing, list):
        raise ValueError(f"{path} is not a JSON list of callers; mend it by hand before a caller is added")
    write_callers(path, [*existing, entry])
