"""What a session run yields, in order, ending with exactly one terminal event."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class TextDelta:
    """A piece of assistant text, streamed."""

    text: str


@dataclass(frozen=True)
class MessageEnd:
    """The assistant message that just ended; text is its full text ("" when it had none)."""

    text: str


@dataclass(frozen=True)
class ToolStart:
    """A tool call is about to execute."""

    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolEnd:
    """A tool call finished; is_error means the result is an error the model sees."""

    call_id: str
    name: str
    result: str
    is_error: bool


@dataclass(frozen=True)
class Sent:
    """Something delivered through the chat channel (the send tool): text, or a workspace file."""

    text: str | None
    path: Path | None
    filename: str | None
    media_type: str | None


@dataclass(frozen=True)
class OutPart:
    """One part of what the agent emits: exactly one of text, data (any JSON), raw bytes or a url, with its file name,
    media type and metadata. The peer's Part, without the peer's protocol."""

    text: str | None = None
    data: Any = None
    has_data: bool = False
    raw: bytes | None = None
    url: str | None = None
    filename: str | None = None
    media_type: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True)
class ArtifactOut:
    """An output the agent emits with its parts, name, description and metadata. append: add the parts to the output
    emitted before with the same id (without an id, the same name); last_chunk: no more parts follow."""

    parts: tuple[OutPart, ...]
    artifact_id: str | None = None
    name: str | None = None
    description: str | None = None
    metadata: dict[str, Any] | None = None
    append: bool = False
    last_chunk: bool = True


@dataclass(frozen=True)
class StateSet:
    """The agent sets its state by name ("working", "rejected", "auth-required", ...), with a message and metadata."""

    state: str
    parts: tuple[OutPart, ...] = ()
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True)
class MessageOut:
    """A message the agent sends the caller, outside the streamed text: its parts and metadata."""

    parts: tuple[OutPart, ...]
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True)
class Settled:
    """The run ended normally: no more tool calls, or a tool ended the turn."""


@dataclass(frozen=True)
class RunFailed:
    """The provider failed; message is safe to show (redacted)."""

    message: str


@dataclass(frozen=True)
class Aborted:
    """The run was aborted."""


@dataclass(frozen=True)
class Crashed:
    """An unexpected exception ended the run; detail is for the log only."""

    detail: str


SessionEvent = (TextDelta | MessageEnd | ToolStart | ToolEnd | Sent | ArtifactOut | StateSet | MessageOut | Settled
                | RunFailed | Aborted | Crashed)
TERMINAL = (Settled, RunFailed, Aborted, Crashed)

# design "Run and map": the session events by the names of the mapping table, as published on the bus
_BUS_NAMES: dict[type, str] = {
    TextDelta: "text_delta",
    MessageEnd: "message_end",
    ToolStart: "tool_execution_start",
    ToolEnd: "tool_execution_end",
    Sent: "sent",
    ArtifactOut: "artifact_out",
    StateSet: "state_set",
    MessageOut: "message_out",
    Settled: "agent_settled",
    RunFailed: "run_error",
    Aborted: "abort",
    Crashed: "crash",
}


def bus_name(event: SessionEvent) -> str:
    """The event bus name of a session event."""
    return _BUS_NAMES[type(event)]


def bus_payload(event: SessionEvent) -> dict[str, Any]:
    """The event's fields as a bus payload."""
    return asdict(event)
