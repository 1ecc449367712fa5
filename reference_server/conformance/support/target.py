"""Another A2A server as the target of the portable scenarios: A2A_TARGET_URL and A2A_TARGET_KEY (and, for a card that
is not at the well-known path, A2A_TARGET_CARD_URL).

Discovery comes first. The card says what the server speaks: A2A 1.0 interfaces (`supportedInterfaces`), the A2A 0.3
shape (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`), or both; the scenarios then run on
the bindings and versions it offers and nowhere else. A card that cannot be read or understood, or a key the server
refuses, stops the run at once with one sentence (Unusable): where the suite looked and what came back. Then a short
probe learns which behaviour convention the agent follows (conformance/support/conventions.py).

Protocol-level scenarios (tagged @portable) need only a URL and a key; the design-level ones read the reference
server's workspace and drive its scripted agent, so against another server they are skipped.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from reference_server.conformance.support.conventions import Conventions, Unusable, probe
from reference_server.conformance.support.exchanges import body_text
from reference_server.conformance.support.health import Health, baseline
from reference_server.settings import Settings

TARGET_URL = os.environ.get("A2A_TARGET_URL", "").rstrip("/")
TARGET_KEY = os.environ.get("A2A_TARGET_KEY", "")
# a second caller of the target, for the scenarios about what one caller may see of another's tasks (optional)
TARGET_OTHER_KEY = os.environ.get("A2A_TARGET_OTHER_KEY", "")
TARGET_CARD_URL = os.environ.get("A2A_TARGET_CARD_URL", "")
# a caller the target knows but does not allow to send messages, for the authorization tier (optional)
TARGET_LIMITED_KEY = os.environ.get("A2A_TARGET_LIMITED_KEY", "")
# where `make conformance` left what it discovered, so that the scenarios do not ask again (internal)
TARGET_PROFILE = os.environ.get("A2A_TARGET_PROFILE", "")

WELL_KNOWN = "/.well-known/agent-card.json"  # A2A §8.2
OLD_WELL_KNOWN = "/.well-known/agent.json"  # where A2A 0.2 put the card
BINDINGS = {"JSONRPC": "jsonrpc", "HTTP+JSON": "rest"}  # the card's binding names; gRPC is not spoken here
BINDING_NAMES = {"jsonrpc": "JSON-RPC", "rest": "HTTP+JSON"}
# the order the suite prefers when one interface will do (the convention probe)
PREFERRED = [("jsonrpc", "1.0"), ("rest", "1.0"), ("jsonrpc", "0.3"), ("rest", "0.3")]


class NoWorkspaces:
    """A target server's workspaces are its own: scenarios cannot add any."""

    def add(self, workspace: Any) -> None:
        raise AssertionError("a portable scenario must not need a workspace")

    def remove(self, workspace: Any) -> None:
        pass


