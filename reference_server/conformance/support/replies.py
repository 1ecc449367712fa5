"""What a call gives back: a unary Reply, a StreamReply, the ErrorView of an error, what the answers broke (Seen),
and the exceptions that say an answer could not be read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from reference_server.conformance.support.exchanges import Exchange, body_text, shown
from reference_server.conformance.support.schemas import Violation


class WireProblem(AssertionError):
    """An answer of a shape A2A does not allow, said in A2A terms: a body that is not JSON, a JSON-RPC answer that is
    neither a result nor an error, an answer that is not the stream asked for."""


class NotServed(Exception):
    """Another server has no such method at all: the finding is SPEC-OP-001's, and the scenario could not be checked."""


class Unreadable(Exception):
    """An answer the suite cannot read in 1.0 shape because it breaks its schema: the violations, recorded apart
    (Seen), are the finding; a scenario stopped by it could not be checked."""


@dataclass
class Seen:
    """What a scenario's answers broke, as far as their schemas tell: recorded, not raised, against another server,
    so that one defect is one failure of its own requirement (conformance/support/schemas.py Violation.requirement) and
    the scenario goes on to its own assertions."""

    exchanges: list[Exchange] = field(default_factory=list)
    violations: list[dict[str, str]] = field(default_factory=list)
    answers: int = 0  # answers checked against a schema
    # the scenario sent input that breaks the rules on purpose: an answer that takes it may echo it, and what that
    # breaks is the taking's finding (CORE-ERR-002), not the answer's
    invalid_input: bool = False

    def record(self, operation: str, found: list[Violation], *, requirement: str | None = None) -> None:
        if self.invalid_input and requirement is None:
            return
        self.answers += 1
        exchange = self.exchanges[-1].describe() if self.exchanges else ""
        for violation in found:
            self.violations.append({
                "operation": operation, "requirement": requirement or violation.requirement,
                "schema": violation.schema, "path": violation.path, "rule": violation.rule,
                "says": violation.says, "value": violation.value, "exchange": exchange})

    def note(self, operation: str, requirement: str, rule: str, says: str) -> None:
        """A finding about an answer that is not a schema's: its content type, its JSON-RPC id."""
        self.record(operation, [Violation(operation, "$", rule, says, "")], requirement=requirement)
        self.answers -= 1


@dataclass
class ErrorView:
    name: str
    message: str
    http_status: int
    code: int | None = None
    reason: str | None = None
    violations: list[dict[str, str]] = field(default_factory=list)
    raw: Any = None

    def __str__(self) -> str:
        """The error as A2A names it, with what identified it on the wire."""
        said = f': "{self.message}"' if self.message else ""
        if self.code is not None:
            return f"{self.name} (JSON-RPC code {self.code}, HTTP {self.http_status}){said}"
        reason = f", reason {self.reason}" if self.reason else ""
        return f"{self.name} (HTTP {self.http_status}{reason}){said}"


@dataclass
class Reply:
    """A unary answer: `body` is the result in 1.0 shape (0.3 results are converted), or `error`."""

    http_status: int
    body: Any = None
    error: ErrorView | None = None
    headers: httpx.Headers | None = None
    raw: Any = None

    def __str__(self) -> str:
        if self.error is not None:
            return f"the error {self.error}"
        # as the server sent it (a 0.3 answer in its own shape, not the 1.0 one the steps read)
        sent = self.raw.get("result", self.raw) if isinstance(self.raw, dict) else self.body
        return f"the answer {shown(sent, 300)}"


@dataclass
class StreamReply:
    """A stream: its events in 1.0 StreamResponse shape, or the error that came instead of (or in) it."""

    http_status: int
    events: list[dict[str, Any]] = field(default_factory=list)
    raw_events: list[Any] = field(default_factory=list)
    error: ErrorView | None = None
    content_type: str = ""
    # what only a fault the message asked for brings (docs/scripted-agent.md): the connection closed before the
    # stream's end, and the data of frames that are not JSON
    broken: bool = False
    garbled: list[str] = field(default_factory=list)
    timed_out: float = 0.0  # the bound after which the client closed it, not ended (A2AClient.sse); 0: it ended

    def __str__(self) -> str:
        if self.error is not None and not self.events:
            return f"the error {self.error} instead of a stream"
        kinds = ", ".join(next(iter(event), "?") for event in self.events) or "no event"
        ended = (f" (it had not ended after {self.timed_out:g} s, and the client closed it)" if self.timed_out
                 else " (the connection closed before its end)" if self.broken else "")
        error = f", then the error {self.error}" if self.error is not None else ""
        return f"a stream of {len(self.events)} event{'s' * (len(self.events) != 1)}: {kinds}{error}{ended}"


def json_of(response: httpx.Response, what: str) -> Any:
    """The answer's JSON, or a WireProblem saying what came instead."""
    try:
        return response.json()
    except ValueError:
        content_type = response.headers.get("content-type", "(no content type)")
        raise WireProblem(f"the answer to {what} is not JSON: HTTP {response.status_code} {content_type}, "
                          f"{body_text(response.content, content_type, 300)}") from None


def described(reply: Reply | StreamReply | None) -> str:
    """An answer or a stream as a failure message says it, or "no answer" when none came."""
    return "no answer" if reply is None else str(reply)


def event_kinds(seen: list[Any]) -> str:
    """Events as a message says them: how many, and the kind of each."""
    if not seen:
        return "no event"
    kinds = ", ".join(next(iter(event), "?") if isinstance(event, dict) else shown(event, 60) for event in seen)
    return f"{len(seen)} event{'s' * (len(seen) != 1)}: {kinds}"
