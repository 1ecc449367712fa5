"""The A2A data model inside the server: small dataclasses, snake_case, no wire format."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


class TaskState(enum.Enum):
    """A2A §4.1.3 TaskState; values are the 1.0 ProtoJSON names."""

    SUBMITTED = "TASK_STATE_SUBMITTED"
    WORKING = "TASK_STATE_WORKING"
    COMPLETED = "TASK_STATE_COMPLETED"
    FAILED = "TASK_STATE_FAILED"
    CANCELED = "TASK_STATE_CANCELED"
    INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
    REJECTED = "TASK_STATE_REJECTED"
    AUTH_REQUIRED = "TASK_STATE_AUTH_REQUIRED"

    @property
    def terminal(self) -> bool:
        return self in _TERMINAL

    @property
    def short_name(self) -> str:
        """The state as the task-end log line and the a2a command write it: "completed", "input-required"."""
        return self.value.removeprefix("TASK_STATE_").lower().replace("_", "-")

    @property
    def interrupted(self) -> bool:
        return self in (TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED)

    @property
    def ends_stream(self) -> bool:
        # design README: a send stream closes after a terminal or interrupted state (A2A §11.7); a subscription
        # goes on to a terminal one (a2a/broadcast.py)
        return self.terminal or self.interrupted


_TERMINAL = frozenset(
    {TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED}
)


class Role(enum.Enum):
    """A2A Role; values are the 1.0 ProtoJSON names."""

    USER = "ROLE_USER"
    AGENT = "ROLE_AGENT"


def utc_now() -> datetime:
    """Now, in UTC, truncated to milliseconds (the precision we put on the wire)."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


@dataclass
class Part:
    """Exactly one of text, raw, url, data is set (A2A Part oneof content)."""

    text: str | None = None
    raw: bytes | None = None
    url: str | None = None
    data: Any = None
    has_data: bool = False
    filename: str | None = None
    media_type: str | None = None
    metadata: dict[str, Any] | None = None

    @classmethod
    def of_text(cls, text: str) -> Part:
        return cls(text=text)

    @classmethod
    def of_data(cls, data: Any, media_type: str | None = None) -> Part:
        return cls(data=data, has_data=True, media_type=media_type)

    @property
    def kind(self) -> str:
        if self.text is not None:
            return "text"
        if self.raw is not None:
            return "raw"
        if self.url is not None:
            return "url"
        return "data"


@dataclass
class Message:
    message_id: str
    role: Role
    parts: list[Part]
    context_id: str | None = None
    task_id: str | None = None
    metadata: dict[str, Any] | None = None
    extensions: list[str] = field(default_factory=list)
    reference_task_ids: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if p.text is not None)


@dataclass
class TaskStatus:
    state: TaskState
    message: Message | None = None
    timestamp: datetime | None = None


@dataclass
class Artifact:
    artifact_id: str
    parts: list[Part]
    name: str | None = None
    description: str | None = None
    metadata: dict[str, Any] | None = None
    extensions: list[str] = field(default_factory=list)


@dataclass
class Task:
    id: str
    context_id: str
    status: TaskStatus
    artifacts: list[Artifact] = field(default_factory=list)
    history: list[Message] = field(default_factory=list)
    metadata: dict[str, Any] | None = None


@dataclass
class TaskStatusUpdateEvent:
    task_id: str
    context_id: str
    status: TaskStatus
    metadata: dict[str, Any] | None = None


@dataclass
class TaskArtifactUpdateEvent:
    task_id: str
    context_id: str
    artifact: Artifact
    append: bool = False
    last_chunk: bool = False
    metadata: dict[str, Any] | None = None


# A2A StreamResponse: one of these per SSE event and per push body.
StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent


@dataclass
class AuthenticationInfo:
    scheme: str
    credentials: str | None = None


@dataclass
class PushConfig:
    """A2A TaskPushNotificationConfig (1.0 flat form)."""

    url: str
    id: str | None = None
    task_id: str | None = None
    token: str | None = None
    authentication: AuthenticationInfo | None = None
    a2a_version: str = "1.0"  # the version it was set in: a 0.3 config is sent the 0.3 shape of the task


@dataclass
class SendConfiguration:
    accepted_output_modes: list[str] = field(default_factory=list)
    push_config: PushConfig | None = None
    history_length: int | None = None
    return_immediately: bool = False


@dataclass
class SendRequest:
    message: Message
    configuration: SendConfiguration = field(default_factory=SendConfiguration)
    metadata: dict[str, Any] | None = None


@dataclass
class ListTasksQuery:
    context_id: str | None = None
    status: TaskState | None = None
    page_size: int | None = None
    page_token: str | None = None
    history_length: int | None = None
    status_timestamp_after: datetime | None = None
    include_artifacts: bool = False


@dataclass
class TaskPage:
    tasks: list[Task]
    next_page_token: str
    page_size: int
    total_size: int


@dataclass
class StoredTask:
    """A task file: the A2A task plus the envelope fields caller and pushConfigs."""

    task: Task
    caller: str
    push_configs: list[PushConfig] = field(default_factory=list)


# --- the server's own values beside A2A's ---


@dataclass(frozen=True)
class AskedFault:
    """A fault a script rule asks the HTTP edge for: its settings with the placeholders filled, and where the rule is
    (for a message that names it). The agent core only finds it; bindings/faults.py reads and carries it out."""

    settings: dict[str, Any]
    where: str


_WATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")


def is_watch_id(text: str) -> bool:
    return bool(_WATCH_ID.fullmatch(text))  # fullmatch: `$` would also accept a trailing newline
