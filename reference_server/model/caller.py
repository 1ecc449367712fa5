"""Who calls and where its tasks live: an authenticated Caller and its Workspace (design: "Workspace"), plain values
whose paths come from the workspace's layout (model/layout.py, the one home of every .volcanic path)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from reference_server.model.layout import A2A_DIR, CALLERS_NAME


@dataclass(frozen=True)
class Workspace:
    """An assistant's workspace: its folder, its owner and the prefix of its session scopes."""

    path: Path
    owner_id: str = "owner"
    scope_prefix: str = "reference"

    @cached_property
    def a2a_dir(self) -> Path:
        return self.path / A2A_DIR

    @cached_property
    def callers_file(self) -> Path:
        return self.a2a_dir / CALLERS_NAME

    def callers_path(self) -> str:
        """callers_file as text, made without caching a Path (the caller index holds one per owner of a host)."""
        return os.path.join(self.path, A2A_DIR, CALLERS_NAME)

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


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated caller: who it is and whose workspace it talks to."""

    name: str
    mode: str
    workspace: Workspace

    @property
    def owner_id(self) -> str:
        return self.workspace.owner_id
