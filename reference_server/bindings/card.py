"""Agent cards (A2A §8): the generic public card and the extended card built from a workspace's card.json."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_server import __version__
from reference_server.a2a.capabilities import Capabilities
from reference_server.model.caller import Caller
from reference_server.platform.disk import StatCache
from reference_server.settings import Settings

log = logging.getLogger("reference_server.card")

JSONRPC_PATH = "/a2a"
REST_PATH = "/a2a/v1"

SECURITY_SCHEMES: dict[str, Any] = {
    "apiKey": {
        "apiKeySecurityScheme": {
            "description": "The key the agent's owner gave you, in the X-API-Key header.",
            "location": "header",
            "name": "X-API-Key",
        }
    },
    "bearer": {
        "httpAuthSecurityScheme": {
            "description": "The same key as a bearer token: Authorization: Bearer <key>.",
            "scheme": "Bearer",
        }
    },
}
# Either scheme is enough: two alternatives, each with no scopes.
SECURITY_REQUIREMENTS: list[dict[str, Any]] = [
    {"schemes": {"apiKey": {"list": []}}},
    {"schemes": {"bearer": {"list": []}}},
]

# the AgentSkill fields a card.json skill may set; anything else in the file is ignored
SKILL_FIELDS = ("id", "name", "description", "tags", "examples", "inputModes", "outputModes")

DEFAULT_SKILL = {
    "id": "chat",
    "name": "Chat",
    "description": "Talk with the assistant: ask questions, delegate work, exchange files.",
    "tags": ["chat"],
}


@dataclass(frozen=True)
class CardDetails:
    """The parts of a card that vary: who the agent is and what it can do."""

    name: str
    description: str
    skills: list[dict[str, Any]]


def build_card(details: CardDetails, base_url: str, settings: Settings) -> dict[str, Any]:
    """A pure A2A 1.0 card (plus the 0.3 top-level fields when the hybrid setting asks for them)."""
    jsonrpc_url, rest_url = base_url + JSONRPC_PATH, base_url + REST_PATH
    card: dict[str, Any] = {
        "name": details.name,
        "description": details.description,
        # design README: protocolVersion exactly "1.0" (the JS SDK matches the string)
        "supportedInterfaces": [
            {"url": jsonrpc_url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": rest_url, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": jsonrpc_url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            # 0.3 REST paths are the 0.3 proto's, /v1/..., appended to this URL: the same paths as 1.0 REST
            {"url": jsonrpc_url, "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
        ],
        "version": __version__,
        "capabilities": Capabilities.of(settings).card(),
        "securitySchemes": SECURITY_SCHEMES,
        "securityRequirements": SECURITY_REQUIREMENTS,
        # design step 4: a file part of any media type is saved to the inbox, so the agent takes every type; a card
        # naming fewer would promise a ContentTypeNotSupportedError (A2A §3.1.1) that this agent never gives
        "defaultInputModes": ["text/plain", "application/json", "*/*"],
        "defaultOutputModes": ["text/plain", "application/octet-stream"],
        "skills": details.skills,
    }
    if settings.hybrid_card:
        card.update(_hybrid_fields(card, jsonrpc_url, rest_url, settings))
    return card


def _v03_interfaces(url: str) -> list[dict[str, str]]:
    """The 0.3 `additionalInterfaces`: A2A 0.3 is served on both bindings at <base>/a2a."""
    return [{"url": url, "transport": "JSONRPC"}, {"url": url, "transport": "HTTP+JSON"}]


def _hybrid_fields(card: dict[str, Any], jsonrpc_url: str, rest_url: str, settings: Settings) -> dict[str, Any]:
    """The 0.3 top-level fields old 0.3-only clients look for (REAL-CLIENTS §7 item 7)."""
    schemes = {
        "apiKey": {**SECURITY_SCHEMES["apiKey"], "type": "apiKey", "in": "header", "name": "X-API-Key"},
        "bearer": {**SECURITY_SCHEMES["bearer"], "type": "http", "scheme": "bearer"},
    }
    return {
        "protocolVersion": "0.3.0",
        "url": jsonrpc_url,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": _v03_interfaces(jsonrpc_url),
        "securitySchemes": schemes,
        "security": [{"apiKey": []}, {"bearer": []}],
        "supportsAuthenticatedExtendedCard": settings.capabilities_extended_agent_card,
    }


def public_details(settings: Settings) -> CardDetails:
    """The generic public card: nothing of any caller or workspace (design: Card_Public_IsGeneric)."""
    return CardDetails(settings.card_name, settings.card_description, [DEFAULT_SKILL])


def extended_details(caller: Caller, settings: Settings) -> CardDetails:
    """The caller's workspace card: card.json as it is now, with the design's fallbacks."""
    workspace = caller.workspace
    fallback_description = _FIRST_LINES.get(workspace.path / "PERSONA.md") or settings.card_description
    fallback = CardDetails(settings.card_name, fallback_description, [DEFAULT_SKILL])
    raw = _CARD_FILES.get(workspace.card_file)
    if raw is None:
        return fallback
    skills = [{k: v for k, v in skill.items() if k in SKILL_FIELDS} for skill in raw.get("skills", [])]
    return CardDetails(
        name=raw.get("name") or fallback.name,
        description=raw.get("description") or fallback.description,
        skills=skills or fallback.skills,
    )


def _first_line(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    for line in text.splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped:
            return stripped
    return None


def _read_card_file(path: Path) -> dict[str, Any] | None:
    """card.json, or None when missing; malformed = None plus one warning naming the file (design)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("card file %s cannot be read (%s); using the fallback card", path, exc.strerror)
        return None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        log.warning("card file %s is not valid JSON (line %d); using the fallback card", path, exc.lineno)
        return None
    problem = _card_problem(raw)
    if problem:
        log.warning("card file %s %s; using the fallback card", path, problem)
        return None
    return raw  # type: ignore[no-any-return]


