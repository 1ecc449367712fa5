"""Steps about task files, restarts and the task-end log line: what the design fixes on disk.

These steps read the scenario's workspace folder (`world.workspaces`), so they need the server's workspace:
the suite documents that design-level scenarios cannot run against a server given by URL alone.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when
from support.design import DesignState
from support.live import LiveServer, live

from reference_server.conformance.steps.common import TIMESTAMP, UUID, answer_of, wait_until, workspace_of, write_json
from reference_server.conformance.steps.tasks import STATES, remember, status_text, task_id
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import described
from reference_server.conformance.support.schemas import assert_valid
from reference_server.conformance.world import ServerFactory, World, earlier

TASK_FILE = "urn:reference-server:task-file"
INBOX_STAMP = r"\d{8}-\d{6}"
SYSTEM_PROMPT_SCRIPT = {  # docs/scripted-agent.md: {system} is the system prompt of the run
    "description": "answers 'system prompt' with the system prompt of the run, echoes anything else",
    "rules": [
        {"match": "(?i)^system prompt$", "turns": [[{"say": "{system}"}]]},
        {"match": "", "turns": [[{"say": "{text}"}]]},
    ],
}


# --- the workspace's files ---


def task_file(world: World, label: str = "the task") -> Path:
    return workspace_of(world).tasks_dir / f"{task_id(world, label)}.json"


def read_task_file(world: World, label: str = "the task") -> dict[str, Any]:
    return json.loads(task_file(world, label).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def stored_task(world: World, state: str) -> dict[str, Any]:
    """A task file of the caller as the server writes it, in `state`, with one user message in its history."""
    task, context = str(uuid.uuid4()), str(uuid.uuid4())
    body = {
        "id": task, "contextId": context,
        "status": {"state": STATES[state], "timestamp": "2026-10-07T14:22:33.000Z"},
        "history": [{"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "sleep 30"}],
                     "contextId": context, "taskId": task}],
        "caller": world.caller, "pushConfigs": [],
    }
    assert_valid(body, TASK_FILE)  # the fixture is a file the server could have written
    return body


def session_records(world: World, context_id: str | None) -> list[dict[str, Any]]:
    """The JSONL of the context's session: design scope <ScopePrefix>-a2a-<caller>_<contextId>."""
    workspace = workspace_of(world)
    path = workspace.path / ".volcanic" / "sessions" / f"{workspace.scope_prefix}-a2a-{world.caller}_{context_id}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def the_prompt(world: World) -> str:
    """The prompt the agent received for the latest message of the task (its user record in the JSONL)."""
    stored = read_task_file(world)
    message_id = [m for m in stored["history"] if m["role"] == "ROLE_USER"][-1]["messageId"]
    records = session_records(world, stored["contextId"])
    prompts = [r["content"] for r in records if r["role"] == "user" and r.get("messageId") == message_id]
    assert len(prompts) == 1, f'expected one prompt for the message "{message_id}" in the session, found {len(prompts)}'
    return prompts[0]  # type: ignore[no-any-return]


def inbox_files(world: World) -> list[Path]:
    inbox = workspace_of(world).path / "inbox"
    return sorted(inbox.iterdir()) if inbox.is_dir() else []


# --- servers ---


@pytest.fixture
def extra_servers() -> Iterator[list[LiveServer]]:
    """Servers a scenario starts for itself (a restart); stopped when the scenario ends."""
    started: list[LiveServer] = []
    yield started
    for server in started:
        server.stop()


def fresh_server(world: World, extra_servers: list[LiveServer]) -> None:
    """Another server over the same workspaces: no live runs, no sessions, only the files (a restart).

    The previous server keeps running until the scenario ends: stopping it first could let its runs
    write their end. A scenario whose run outlives it starts on a server of its own, so that the run
    is stopped with that server instead of writing into the deleted workspace later.
    """
    server = live(world.server)
    fresh = LiveServer(server.settings, with_notifier=server.notifier is not None).start()
    extra_servers.append(fresh)
    world.use_server(fresh)


@given("the server has no owner notifier")
def _(world: World, server_factory: ServerFactory) -> None:
    world.use_server(server_factory(with_notifier=False))


@given(parsers.parse("the server caps file parts at {size:d} bytes"))
def _(world: World, server_factory: ServerFactory, size: int) -> None:
    world.use_server(server_factory(max_file_bytes=size))


