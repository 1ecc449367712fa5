"""domain/watches.py: watches.json read on every push, the token check, the push log of each watch."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from reference_server.conformance.support.schemas import assert_valid
from reference_server.hosting.watches import Watch, WorkspaceWatches, read_watches
from reference_server.model.caller import Workspace
from reference_server.model.types import is_watch_id

TOKEN = "t_9b2e4c0123456789abcdef"
PUSH = {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}}


def write(workspace: Workspace, entries: Any) -> Path:
    path = workspace.watches_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries), encoding="utf-8")
    return path


def push(watches: WorkspaceWatches, watch_id: str, token: str | None, body: Any = PUSH) -> bool:
    return asyncio.run(watches(watch_id, token, body))


def logged(workspace: Workspace, watch_id: str) -> list[dict[str, Any]]:
    path = workspace.pushes_dir / f"{watch_id}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


@pytest.fixture
def watches(workspace: Workspace) -> WorkspaceWatches:
    write(workspace, [{"id": "build-status", "token": TOKEN, "description": "CI of the web app"}])
    return WorkspaceWatches(lambda: [workspace])


def test_a_push_with_the_token_is_accepted_and_logged_as_sent(watches: WorkspaceWatches,
                                                                workspace: Workspace) -> None:
    assert push(watches, "build-status", TOKEN) is True
    [line] = logged(workspace, "build-status")
    assert line["watch"] == "build-status" and line["body"] == PUSH
    assert_valid(line, "urn:reference-server:push-log")


def test_each_accepted_push_is_one_more_line_in_order(watches: WorkspaceWatches, workspace: Workspace) -> None:
    bodies = [{"n": n, "text": "é\n\u2028\u2029\x85\x1c"} for n in range(5)]  # characters some readers split on
    for body in bodies:
        assert push(watches, "build-status", TOKEN, body)
    text = (workspace.pushes_dir / "build-status.jsonl").read_text(encoding="utf-8")
    assert text.count("\n") == 5 and text.endswith("\n")
    assert [line["body"] for line in logged(workspace, "build-status")] == bodies
    stamps = [line["receivedAt"] for line in logged(workspace, "build-status")]
    assert stamps == sorted(stamps)


@pytest.mark.parametrize("token", ["t_wrong", TOKEN[:-1], TOKEN + "x", None, "\ud800"],
                         ids=["wrong", "prefix", "longer", "none", "lone-surrogate"])
def test_a_push_without_the_watch_token_is_refused(watches: WorkspaceWatches, workspace: Workspace,
                                                   token: str | None) -> None:
    assert push(watches, "build-status", token) is False
    assert logged(workspace, "build-status") == []


def test_a_push_for_an_unknown_watch_is_refused(watches: WorkspaceWatches, workspace: Workspace) -> None:
    assert push(watches, "other", TOKEN) is False
    assert not workspace.pushes_dir.exists()


def test_a_watch_without_a_token_takes_every_push(workspace: Workspace) -> None:
    write(workspace, [{"id": "open"}])
    watches = WorkspaceWatches(lambda: [workspace])
    assert push(watches, "open", None) and push(watches, "open", "anything")
    assert len(logged(workspace, "open")) == 2


def test_a_missing_file_means_no_watches_and_no_warning(workspace: Workspace,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    assert read_watches(workspace.watches_file) == {}
    assert push(WorkspaceWatches(lambda: [workspace]), "build-status", TOKEN) is False
    assert warnings(caplog) == []


@pytest.mark.parametrize("text", ['[{"id": "build-status", "token": "' + TOKEN + '"', "{}", "null", "\xff"],
                         ids=["torn", "object", "null", "not-utf-8"])
def test_a_malformed_file_means_no_watches_and_one_warning_naming_the_file(
        workspace: Workspace, caplog: pytest.LogCaptureFixture, text: str) -> None:
    path = write(workspace, "")
    path.write_bytes(text.encode("latin-1"))
    assert push(WorkspaceWatches(lambda: [workspace]), "build-status", TOKEN) is False
    found = warnings(caplog)
    assert len(found) == 1 and str(path) in found[0], found
    assert TOKEN not in caplog.text


@pytest.mark.parametrize(("entry", "reason"), [
    ({"id": "build.status"}, "has no valid id"),
    ({"id": "a" * 101}, "has no valid id"),
    ({"id": ""}, "has no valid id"),
    ({"id": "build-status\n"}, "has no valid id"),
    ({"token": TOKEN}, "has no valid id"),
    ({"id": "build-status", "token": ""}, "has a token that is not a non-empty string"),
    ({"id": "build-status", "token": 42}, "has a token that is not a non-empty string"),
    ("build-status", "is not an object"),
], ids=["dot", "too-long", "empty", "newline", "no-id", "empty-token", "number-token", "string"])
def test_an_invalid_entry_is_skipped_with_a_warning(workspace: Workspace, caplog: pytest.LogCaptureFixture,
                                                    entry: Any, reason: str) -> None:
    path = write(workspace, [entry, {"id": "ok", "token": TOKEN}])
    assert list(read_watches(path)) == ["ok"]
    found = warnings(caplog)
    assert len(found) == 1 and reason in found[0] and str(path) in found[0], found


def test_a_repeated_id_keeps_the_first_entry(workspace: Workspace, caplog: pytest.LogCaptureFixture) -> None:
    path = write(workspace, [{"id": "w", "token": TOKEN}, {"id": "w", "token": "t_other"}])
    assert read_watches(path) == {"w": Watch("w", TOKEN)}
    assert "repeats the id 'w'" in warnings(caplog)[0]


def test_an_edit_applies_to_the_next_push(watches: WorkspaceWatches, workspace: Workspace) -> None:
    assert push(watches, "late", TOKEN) is False
    write(workspace, [{"id": "late", "token": TOKEN}])
    assert push(watches, "late", TOKEN) is True
    write(workspace, [])
    assert push(watches, "late", TOKEN) is False


def test_the_first_workspace_listing_the_watch_decides(tmp_path: Path) -> None:
    first, second = Workspace(tmp_path / "alice", owner_id="alice"), Workspace(tmp_path / "bob", owner_id="bob")
    write(first, [{"id": "shared", "token": "t_alice"}])
    write(second, [{"id": "shared", "token": "t_bob"}, {"id": "bobs", "token": "t_bob"}])
    watches = WorkspaceWatches(lambda: [first, second])
    assert push(watches, "shared", "t_alice") and push(watches, "bobs", "t_bob")
    assert push(watches, "shared", "t_bob") is False  # alice's watch decides; bob's token does not open it
    assert len(logged(first, "shared")) == 1 and logged(second, "shared") == []
    assert len(logged(second, "bobs")) == 1


@pytest.mark.parametrize("watch_id", ["..", ".", "a/b", "a" * 101, "", "w\n", "wé"])
def test_an_id_the_server_never_gives_touches_no_file(tmp_path: Path, watch_id: str) -> None:
    assert not is_watch_id(watch_id)

    def no_workspaces() -> list[Workspace]:
        raise AssertionError("the workspaces were listed")

    assert push(WorkspaceWatches(no_workspaces), watch_id, TOKEN) is False


def test_no_token_reaches_a_log_line(watches: WorkspaceWatches, workspace: Workspace,
                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    push(watches, "build-status", TOKEN)
    push(watches, "build-status", "t_wrong_" + TOKEN)
    push(watches, "unknown", TOKEN)
    write(workspace, [{"id": "build-status", "token": TOKEN}, {"id": "x", "token": 7}, {"id": "x", "token": TOKEN}])
    push(watches, "build-status", TOKEN)
    assert caplog.records and TOKEN not in caplog.text
    assert TOKEN not in repr(read_watches(workspace.watches_file))


def test_the_documented_example_is_read(workspace: Workspace) -> None:
    docs = Path(__file__).resolve().parents[3] / "docs" / "workspace.md"
    section = docs.read_text(encoding="utf-8").split("## watches.json and the push logs\n", 1)[1]
    example = section.split("```json\n", 1)[1].split("```", 1)[0]
    path = write(workspace, example)
    assert read_watches(path) == {"build-status": Watch("build-status", "t_7f3a9c…"),
                                  "local-experiments": Watch("local-experiments")}