@dataclass
class TargetServer:
    url: str  # where the card was found: scheme://host:port, the base of every relative path
    card_url: str
    card: dict[str, Any]
    endpoints: dict[str, str]  # "jsonrpc-1.0" -> the interface's URL, as the card declares it
    shapes: list[str]  # which card shapes it has: "1.0" (supportedInterfaces), "0.3" (url, preferredTransport)
    notes: list[str] = field(default_factory=list)  # what discovery noticed on the way
    agent: Conventions | None = None
    health: Health | None = None  # what two well-formed requests got at the start (conformance/support/health.py)
    workspaces: NoWorkspaces = field(default_factory=NoWorkspaces)
    settings: Settings = field(default_factory=Settings)
    notifier: None = None
    push_waits: list[float] = field(default_factory=list)  # none recorded: its push retries are its own

    @property
    def interfaces(self) -> set[tuple[str, str]]:
        return {tuple(key.split("-", 1)) for key in self.endpoints}  # type: ignore[misc]

    def paths(self, binding: str, version: str) -> tuple[str, str]:
        return paths_of(self.endpoints, version)

    @property
    def jsonrpc_path(self) -> str:
        return self.paths("jsonrpc", "1.0")[0] or self.paths("jsonrpc", "0.3")[0]

    @property
    def rest_prefix(self) -> str:
        return self.paths("rest", "1.0")[1] or self.paths("rest", "0.3")[1]

    def stop(self) -> None:
        pass

    def as_json(self) -> dict[str, Any]:
        found = {k: v for k, v in asdict(self).items() if k in ("url", "card_url", "card", "endpoints", "shapes",
                                                                  "notes")}
        found["agent"] = self.agent.as_json() if self.agent else None
        found["health"] = asdict(self.health) if self.health else None
        return found

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> TargetServer:
        agent = Conventions.from_json(value["agent"]) if value.get("agent") else None
        health = value.get("health")
        return cls(value["url"], value["card_url"], value["card"], value["endpoints"], value["shapes"],
                   value.get("notes", []), agent,
                   Health(health["card"], tuple(health["call"]), health["answered"]) if health else None)

    def description(self) -> str:
        """What the server speaks, in one paragraph, for the top of every report."""
        offered = [f"{BINDING_NAMES[b]} in A2A {v} at {self.endpoints[f'{b}-{v}']}" for b, v in PREFERRED
                   if f"{b}-{v}" in self.endpoints]
        shape = {("1.0",): "an A2A 1.0 card (supportedInterfaces)", ("0.3",): "an A2A 0.3 card (url, "
                 "preferredTransport)", ("0.3", "1.0"): "a card of both shapes (A2A 1.0 supportedInterfaces and the "
                 "0.3 fields)"}[tuple(sorted(self.shapes))]
        versions = sorted({key.split("-")[1] for key in self.endpoints}, reverse=True)
        lines = [f"The server at {self.url} has {shape} at {self.card_url}. It serves {'; '.join(offered)}."]
        missing = [v for v in ("1.0", "0.3") if v not in versions]
        if missing:
            lines.append(f"It does not offer A2A {' or '.join(missing)}: those columns are not offered, and no "
                         "scenario runs there.")
        lines += self.notes
        if self.agent is not None:
            lines.append(self.agent.description())
        return " ".join(lines)


def paths_of(endpoints: dict[str, str], version: str) -> tuple[str, str]:
    """The JSON-RPC URL and the HTTP+JSON prefix of the operation routes, for this version, from the card's
    interfaces. A 0.3 HTTP+JSON interface at <x> serves the 0.3 proto's routes under <x>/v1."""
    jsonrpc = endpoints.get(f"jsonrpc-{version}", "")
    rest = endpoints.get(f"rest-{version}", "").rstrip("/")
    return jsonrpc, rest + "/v1" if version == "0.3" and rest else rest


def major_minor(version: Any) -> str | None:
    """"1.0", "1.0.0" or "0.3.0" as Major.Minor (A2A §3.6: the patch number plays no part)."""
    parts = str(version or "").split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 and all(p.isdigit() for p in parts[:2]) else None


def read_card(http: httpx.Client, base: str, card_url: str) -> tuple[str, dict[str, Any]]:
    """The card and the URL it came from; Unusable with the sentence that says what came back instead."""
    where = card_url or base + WELL_KNOWN
    try:
        response = http.get(where)
    except httpx.HTTPError as error:
        raise Unusable(f"No agent card could be read at {where}: {type(error).__name__.lower()} "
                       f"({error or 'no answer'}). Is the server running there?") from None
    if response.status_code != 200:
        hint = ""
        if not card_url:
            old = http.get(base + OLD_WELL_KNOWN)
            if old.status_code == 200:
                hint = (f" A card is served at {base + OLD_WELL_KNOWN} (A2A 0.2's path): name it with "
                        "A2A_TARGET_CARD_URL to test the server anyway.")
            else:
                hint = " If the card is at another path, name it with A2A_TARGET_CARD_URL."
        raise Unusable(f"No agent card at {where}: it answered HTTP {response.status_code} "
                       f"{body_text(response.content, response.headers.get('content-type', ''), 200)}.{hint}")
    try:
        card = response.json()
    except ValueError:
        raise Unusable(f"The agent card at {where} is not JSON: "
                       f"{body_text(response.content, response.headers.get('content-type', ''), 200)}.") from None
    if not isinstance(card, dict):
        raise Unusable(f"The agent card at {where} is not a JSON object: {body_text(response.content, '', 200)}.")
    return where, card


