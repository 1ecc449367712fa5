"""admin.py, `reference-server a2a`: the callers with masked keys and the last tasks of a workspace or of every owner of
a host, as text or JSON; `add-caller` and `remove-caller`, atomic, refusing what would lose or corrupt callers.json."""

from __future__ import annotations

import argparse
import asyncio
import errno
import io
import json
import logging
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reference_server.admin import add_caller_parser, build_parser, main, remove_caller_parser
from reference_server.codecs.task_file import TaskFileCodec
from reference_server.hosting.overview import as_text, report_of
from reference_server.hosting.owners import owner_workspace
from reference_server.model.caller import Workspace
from reference_server.model.types import Message, Part, Role, StoredTask, Task, TaskState, TaskStatus
from reference_server.platform.changes import Notifications
from reference_server.workspace.caller_index import CallerIndex

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


# --- add-caller and remove-caller ---


def found(index: CallerIndex, key: str) -> list[tuple[str, str]]:
    """The callers the server's index finds for key: (owner, name) of each."""
    return [(caller.owner_id, caller.name) for caller in asyncio.run(index.find(key))]


def files_in(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()}


def test_add_caller_writes_an_entry_the_server_accepts_and_prints_its_key_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    alice = owner_workspace(tmp_path, "alice")
    kept = [{"name": "news-bot", "key": KEY, "note": "kept"}, {"name": "Not A Name", "key": "k_skipped_by_the_server"}]
    callers(alice, kept)
    notes = Notifications()
    try:
        index = CallerIndex(lambda: (alice,), notes)  # built before the change, as a running server's is
        assert found(index, KEY) == [("alice", "news-bot")]

        code, out = run_main(["add-caller", "travel-bot", "--note", "trip planner", "--workspace-root", str(tmp_path),
                              "--owner", "alice"])
        [key] = re.findall(r"^key: (\S+)$", out, re.M)

        assert code == 0
        assert out == (f"added the caller travel-bot to {alice.callers_file}\nkey: {key}\n"
                       "The key is shown this once: give it to the caller, who sends it as X-API-Key.\n")
        assert re.fullmatch(r"[0-9a-f]{64}", key)
        assert json.loads(alice.callers_file.read_text()) == [
            *kept, {"name": "travel-bot", "key": key, "mode": "isolated", "note": "trip planner"}]
        assert found(index, key) == [("alice", "travel-bot")]  # the next request authenticates with it
        assert found(CallerIndex(lambda: (alice,), notes), key) == [("alice", "travel-bot")]
        assert found(index, KEY) == [("alice", "news-bot")]
        _, listed = run_main(["--workspace-root", str(tmp_path), "--owner", "alice"])
    finally:
        notes.close()
    assert f"travel-bot  isolated  …{key[-4:]}  trip planner" in listed and key not in listed
    assert key not in capsys.readouterr().err
    assert key not in caplog.text and all(key not in str(record.args) for record in caplog.records)


def test_add_caller_as_json_gives_the_key_for_scripts(workspace: Workspace) -> None:
    code, out = run_main(["add-caller", "travel-bot", "--workspace", str(workspace.path), "--json"])

    data = json.loads(out)
    assert code == 0 and out.count(data["key"]) == 1
    assert data == {"name": "travel-bot", "key": data["key"], "owner": "owner",
                    "callersFile": str(workspace.callers_file)}
    assert json.loads(workspace.callers_file.read_text()) == [  # made, with its folders, when there was none
        {"name": "travel-bot", "key": data["key"], "mode": "isolated"}]


