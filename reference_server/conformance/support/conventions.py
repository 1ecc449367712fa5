"""How a portable scenario asks an agent for a behaviour: the conventions agents follow for conformance runs, and
the probe that learns which one an agent follows.

- **TCK** (a2aproject/a2a-tck, 1.0-dev): the behaviour's prefix starts the messageId (`tck-complete-task-<uuid>`).
- **ACTS** (the A2A project's draft corpus): the prefix starts the first text part (`tck-complete-task hello`), the
  messageId is fresh. ACTS names behaviours the TCK has not (ACTS_PREFIXES): those are asked for only of an agent
  that follows ACTS.
- **none**: the agent follows neither. A plain message gets what the agent gives anything; the behaviours that this
  answer already is (a completed task, a message) are offered, and every other one is not: a scenario that needs it
  is n/a, with the reason, never a failure. A scenario whose behaviour the agent does not offer has proved nothing.

An agent may follow both (this server's does): a behaviour the TCK names is then asked for by its messageId.

No other prefix is used (the spec lint holds the portable features to PREFIXES).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx

from reference_server.conformance.support.client import A2AClient
from reference_server.conformance.support.exchanges import closed, shown
from reference_server.conformance.support.replies import Reply, Unreadable, WireProblem

# the behaviours the TCK and ACTS name (the first word of a message, for ACTS; the start of its messageId, for the TCK)
TCK_PREFIXES = ("tck-complete-task", "tck-input-required", "tck-reject-task", "tck-message-response",
                "tck-artifact-text", "tck-artifact-file-url", "tck-artifact-file", "tck-artifact-data",
                "tck-stream-artifact-chunked", "tck-stream-")
ACTS_PREFIXES = ("tck-auth-required", "tck-multi-turn", "tck-long-running", "tck-cancel", "tck-task-failure")
# (ACTS's own streams, tck-stream-basic and tck-stream-chunked, are of the tck-stream- family the TCK names)
PREFIXES = TCK_PREFIXES + ACTS_PREFIXES
# what a TCK agent does with a messageId it has no behaviour for (the tck-stream-* ids of its streaming scenarios):
# it completes the task, as tck-complete-task
COMPLETES = ("tck-complete-task", "tck-stream-001", "tck-stream-003", "tck-stream-ordering-001")
# the TCK's name of a behaviour -> ACTS's name of the same one (acts-specification.md §11.2)
ACTS_NAMES = {"tck-stream-001": "tck-stream-basic", "tck-stream-002": "tck-stream-basic",
              "tck-stream-003": "tck-stream-basic", "tck-stream-ordering-001": "tck-stream-basic",
              "tck-stream-artifact-chunked": "tck-stream-chunked"}
TEXT = "A message of the conformance suite"
PROBE = "tck-reject-task"  # a behaviour no agent shows by chance: a rejected task
PROBE_WAIT = 5.0  # how long a plain message's task is followed to learn where it goes


class Unusable(Exception):
    """The target cannot be tested at all; the message is the one sentence that says why."""


class Unoffered(Exception):
    """The agent does not offer the behaviour a scenario needs: the message is the reason it is n/a."""


def behaviour_of(prefix: str) -> str:
    """The behaviour a prefix names: "tck-artifact-file-url-2" -> "tck-artifact-file-url"."""
    return next((known for known in PREFIXES if prefix.startswith(known)), prefix)


def acts_only(prefix: str) -> bool:
    return behaviour_of(prefix) in ACTS_PREFIXES


@dataclass
class Conventions:
    tck: bool  # it follows the TCK's messageId prefixes
    acts: bool  # it follows ACTS's text prefixes
    protocol: str  # the binding and version the probe spoke: "jsonrpc-1.0"
    evidence: str  # what the probe saw, in one clause
    plain: str | None = None  # what a plain message got, when the agent follows neither
    offered: list[str] = field(default_factory=list)  # the behaviours a plain message gives

    @property
    def name(self) -> str:
        return "tck+acts" if self.tck and self.acts else "tck" if self.tck else "acts" if self.acts else "none"

    def offers(self, prefix: str) -> bool:
        if acts_only(prefix):
            return self.acts
        if self.tck or self.acts:
            return True
        return prefix in self.offered or behaviour_of(prefix) in self.offered

    def message(self, prefix: str, text: str = TEXT) -> dict[str, Any]:
        """A message that asks for the prefix's behaviour in this convention; Unoffered when the agent has none."""
        if not self.offers(prefix):
            raise Unoffered(self.reason(prefix))
        if self.tck and not acts_only(prefix):
            return {"messageId": f"{prefix}-{uuid.uuid4()}", "role": "ROLE_USER", "parts": [{"text": text}]}
        if self.acts:
            asked = ACTS_NAMES.get(prefix, prefix)
            return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": f"{asked} {text}"}]}
        return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}

    def reason(self, prefix: str) -> str:
        """Why a scenario that needs the behaviour is n/a, in one clause (the evidence is in the description, which
        the report and the page give once)."""
        if self.tck and acts_only(prefix):
            return (f"the agent does not offer the behaviour {prefix}, which only ACTS names: it follows the TCK's "
                    "messageId prefixes, not ACTS's text prefixes")
        return (f"the agent does not offer the behaviour {prefix}: it follows neither the TCK's nor ACTS's behaviour "
                f"conventions, and a plain message gets {self.plain or 'nothing it could use'}")

    def description(self) -> str:
        if self.tck and self.acts:
            return f"Its agent follows both the TCK's messageId prefixes and ACTS's text prefixes ({self.evidence})."
        if self.tck:
            return (f"Its agent follows the TCK's messageId prefixes, not ACTS's text prefixes ({self.evidence}); "
                    "the behaviours only ACTS names are n/a.")
        if self.acts:
            return f"Its agent follows ACTS's text prefixes, not the TCK's messageId prefixes ({self.evidence})."
        offered = (f"only the behaviours that answer already is ({', '.join(self.offered)}) are offered"
                   if self.offered else "no behaviour is offered")
        return (f"Its agent follows neither the TCK's nor ACTS's behaviour conventions ({self.evidence}); a plain "
                f"message gets {self.plain}, so {offered}, and the scenarios that need another are n/a.")

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "name": self.name}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Conventions:
        return cls(**{k: v for k, v in value.items() if k != "name"})


