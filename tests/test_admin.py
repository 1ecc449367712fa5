"""admin.py, `reference-server a2a`: the callers with masked keys and the last tasks of a workspace or of every owner of
a host, as text or JSON."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reference_server.admin import as_text, main, report_of
from reference_server.domain.callers import Workspace
from reference_server.domain.model import Message, Part, Role, Task, TaskState, TaskStatus
from reference_server.domain.owners import owner_workspace
from reference_server.domain.task_store import StoredTask
from reference_server.wire.task_file import TaskFileCodec

KEY = "k_0123456789abcdef3f9c"
NOW = datetime(2026, 10, 7, 14, 0, tzinfo=UTC)


def callers(workspace: Workspace, entries: Any) -> None:
    workspace.callers_file.parent.mkdir(parents=True, exist_ok=True)
    workspace.callers_file.write_text(entries if isinstance(entries, str) else json.dumps(entries))


def task(workspace: Workspace, caller: str, state: TaskState, minutes_ago: float) -> str:
    task_id = str(uuid.uuid4())
    message = Message(message_id="m1", role=Role.USER, parts=[Part(text="hi")])
    stored = StoredTask(Task(id=task_id, context_id="c1", history=[message],
                             status=TaskStatus(state, timestamp=NOW - timedelta(minutes=minutes_ago))), caller)
    workspace.tasks_dir.mkdir(parents=True, exist_ok=True)
    (workspace.tasks_dir / f"{task_id}.json").write_bytes(TaskFileCodec().encode(stored))
    return task_id


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    folder = tmp_path / "alice"
    folder.mkdir()
    return Workspace(folder, owner_id="alice")


def test_the_report_masks_keys_and_lists_the_last_ten_tasks_newest_first(workspace: Workspace) -> None:
    callers(workspace, [{"name": "travel-bot", "key": KEY, "note": "Alice's trip planner"},
                        {"name": "news-bot", "key": "short"}])
    ids = [task(workspace, "travel-bot", TaskState.COMPLETED, minutes) for minutes in range(12)]

    report = report_of(workspace)

    assert [(c.name, c.mode, c.key, c.note) for c in report.callers] == [
        ("travel-bot", "isolated", "…3f9c", "Alice's trip planner"), ("news-bot", "isolated", "…", None)]
    assert [t.id for t in report.tasks] == ids[:10] and report.task_count == 12
    assert report.problems == []


def test_the_text_shows_callers_tasks_and_ages(workspace: Workspace) -> None:
    callers(workspace, [{"name": "travel-bot", "key": KEY}])
    task_id = task(workspace, "travel-bot", TaskState.INPUT_REQUIRED, 90)

    text = as_text(report_of(workspace), NOW)

    assert text.splitlines()[:4] == [f"A2A of owner alice: {workspace.path}", "", "Callers (1):",
                                     "  NAME        MODE      KEY    NOTE"]
    assert "  travel-bot  isolated  …3f9c" in text.splitlines()
    assert f"  travel-bot  input-required  1h   {task_id}" in text.splitlines()
    assert KEY not in text


def test_malformed_files_are_reported_not_raised(workspace: Workspace) -> None:
    callers(workspace, '[{"name": "travel-bot", "key": "' + KEY + '"')
    good = task(workspace, "travel-bot", TaskState.COMPLETED, 1)
    broken = workspace.tasks_dir / f"{uuid.uuid4()}.json"
    broken.write_text('{"id": "')
    (workspace.tasks_dir / f".{good}.1.tmp").write_text("half a write")  # not a task file: never read

    report = report_of(workspace)

    assert report.callers == [] and [t.id for t in report.tasks] == [good]
    assert report.problems == [f"callers file {workspace.callers_file} is not valid JSON (line 1); no callers",
                               f"task file {broken} is not a valid task file; the server reads it as not found"]
    assert "Problems (2):" in as_text(report, NOW) and KEY not in as_text(report, NOW)


def test_the_text_carries_no_control_characters_from_the_files(workspace: Workspace) -> None:
    callers(workspace, [{"name": "travel-bot", "key": KEY, "note": "\x1b]0;owned\x07 hi"}])

    text = as_text(report_of(workspace), NOW)

    assert "\x1b" not in text and "\x07" not in text and "\N{REPLACEMENT CHARACTER}]0;owned" in text


def run_main(argv: list[str], env: dict[str, str] | None = None, default: Path | None = None) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, default_workspace=lambda: default or Path("/nonexistent"), env=env or {}, out=out)
    return code, out.getvalue()


def test_json_for_one_owner_under_a_root(tmp_path: Path) -> None:
    alice = owner_workspace(tmp_path, "alice")
    callers(alice, [{"name": "travel-bot", "key": KEY}])
    task_id = task(alice, "travel-bot", TaskState.COMPLETED, 2)

    code, out = run_main(["--workspace-root", str(tmp_path), "--owner", "alice", "--json"])

    data = json.loads(out)
    assert code == 0
    assert data["owner"] == "alice" and data["workspace"] == str(tmp_path / "alice")
    assert data["callers"] == [{"name": "travel-bot", "mode": "isolated", "key": "…3f9c"}]
    [listed] = data["tasks"]
    assert (listed["id"], listed["caller"], listed["state"]) == (task_id, "travel-bot", "completed")
    assert listed["ageSeconds"] >= 0 and listed["updated"].endswith("Z")
    assert data["taskCount"] == 1 and data["problems"] == []


def test_the_hosts_environment_names_the_workspace_when_the_flags_do_not(tmp_path: Path) -> None:
    callers(owner_workspace(tmp_path, "bob"), [{"name": "news-bot", "key": KEY}])
    env = {"A2A__WorkspaceRoot": str(tmp_path), "A2A__Owners": "alice,bob"}

    code, out = run_main(["--owner", "bob"], env)
    assert code == 0 and "A2A of owner bob" in out and "news-bot" in out

    (tmp_path / "carol").mkdir()
    code, out = run_main(["--owner", "carol"], env)  # an owner the host does not list is shown, with a warning
    assert code == 0 and "owner carol is not in A2A__Owners: the server does not serve this workspace" in out

    (tmp_path / "solo").mkdir()
    code, out = run_main(["--workspace", str(tmp_path / "solo")], env)
    assert code == 0 and "A2A of owner owner:" in out and "Callers (0):" in out


def test_every_owner_the_host_lists_is_shown_in_its_order_with_callers_and_tasks(tmp_path: Path) -> None:
    alice, bob = owner_workspace(tmp_path, "alice"), owner_workspace(tmp_path, "bob")
    callers(alice, [{"name": "travel-bot", "key": KEY, "note": "trip planner"}])
    callers(bob, [{"name": "news-bot", "key": "k_bob_0123456789_51d2e8"}, {"name": "mail-bot", "key": "k_short"}])
    older, newer = task(alice, "travel-bot", TaskState.COMPLETED, 30), task(alice, "travel-bot", TaskState.FAILED, 1)
    bob_task = task(bob, "news-bot", TaskState.WORKING, 5)
    callers(owner_workspace(tmp_path, "carol"), [{"name": "stray-bot", "key": "k_carol_stray_0b44e1"}])  # not listed
    env = {"A2A__WorkspaceRoot": str(tmp_path), "A2A__Owners": "bob,alice,dave"}  # dave has no folder yet

    code, out = run_main([], env)

    assert code == 0
    assert re.sub(r"  \d+[smhd] *  ", "  <age>  ", out).splitlines() == [
        f"A2A of 3 owners under {tmp_path}", "",
        f"A2A of owner bob: {tmp_path / 'bob'}", "",
        "Callers (2):",
        "  NAME      MODE      KEY    NOTE",
        "  news-bot  isolated  …d2e8",
        "  mail-bot  isolated  …", "",
        "Tasks (1, newest first):",
        "  CALLER    STATE    AGE  TASK",
        f"  news-bot  working  <age>  {bob_task}", "",
        f"A2A of owner alice: {tmp_path / 'alice'}", "",
        "Callers (1):",
        "  NAME        MODE      KEY    NOTE",
        "  travel-bot  isolated  …3f9c  trip planner", "",
        "Tasks (2, newest first):",
        "  CALLER      STATE      AGE  TASK",
        f"  travel-bot  failed     <age>  {newer}",
        f"  travel-bot  completed  <age>  {older}", "",
        f"A2A of owner dave: {tmp_path / 'dave'}", "",
        "Callers (0):",
        "  none: no valid entry in .volcanic/a2a/callers.json", "",
        "Tasks (0, newest first):",
        "  none", "",
        "Problems (1):",
        f"  {tmp_path / 'dave'} is not a folder yet; the server serves this owner once it is made"]
    assert "stray-bot" not in out  # a folder the host does not list is never read


def test_every_owner_of_the_owners_file_is_shown_as_json(tmp_path: Path) -> None:
    alice, bob = owner_workspace(tmp_path / "root", "alice"), owner_workspace(tmp_path / "root", "bob")
    callers(alice, [{"name": "travel-bot", "key": KEY}])
    callers(bob, [{"name": "news-bot", "key": "k_bob_0123456789_51d2e8"}])
    bob_task = task(bob, "news-bot", TaskState.INPUT_REQUIRED, 3)
    owners = tmp_path / "owners.txt"
    owners.write_text("# the owners\nalice\n../etc\nbob\n")
    env = {"A2A__WorkspaceRoot": str(tmp_path / "root"), "A2A__OwnersFile": str(owners)}

    code, out = run_main(["--json"], env)

    data = json.loads(out)
    assert code == 0 and data["root"] == str(tmp_path / "root")
    assert [(o["owner"], [c["name"] for c in o["callers"]], [t["id"] for t in o["tasks"]]) for o in data["owners"]] \
        == [("alice", ["travel-bot"], []), ("bob", ["news-bot"], [bob_task])]
    assert data["owners"][1]["tasks"][0]["state"] == "input-required"
    assert [c["key"] for o in data["owners"] for c in o["callers"]] == ["…3f9c", "…d2e8"]
    assert data["problems"] == [f"owners file {owners}: line 3 is not an owner id (1 to 64 letters, digits, '_' or "
                                "'-'); skipped"]


def test_a_root_no_owner_list_names_shows_every_owner_folder_and_says_so(tmp_path: Path) -> None:
    callers(owner_workspace(tmp_path, "bob"), [{"name": "news-bot", "key": KEY}])
    (tmp_path / "alice").mkdir()
    (tmp_path / "not an owner").mkdir()
    (tmp_path / "notes.txt").write_text("a file, not an owner")

    code, out = run_main(["--workspace-root", str(tmp_path)])

    assert code == 0
    assert [line for line in out.splitlines() if line.startswith("A2A of ")] == [
        f"A2A of 2 owners under {tmp_path}", f"A2A of owner alice: {tmp_path / 'alice'}",
        f"A2A of owner bob: {tmp_path / 'bob'}"]
    assert out.splitlines()[2:4] == ["Problems of the host (1):", f"  no owner list names the root {tmp_path} "
                                     "(A2A__WorkspaceRoot with A2A__Owners or A2A__OwnersFile): every folder under "
                                     "it is shown, whether the server serves it or not"]


@pytest.mark.parametrize(("argv", "env", "said"), [
    (["--workspace-root", "/nonexistent"], {}, "the workspace root /nonexistent is not a folder"),
    ([], {"A2A__WorkspaceRoot": "/", "A2A__OwnersFile": "/nonexistent/owners"},
     "the owners file /nonexistent/owners cannot be read; expected --owner ID to show one owner"),
    (["--workspace-root", "/srv", "--owner", "../etc"], {}, "--owner has the value '../etc'; expected an owner id"),
    (["--workspace", "/nonexistent/alice"], {}, "/nonexistent/alice is not a folder"),
    ([], {}, "/nonexistent is not a folder"),  # the default: the demo workspace, not made yet
], ids=["missing-root", "unreadable-owners-file", "path-as-owner", "missing-folder", "no-demo"])
def test_a_workspace_it_cannot_tell_or_find_is_a_usage_error(argv: list[str], env: dict[str, str], said: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_main(argv, env)
    assert (code, out) == (2, "")
    assert said in capsys.readouterr().err


def test_the_command_runs_as_reference_server_a2a(workspace: Workspace) -> None:
    callers(workspace, [{"name": "travel-bot", "key": KEY}])
    result = subprocess.run([sys.executable, "-m", "reference_server", "a2a", "--workspace", str(workspace.path)],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "travel-bot  isolated  …3f9c" in result.stdout and KEY not in result.stdout