def test_remove_caller_takes_out_that_entry_only_and_the_server_refuses_its_key(tmp_path: Path) -> None:
    bob = owner_workspace(tmp_path, "bob")
    others = [{"name": "news-bot", "key": "k_news_0123456789"}, {"mode": "shared"}]
    callers(bob, [others[0], {"name": "travel-bot", "key": KEY}, others[1]])
    env = {"A2A__WorkspaceRoot": str(tmp_path), "A2A__Owners": "bob"}  # the host's one owner: no --owner needed
    notes = Notifications()
    try:
        index = CallerIndex(lambda: (bob,), notes)
        assert found(index, KEY) == [("bob", "travel-bot")]

        code, out = run_main(["remove-caller", "travel-bot"], env)

        assert code == 0
        assert out == (f"removed the caller travel-bot from {bob.callers_file}; its key is refused from the next "
                       "request\n")
        assert json.loads(bob.callers_file.read_text()) == others  # the others kept as they were, valid or not
        assert found(index, KEY) == []
        assert found(index, "k_news_0123456789") == [("bob", "news-bot")]
    finally:
        notes.close()


def test_remove_caller_takes_out_an_entry_the_server_skips(workspace: Workspace) -> None:
    callers(workspace, [{"name": "Travel Bot", "key": KEY}, {"name": "news-bot", "key": "k_news_0123456789"}])
    code, _ = run_main(["remove-caller", "Travel Bot", "--workspace", str(workspace.path)])
    assert code == 0 and json.loads(workspace.callers_file.read_text()) == [{"name": "news-bot",
                                                                            "key": "k_news_0123456789"}]


@pytest.mark.parametrize(("command", "content", "code", "said"), [
    (["add-caller", "travel-bot"], json.dumps([{"name": "travel-bot", "key": KEY}]), 1,
     "{file} already has a caller named 'travel-bot'; choose another name, or remove that caller first"),
    (["add-caller", "travel-bot"], json.dumps([{"name": "travel-bot", "mode": "shared"}]), 1,  # skipped, yet there
     "{file} already has a caller named 'travel-bot'; choose another name"),
    (["add-caller", "Travel Bot"], "[]", 2,
     "NAME 'Travel Bot' is not a caller name; expected 1 to 40 lowercase letters, digits or '-'"),
    (["add-caller", "a" * 41], "[]", 2, f"NAME {'a' * 41!r} is not a caller name"),
    (["add-caller", "travel-bot"], '[{"name": "news-bot", "key": "' + KEY + '"', 1,
     "{file} is not valid JSON (line 1); mend it by hand before callers are added or removed"),
    (["add-caller", "travel-bot"], json.dumps({"name": "news-bot", "key": KEY}), 1,
     "{file} is not a JSON list of callers; mend it by hand before callers are added or removed"),
    (["add-caller", "travel-bot"], b'[{"name": "news-bot", "key": "\xff' + KEY.encode() + b'"}]', 1,
     "{file} is not UTF-8 text; mend it by hand"),
    (["add-caller", "travel-bot"], None, 1, "{file} cannot be read (Is a directory); it was left as it is"),
    (["remove-caller", "ghost"], json.dumps([{"name": "travel-bot", "key": KEY}]), 1,
     "{file} has no caller named 'ghost'; nothing was removed"),
    (["remove-caller", "travel-bot"], '[{"name": "travel-bot", "key": "' + KEY + '"', 1,
     "{file} is not valid JSON (line 1); mend it by hand"),
    (["remove-caller", "travel-bot"], None, 1, "{file} cannot be read (Is a directory)"),
], ids=["add-taken", "add-taken-by-skipped", "add-invalid-name", "add-long-name", "add-not-json", "add-not-a-list",
        "add-not-utf8", "add-unreadable", "remove-unknown", "remove-not-json", "remove-unreadable"])
