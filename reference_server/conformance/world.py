"""The World a scenario's steps share: the server under test and the protocol the scenario runs in, the caller, and
what the scenario has set up and seen so far, in typed groups (its sends, cards, push configs and webhooks, streams
and subscribers, the pages of a list); a client for its protocol, and the level its checks are held to."""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx

from reference_server.conformance import catalogue
from reference_server.conformance.support.client import CLIENT_TLS, A2AClient
from reference_server.conformance.support.conventions import TCK_CONVENTIONS, Conventions
from reference_server.conformance.support.exchanges import recording_client
from reference_server.conformance.support.raw import RawAnswer
from reference_server.conformance.support.replies import Reply, Seen, StreamReply
from reference_server.conformance.support.schemas import assert_valid, violations
from reference_server.conformance.support.subscriptions import StoppedReader, Subscriber
from reference_server.conformance.support.target import TARGET_URL
from reference_server.conformance.support.webhook import Received, Webhook
from reference_server.model.caller import Workspace

T = TypeVar("T")


@dataclass(frozen=True)
class Protocol:
    """What one run of a scenario speaks: a binding and an A2A version."""

    binding: str  # "jsonrpc", "rest", or "none" for discovery
    version: str  # "1.0" or "0.3"

    @property
    def id(self) -> str:
        return f"{self.binding}-{self.version}"


# --- the server under test ---


class ScenarioWorkspaces(typing.Protocol):
    """Where a scenario puts its workspaces: a live reference server serves them, another server takes none."""

    def add(self, workspace: Workspace) -> None: ...

    def remove(self, workspace: Workspace) -> None: ...


class ServerUnderTest(typing.Protocol):
    """What the steps use of the server under test: a live reference server (the repository's tests/support/live.py)
    or another one, discovered from its card (support/target.py)."""

    @property
    def url(self) -> str: ...  # its origin: the base of every relative path

    @property
    def card_url(self) -> str: ...  # where its public card is

    @property
    def agent(self) -> Conventions | None: ...  # the conventions its agent follows (None: the TCK's and ACTS's)

    @property
    def workspaces(self) -> ScenarioWorkspaces: ...

    @property
    def push_waits(self) -> list[float]: ...  # what its push retries waited (only a live reference server records it)

    def paths(self, binding: str, version: str) -> tuple[str, str]: ...  # the JSON-RPC URL, the HTTP+JSON prefix


class ServerFactory(typing.Protocol):
    """The session's servers under test: a live reference server started with these settings (one per distinct
    configuration), or the target given by URL, which has its own (a scenario that needs others is skipped)."""

    def __call__(self, *, with_notifier: bool = True, **overrides: Any) -> ServerUnderTest: ...


# --- what the steps keep, by area ---


@dataclass
class Sent:
    """What the caller's messages were, and what came of them when no A2A answer did (steps/tasks.py send)."""

    last: dict[str, Any] | None = None  # the params of the last SendMessage, to send the same message again
    messages: list[dict[str, Any]] = field(default_factory=list)  # each message sent by prefix, in order
    task_ids: list[str] = field(default_factory=list)  # the task of each answer to those that carried one
    no_answer: httpx.TransportError | None = None  # the connection closed unanswered (a fault the message asked for)
    not_json: str | None = None  # the body of an answer that is not JSON (the same)
    unreadable: str | None = None  # why another server's answer to a message was no A2A answer at all


@dataclass
class Situation:
    """A call that causes an error on purpose, kept to be made again (on the other binding), and the error the
    scenario names for it."""

    call: tuple[str, dict[str, Any]]  # the operation and its params
    error: str | None = None  # None: the scenario names no error


@dataclass
class OtherBindingRead:
    """The task an answer gave, and GetTask's answer for it on the other binding."""

    given: Any  # the task, as the answer had it
    read: Reply


