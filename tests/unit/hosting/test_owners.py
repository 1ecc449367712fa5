"""domain/owners.py: an owner host's workspaces, and its owners file read again when it changes."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path

import pytest

from reference_server.hosting.owners import OwnersFile, owner_workspace, owner_workspaces
from reference_server.model.caller import Workspace
from reference_server.platform.changes import Notifications
from reference_server.workspace.caller_index import CallerIndex
from reference_server.workspace.callers import WorkspaceCallerDirectory

KEY = "k_3f9c0123456789abcdef"


def give_caller(workspace: Workspace) -> None:
    workspace.callers_file.parent.mkdir(parents=True, exist_ok=True)
    workspace.callers_file.write_text(json.dumps([{"name": "bot", "key": KEY}]), encoding="utf-8")


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_an_owner_host_reads_the_listed_owners_only_and_sees_the_list_change(tmp_path: Path) -> None:
    owners = ["alice"]
    listed = owner_workspaces(tmp_path, lambda: owners)
    for name in ("alice", "carol"):
        give_caller(owner_workspace(tmp_path, name))
    directory = WorkspaceCallerDirectory(listed)

    assert [c.owner_id for c in asyncio.run(directory.find(KEY))] == ["alice"]  # carol's folder is never read
    owners.append("carol")
    assert [c.owner_id for c in asyncio.run(directory.find(KEY))] == ["alice", "carol"]
    assert listed()[1] == Workspace(tmp_path / "carol", owner_id="carol", scope_prefix="owner-carol")


def test_an_owner_id_that_is_not_a_folder_name_is_never_looked_up(tmp_path: Path) -> None:
    listed = owner_workspaces(tmp_path / "root", lambda: ["..", "../etc", "", "alice"])
    assert [w.path for w in listed()] == [tmp_path / "root" / "alice"]


def test_the_same_owners_give_the_very_same_list(tmp_path: Path) -> None:
    owners = ["alice", "bob"]
    listed = owner_workspaces(tmp_path, lambda: list(owners))  # a new sequence on every call, equal ones
    first = listed()
    assert listed() is first  # the caller index knows in constant time that nothing changed
    owners.append("carol")
    assert listed() is not first and [w.owner_id for w in listed()] == ["alice", "bob", "carol"]


# --- the owners file, told by the kernel or checked by stat ---




def test_the_owners_file_has_one_id_a_line(tmp_path: Path, either_notes: Notifications | None,
                                           caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "owners.txt"
    path.write_text("# the owners of this host\nalice\n\n  bob  \nalice\n../etc\n-1001234567890\n")
    assert OwnersFile(path, either_notes)() == ("alice", "bob", "-1001234567890")
    assert warnings(caplog) == [f"owners file {path}: line 6 is not an owner id (1 to 64 letters, digits, '_' or "
                                "'-'); skipped"]


def test_the_owners_file_is_read_again_when_it_changes(tmp_path: Path, either_notes: Notifications | None) -> None:
    path = tmp_path / "owners.txt"
    path.write_text("alice\n")
    owners = OwnersFile(path, either_notes)
    first = owners()
    assert first == ("alice",) and owners() is first  # unchanged: the very same tuple
    for n in range(10):  # each edit applies to the next call, however soon
        path.write_text(f"alice\nbob-{n}\n")
        assert owners() == ("alice", f"bob-{n}")
    replacement = tmp_path / "owners.new"
    replacement.write_text("carol\n")
    os.replace(replacement, path)  # replaced by rename, as editors do
    assert owners() == ("carol",)


def test_a_missing_owners_file_serves_no_one_with_one_warning(tmp_path: Path, either_notes: Notifications | None,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "owners.txt"
    path.write_text("alice\n")
    owners = OwnersFile(path, either_notes)
    path.unlink()
    assert owners() == () and owners() == ()
    assert len(warnings(caplog)) == 1 and str(path) in warnings(caplog)[0]
    path.write_text("bob\n")
    assert owners() == ("bob",)


def test_an_owner_added_to_the_file_is_served_by_the_index_from_the_next_lookup(tmp_path: Path) -> None:
    notes = Notifications()
    try:
        path = tmp_path / "owners.txt"
        path.write_text("alice\n")
        root = tmp_path / "root"
        for name in ("alice", "bob"):
            give_caller(owner_workspace(root, name))
        index = CallerIndex(owner_workspaces(root, OwnersFile(path, notes)), notes)

        async def lookups() -> list[list[str]]:
            seen = [[c.owner_id for c in await index.find(KEY)]]
            path.write_text("alice\nbob\n")
            seen.append([c.owner_id for c in await index.find(KEY)])
            path.write_text("bob\n")
            seen.append([c.owner_id for c in await index.find(KEY)])
            return seen

        assert asyncio.run(lookups()) == [["alice"], ["alice", "bob"], ["bob"]]
    finally:
        notes.close()


def test_an_owners_file_that_is_a_link_is_checked_by_stat(tmp_path: Path, either_notes: Notifications | None) -> None:
    target = tmp_path / "elsewhere" / "owners.txt"
    target.parent.mkdir()
    target.write_text("alice\n")
    path = tmp_path / "owners.txt"
    path.symlink_to(target)
    owners = OwnersFile(path, either_notes)
    for n in range(5):  # the kernel tells of the link only; each edit of the target still applies
        target.write_text(f"owner-{n}\n")
        assert owners() == (f"owner-{n}",)
