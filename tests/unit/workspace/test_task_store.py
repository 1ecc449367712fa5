"""workspace/task_store.py: task files, atomic ordered writes, caller scoping, the listing index."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import uuid
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from support.kernel import Refusing, queue_limit

from reference_server.codecs.task_file import TaskFileCodec, encode_stored
from reference_server.conformance.support.schemas import assert_valid
from reference_server.model.caller import Caller, Workspace
from reference_server.model.types import (
    AuthenticationInfo,
    ListTasksQuery,
    Message,
    Part,
    PushConfig,
    Role,
    StoredTask,
    Task,
    TaskState,
    TaskStatus,
    utc_now,
)
from reference_server.platform import disk
from reference_server.platform.changes import Notifications
from reference_server.workspace.task_store import TaskStore, is_task_id

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def store_of(workspace: Workspace, codec: TaskFileCodec | None = None, notes: Notifications | None = None) -> TaskStore:
    return TaskStore(workspace, codec or TaskFileCodec(), notes)




def listed(store: TaskStore, caller: Caller, query: ListTasksQuery | None = None) -> list[StoredTask]:
    """Every task of the caller that a listing shows (nothing is live here)."""
    return store.listing(caller.name, query or ListTasksQuery(page_size=1000), {}, lambda _: False).tasks


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
    store = store_of(workspace)
    run(store.save(stored, durable=True))
    assert run(store.load(stored.task.id, caller.name)) == stored


def test_a_task_file_is_the_task_plus_caller_and_push_configs(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    run(store_of(workspace).save(stored, durable=True))
    on_disk = json.loads((workspace.tasks_dir / f"{stored.task.id}.json").read_text(encoding="utf-8"))
    assert_valid(on_disk, "urn:reference-server:task-file")
    assert on_disk == encode_stored(stored)
    assert (on_disk["caller"], on_disk["pushConfigs"]) == ("travel-bot", [])


def test_save_replaces_the_file_and_leaves_no_temp_file(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    store = store_of(workspace)
    run(store.save(stored, durable=True))
    stored.task.status = TaskStatus(TaskState.COMPLETED, timestamp=utc_now())
    run(store.save(stored, durable=True))
    assert files_in(workspace.tasks_dir) == [f"{stored.task.id}.json"]
    loaded = run(store.load(stored.task.id, caller.name))
    assert loaded is not None and loaded.task.status.state is TaskState.COMPLETED


def test_a_failed_save_keeps_the_old_file_whole(workspace: Workspace, caller: Caller,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    stored = stored_of(caller)
    store = store_of(workspace)
    run(store.save(stored, durable=True))
    before = (workspace.tasks_dir / f"{stored.task.id}.json").read_bytes()

    def disk_full(src: str, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    stored.task.status = TaskStatus(TaskState.COMPLETED, timestamp=utc_now())
    with pytest.raises(OSError):
        run(store.save(stored, durable=True))
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
        run(store_of(workspace).save(stored, durable=True))
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
    store = store_of(workspace)
    assert run(store.load(task_id, caller.name)) is None
    assert listed(store, caller) == []
    assert [r for r in caplog.records if r.name.startswith("reference_server")] == []  # design: no log line


def test_another_callers_task_reads_as_missing(workspace: Workspace, caller: Caller) -> None:
    other = Caller("other-bot", "isolated", workspace)
    stored = stored_of(other)
    store = store_of(workspace)
    run(store.save(stored, durable=True))
    assert run(store.load(stored.task.id, caller.name)) is None
    assert run(store.load(stored.task.id, other.name)) is not None


def test_a_file_whose_task_has_another_id_reads_as_missing(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    run(store_of(workspace).save(stored, durable=True))
    copy = workspace.tasks_dir / f"{uuid.uuid4()}.json"
    copy.write_bytes((workspace.tasks_dir / f"{stored.task.id}.json").read_bytes())
    assert run(store_of(workspace).load(copy.stem, caller.name)) is None


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
    assert run(store_of(workspace).load(task_id, caller.name)) is None
    assert touched == []


def test_a_task_with_a_non_uuid_id_cannot_be_saved(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    stored.task.id = "../callers"
    with pytest.raises(ValueError, match="not a UUID"):
        run(store_of(workspace).save(stored, durable=True))
    assert not workspace.callers_file.exists()


def test_list_returns_only_the_callers_readable_tasks(workspace: Workspace, caller: Caller,
                                                      either_notes: Notifications | None) -> None:
    store = store_of(workspace, None, either_notes)
    mine = [stored_of(caller, TaskState.COMPLETED) for _ in range(3)]
    for stored in [*mine, stored_of(Caller("other-bot", "isolated", workspace))]:
        run(store.save(stored, durable=True))
    (workspace.tasks_dir / f"{uuid.uuid4()}.json").write_text("{", encoding="utf-8")
    (workspace.tasks_dir / f".{mine[0].task.id}.abc.tmp").write_text("{", encoding="utf-8")
    (workspace.tasks_dir / "notes.json").write_text(json.dumps(encode_stored(mine[0])), encoding="utf-8")
    assert sorted(s.task.id for s in listed(store, caller)) == sorted(s.task.id for s in mine)


def test_list_of_a_workspace_without_tasks_is_empty(workspace: Workspace, caller: Caller,
                                                    either_notes: Notifications | None) -> None:
    assert listed(store_of(workspace, None, either_notes), caller) == []
    assert not workspace.tasks_dir.exists()


def test_saves_of_one_task_land_in_the_order_they_were_asked_for(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller)
    store = store_of(workspace)
    states = [TaskState.WORKING, TaskState.INPUT_REQUIRED, TaskState.WORKING, TaskState.COMPLETED]

    async def save_each() -> None:
        saves = []
        for state in states:
            stored.task.status = TaskStatus(state, timestamp=utc_now())
            saves.append(asyncio.ensure_future(store.save(stored, durable=state.terminal)))
        await asyncio.gather(*saves)

    run(save_each())
    loaded = run(store.load(stored.task.id, caller.name))
    assert loaded is not None and loaded.task.status.state is TaskState.COMPLETED


def test_a_queued_write_holds_the_task_as_it_was_when_saved(workspace: Workspace, caller: Caller) -> None:
    """The bytes are made on the writer thread when the write's turn comes, from a copy of the task's lists taken at
    save time: what the run changes meanwhile waits for its own save."""
    stored = stored_of(caller)
    store = store_of(workspace)
    hold = disk.WRITER.replace(workspace.path / "first.bin", lambda: (released.wait(10), b"")[1], durable=False)

    async def save_then_change() -> None:
        queued = asyncio.ensure_future(store.save(stored, durable=False))
        await asyncio.sleep(0)  # the save is queued behind the held write
        stored.task.history.append(Message("m-later", Role.AGENT, [Part.of_text("later")]))
        stored.task.status = TaskStatus(TaskState.COMPLETED, timestamp=utc_now())
        released.set()
        await queued

    released = threading.Event()
    run(save_then_change())
    hold.result(timeout=10)
    on_disk = json.loads((workspace.tasks_dir / f"{stored.task.id}.json").read_text(encoding="utf-8"))
    assert on_disk["status"]["state"] == "TASK_STATE_WORKING" and len(on_disk["history"]) == 1


def test_recover_changes_the_file_as_it_is_now(workspace: Workspace, caller: Caller) -> None:
    stored = stored_of(caller, TaskState.WORKING)
    store = store_of(workspace)
    run(store.save(stored, durable=False))
    stale = run(store.load(stored.task.id, caller.name))  # read while working
    stored.task.status = TaskStatus(TaskState.COMPLETED, timestamp=utc_now())
    run(store.save(stored, durable=True))  # then the run ended

    def fail_if_working(found: StoredTask) -> bool:
        if found.task.status.state is not TaskState.WORKING:
            return False
        found.task.status = TaskStatus(TaskState.FAILED, timestamp=utc_now())
        return True

    assert stale is not None and stale.task.status.state is TaskState.WORKING
    recovered = run(store.update(stored.task.id, caller.name, fail_if_working))
    assert recovered is not None and recovered.task.status.state is TaskState.COMPLETED
    on_disk = run(store.load(stored.task.id, caller.name))
    assert on_disk is not None and on_disk.task.status.state is TaskState.COMPLETED


class CountingCodec(TaskFileCodec):
    def __init__(self) -> None:
        self.decoded = 0

    def decode(self, data: bytes) -> StoredTask | None:
        self.decoded += 1
        return super().decode(data)


def test_a_listing_reads_only_the_files_that_changed(workspace: Workspace, caller: Caller,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     either_notes: Notifications | None) -> None:
    monkeypatch.setattr(disk, "RACY_NS", 0)  # as if the files were written long before the listing
    codec = CountingCodec()
    store = store_of(workspace, codec, either_notes)
    tasks = [stored_of(caller, TaskState.COMPLETED) for _ in range(5)]
    for stored in tasks:
        run(store.save(stored, durable=False))

    assert len(listed(store, caller)) == 5
    codec.decoded = 0
    assert len(listed(store, caller, ListTasksQuery(page_size=1))) == 1
    assert codec.decoded == 1  # the page's one task, and no file of the scan


def test_a_listing_sees_a_file_edited_or_deleted_by_hand(workspace: Workspace, caller: Caller,
                                                         either_notes: Notifications | None) -> None:
    store = store_of(workspace, None, either_notes)
    first, second = stored_of(caller, TaskState.COMPLETED), stored_of(caller, TaskState.COMPLETED)
    for stored in (first, second):
        run(store.save(stored, durable=False))
    completed = ListTasksQuery(status=TaskState.COMPLETED, page_size=10)
    assert len(listed(store, caller, completed)) == 2

    path = workspace.tasks_dir / f"{first.task.id}.json"
    edited = json.loads(path.read_text(encoding="utf-8"))
    edited["status"]["state"] = "TASK_STATE_CANCELED"
    path.write_text(json.dumps(edited), encoding="utf-8")  # in place: same inode
    (workspace.tasks_dir / f"{second.task.id}.json").unlink()

    assert listed(store, caller, completed) == []
    assert [s.task.id for s in listed(store, caller)] == [first.task.id]
    page = store.listing(caller.name, ListTasksQuery(), {}, lambda _: False).page
    assert page is not None and page.total_size == 1  # the deleted file is not counted either


def test_a_listing_reports_stale_tasks_instead_of_a_page(workspace: Workspace, caller: Caller,
                                                         either_notes: Notifications | None) -> None:
    store = store_of(workspace, None, either_notes)
    working, done = stored_of(caller, TaskState.WORKING), stored_of(caller, TaskState.COMPLETED)
    for stored in (working, done):
        run(store.save(stored, durable=False))

    dead = store.listing(caller.name, ListTasksQuery(), {}, lambda _: False)
    alive = store.listing(caller.name, ListTasksQuery(), {}, lambda task_id: task_id == working.task.id)

    assert (dead.stale, dead.page) == ([working.task.id], None)
    assert alive.stale == [] and alive.page is not None and alive.page.total_size == 2


def test_a_listing_shows_a_live_task_in_place_of_its_file(workspace: Workspace, caller: Caller,
                                                          either_notes: Notifications | None) -> None:
    store = store_of(workspace, None, either_notes)
    stored = stored_of(caller, TaskState.WORKING)
    run(store.save(stored, durable=False))
    live = stored_of(caller, TaskState.WORKING).task
    live.id = stored.task.id
    live.status = TaskStatus(TaskState.INPUT_REQUIRED, timestamp=utc_now())
    not_yet_on_disk = stored_of(caller, TaskState.WORKING).task

    listing = store.listing(caller.name, ListTasksQuery(), {live.id: live, not_yet_on_disk.id: not_yet_on_disk},
                            lambda _: False)

    assert listing.stale == []
    assert {s.task.id: s.task.status.state for s in listing.tasks} == {
        live.id: TaskState.INPUT_REQUIRED, not_yet_on_disk.id: TaskState.WORKING}


# --- the listing index kept by the kernel's notifications ---


class Looks:
    """Counts what listings look at: whole-folder scans, and single files."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.scans, self.files = 0, 0
        scan, look = TaskStore._scan, TaskStore._look

        def counted_scan(store: TaskStore) -> None:
            self.scans += 1
            scan(store)

        def counted_look(store: TaskStore, task_id: str, path: str) -> None:
            self.files += 1
            look(store, task_id, path)

        monkeypatch.setattr(TaskStore, "_scan", counted_scan)
        monkeypatch.setattr(TaskStore, "_look", counted_look)

    def reset(self) -> None:
        self.scans, self.files = 0, 0