@given(parsers.parse("the server allows {hops:d} hops"))
def _(world: World, server_factory: ServerFactory, hops: int) -> None:
    world.use_server(server_factory(max_hops=hops))


@given("a server started for this scenario")
def _(world: World, extra_servers: list[LiveServer]) -> None:
    fresh_server(world, extra_servers)


@when("the server restarts")
def _(world: World, extra_servers: list[LiveServer]) -> None:
    fresh_server(world, extra_servers)


# --- task files ---


@given(parsers.parse("a task file of the caller in state {state}, as if the server had died mid-run"))
def _(world: World, state: str) -> None:
    body = stored_task(world, state)
    write_json(workspace_of(world).tasks_dir / f"{body['id']}.json", body)
    remember(world, body)


@given("the caller's task file is not valid JSON")
def _(world: World) -> None:
    body = stored_task(world, "completed")
    path = workspace_of(world).tasks_dir / f"{body['id']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body)[:-20], encoding="utf-8")  # cut off mid-object
    remember(world, body)


@given(parsers.parse('"{path}" in the tasks folder holds a task of the caller with the id "{task}"'))
def _(world: World, path: str, task: str) -> None:
    body = stored_task(world, "completed")
    body["id"] = task  # otherwise a well-formed task of this caller: only its id keeps it out of reach
    tasks_dir = workspace_of(world).tasks_dir
    tasks_dir.mkdir(parents=True, exist_ok=True)  # so that tasks/../x.json resolves
    write_json(tasks_dir / path, body)
    world.tasks[task] = task


@when("the task file is set back to working, as a read made during its run saw it")
def _(world: World, design: DesignState) -> None:
    stored = read_task_file(world)
    stored["status"] = {"state": STATES["working"], "timestamp": stored["status"]["timestamp"]}
    write_json(task_file(world), stored)
    design.stale_file = stored


@when(parsers.parse('the owner deletes the task file of "{label}"'))
def _(world: World, label: str) -> None:
    task_file(world, label).unlink()


@when(parsers.parse('the owner edits the task file of "{label}" to say {state}'))
def _(world: World, label: str, state: str) -> None:
    stored = read_task_file(world, label)
    stored["status"]["state"] = STATES[state]
    task_file(world, label).write_text(json.dumps(stored), encoding="utf-8")  # in place, as an editor may


@then("the task file is no larger than twice the request that made it")
def _(world: World) -> None:
    assert world.reply is not None and world.reply.error is None, f"expected a task, got {described(world.reply)}"
    remember(world, world.reply.body["task"])
    size, sent = task_file(world).stat().st_size, earlier(world.sent_bytes, "a request sent by hand")
    assert size <= 2 * sent, f"a request of {sent} bytes made a task file of {size} bytes"


@then("the task file is not rewritten as failed")
def _(world: World, design: DesignState) -> None:
    stored = read_task_file(world)
    # not one byte of it recovered as "server restarted"
    assert stored == design.stale_file, f"expected the task file as it was, got {shown(stored)}"
    reply = answer_of(world)
    assert reply.error is None, f"expected success, got {reply}"


@then(parsers.parse('the listed task is {state} with the status message "{text}"'))
def _(world: World, state: str, text: str) -> None:
    reply = answer_of(world)
    assert reply.error is None, f"expected a list of tasks, got {reply}"
    listed = [t for t in reply.body.get("tasks", []) if t["id"] == task_id(world)]
    assert len(listed) == 1, f"expected the task listed once, got it {len(listed)} times"
    assert listed[0]["status"]["state"] == STATES[state], \
        f"expected the listed task {state}, got the status {shown(listed[0]['status'])}"
    said = status_text(listed[0])
    assert said == text, f'expected the listed task\'s status message to say "{text}", got "{said}"'


@then(parsers.parse('the task file says {state} with the status message "{text}"'))
def _(world: World, state: str, text: str) -> None:
    stored = read_task_file(world)
    assert stored["status"]["state"] == STATES[state], \
        f"expected the task file to say {state}, got the status {shown(stored['status'])}"
    said = status_text(stored)
    assert said == text, f'expected the task file\'s status message to say "{text}", got "{said}"'
    assert TIMESTAMP.match(stored["status"]["timestamp"]), \
        f"expected an RFC 3339 UTC timestamp with milliseconds, got the status {shown(stored['status'])}"
    assert stored["status"]["timestamp"] > "2026-10-07T14:22:33.000Z", \
        f"expected the file rewritten with a new time, got the timestamp {stored['status']['timestamp']}"


