"""Another A2A server as the target of the portable scenarios: A2A_TARGET_URL and A2A_TARGET_KEY.

Protocol-level scenarios (tagged @portable) need only a URL and a key; the design-level ones read the
reference server's workspace and drive its scripted agent, so against another server they are skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from reference_server.settings import Settings

TARGET_URL = os.environ.get("A2A_TARGET_URL", "").rstrip("/")
TARGET_KEY = os.environ.get("A2A_TARGET_KEY", "")
# a second caller of the target, for the scenarios about what one caller may see of another's tasks (optional)
TARGET_OTHER_KEY = os.environ.get("A2A_TARGET_OTHER_KEY", "")


class NoWorkspaces:
    """A target server's workspaces are its own: scenarios cannot add any."""

    def add(self, workspace: Any) -> None:
        raise AssertionError("a portable scenario must not need a workspace")

    def remove(self, workspace: Any) -> None:
        pass


@dataclass
class TargetServer:
    url: str
    jsonrpc_path: str
    rest_prefix: str
    interfaces: set[tuple[str, str]] = field(default_factory=set)  # (binding, version) pairs its card offers
    workspaces: NoWorkspaces = field(default_factory=NoWorkspaces)
    settings: Settings = field(default_factory=Settings)
    notifier: None = None

    def stop(self) -> None:
        pass


def discover(url: str) -> TargetServer:
    """The target's A2A 1.0 JSON-RPC and HTTP+JSON URLs, read from its public card."""
    card = httpx.get(url + "/.well-known/agent-card.json", timeout=10).raise_for_status().json()
    paths: dict[tuple[str, str], str] = {}
    for interface in card["supportedInterfaces"]:
        key = (interface["protocolBinding"], interface["protocolVersion"])
        paths.setdefault(key, urlsplit(interface["url"]).path.rstrip("/"))
    jsonrpc, rest = paths.get(("JSONRPC", "1.0"), ""), paths.get(("HTTP+JSON", "1.0"), "")
    # the client speaks 0.3 at the 1.0 paths: JSON-RPC at the same path, HTTP+JSON with the 0.3 proto's /v1 routes
    # under the 1.0 prefix (a 0.3 interface at <x> serves <x>/v1/...), so a 0.3 interface elsewhere is not used
    same_path = {"JSONRPC": jsonrpc, "HTTP+JSON": rest.removesuffix("/v1")}
    usable = {key for key, path in paths.items() if key[1] != "0.3" or path == same_path.get(key[0])}
    return TargetServer(url, jsonrpc, rest, usable)


_BINDINGS = {"jsonrpc": "JSONRPC", "rest": "HTTP+JSON"}


def offers(server: TargetServer, binding: str, version: str) -> bool:
    """Whether the target's card offers this binding in this version ("none" is the card itself)."""
    return binding == "none" or (_BINDINGS[binding], version) in server.interfaces
