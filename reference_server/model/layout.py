"""The workspace's layout: every path under <workspace>/.volcanic in one place (design: "Workspace"), names only;
workspace/callers.py is the one writer of callers.json entries."""

from __future__ import annotations

import os
from pathlib import Path

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