@then("the task file is the task plus the caller and its push configs")
def _(world: World) -> None:
    stored = read_task_file(world)
    assert_valid(stored, TASK_FILE)
    assert stored["caller"] == world.caller, f'expected the caller "{world.caller}" in the task file, got ' \
        f"{shown(stored['caller'])}"
    assert stored["pushConfigs"] == [], f"expected no push configs in the task file, got {shown(stored['pushConfigs'])}"
    got = world.client(version="1.0").call("GetTask", {"id": task_id(world)})
    assert got.error is None, f"expected the task, got {got}"
    # the task as GetTask returns it (1.0) is the file without the envelope fields
    task = {k: v for k, v in stored.items() if k not in ("caller", "pushConfigs")}
    assert task == got.body, f"expected GetTask to give the task file's task {shown(task)}, got {shown(got.body)}"


@then("the task file matches the snapshot")
def _(world: World, snapshot_json: Any) -> None:
    stored = read_task_file(world)
    assert stored["id"] == task_id(world) and stored["contextId"] == world.context_id, (
        f'expected the task file of the task "{task_id(world)}" in the context "{world.context_id}", got the id '
        f"{shown(stored['id'])} and the context {shown(stored['contextId'])}")
    masked = json.loads(json.dumps(stored))
    masked["id"], masked["contextId"] = "<task id>", "<context id>"
    masked["status"]["timestamp"] = _masked_timestamp(masked["status"]["timestamp"])
    for message in masked.get("history", []):
        assert message["taskId"] == stored["id"] and message["contextId"] == stored["contextId"], \
            f"expected each message of the history to name the task and its context, got {shown(message)}"
        message["taskId"], message["contextId"] = "<task id>", "<context id>"
        assert UUID.match(message["messageId"]), f"expected a UUID messageId, got {shown(message['messageId'])}"
        message["messageId"] = "<message id>"
    assert masked == snapshot_json, f"expected the task file as in its snapshot (spec/snapshots/), got {shown(masked)}"


def _masked_timestamp(value: str) -> str:
    assert TIMESTAMP.match(value), f"expected an RFC 3339 UTC timestamp with milliseconds, got {shown(value)}"
    return "<timestamp>"


# --- the server's log ---


@given("the owner watches the server's log")
def _(caplog: pytest.LogCaptureFixture) -> None:
    # the test server runs in a thread of this process, so its records reach caplog
    caplog.set_level(logging.DEBUG, logger="reference_server")


@then("no log line mentions the task or its file")
def _(world: World, caplog: pytest.LogCaptureFixture) -> None:
    # design: a malformed task file reads as missing, without a log line
    the_id = task_id(world)
    # the request log's line of the GetTask itself (0.3: tasks/get) is no line about the file
    mentions = [r.getMessage() for r in caplog.records if r.name != "reference_server.requests"
                and (the_id in r.getMessage() or "task file" in r.getMessage() or "tasks/" in r.getMessage())]
    assert not mentions, "expected no log line about the task or its file, got:\n" + "\n".join(mentions)


@then(parsers.parse("the server logs the task's end once with the state {state}"))
def _(world: World, caplog: pytest.LogCaptureFixture, state: str) -> None:
    # design: a2a task <id> owner=<owner> caller=<name> state=<state> in <duration>
    line = re.compile(rf"^a2a task {task_id(world)} owner=(\S+) caller=(\S+) state=(\S+) in (\S+)$")

    def ends() -> list[re.Match[str]]:
        return [m for r in caplog.records if (m := line.match(r.getMessage()))]

    found = wait_until(ends, "the task-end log line")
    lines = "\n".join(m.group(0) for m in found)
    assert len(found) == 1, f"expected one task-end log line, got {len(found)}:\n{lines}"
    owner, caller, logged_state, duration = found[0].groups()
    expected = (next(iter(world.workspaces)), world.caller, state)
    assert (owner, caller, logged_state) == expected, \
        f"expected the owner, caller and state {', '.join(map(str, expected))}, got the line {found[0].group(0)}"
    assert re.fullmatch(r"\d+(\.\d+)?m?s", duration), \
        f"expected a duration in s or ms, got the line {found[0].group(0)}"


