"""Fixtures of the agent tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    folder = tmp_path / "workspace"
    folder.mkdir()
    return folder
