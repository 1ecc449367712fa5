"""The hosting tests use the workspace tests' fixtures: a workspace folder, its caller, how file changes are learnt."""

from unit.workspace.conftest import caller, either_notes, workspace

__all__ = ["caller", "either_notes", "workspace"]
