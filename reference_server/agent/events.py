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


SessionEvent = TextDelta | MessageEnd | ToolStart | ToolEnd | Sent | Settled | RunFailed | Aborted | Crashed
TERMINAL = (Settled, RunFailed, Aborted, Crashed)

# design "Run and map": the session events by the names of the mapping table, as published on the bus
_BUS_NAMES: dict[type, str] = {
    TextDelta: "text_delta",
    MessageEnd: "message_end",
    ToolStart: "tool_execution_start",
    ToolEnd: "tool_execution_end",
    Sent: "sent",
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
