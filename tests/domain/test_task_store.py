"""domain/task_store.py: task files, atomic writes, caller scoping."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from support.schemas import assert_valid

from reference_server.domain.callers import Caller, Workspace
from reference_server.domain.model import (
    AuthenticationInfo,
    Message,
    Part,
    PushConfig,
    Role,
    Task,
    TaskState,
    TaskStatus,
    utc_now,
)
from reference_server.domain.task_store import StoredTask, TaskStore, encode_stored, is_task_id


def new_task(state: TaskState = TaskState.WORKING) -> Task:
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    message = Message(str(uuid.uuid4()), Role.USER, [Part.of_text("hello")], context_id=context_id, task_id=task_id)
    return Task(task_id, context_id, TaskStatus(state, timestamp=utc_now()), history=[message])


def stored_of(caller: Caller, state: TaskState = TaskState.WORKING) -> StoredTask:
    return StoredTask(new_task(state), caller.name)


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_saved_task_loads_back_equal(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    stored.push_configs.append(PushConfig("https://hooks.example.com/a2a", id="p1", task_id=stored.task.id,
                                          token="t0k", authentication=AuthenticationInfo("Bearer", "c")))
    store = TaskStore(workspace)
    store.save(stored)
    assert store.load(stored.task.id, caller) == stored


def test_a_task_file_is_the_task_plus_caller_and_push_configs(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    TaskStore(workspace).save(stored)
    on_disk = json.loads((workspace.tasks_dir / f"{stored.task.id}.json").read_text(encoding="utf-8"))
    assert_valid(on_disk, "urn:reference-server:task-file")
    assert on_disk == encode_stored(stored)
    assert (on_disk["caller"], on_disk["pushConfigs"]) == ("travel-bot", [])


def test_save_replaces_the_file_and_leaves_no_temp_file(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    store = TaskStore(workspace)
    store.save(stored)
    stored.task.status = TaskStatus(TaskState.COMPLETED, timestamp=utc_now())
    store.save(stored)
    assert files_in(workspace.tasks_dir) == [f"{stored.task.id}.json"]
    loaded = store.load(stored.task.id, caller)
    assert loaded is not None and loaded.task.status.state is TaskState.COMPLETED


def test_a_failed_save_keeps_the_old_file_whole(workspace: Workspace, caller: Caller,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    stored = stored_of(caller)
    store = TaskStore(workspace)
    store.save(stored)
    before = (workspace.tasks_dir / f"{stored.task.id}.json").read_bytes()

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    stored.task.status = TaskStatus(TaskState.COMPLETED, timestamp=utc_now())
    with pytest.raises(OSError):
        store.save(stored)
    # design: written atomically (temp file + rename): a write that fails half-way changes nothing
    assert (workspace.tasks_dir / f"{stored.task.id}.json").read_bytes() == before
    assert files_in(workspace.tasks_dir) == [f"{stored.task.id}.json"]


def test_the_temp_file_is_hidden_and_not_json(workspace: Workspace, caller: Caller,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    stored = stored_of(caller)
    seen: list[str] = []

    def spy_replace(src: str, dst: Any) -> None:
        seen.append(Path(src).name)
        raise OSError("stop before the rename")

    monkeypatch.setattr(os, "replace", spy_replace)
    with pytest.raises(OSError):
        TaskStore(workspace).save(stored)
    assert len(seen) == 1 and seen[0].startswith(".") and seen[0].endswith(".tmp"), seen
    assert files_in(workspace.tasks_dir) == []


@pytest.mark.parametrize("content", ["", "{", "[]", "null", '{"id": 1}', '{"caller": "travel-bot"}',
                                     "\udcff"], ids=["empty", "torn", "array", "null", "no-caller", "no-task",
                                                     "not-utf8"])
def test_a_malformed_task_file_reads_as_missing(workspace: Workspace, caller: Caller, content: str,
                                                caplog: pytest.LogCaptureFixture) -> None:
    task_id = str(uuid.uuid4())
    workspace.tasks_dir.mkdir(parents=True)
    (workspace.tasks_dir / f"{task_id}.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    caplog.set_level("DEBUG")
    store = TaskStore(workspace)
    assert store.load(task_id, caller) is None
    assert store.list(caller) == []
    assert caplog.records == []  # design: without a log line


def test_another_callers_task_reads_as_missing(workspace: Workspace, caller: Caller) -> None:
    other = Caller("other-bot", "isolated", workspace)
    stored = stored_of(other)
    store = TaskStore(workspace)
    store.save(stored)
    assert store.load(stored.task.id, caller) is None
    assert store.load(stored.task.id, other) is not None


def test_a_file_whose_task_has_another_id_reads_as_missing(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    TaskStore(workspace).save(stored)
    copy = workspace.tasks_dir / f"{uuid.uuid4()}.json"
    copy.write_bytes((workspace.tasks_dir / f"{stored.task.id}.json").read_bytes())
    assert TaskStore(workspace).load(copy.stem, caller) is None


@pytest.mark.parametrize("task_id", ["../callers", "not-a-uuid", "", str(uuid.uuid4()).upper(),
                                     f"{uuid.uuid4()}/../x", f" {uuid.uuid4()}", f"{uuid.uuid4()}\n"],
                         ids=["traversal", "words", "empty", "upper", "uuid-then-path", "space", "newline"])
def test_a_task_id_that_is_not_a_uuid_never_touches_the_disk(workspace: Workspace, caller: Caller, task_id: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    workspace.callers_file.parent.mkdir(parents=True)
    workspace.callers_file.write_text("[]", encoding="utf-8")
    touched: list[Path] = []
    for name in ("read_text", "read_bytes", "open", "exists", "is_file", "stat"):
        original = getattr(Path, name)

        def spy(self: Path, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            touched.append(self)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Path, name, spy)
    assert not is_task_id(task_id)
    assert TaskStore(workspace).load(task_id, caller) is None
    assert touched == []


def test_a_task_with_a_non_uuid_id_cannot_be_saved(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    stored.task.id = "../callers"
    with pytest.raises(ValueError, match="not a UUID"):
        TaskStore(workspace).save(stored)
    assert not workspace.callers_file.exists()


def test_list_returns_only_the_callers_readable_tasks(workspace: Workspace, caller: Caller) -> None:
    store = TaskStore(workspace)
    mine = [stored_of(caller) for _ in range(3)]
    for stored in [*mine, stored_of(Caller("other-bot", "isolated", workspace))]:
        store.save(stored)
    (workspace.tasks_dir / f"{uuid.uuid4()}.json").write_text("{", encoding="utf-8")
    (workspace.tasks_dir / f".{mine[0].task.id}.abc.tmp").write_text("{", encoding="utf-8")
    (workspace.tasks_dir / "notes.json").write_text(json.dumps(encode_stored(mine[0])), encoding="utf-8")
    assert sorted(s.task.id for s in store.list(caller)) == sorted(s.task.id for s in mine)


def test_list_of_a_workspace_without_tasks_is_empty(workspace: Workspace, caller: Caller) -> None:
    assert TaskStore(workspace).list(caller) == []
    assert not workspace.tasks_dir.exists()