# design: card.json and PERSONA.md apply to the next request; they are read again only when they change
_FIRST_LINES: StatCache[str | None] = StatCache(_first_line)
_CARD_FILES: StatCache[dict[str, Any] | None] = StatCache(_read_card_file)


def _card_problem(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return "must hold a JSON object"
    for key in ("name", "description"):
        if key in raw and not (isinstance(raw[key], str) and raw[key].strip()):
            return f"has a {key} that is not a non-empty string"
    skills = raw.get("skills", [])
    if not isinstance(skills, list):
        return "has skills that are not a list"
    for index, skill in enumerate(skills):
        if not isinstance(skill, dict):
            return f"has skills[{index}] that is not an object"
        for key in ("id", "name", "description"):
            if not isinstance(skill.get(key), str) or not skill[key]:
                return f"has skills[{index}] without a {key}"
        tags = skill.get("tags")
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            return f"has skills[{index}] without tags (a list of strings)"
    return None


def v03_card(details: CardDetails, base_url: str, settings: Settings) -> dict[str, Any]:
    """The card in A2A 0.3 shape, for agent/getAuthenticatedExtendedCard (0.3 AgentCard)."""
    card = build_card(details, base_url, settings)
    jsonrpc_url = base_url + JSONRPC_PATH
    return {
        "name": card["name"],
        "description": card["description"],
        "version": card["version"],
        "protocolVersion": "0.3.0",
        "url": jsonrpc_url,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": _v03_interfaces(jsonrpc_url),
        "capabilities": {"streaming": settings.capabilities_streaming,
                         "pushNotifications": settings.capabilities_push_notifications},
        "securitySchemes": {
            "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            "bearer": {"type": "http", "scheme": "bearer"},
        },
        "security": [{"apiKey": []}, {"bearer": []}],
        "defaultInputModes": card["defaultInputModes"],
        "defaultOutputModes": card["defaultOutputModes"],
        "skills": card["skills"],
        "supportsAuthenticatedExtendedCard": settings.capabilities_extended_agent_card,
    }
