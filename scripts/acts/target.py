"""The system under test as its card describes it: the interfaces of A2A 1.x per binding, and the preconditions
(ACTS §3.3, §12.5) a test asks of the card."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from scripts.acts import assertions
from scripts.acts.corpus import Test
from scripts.acts.paths import MISSING
from scripts.acts.wire import Http, Request, origin

BINDING_NAMES = {"JSONRPC": "jsonrpc", "HTTP+JSON": "rest", "REST": "rest", "GRPC": "grpc"}
DRIVEN = ("jsonrpc", "rest")  # the bindings this runner speaks


class TargetError(RuntimeError):
    """The server cannot be run against (no card, no usable interface)."""


@dataclass
class Target:
    url: str
    card_url: str
    card: dict[str, Any]
    interfaces: dict[str, str]  # binding → its A2A 1.x interface URL, on the given origin
    declared: set[str]  # every binding the card declares for 1.x, gRPC included
    notes: list[str] = field(default_factory=list)
    derive_authentication: bool = False

    @property
    def capabilities(self) -> dict[str, Any]:
        value = self.card.get("capabilities")
        return value if isinstance(value, dict) else {}


def card_request(card_url: str, headers: dict[str, str]) -> Request:
    return Request("GET", card_url, {**headers, "Accept": "application/json"}, label="GET agent card", plain=True)


def discover(http: Http, url: str, card_url: str, headers: dict[str, str]) -> Target:
    exchange = http.send(card_request(card_url, headers))
    if exchange.status != 200 or not isinstance(exchange.body, dict):
        raise TargetError(f"no agent card at {card_url}: {exchange.problem or exchange.status}")
    interfaces, declared, notes = interfaces_of(exchange.body, url)
    return Target(url, card_url, exchange.body, interfaces, declared, notes)


def interfaces_of(card: dict[str, Any], url: str) -> tuple[dict[str, str], set[str], list[str]]:
    """The first A2A 1.x interface of each binding. An interface on another origin than url is moved onto url's
    (same path): the runner talks to nothing but the URL it was given."""
    found: dict[str, str] = {}
    declared: set[str] = set()
    notes: list[str] = []
    for interface in card.get("supportedInterfaces") or []:
        if not isinstance(interface, dict):
            continue
        binding = BINDING_NAMES.get(str(interface.get("protocolBinding", "")).upper())
        version = str(interface.get("protocolVersion", ""))
        address = interface.get("url")
        if binding is None or not version.startswith("1.") or not isinstance(address, str):
            continue
        declared.add(binding)
        if binding in found or binding not in DRIVEN:
            continue
        if origin(address) != origin(url):
            parts = urlsplit(address)
            moved = origin(url) + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            notes.append(f"the card's {binding} interface {address} is on another origin; used as {moved}")
            address = moved
        found[binding] = address
    return found, declared, notes


def unmet(test: Test, target: Target, binding: str) -> str | None:
    """Why the card does not meet the test's preconditions, or None."""
    preconditions = test.body.get("preconditions") or {}
    for name, wanted in test.capabilities.items():
        reason = _capability(target, name, wanted)
        if reason:
            return reason
    skills = {s.get("id") for s in target.card.get("skills") or [] if isinstance(s, dict)}
    for skill in preconditions.get("skills") or []:
        if isinstance(skill, dict) and skill.get("id") not in skills:
            return f"the card has no skill {skill.get('id')!r}"
    transports = preconditions.get("transport") or []
    if transports and binding not in transports:
        return f"precondition transport {transports}, this run is {binding}"
    extensions = {e.get("uri") for e in target.capabilities.get("extensions") or [] if isinstance(e, dict)}
    for uri in preconditions.get("extensions") or []:
        if uri not in extensions:
            return f"the card declares no extension {uri}"
    return None


def _capability(target: Target, name: str, wanted: Any) -> str | None:
    actual = target.capabilities.get(name, MISSING)
    shown = assertions.show(actual)
    if wanted is False:  # A2A §3.3.4: "false or not present"
        return None if actual in (MISSING, False) else f"the card declares capabilities.{name}: {shown}"
    if name == "authentication" and wanted is True and actual is MISSING and target.derive_authentication:
        if target.card.get("securitySchemes"):
            return None
        return "the card declares no securitySchemes (--derive-authentication)"
    if wanted is True:
        return None if actual is True else f"the card has capabilities.{name}: {shown}, the test needs true"
    return None if assertions.holds(actual, wanted) else f"capabilities.{name} is {shown}, the test needs {wanted}"

