"""workspace/written.py: a task this server wrote is read back from memory while its file is unchanged, and from the
file as soon as the file is not what was written (an edit by hand, a delete), with the holder bounded."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from reference_server.codecs.task_file import TaskFileCodec
from reference_server.model.caller import Workspace
from reference_server.model.types import Message, Part, Role, StoredTask, Task, TaskState, TaskStatus, utc_now
from reference_server.platform.disk import RACY_NS
from reference_server.workspace import written
from reference_server.workspace.task_store import TaskStore
from reference_server.workspace.written import Written


def new_task(text: str = "hello") -> Task:
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    message = Message(str(uuid.uuid4()), Role.USER, [Part.of_text(text)], context_id=context_id, task_id=task_id)
    return Task(task_id, context_id, TaskStatus(TaskState.COMPLETED, timestamp=utc_now()), history=[message])


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock a second on: a file written just now is past its racy window (its stat key can be trusted)."""
    now = time.time_ns
    monkeypatch.setattr(written.time, "time_ns", lambda: now() + 10 * RACY_NS)


@pytest.fixture
def store(workspace: Workspace) -> TaskStore:
    return TaskStore(workspace, TaskFileCodec())


class Reads:
    """Counts the store's reads of task files (what a load does when nothing is held)."""

    def __init__(self, store: TaskStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        read = store.read

        def counted(task_id: str, caller: str) -> StoredTask | None:
            self.count += 1
            return read(task_id, caller)

        monkeypatch.setattr(store, "read", counted)


def saved(store: TaskStore, task: Task, caller: str = "travel-bot") -> StoredTask:
    stored = StoredTask(task, caller)
    asyncio.run(store.save(stored, durable=False))
    return stored


def test_a_task_this_server_wrote_is_read_from_memory(store: TaskStore, later: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    task = new_task()
    saved(store, task)
    reads = Reads(store, monkeypatch)
    loaded = asyncio.run(store.load(task.id, "travel-bot"))
    assert loaded is not None and loaded.task == task and reads.count == 0


def test_what_it_hands_out_is_a_copy(store: TaskStore, later: None) -> None:
    task = new_task()
    saved(store, task)
    first = asyncio.run(store.load(task.id, "travel-bot"))
    assert first is not None
    first.task.history.append(first.task.history[0])
    again = asyncio.run(store.load(task.id, "travel-bot"))
    assert again is not None and len(again.task.history) == 1


def test_another_callers_task_is_not_found(store: TaskStore, later: None) -> None:
    task = new_task()
    saved(store, task)
    assert asyncio.run(store.load(task.id, "someone-else")) is None


def test_a_file_edited_by_hand_is_read_again(store: TaskStore, later: None, monkeypatch: pytest.MonkeyPatch) -> None:
    task = new_task()
    saved(store, task)
    path = store.path_for(task.id)
    assert path is not None
    edited: dict[str, Any] = json.loads(path.read_text())
    edited["status"]["state"] = "TASK_STATE_CANCELED"
    path.write_text(json.dumps(edited))
    reads = Reads(store, monkeypatch)
    loaded = asyncio.run(store.load(task.id, "travel-bot"))
    assert loaded is not None and loaded.task.status.state is TaskState.CANCELED and reads.count == 1


def test_a_deleted_file_is_not_found(store: TaskStore, later: None) -> None:
    task = new_task()
    saved(store, task)
    path = store.path_for(task.id)
    assert path is not None
    path.unlink()
    assert asyncio.run(store.load(task.id, "travel-bot")) is None


def test_a_file_within_its_racy_window_is_read_from_disk(store: TaskStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Right after a write the stat key may not have moved for an edit in the same tick: the file is read."""
    task = new_task()
    saved(store, task)
    monkeypatch.setattr(written.time, "time_ns", lambda: (store.directory / f"{task.id}.json").stat().st_mtime_ns)
    reads = Reads(store, monkeypatch)
    loaded = asyncio.run(store.load(task.id, "travel-bot"))
    assert loaded is not None and loaded.task == task and reads.count == 1


def test_the_holder_keeps_the_latest_tasks_within_its_bounds(tmp_path: Path, later: None) -> None:
    held = Written(max_tasks=2, max_bytes=1000)
    paths = [tmp_path / f"{n}.json" for n in range(3)]
    for path in paths:
        path.write_bytes(b"{}")
        held.remember(path, StoredTask(new_task(), "c"), b"{}")
    assert held.recall(paths[0]) is None
    assert held.recall(paths[1]) is not None and held.recall(paths[2]) is not None
    large = tmp_path / "large.json"
    large.write_bytes(b"x" * 600)
    held.remember(large, StoredTask(new_task(), "c"), b"x" * 600)  # over a quarter of max_bytes: not held
    assert held.recall(large) is None
