"""The repository's test run: the executable spec's plugin (reference_server/conformance/plugin.py), live reference
servers as the server under test, the design's own step definitions beside the portable ones, and the snapshots
under spec/snapshots/<test module>/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.design import DesignState
from support.live import LiveServer, settings_for
from syrupy.extensions.json import JSONSnapshotExtension

from reference_server.conformance.plugin import remove_roots
from reference_server.conformance.support.target import TARGET_URL
from reference_server.conformance.world import ServerFactory, ServerUnderTest

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

_SERVERS: dict[tuple[Any, ...], LiveServer] = {}


@pytest.fixture(scope="session")
def server_factory() -> Iterator[ServerFactory]:
    """Live reference servers, one per distinct configuration, shared by the whole session; with A2A_TARGET_URL, the
    other server (the plugin's own server_factory)."""
    from reference_server.conformance.plugin import target

    def get(*, with_notifier: bool = True, **overrides: Any) -> ServerUnderTest:
        if TARGET_URL:
            if with_notifier is False or overrides:
                pytest.skip("needs the reference server started with other settings")
            return target()
        key = (with_notifier, tuple(sorted(overrides.items())))
        if key not in _SERVERS:
            _SERVERS[key] = LiveServer(settings_for(**overrides), with_notifier=with_notifier).start()
        return _SERVERS[key]

    yield get
    for server in _SERVERS.values():
        server.stop()
    _SERVERS.clear()
    remove_roots()


@pytest.fixture
def design() -> DesignState:
    """What the design's own steps keep in a scenario (tests/support/design.py), beside the portable steps' World."""
    return DesignState()


class SpecJSONExtension(JSONSnapshotExtension):
    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOT_DIR / Path(test_location.filepath).stem)


@pytest.fixture
def snapshot_json(snapshot: Any) -> Any:
    return snapshot.with_defaults(extension_class=SpecJSONExtension)
