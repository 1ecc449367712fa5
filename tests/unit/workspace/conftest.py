"""Fixtures of the workspace and hosting unit tests: a workspace folder and its callers; how file changes are learnt."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server.model.caller import Caller, Workspace
from reference_server.platform.changes import Notifications


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    folder = tmp_path / "workspace"
    folder.mkdir()
    return Workspace(folder, owner_id="owner-1", scope_prefix="test")


@pytest.fixture
def caller(workspace: Workspace) -> Caller:
    return Caller(name="travel-bot", mode="isolated", workspace=workspace)


@pytest.fixture(params=["stat", "notify"])
def either_notes(request: pytest.FixtureRequest) -> Iterator[Notifications | None]:
    """How changed files are learnt, each in turn: a stat of each (A2A__FileChanges=stat), or the kernel's queue."""
    if request.param == "stat":
        yield None
        return
    notifications = Notifications()
    yield notifications
    notifications.close()