def test_a_refused_change_says_why_and_leaves_the_file_as_it_was(
        workspace: Workspace, command: list[str], content: str | bytes | None, code: int, said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = workspace.callers_file.parent
    folder.mkdir(parents=True)
    if content is None:
        workspace.callers_file.mkdir()  # unreadable as a file, whoever runs the test (root reads any file)
    else:
        workspace.callers_file.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = files_in(folder)

    assert run_main([*command, "--workspace", str(workspace.path)]) == (code, "")

    err = capsys.readouterr().err
    assert err.startswith(f"reference-server a2a {command[0]}: ") and err.count("\n") == 1
    assert said.format(file=workspace.callers_file) in err and KEY not in err
    assert files_in(folder) == before and workspace.callers_file.is_dir() == (content is None)


@pytest.mark.parametrize("command", [["add-caller", "travel-bot"], ["remove-caller", "news-bot"]])
def test_a_write_that_fails_leaves_the_file_as_it_was(workspace: Workspace, command: list[str],
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    callers(workspace, [{"name": "news-bot", "key": KEY}])
    before = files_in(workspace.callers_file.parent)

    def full(source: str, target: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full)  # the temp file is written; its rename fails
    assert run_main([*command, "--workspace", str(workspace.path)]) == (1, "")

    assert f"{workspace.callers_file} cannot be written (No space left on device)" in capsys.readouterr().err
    assert files_in(workspace.callers_file.parent) == before  # no temp file left either


def test_a_change_keeps_the_files_permission_bits_and_its_symbolic_link(tmp_path: Path, workspace: Workspace) -> None:
    shared = tmp_path / "shared" / "callers.json"
    shared.parent.mkdir()
    shared.write_text(json.dumps([{"name": "news-bot", "key": KEY}]))
    shared.chmod(0o640)  # the server's group may read it
    workspace.callers_file.parent.mkdir(parents=True)
    workspace.callers_file.symlink_to(shared)

    assert run_main(["add-caller", "travel-bot", "--workspace", str(workspace.path)])[0] == 0
    assert run_main(["remove-caller", "news-bot", "--workspace", str(workspace.path)])[0] == 0

    assert workspace.callers_file.is_symlink() and workspace.callers_file.resolve() == shared
    assert [entry["name"] for entry in json.loads(shared.read_text())] == ["travel-bot"]
    assert shared.stat().st_mode & 0o777 == 0o640


def test_a_change_on_an_owner_host_names_the_owner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for owner in ("alice", "bob", "carol"):
        (tmp_path / owner).mkdir()
    env = {"A2A__WorkspaceRoot": str(tmp_path), "A2A__Owners": "alice,bob"}

    assert run_main(["add-caller", "travel-bot"], env) == (2, "")
    assert ("which owner? expected --owner ID with the workspace root "
            f"{tmp_path} (A2A__Owners lists alice, bob)") in capsys.readouterr().err

    code, out = run_main(["add-caller", "travel-bot", "--owner", "carol"], env)  # made, and the warning says why
    assert code == 0 and "key: " in out  # it is not served
    assert capsys.readouterr().err == ("reference-server a2a add-caller: warning: owner carol is not in A2A__Owners: "
                                       "the server does not serve this workspace\n")
    assert not owner_workspace(tmp_path, "alice").callers_file.exists()


@pytest.mark.parametrize("parser", [build_parser, add_caller_parser, remove_caller_parser])
def test_every_option_of_each_command_says_its_default_and_the_help_its_exit_statuses(
        parser: Callable[[], argparse.ArgumentParser]) -> None:
    command: argparse.ArgumentParser = parser()
    options = [action for action in command._actions if action.option_strings and action.dest != "help"]
    assert options and [a.dest for a in options if "(default: " not in (a.help or "")] == []
    statuses = command.format_help().split("exit status:\n")[1]
    assert re.findall(r"^  (\d)  ", statuses, re.M) == (["0", "2"] if parser is build_parser else ["0", "1", "2"])


def test_add_caller_runs_as_reference_server_a2a_add_caller(workspace: Workspace) -> None:
    result = subprocess.run([sys.executable, "-m", "reference_server", "a2a", "add-caller", "travel-bot",
                             "--workspace", str(workspace.path)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    [key] = re.findall(r"^key: (\S+)$", result.stdout, re.M)
    assert result.stdout.count(key) == 1 and key not in result.stderr
    assert json.loads(workspace.callers_file.read_text())[0]["key"] == key
