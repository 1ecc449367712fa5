"""What the hostile requests aim at: the interfaces a server offers, the task they name, and the credentials they send.

A Surface is built from what discovery read in a server's card (conformance/support/target.py), or for this server's own
endpoints. Its Secrets are the caller's key and credentials made up for the run, new each time, so that a credential
found in an answer can be told by name ("a made-up push token") and never has to be printed.
"""

from __future__ import annotations

import secrets as random_tokens
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

UNKNOWN_TASK = "00000000-0000-4000-8000-000000000000"
# where a push config points: a discard port on loopback, so that a server that delivers sends nothing off this host
WEBHOOK = "http://127.0.0.1:9/robustness-hook"
KEY_NAME = "the caller's key (A2A_TARGET_KEY)"
SHORTEST_KEY = 8  # a shorter key would be found in answers by chance: it is not looked for


@dataclass(frozen=True)
class Secrets:
    """The credentials a run sends: the caller's key, and the made-up ones (new for every run)."""

    key: str
    wrong_key: str
    bearer: str
    push_token: str
    push_credentials: str

    @classmethod
    def made_up(cls, key: str) -> Secrets:
        def token(kind: str) -> str:
            return f"fz-{kind}-{random_tokens.token_hex(10)}"

        return cls(key, token("key"), token("bearer"), token("push-token"), token("push-credentials"))

    def named(self) -> list[tuple[str, str]]:
        """Each credential looked for in answers, by the name a report gives it."""
        found = [(KEY_NAME, self.key)] if len(self.key) >= SHORTEST_KEY else []
        return [*found, ("a made-up API key", self.wrong_key), ("a made-up bearer token", self.bearer),
                ("a made-up push token", self.push_token), ("made-up push credentials", self.push_credentials)]

    def redacted(self, text: str) -> str:
        """The text with every credential replaced by its name in brackets."""
        for name, value in self.named():
            text = text.replace(value, f"[{name}]")
        return text


@dataclass(frozen=True)
class Interface:
    """One binding in one version: where its requests go."""

    binding: str  # "jsonrpc" or "rest"
    version: str  # "1.0" or "0.3"
    origin: str  # scheme://host:port
    path: str  # the JSON-RPC endpoint's path, or the prefix of the HTTP+JSON operation routes

    @property
    def name(self) -> str:
        return f"{self.binding}-{self.version}"


@dataclass(frozen=True)
class Surface:
    origin: str  # where the card was found: odd paths go there
    interfaces: tuple[Interface, ...]
    secrets: Secrets
    known_task: str = UNKNOWN_TASK  # a task of the caller's, made by a well-formed send at the start
    key_header: str = "X-API-Key"  # where the key goes (the card's API key scheme), or "Authorization" for a bearer

    def interface(self, name: str) -> Interface:
        return next(i for i in self.interfaces if i.name == name)


def split(url: str) -> tuple[str, str]:
    """scheme://host:port and the path of a URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}", parts.path or "/"


def from_target(server: Any, secrets: Secrets) -> Surface:
    """The surface of a discovered server (support/target.TargetServer): its interfaces, as its card declares them."""
    interfaces = []
    for binding, version in sorted(server.interfaces):
        jsonrpc, rest = server.paths(binding, version)
        origin, path = split(jsonrpc if binding == "jsonrpc" else rest)
        interfaces.append(Interface(binding, version, origin, path.rstrip("/") if binding == "rest" else path))
    return Surface(server.url, tuple(interfaces), secrets, key_header=key_header(server.card))


def for_reference_server(url: str, secrets: Secrets, known_task: str = UNKNOWN_TASK) -> Surface:
    """This server's own endpoints: JSON-RPC at /a2a and HTTP+JSON under /a2a/v1, in 1.0 and 0.3 alike."""
    interfaces = tuple(Interface(binding, version, url, "/a2a" if binding == "jsonrpc" else "/a2a/v1")
                       for binding in ("jsonrpc", "rest") for version in ("1.0", "0.3"))
    return Surface(url, interfaces, secrets, known_task)


def key_header(card: dict[str, Any]) -> str:
    """The header the card's security scheme names: an API key's own header, Authorization for a bearer scheme,
    else X-API-Key."""
    schemes = card.get("securitySchemes")
    if not isinstance(schemes, dict):
        return "X-API-Key"
    for scheme in schemes.values():
        if not isinstance(scheme, dict):
            continue
        api_key = scheme.get("apiKeySecurityScheme") or (scheme if scheme.get("type") == "apiKey" else None)
        if isinstance(api_key, dict) and str(api_key.get("location", api_key.get("in", ""))).lower() == "header":
            return str(api_key.get("name") or "X-API-Key")
    for scheme in schemes.values():
        bearer = scheme.get("httpAuthSecurityScheme") or (scheme if scheme.get("type") == "http" else None) \
            if isinstance(scheme, dict) else None
        if isinstance(bearer, dict) and str(bearer.get("scheme", "")).lower() == "bearer":
            return "Authorization"
    return "X-API-Key"