def interfaces_of(card: dict[str, Any], card_url: str) -> tuple[dict[str, str], list[str], list[str]]:
    """The (binding-version -> URL) the card declares, which shapes it has, and what was noticed."""
    endpoints: dict[str, str] = {}
    shapes: list[str] = []
    notes: list[str] = []
    declared = card.get("supportedInterfaces")
    if isinstance(declared, list) and declared:
        shapes.append("1.0")
        for interface in declared:
            if not isinstance(interface, dict):
                continue
            binding = BINDINGS.get(str(interface.get("protocolBinding")))
            version = major_minor(interface.get("protocolVersion"))
            if binding and version in ("1.0", "0.3") and isinstance(interface.get("url"), str):
                endpoints.setdefault(f"{binding}-{version}", urljoin(card_url, interface["url"]))
    if isinstance(card.get("url"), str) and ("protocolVersion" in card or "preferredTransport" in card
                                             or not shapes):
        shapes.append("0.3")
        version = major_minor(card.get("protocolVersion")) or "0.3"
        if version != "0.3":
            notes.append(f"Its 0.3-shaped fields say protocolVersion {card.get('protocolVersion')!s}; they are read "
                         "as A2A 0.3.")
        if "protocolVersion" not in card:
            notes.append("Its card has no protocolVersion; its 0.3 fields are read as A2A 0.3.")
        main = BINDINGS.get(str(card.get("preferredTransport") or "JSONRPC"))
        if main:
            endpoints.setdefault(f"{main}-0.3", urljoin(card_url, card["url"]))
        for interface in card.get("additionalInterfaces") or []:
            binding = BINDINGS.get(str(interface.get("transport"))) if isinstance(interface, dict) else None
            if binding and isinstance(interface.get("url"), str):
                endpoints.setdefault(f"{binding}-0.3", urljoin(card_url, interface["url"]))
    return endpoints, shapes, notes


def discover(url: str = TARGET_URL, *, key: str = TARGET_KEY, card_url: str = TARGET_CARD_URL,
             conventions: bool = True) -> TargetServer:
    """What the target speaks, read from its card, and the convention its agent follows; Unusable when it cannot be
    tested at all."""
    if TARGET_PROFILE and Path(TARGET_PROFILE).exists() and url == TARGET_URL:
        return TargetServer.from_json(json.loads(Path(TARGET_PROFILE).read_text(encoding="utf-8")))
    base = url.rstrip("/")
    with httpx.Client(timeout=10) as http:
        where, card = read_card(http, base, card_url)
    endpoints, shapes, notes = interfaces_of(card, where)
    if not endpoints:
        grpc = "gRPC only, which this suite does not speak" if "GRPC" in json.dumps(card) else "no interface"
        raise Unusable(f"The agent card at {where} declares {grpc}: neither A2A 1.0 supportedInterfaces with a "
                       "JSONRPC or HTTP+JSON binding nor the A2A 0.3 fields url and preferredTransport.")
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(where))
    elsewhere = sorted({u for u in endpoints.values() if not u.startswith(origin)})
    if elsewhere:
        notes.append(f"Its card names interfaces away from where it was found: {', '.join(elsewhere)}.")
    server = TargetServer(origin, where, card, endpoints, shapes, notes)
    if conventions:
        server.agent = probe(server, key)
        binding, version = server.agent.protocol.split("-")
        server.health = baseline(server, key, (binding, version))
    return server


def offers(server: Any, binding: str, version: str) -> bool:
    """Whether the target's card offers this binding in this version ("none" is the card itself: an A2A 1.0 card's
    requirements are not offered by a server that speaks only 0.3)."""
    if binding == "none":
        return version == "0.3" or any(v == version for _, v in server.interfaces)
    return (binding, version) in server.interfaces
