"""The provider interface: one call streams one assistant message as text chunks and tool calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from reference_server.a2a.events import ArtifactOut, MessageOut, StateSet
from reference_server.agent.tools import Tool
from reference_server.model.types import AskedFault


@dataclass
class ProviderRequest:
    """The conversation so far (OpenAI chat shape: role user/assistant/tool) and what the model may use. A user
    message may carry a `preamble` beside its `content`: text the model reads first (conversation.Prompt)."""

    system_prompt: str
    messages: list[dict[str, Any]]
    tools: list[Tool]
    message_id: str | None
    workspace: Path


@dataclass(frozen=True)
class TextChunk:
    """A piece of the assistant message's text."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """A tool call of the assistant message; arguments_error is set when the arguments were unusable."""

    call_id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    arguments_error: str | None = None


# ArtifactOut, StateSet and MessageOut (agent/events.py) go through the session as they are: the scripted provider
# emits them so every shape of answer can be produced on demand
ProviderEvent = TextChunk | ToolCall | ArtifactOut | StateSet | MessageOut


class ProviderError(Exception):
    """The provider failed; the message is safe to show (no keys, no secrets) and fails the run."""


class Provider(Protocol):
    """Streams one assistant message per call; the stream ends when the message ends."""

    def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]: ...


class FaultScript(Protocol):
    """A provider whose script can ask for a fault (HTTP-level: a cut stream, a delay, a refusal) for a message."""

    def fault_for(self, prompt: str, message_id: str | None, workspace: Path) -> AskedFault | None: ...


@runtime_checkable
class Foresight(Protocol):
    """A provider that can tell, before a run, that its answer to a prompt is one message and nothing else."""

    def answers_with_message(self, prompt: str, message_id: str | None, workspace: Path) -> bool: ...