# this server's scripted agent (docs/scripted-agent.md)
TCK_CONVENTIONS = Conventions(True, True, "any", "the reference server's scripted agent")


def what_came(reply: Reply) -> str:
    """A send's answer in a few words: "a message", "a task, completed", "the error …"."""
    if reply.error is not None:
        return f"the error {reply.error}"
    body = reply.body if isinstance(reply.body, dict) else {}
    if "message" in body:
        return "a message"
    task = body.get("task")
    if isinstance(task, dict):
        state = str((task.get("status") or {}).get("state", "no state"))
        return f"a task, {state.removeprefix('TASK_STATE_').lower().replace('_', '-')}"
    return f"an answer that is neither a task nor a message: {shown(body, 200)}"


def _send(client: A2AClient, message: dict[str, Any]) -> Reply | str:
    """The answer to a blocking send, or what happened instead, in words."""
    try:
        return client.call("SendMessage", {"message": message})
    except (WireProblem, Unreadable) as problem:
        return str(problem)
    except httpx.TransportError as error:
        return closed(error)


def _followed(client: A2AClient, reply: Reply) -> str:
    """Where a plain message's task goes when the answer came before its end (a server that does not wait): its
    state once it leaves submitted and working, or as it is after PROBE_WAIT seconds."""
    task = reply.body["task"]
    deadline = time.monotonic() + PROBE_WAIT
    state = what_came(reply)
    while state in ("a task, submitted", "a task, working") and time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            got = client.call("GetTask", {"id": task.get("id")})
        except (WireProblem, Unreadable, httpx.TransportError):
            break
        if got.error is not None or not isinstance(got.body, dict):
            break
        state = what_came(Reply(200, body={"task": got.body}))
    return state


def probe(server: Any, key: str) -> Conventions:
    """Which convention the agent follows: a tck-reject-task message by each convention in turn, and what it gets;
    Unusable when the key is refused."""
    protocol = next((p for p in (("jsonrpc", "1.0"), ("rest", "1.0"), ("jsonrpc", "0.3"), ("rest", "0.3"))
                     if p in server.interfaces), None)
    assert protocol is not None, "discovery found no interface"
    binding, version = protocol
    jsonrpc, rest = server.paths(binding, version)
    with httpx.Client(base_url=server.url, timeout=30) as http:
        client = A2AClient(http, binding=binding, version=version, key=key or None, jsonrpc_path=jsonrpc,
                           rest_prefix=rest, strict=False)
        said = f"{binding}-{version}"
        tck = _send(client, {"messageId": f"{PROBE}-{uuid.uuid4()}", "role": "ROLE_USER",
                             "parts": [{"text": "Which behaviour convention does the agent follow?"}]})
        if isinstance(tck, Reply) and tck.error is not None and tck.http_status in (401, 403):
            raise Unusable(f"The server refused the suite's key: a SendMessage to {jsonrpc or rest} was answered "
                           f"{tck.error}. Give a key it accepts in A2A_TARGET_KEY.")
        acts = _send(client, {"messageId": str(uuid.uuid4()), "role": "ROLE_USER",
                              "parts": [{"text": f"{PROBE} Which behaviour convention does the agent follow?"}]})
        by_id = isinstance(tck, Reply) and what_came(tck) == "a task, rejected"
        by_text = isinstance(acts, Reply) and what_came(acts) == "a task, rejected"
        if by_id or by_text:
            said_by = [f"a message whose {where} starts with {PROBE} was rejected"
                       for where, yes in (("messageId", by_id), ("text", by_text)) if yes]
            not_by = [f"one whose {where} does got {what_came(reply) if isinstance(reply, Reply) else reply}"
                      for where, yes, reply in (("messageId", by_id, tck), ("text", by_text, acts)) if not yes]
            return Conventions(by_id, by_text, said, "; ".join(said_by + not_by))
        if not isinstance(acts, Reply):
            return Conventions(False, False, said, f"a {PROBE} message got {acts}", plain=acts)
        plain = what_came(acts)
        if plain in ("a task, submitted", "a task, working"):
            ended = _followed(client, acts)
            plain = f"{plain} (then, read again, {ended.removeprefix('a ')})" if ended != plain else plain
            offered = list(COMPLETES) if ended == "a task, completed" else []
        else:
            offered = (list(COMPLETES) if plain == "a task, completed" else
                       ["tck-message-response"] if plain == "a message" else [])
        return Conventions(False, False, said, f"a {PROBE} message got {what_came(acts)}", plain=plain,
                           offered=offered)
