"""Fixtures of the domain unit tests: a workspace folder and its callers."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_server.domain.callers import Caller, Workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    folder = tmp_path / "workspace"
    folder.mkdir()
    return Workspace(folder, owner_id="owner-1", scope_prefix="test")


@pytest.fixture
def caller(workspace: Workspace) -> Caller:
    return Caller(name="travel-bot", mode="isolated", workspace=workspace)
