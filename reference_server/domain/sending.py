"""SendMessage steps 1-4 of the design: hops, context, task, inbound files and prompt, before a run starts."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_server.agent.a2a_tools import a2a_tools
from reference_server.agent.notifier import OwnerNotifier
from reference_server.agent.session import AgentSession
from reference_server.disk import off_loop
from reference_server.domain.callers import Caller
from reference_server.domain.errors import FieldViolation, InvalidParams, UnsupportedOperation
from reference_server.domain.model import Message, Role, SendRequest, Task, TaskState, TaskStatus, utc_now
from reference_server.domain.prompt import build_prompt, inbox_name
from reference_server.domain.runner import TaskRun
from reference_server.domain.task_store import StoredTask
from reference_server.settings import Settings

HOPS_KEY = "volcanic.hops"
CONTEXT_ID = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
HOP_LIMIT_REACHED = "hop limit reached"


@dataclass
class Prepared:
    """A task ready to run: subscribe to `run` first if you stream, then call `start`."""

    run: TaskRun
    start: Callable[[], None]


def check_send(request: SendRequest, settings: Settings) -> int:
    """Design steps 1-2, before anything is created: the hop count, then the message's fields and sizes."""
    hops = _hops(request)
    _check_message(request.message, settings.max_file_bytes, _over_limits(request, settings))
    return hops


def _over_limits(request: SendRequest, settings: Settings) -> list[FieldViolation]:
    """The parts and metadata beyond the server's limits (what a caller sends is stored and sent back)."""
    message, found = request.message, []
    if len(message.parts) > settings.max_parts:
        found.append(FieldViolation("message.parts", f"has {len(message.parts)} parts; the limit is "
                                                     f"{settings.max_parts} (A2A__MaxParts)"))
    places = [("metadata", request.metadata), ("message.metadata", message.metadata),
              *((f"message.parts[{i}].metadata", part.metadata) for i, part in enumerate(message.parts))]
    for field, metadata in places:
        if metadata:
            size = len(json.dumps(metadata, ensure_ascii=False).encode("utf-8"))
            if size > settings.max_metadata_bytes:
                found.append(FieldViolation(field, f"is {size} bytes as JSON; the limit is "
                                                    f"{settings.max_metadata_bytes} bytes (A2A__MaxMetadataBytes)"))
    return found


def check_continuation(message: Message, task: Task) -> None:
    """Design step 3: only an input-required task of this caller and context is continued."""
    if message.context_id is not None and message.context_id != task.context_id:
        raise InvalidParams(violations=[FieldViolation(
            "message.contextId", f"does not match the context {task.context_id!r} of task {task.id}")])
    if task.status.state is not TaskState.INPUT_REQUIRED:
        state = task.status.state
        if state.terminal:
            reason = f"Task {task.id} is {state.value}: a terminal task cannot take more messages; " \
                     "send the message without taskId to start a new task in the same context"
        else:
            reason = f"Task {task.id} is {state.value}: only an input-required task can be continued"
        raise UnsupportedOperation(reason, metadata={"taskId": task.id})


def new_task(caller: Caller, context_id: str) -> StoredTask:
    """A task just created: submitted, owned by caller, with a server-chosen id (A2A §3.4.2)."""
    task = Task(str(uuid.uuid4()), context_id, TaskStatus(TaskState.SUBMITTED, timestamp=utc_now()))
    return StoredTask(task, caller.name)


def over_hop_limit(run: TaskRun, inbound: Message) -> Prepared:
    """Design step 1: over the hop limit, the task is created and immediately failed."""
    return Prepared(run, lambda: run.start(None, "", inbound.message_id, (), failure=HOP_LIMIT_REACHED))


async def prepare_run(run: TaskRun, session: AgentSession, inbound: Message, hops: int,
                      notifier: OwnerNotifier | None) -> Prepared:
    """Design step 4: the inbound files in inbox/, the prompt, the session tools, and a2a.inbound at start."""
    caller = run.caller
    has_files = any(part.raw is not None for part in inbound.parts)
    files = await off_loop(_save_inbound_files, caller, inbound) if has_files else []
    prompt = build_prompt(caller.name, inbound, files, has_notifier=notifier is not None)
    tools = a2a_tools(on_request_input=run.set_question, notifier=notifier, owner_id=caller.owner_id,
                      caller=caller.name)

    def start() -> None:
        # design step 4: a2a.inbound is emitted on the session's bus before the prompt
        session.bus.publish("a2a.inbound", {"hops": hops, "caller": caller.name})
        run.start(session, prompt, inbound.message_id, tools)

    return Prepared(run, start)


def _hops(request: SendRequest) -> int:
    """Design step 1: metadata["volcanic.hops"] (message metadata, else request metadata); missing = 0."""
    for field, metadata in (("message.metadata", request.message.metadata), ("metadata", request.metadata)):
        if metadata and HOPS_KEY in metadata:
            value: Any = metadata[HOPS_KEY]
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or value != int(value):
                raise InvalidParams(violations=[FieldViolation(
                    f'{field}["{HOPS_KEY}"]', "must be a whole number >= 0")])
            return int(value)
    return 0


def _check_message(message: Message, max_file_bytes: int, violations: list[FieldViolation]) -> None:
    if message.role is not Role.USER:
        violations.append(FieldViolation("message.role", "must be ROLE_USER for a message sent to the agent"))
    if message.context_id is not None and not CONTEXT_ID.fullmatch(message.context_id):
        # design step 2: checked before anything is created
        violations.append(FieldViolation("message.contextId", "must match [A-Za-z0-9_-]{1,100}"))
    for index, part in enumerate(message.parts):
        if part.raw is not None and len(part.raw) > max_file_bytes:
            violations.append(FieldViolation(
                f"message.parts[{index}].raw",
                f"is {len(part.raw)} bytes; the limit is {max_file_bytes} bytes (A2A__MaxFileBytes)"))
        if part.url is not None:
            violations.append(FieldViolation(
                f"message.parts[{index}].url",
                "file parts by URL are not served yet; send the file inline as raw (base64) bytes"))
    if violations:
        raise InvalidParams(violations=violations)


def _save_inbound_files(caller: Caller, message: Message) -> list[str]:
    """Design step 4: file parts are saved to <workspace>/inbox/; the prompt lists them (on a disk thread)."""
    saved: list[str] = []
    now = utc_now()
    inbox = caller.workspace.path / "inbox"
    for index, part in enumerate(message.parts):
        if part.raw is None:
            continue
        inbox.mkdir(parents=True, exist_ok=True)
        path = _free_path(inbox / inbox_name(caller.name, part, index, now))
        path.write_bytes(part.raw)
        saved.append(f"inbox/{path.name}")
    return saved


def _free_path(path: Path) -> Path:
    candidate, n = path, 2
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        n += 1
    return candidate