@dataclass
class Pushes:
    """The scenario's webhooks by name ("webhook", "other webhook", "second webhook"), the push configs it created,
    and the pushes the webhook received."""

    webhooks: dict[str, Webhook] = field(default_factory=dict)
    config: Any = None  # the last push config created, as the answer gave it
    configs: list[Any] = field(default_factory=list)  # the push configs the scenario created, in order
    received: list[Received] = field(default_factory=list)  # what the webhook received, as a step last waited for it
    waits_before: int = 0  # how many push waits the server had recorded before the scenario's (it is shared)


@dataclass
class Streams:
    """What the stream steps keep beside the last stream: the task's subscribers, a subscription that stopped
    reading, the long answer a script gives, the file artifact a stream carried, and whether a fault the scenario
    asked for was seen (a stream it cuts or garbles is then no failure)."""

    subscribers: list[Subscriber] = field(default_factory=list)
    stopped_reader: StoppedReader | None = None
    long_answer: str | None = None
    file_artifact: Any = None  # as the stream carried it
    fault_checked: bool = False


@dataclass
class ContextListing:
    """The tasks a scenario made in one context, and the pages ListTasks gave of that context (steps/pages.py)."""

    context: str | None = None
    tasks: list[str] = field(default_factory=list)  # their ids, in the order they were made
    pages: list[dict[str, Any]] = field(default_factory=list)


def earlier(value: T | None, what: str) -> T:
    """What an earlier step of the scenario kept, or a failure saying no earlier step did."""
    assert value is not None, f"expected an earlier step to have given {what}, none did"
    return value


