"""The ports of the A2A service: what it needs from outside, as Protocols, and the values that cross them. The
composition root (process/app.py) hands in the agent's sessions (agent/pool.py), the session-only tools
(agent/a2a_tools.py), the owner notifier (agent/notifier.py), the task files (workspace/task_store.py), the
workspace's files (workspace/inbox.py), the URL rule of the platform (platform/addresses.py) and the lane that keeps
first answers first (platform/lane.py); like the a2a-python server's handler, which takes an AgentExecutor, a TaskStore
and a PushNotificationSender, the service never names their classes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from reference_server.a2a.events import SessionEvent
from reference_server.a2a.listing import Listing
from reference_server.model.caller import Caller, Workspace
from reference_server.model.types import ListTasksQuery, Message, StoredTask, Task


@dataclass(frozen=True)
class Prompt:
    """What a run starts from: the text, and a preamble the model reads before it (A2A's framing header).

    Apart in memory, so that the text can be the very string a caller sent: a 4 MB message is then held once, not
    once in its task and again in the conversation. A session file holds the whole prompt, as one content.
    """

    text: str
    preamble: str = ""

    def whole(self) -> str:
        return f"{self.preamble}\n\n{self.text}" if self.preamble else self.text


Foreseer = Callable[[Prompt, str | None], bool]  # (prompt, message id) -> whether the run answers with a message
UrlRefusal = Callable[[str], str | None]  # why a URL given by a caller is refused (push and file URLs); None: taken


class Bus(Protocol):
    """A session's event bus: the run publishes what the agent's extensions may hear (design step 4: a2a.inbound)."""

    def publish(self, name: str, payload: dict[str, Any]) -> None: ...


class Session(Protocol):
    """One agent session (design: IAgentSession): a run yields SessionEvents, ending with one terminal event."""

    @property
    def bus(self) -> Bus: ...

    def run(self, prompt: Prompt, *, message_id: str | None = None,
            extra_tools: Sequence[Any] = ()) -> AsyncIterator[SessionEvent]: ...

    def abort(self) -> None: ...


class Sessions(Protocol):
    """Where sessions come from (design: the session pool): one per workspace, caller and context."""

    def session(self, workspace: Path, caller: str, context_id: str, scope_prefix: str) -> Session: ...

    def foresight(self, workspace: Path) -> Foreseer | None:
        """How to ask whether a run will answer with one message and nothing else; None: its agent cannot tell."""
        ...


class SessionTools(Protocol):
    """The A2A-session-only tools of a run (design "Session-only tools"): request_input, and notify_owner when the
    host has a notifier; the service hands them to the session as they are."""

    def __call__(self, *, on_request_input: Callable[[str], None], owner_id: str, caller: str) -> Sequence[Any]: ...


class OwnerNotifier(Protocol):
    """Reaches the owner of a workspace; absent means no notify_owner tool (design "Components")."""

    async def notify(self, owner_id: str, caller: str, text: str) -> None: ...


class TaskStore(Protocol):
    """The task files of one workspace, scoped to one caller on every read (design: "Task files")."""

    async def load(self, task_id: str, caller: str) -> StoredTask | None: ...

    async def save(self, stored: StoredTask, *, durable: bool) -> None: ...

    def save_soon(self, stored: StoredTask) -> None: ...

    async def update(self, task_id: str, caller: str, change: Callable[[StoredTask], bool]) -> StoredTask | None: ...

    async def page(self, caller: str, query: ListTasksQuery, live: dict[str, Task],
                   is_live: Callable[[str], bool]) -> Listing: ...


class TaskStores(Protocol):
    def of(self, workspace: Workspace) -> TaskStore: ...


class Files(Protocol):
    """The workspace's files as a run meets them: those a message brings, saved in inbox/ (URL parts fetched first),
    and those the agent sends."""

    async def save_inbound(self, caller: Caller, message: Message, max_bytes: int) -> list[str]:
        """The message's files as the prompt lists them; a failed download raises RunRefused."""
        ...

    async def read_sent(self, path: Path, max_bytes: int) -> bytes | int:
        """A file the agent sends: its bytes, or its size when that is over max_bytes."""
        ...


class Lane(Protocol):
    """What may wait while new requests get their first answers (platform/lane.py)."""

    def defer(self, job: Callable[[], object]) -> None: ...

    async def turn(self) -> None:
        """Wait for the back lane's next turn (a stream's events after its first)."""
        ...


@dataclass(frozen=True)
class Ports:
    """Everything the service reaches outside itself, handed in once by the composition root."""

    sessions: Sessions
    tools: SessionTools
    stores: TaskStores
    files: Files
    url_refusal: UrlRefusal
    lane: Lane
    notifier: OwnerNotifier | None = None
