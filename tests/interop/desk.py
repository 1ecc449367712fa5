"""The server every interop module drives: a live reference server with one desk, a workspace whose one caller
the SDK client plays (a fresh key each time), and a card.json that names the agent."""

from __future__ import annotations

import json
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.live import LiveServer, settings_for

from reference_server.model.caller import Workspace

CARD_NAME = "Interop Desk"


@dataclass(frozen=True)
class Desk:
    url: str
    key: str
    workspace: Workspace


@contextmanager
def interop_desk(caller: str, *, scope_prefix: str = "interop", card: bool = True,
                 **settings: Any) -> Iterator[Desk]:
    """The desk served until the block ends; card=False leaves the card as the server builds it."""
    server = LiveServer(settings_for(**settings)).start()
    root = Path(tempfile.mkdtemp(prefix=f"a2a-{scope_prefix}-"))
    workspace = Workspace(root / "desk", owner_id="desk", scope_prefix=scope_prefix)
    key = "k_" + secrets.token_hex(16)
    workspace.a2a_dir.mkdir(parents=True)
    workspace.callers_file.write_text(json.dumps([{"name": caller, "key": key, "mode": "isolated"}]))
    if card:
        workspace.card_file.write_text(json.dumps({"name": CARD_NAME, "description": "The interop desk."}))
    server.workspaces.add(workspace)
    try:
        yield Desk(server.url, key, workspace)
    finally:
        server.workspaces.remove(workspace)
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