@dataclass
class World:
    """What a scenario has set up and seen so far (steps read and write it)."""

    server: ServerUnderTest
    protocol: Protocol
    http: httpx.Client
    root: Path
    workspaces: dict[str, Workspace] = field(default_factory=dict)
    # the caller, and how its requests say who it is and which A2A version they speak
    keys: dict[str, str] = field(default_factory=dict)  # caller name → key
    caller: str | None = None
    key: str | None = None
    version: str | None = None  # what A2A-Version says: None the protocol's version, "" none
    version_header: str = "A2A-Version"  # the header that says it (the scenarios about its name send another)
    version_in_query: bool = False  # said as a query parameter instead
    bearer: bool = False  # the key sent as a bearer token when the extended card is fetched
    credentials: list[tuple[str, str]] | None = None  # or these headers, instead of the one X-API-Key
    # the last answer, and the cards
    reply: Reply | None = None
    stream: StreamReply | None = None
    card: Any = None  # the card a step fetched, as it came
    card_response: httpx.Response | None = None  # the HTTP answer that brought the public card
    public_card: dict[str, Any] | None = None  # the public card where discovery found it, fetched once (world_card)
    # the tasks
    tasks: dict[str, str] = field(default_factory=dict)  # label → task id
    tasks_seen: dict[str, dict[str, Any]] = field(default_factory=dict)  # label → the task as an answer gave it
    context_id: str | None = None  # the context of "the task"
    contexts: list[str] = field(default_factory=list)  # the context of each task that was "the task", in order
    own_context: str | None = None  # a context of the caller's making, which its message named
    context_before: str | None = None  # the task's context before an answer that named only the task
    other_task: str | None = None  # the task of the other caller
    cancel_seconds: float | None = None  # how long the last CancelTask took
    sent: Sent = field(default_factory=Sent)
    # by area
    situation: Situation | None = None  # the call that caused the scenario's error
    other_binding: OtherBindingRead | None = None
    push: Pushes = field(default_factory=Pushes)
    streams: Streams = field(default_factory=Streams)
    listing: ContextListing = field(default_factory=ContextListing)
    rounds: list[tuple[str, str]] = field(default_factory=list)  # after each edit, after its undo (steps/auth.py)
    raw: RawAnswer | None = None  # the answer to a request sent byte for byte
    sent_bytes: int | None = None  # the size of the last body sent by hand
    # the scenario itself
    cleanups: list[Callable[[], object]] = field(default_factory=list)  # run when the scenario ends
    tags: frozenset[str] = frozenset()  # the scenario's tags: its feature's, its own and its Examples'
    level: str | None = None  # what the scenario proves (catalogue.py level_of)
    seen: Seen = field(default_factory=Seen)  # every exchange, and what its answers broke (support/replies.py)

    def client(self, *, version: str | None = None, binding: str | None = None) -> A2AClient:
        """A client for this scenario's protocol (or another binding), caller key and A2A-Version choices."""
        binding = binding or (self.protocol.binding if self.protocol.binding != "none" else "jsonrpc")
        dialect = version or self.protocol.version
        jsonrpc_path, rest_prefix = self.paths(dialect)
        return A2AClient(self.http, binding=binding, version=dialect, key=self.key,
                         sent_version=self.version, version_in_query=self.version_in_query,
                         jsonrpc_path=jsonrpc_path, rest_prefix=rest_prefix, strict=self.ours,
                         version_header=self.version_header, seen=self.seen)

    def paths(self, version: str | None = None) -> tuple[str, str]:
        """The JSON-RPC URL and the HTTP+JSON prefix the card gives for this version (the protocol's by default)."""
        binding = self.protocol.binding if self.protocol.binding != "none" else "jsonrpc"
        found: tuple[str, str] = self.server.paths(binding, version or self.protocol.version)
        if not any(found):
            found = self.server.paths(binding, self.protocol.version)
        return found

    def server_bindings(self) -> set[str]:
        """The bindings the server offers in this scenario's version."""
        if not self.external:
            return {"jsonrpc", "rest"}
        interfaces: list[tuple[str, str]] = getattr(self.server, "interfaces", [])  # another server's, discovered
        return {b for b, v in interfaces if v == self.protocol.version}

    def on_binding(self, binding: str, call: tuple[str, dict[str, Any]]) -> Reply:
        """The same call (operation, params) made on another binding, as this scenario's caller."""
        operation, params = call
        return self.client(binding=binding).call(operation, params)

    @property
    def jsonrpc_path(self) -> str:
        return self.paths()[0]

    @property
    def rest_prefix(self) -> str:
        return self.paths()[1]

    @property
    def agent(self) -> Conventions:
        """How a scenario asks the agent for a behaviour: the TCK's prefixes on this server (whose agent follows
        ACTS's too), what the probe learned on another (conformance/support/conventions.py)."""
        agent = self.server.agent
        return agent if agent is not None else TCK_CONVENTIONS

    def check(self, payload: Any, ref: str, what: str) -> None:
        """A payload against its schema, as the client checks every answer: this server fails at once, another
        server's violations are recorded under their own requirements and the step goes on to its own check."""
        if self.ours:
            assert_valid(payload, ref)
        else:
            self.seen.record(what, violations(payload, ref))

    def new_http(self, base_url: str | None = None) -> httpx.Client:
        """An HTTP client of this scenario, its exchanges recorded."""
        return recording_client(base_url or self.server.url, self.seen.exchanges, verify=CLIENT_TLS)

    @property
    def external(self) -> bool:
        """The server under test is another implementation (A2A_TARGET_URL), not a live reference server."""
        return bool(TARGET_URL)

    @property
    def ours(self) -> bool:
        """Whether this server's own wording, error names and violation format are checked too: when the server
        under test is the live reference server, or the scenario is about a convention of this server."""
        return not self.external or self.level == "server"

    def asserts(self, level: str) -> bool:
        """Whether a check of this level ("must", "should", "may") belongs to this scenario. Against another
        server a step checks only what the scenario's level requires: a @must scenario its MUSTs, a @should one
        its SHOULDs and MUSTs, a @may one everything; this server is held to all of it."""
        scenario = self.level
        if self.ours or scenario not in catalogue.SPEC_LEVELS:
            return True
        order = catalogue.SPEC_LEVELS
        return order.index(level) <= order.index(scenario)

    def use_server(self, server: ServerUnderTest) -> None:
        """Move this scenario's workspaces to another server (one with other settings)."""
        for workspace in self.workspaces.values():
            self.server.workspaces.remove(workspace)
            server.workspaces.add(workspace)
        self.server = server
        self.http.close()
        self.http = self.new_http(server.url)

