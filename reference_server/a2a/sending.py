"""SendMessage steps 1-4 of the design: hops, context, task, inbound files and prompt, before a run starts."""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reference_server.a2a.ports import Foreseer, Ports, Prompt, Session, UrlRefusal
from reference_server.a2a.prompt import build_prompt
from reference_server.a2a.runner import UNEXPECTED, TaskRun
from reference_server.model.caller import Caller
from reference_server.model.errors import FieldViolation, InvalidParams, UnsupportedOperation
from reference_server.model.types import Message, Role, SendRequest, StoredTask, Task, TaskState, TaskStatus, utc_now
from reference_server.settings import Settings

log = logging.getLogger("reference_server.tasks")

HOPS_KEY = "volcanic.hops"
CONTEXT_ID = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
HOP_LIMIT_REACHED = "hop limit reached"


@dataclass
class Prepared:
    """A task ready to run: subscribe to `run` first if you stream, then call `start`. direct: the agent will answer
    with a message instead (`run.reply`); tell nobody of the task unless the run ends without one."""

    run: TaskRun
    start: Callable[[], None]
    direct: bool = False


def check_send(request: SendRequest, settings: Settings, url_refusal: UrlRefusal) -> int:
    """Design steps 1-2, before anything is created: the hop count, then the message's fields and sizes."""
    hops = _hops(request)
    _check_message(request.message, settings.max_file_bytes, url_refusal, _over_limits(request, settings))
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
    """Design step 3: only an interrupted task (input-required, or auth-required: A2A §7.6.1) of this caller and
    context is continued."""
    if message.context_id is not None and message.context_id != task.context_id:
        raise InvalidParams(violations=[FieldViolation(
            "message.contextId", f"does not match the context {task.context_id!r} of task {task.id}")])
    if not task.status.state.interrupted:
        state = task.status.state
        if state.terminal:
            reason = f"Task {task.id} is {state.value}: a terminal task cannot take more messages; " \
                     "send the message without taskId to start a new task in the same context"
        else:
            reason = f"Task {task.id} is {state.value}: only an input-required or auth-required task can be " \
                     "continued"
        raise UnsupportedOperation(reason, metadata={"taskId": task.id})


def new_task(caller: Caller, context_id: str) -> StoredTask:
    """A task just created: submitted, owned by caller, with a server-chosen id (A2A §3.4.2)."""
    task = Task(str(uuid.uuid4()), context_id, TaskStatus(TaskState.SUBMITTED, timestamp=utc_now()))
    return StoredTask(task, caller.name)


def over_hop_limit(run: TaskRun, inbound: Message) -> Prepared:
    """Design step 1: over the hop limit, the task is created and immediately failed."""
    return Prepared(run, lambda: run.start(None, _no_prompt, inbound.message_id, (), failure=HOP_LIMIT_REACHED))


async def _no_prompt() -> Prompt:
    return Prompt("")


def prepare_run(run: TaskRun, open_session: Callable[[], Session], foresight: Foreseer | None,
                inbound: Message, hops: int, ports: Ports, max_file_bytes: int, *, new: bool) -> Prepared:
    """Design step 4: at start, the session (opened only then: a stream's first event need not wait for it), its
    tools and a2a.inbound; then, in the run, the inbound files in inbox/ (URL parts downloaded first: a failed
    download fails the task, design deviation "File-part errors") and the prompt. A new task whose agent foresees
    a message answer runs direct (A2A §3.1.1: no task is created), which is known before anything is answered."""
    caller = run.caller
    has_notifier = ports.notifier is not None
    # built once: the prompt as it will be, but for the files it will list (most messages have none)
    before_files = build_prompt(caller.name, inbound, [], has_notifier=has_notifier)
    # asked before the run, so before any answer
    direct = new and foresight is not None and foresight(before_files, inbound.message_id)

    async def prompt() -> Prompt:
        files = await ports.files.save_inbound(caller, inbound, max_file_bytes)
        return build_prompt(caller.name, inbound, files, has_notifier=has_notifier) if files else before_files

    def start() -> None:
        try:
            session = open_session()
        except Exception:
            log.exception("a2a task %s: its session could not be opened", run.task.id)
            run.start(None, _no_prompt, inbound.message_id, (), failure=UNEXPECTED)
            return
        tools = ports.tools(on_request_input=run.set_question, owner_id=caller.owner_id, caller=caller.name)
        # design step 4: a2a.inbound is emitted on the session's bus before the prompt
        session.bus.publish("a2a.inbound", {"hops": hops, "caller": caller.name})
        run.start(session, prompt, inbound.message_id, tools, direct=direct)

    return Prepared(run, start, direct)


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


def _check_message(message: Message, max_file_bytes: int, url_refusal: UrlRefusal,
                   violations: list[FieldViolation]) -> None:
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
        if part.url is not None and (problem := url_refusal(part.url)) is not None:
            # design deviation "File-part errors": a URL that is not https is refused before any task exists
            violations.append(FieldViolation(f"message.parts[{index}].url", problem))
    if violations:
        raise InvalidParams(violations=violations)
