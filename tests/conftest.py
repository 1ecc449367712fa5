"""The repository's test run: the executable spec's plugin (reference_server/conformance/plugin.py), the design's own
step definitions beside the portable ones, and the snapshots under spec/snapshots/<test module>/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

pytest_plugins = ["reference_server.conformance.plugin"]

SNAPSHOT_DIR = Path(__file__).resolve().parents[1] / "spec" / "snapshots"

# the design's step definitions are fixtures too: importing them here makes them visible to every scenario
from steps.acts_behaviours import *  # noqa: E402,F403
from steps.agent import *  # noqa: E402,F403
from steps.faults import *  # noqa: E402,F403
from steps.files import *  # noqa: E402,F403
from steps.lifecycle import *  # noqa: E402,F403
from steps.owner_host import *  # noqa: E402,F403
from steps.push_receiver import *  # noqa: E402,F403
from steps.shapes import *  # noqa: E402,F403


class SpecJSONExtension(JSONSnapshotExtension):
    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOT_DIR / Path(test_location.filepath).stem)


@pytest.fixture
def snapshot_json(snapshot: Any) -> Any:
    return snapshot.with_defaults(extension_class=SpecJSONExtension)
