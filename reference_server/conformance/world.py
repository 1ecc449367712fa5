"""The World a scenario's steps share: the server under test and the protocol the scenario runs in, the caller, and
what the scenario has set up and seen so far; a client for its protocol, and the level its checks are held to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from reference_server.conformance import catalogue
from reference_server.conformance.support.client import CLIENT_TLS, A2AClient
from reference_server.conformance.support.conventions import TCK_CONVENTIONS, Conventions
from reference_server.conformance.support.exchanges import recording_client
from reference_server.conformance.support.replies import Seen
from reference_server.conformance.support.schemas import assert_valid, violations
from reference_server.conformance.support.target import TARGET_URL
from reference_server.model.caller import Workspace


@dataclass(frozen=True)
class Protocol:
    binding: str  # "jsonrpc", "rest", or "none" for discovery
    version: str  # "1.0" or "0.3"

    @property
    def id(self) -> str:
        return f"{self.binding}-{self.version}"



@dataclass
class World:
    """What a scenario has set up and seen so far (steps read and write it)."""

    server: Any  # the server under test: a live reference server, or another one (support/target.py)
    protocol: Protocol
    http: httpx.Client
    root: Path
    workspaces: dict[str, Workspace] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)  # caller name → key
    caller: str | None = None
    key: str | None = None
    version: str | None = None
    reply: Any = None
    stream: Any = None
    card: Any = None
    tasks: dict[str, str] = field(default_factory=dict)  # label → task id
    context_id: str | None = None
    notes: dict[str, Any] = field(default_factory=dict)
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
                         sent_version=self.version, version_in_query=bool(self.notes.get("version_in_query")),
                         jsonrpc_path=jsonrpc_path, rest_prefix=rest_prefix, strict=self.ours,
                         version_header=self.notes.get("version header", "A2A-Version"), seen=self.seen)

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

    def on_binding(self, binding: str, call: tuple[str, dict[str, Any]]) -> Any:
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
        agent = getattr(self.server, "agent", None)
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

    def use_server(self, server: Any) -> None:
        """Move this scenario's workspaces to another server (one with other settings)."""
        for workspace in self.workspaces.values():
            self.server.workspaces.remove(workspace)
            server.workspaces.add(workspace)
        self.server = server
        self.http.close()
        self.http = self.new_http(server.url)