def edit_state(workspace: Workspace, task_id: str, state: str) -> None:
    path = workspace.tasks_dir / f"{task_id}.json"
    edited = json.loads(path.read_text(encoding="utf-8"))
    edited["status"]["state"] = state
    path.write_text(json.dumps(edited), encoding="utf-8")


def states(store: TaskStore, caller: Caller) -> dict[str, TaskState]:
    return {s.task.id: s.task.status.state for s in listed(store, caller)}


def test_a_listing_looks_only_at_the_files_the_kernel_named(workspace: Workspace, caller: Caller,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    notes = Notifications()
    try:
        store = store_of(workspace, None, notes)
        tasks = [stored_of(caller, TaskState.COMPLETED) for _ in range(20)]
        for stored in tasks:
            run(store.save(stored, durable=False))
        looks = Looks(monkeypatch)
        assert len(states(store, caller)) == 20
        assert looks.scans == 1  # the first listing: the whole folder once
        looks.reset()
        edit_state(workspace, tasks[3].task.id, "TASK_STATE_CANCELED")
        (workspace.tasks_dir / f"{tasks[4].task.id}.json").unlink()
        found = states(store, caller)
        assert (looks.scans, looks.files) == (0, 2)  # the two files the kernel named, and nothing else
        assert found[tasks[3].task.id] is TaskState.CANCELED and tasks[4].task.id not in found and len(found) == 19
        looks.reset()
        assert len(states(store, caller)) == 19 and (looks.scans, looks.files) == (0, 0)
    finally:
        notes.close()


def test_a_tasks_folder_replaced_whole_is_listed_again(workspace: Workspace, caller: Caller) -> None:
    notes = Notifications()
    try:
        store = store_of(workspace, None, notes)
        old = stored_of(caller, TaskState.COMPLETED)
        run(store.save(old, durable=False))
        assert list(states(store, caller)) == [old.task.id]
        workspace.tasks_dir.rename(workspace.tasks_dir.with_name("tasks-old"))
        assert states(store, caller) == {}
        new = stored_of(caller, TaskState.COMPLETED)
        run(store.save(new, durable=False))  # a new folder, made by the write
        assert list(states(store, caller)) == [new.task.id]
        edit_state(workspace, new.task.id, "TASK_STATE_FAILED")
        assert states(store, caller) == {new.task.id: TaskState.FAILED}
    finally:
        notes.close()


def test_a_tasks_folder_the_kernel_will_not_watch_is_scanned_on_every_listing(
        workspace: Workspace, caller: Caller, monkeypatch: pytest.MonkeyPatch) -> None:
    notes = Notifications(Refusing(limit=3))  # the workspace, .volcanic and .volcanic/a2a; tasks/ is refused
    try:
        store = store_of(workspace, None, notes)
        stored = stored_of(caller, TaskState.COMPLETED)
        run(store.save(stored, durable=False))
        looks = Looks(monkeypatch)
        for state in ("TASK_STATE_CANCELED", "TASK_STATE_FAILED"):
            edit_state(workspace, stored.task.id, state)
            assert states(store, caller) == {stored.task.id: TaskState(state)}
        assert looks.scans == 2  # by stat, each time
    finally:
        notes.close()


@pytest.mark.skipif(queue_limit() > 100_000, reason="the kernel's queue is too long to fill in a test")
def test_an_overflow_scans_the_folder_once_again(workspace: Workspace, caller: Caller,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    notes = Notifications()
    try:
        store = store_of(workspace, None, notes)
        stored = stored_of(caller, TaskState.COMPLETED)
        run(store.save(stored, durable=False))
        assert len(states(store, caller)) == 1
        spill = workspace.path / "spill"
        spill.mkdir()
        notes.follow("another follower", spill, workspace.path, folder=True)
        for n in range(queue_limit() + 10):
            (spill / f"f{n}").touch()
        edit_state(workspace, stored.task.id, "TASK_STATE_CANCELED")  # lost in the overflow
        looks = Looks(monkeypatch)
        assert states(store, caller) == {stored.task.id: TaskState.CANCELED}
        assert looks.scans == 1
        looks.reset()
        assert len(states(store, caller)) == 1 and looks.scans == 0
    finally:
        notes.close()
