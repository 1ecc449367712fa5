"""Steps about what an agent's public card declares (A2A §4.4, §8): its interfaces, capabilities and security,
and the scenarios a card makes apply or not (§3.3.4). A scenario whose condition a card does not meet is skipped,
saying why: that requirement cannot be observed on that server."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import assert_fails_with
from reference_server.conformance.steps.prefixes import world_card
from reference_server.conformance.support.client import A2AClient
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import described
from reference_server.conformance.support.schemas import assert_valid
from reference_server.conformance.support.target import interfaces_of, paths_of
from reference_server.conformance.world import ServerFactory, World, earlier

BINDINGS = {"jsonrpc": "JSONRPC", "rest": "HTTP+JSON"}
# A2A §5.8: the standard bindings by name; a custom one SHOULD be a URI
KNOWN_BINDINGS = re.compile(r"^(JSONRPC|GRPC|HTTP\+JSON|[a-z][a-z0-9+.-]*://\S+)$")
VERSION = re.compile(r"^\d+\.\d+$")  # A2A §3.6: Major.Minor, no patch
VERSION_03 = re.compile(r"^\d+\.\d+(\.\d+)?$")  # A2A 0.3 cards said "0.3.0"


def capability(world: World, name: str) -> bool:
    return bool((world_card(world).get("capabilities") or {}).get(name))


def card_interfaces(world: World, *fields: str) -> list[dict[str, Any]]:
    """The supportedInterfaces of the agent's card (A2A §4.4.6), each holding the fields a step reads."""
    found = world_card(world).get("supportedInterfaces", [])
    assert isinstance(found, list) and all(isinstance(i, dict) and all(f in i for f in fields) for i in found), \
        f"expected the card's supportedInterfaces, each with its {' and '.join(fields)}, got {shown(found)}"
    return found


def require(condition: bool, reason: str) -> None:
    if not condition:
        pytest.skip(reason)


# --- conditions ---


# each capability's setting on this server (A2A__Capabilities__*): its scenarios switch it off to run there
SWITCHES = {"streaming": "capabilities_streaming", "pushNotifications": "capabilities_push_notifications",
            "extendedAgentCard": "capabilities_extended_agent_card"}


@given(parsers.re(r"the agent's card (?P<negated>does not declare|declares) (?P<what>streaming|push notifications|"
                  r"an extended card)$"))
def _(world: World, negated: str, what: str, server_factory: ServerFactory) -> None:
    name = {"streaming": "streaming", "push notifications": "pushNotifications",
            "an extended card": "extendedAgentCard"}[what]
    if negated == "does not declare" and not world.external:  # this server, with that capability switched off
        world.use_server(server_factory(**{SWITCHES[name]: False}))
        world.public_card = None
    declared = capability(world, name)
    if negated == "declares":
        require(declared, f"the agent's card does not declare capabilities.{name}")
    else:
        require(not declared, f"the agent's card declares capabilities.{name}: A2A §3.3.4 does not apply")


@given("the agent's card declares a security scheme")
def _(world: World) -> None:
    card = world_card(world)
    require(bool(card.get("securitySchemes")) and bool(card.get("securityRequirements")),
            "the agent's card declares no security scheme: it asks no caller for credentials")


@given("the agent's card declares an extended card and a security scheme")
def _(world: World) -> None:
    require(capability(world, "extendedAgentCard"), "the agent's card does not declare capabilities.extendedAgentCard")
    require(bool(world_card(world).get("securitySchemes")), "the agent's card declares no security scheme")


@given(parsers.parse('the agent\'s card takes no media type "{media}"'))
def _(world: World, media: str) -> None:
    card = world_card(world)
    modes = [*card.get("defaultInputModes", []), *(m for s in card.get("skills", []) for m in s.get("inputModes", []))]
    kind = media.split("/")[0]
    takes = [m for m in modes if m in (media, "*/*", f"{kind}/*")]
    require(not takes, f"the agent's card takes {media} ({', '.join(takes)}): A2A §3.1.1 does not apply")


@given("the agent's card offers A2A 0.3 over JSON-RPC at the same URL")
def _(world: World) -> None:
    interfaces = [(i["protocolBinding"], i["protocolVersion"], urlsplit(i["url"]).path.rstrip("/"))
                  for i in card_interfaces(world, "protocolBinding", "protocolVersion", "url")]
    one = [path for binding, version, path in interfaces if (binding, version) == ("JSONRPC", "1.0")]
    require(bool(one) and ("JSONRPC", "0.3", one[0]) in interfaces,
            "the agent's card offers no A2A 0.3 JSON-RPC interface at its 1.0 JSON-RPC URL")


@given("the agent's card offers both bindings in A2A 1.0")
def _(world: World) -> None:
    offered = {(i["protocolBinding"], i["protocolVersion"])
               for i in card_interfaces(world, "protocolBinding", "protocolVersion")}
    require({("JSONRPC", "1.0"), ("HTTP+JSON", "1.0")} <= offered, "the agent's card offers one binding in A2A 1.0")


# --- the public card ---


@then("the card is an agent card")
def _(world: World) -> None:
    card = world.card
    assert isinstance(card, dict), f"the card is not a JSON object: {shown(card)}"
    where = "supportedInterfaces" if world.protocol.version == "1.0" else "url"  # A2A 0.3: its main interface
    assert card.get("name") and card.get(where), f"an agent card has a name and its {where}: {shown(card)}"


def declared(card: dict[str, Any], version: str) -> list[tuple[str, str, str]]:
    """(URL, binding, protocol version) of each interface the card declares in its A2A version's shape."""
    if not isinstance(card, dict):
        return []
    if version == "1.0":
        return [(str(i.get("url", "")), str(i.get("protocolBinding", "")), str(i.get("protocolVersion", "")))
                for i in card.get("supportedInterfaces") or [] if isinstance(i, dict)]
    main = (str(card.get("url", "")), str(card.get("preferredTransport") or "JSONRPC"),
            str(card.get("protocolVersion", "")))
    return [main, *((str(i.get("url", "")), str(i.get("transport", "")), main[2])
                    for i in card.get("additionalInterfaces") or [] if isinstance(i, dict))]


@then("each interface of the card names its binding, its URL and its protocol version")
def _(world: World) -> None:
    interfaces = declared(world.card, world.protocol.version)
    assert interfaces, f"expected the card to declare its interfaces, it declares none: {shown(world.card)}"
    # a field the card's schema requires and that is missing is the card's structure (CARD-STRUCT-001, checked on
    # the card itself): here, what the fields that are there say
    for url, binding, version in interfaces:
        parts = urlsplit(url)
        assert not url or (parts.scheme in ("http", "https", "grpc", "grpcs") and parts.netloc), \
            f"expected an absolute URL for every interface, got {shown(url)}"
        assert not binding or KNOWN_BINDINGS.match(binding), \
            f"expected every interface to name its binding (JSONRPC, GRPC, HTTP+JSON or a URI), got {shown(binding)}"
        pattern = VERSION if world.protocol.version == "1.0" else VERSION_03  # 0.3 gave the patch number too
        assert not version or pattern.match(version), \
            f"expected every interface's protocol version as Major.Minor, got {shown(version)}"


@when(parsers.parse('the caller gets the task "{task}" at the card\'s URL for this binding'))
def _(world: World, task: str) -> None:
    binding, version = world.protocol.binding, world.protocol.version
    endpoints, _, _ = interfaces_of(world_card(world), str(world.http.base_url))
    assert f"{binding}-{version}" in endpoints, \
        f"expected the card to declare a {BINDINGS[binding]} interface in A2A {version}, it declares none"
    url = endpoints[f"{binding}-{version}"]
    parts, served = urlsplit(url), urlsplit(world.server.url)
    assert (parts.hostname, parts.port) == (served.hostname, served.port), \
        f"expected the card's {BINDINGS[binding]} interface where the card was served ({world.server.url}), got {url}"
    client: A2AClient = world.client()
    client.jsonrpc_path, client.rest_prefix = paths_of(endpoints, version)
    world.stream, world.reply = None, client.call("GetTask", {"id": task})


@then(parsers.re(r"the card comes with (?P<header>Cache-Control max-age|an ETag|Last-Modified)$"))
def _(world: World, header: str) -> None:
    headers = earlier(world.card_response, "the public card").headers
    if header == "Cache-Control max-age":
        assert re.search(r"max-age=\d+", headers.get("Cache-Control", "")), \
            f"expected a Cache-Control header with max-age, got {headers.get('Cache-Control') or 'none'}"
    elif header == "an ETag":
        assert headers.get("ETag"), "expected an ETag header with the card, got none"
    else:
        assert headers.get("Last-Modified"), "expected a Last-Modified header with the card, got none"


# --- the extended card ---


@when("the caller fetches the extended agent card without credentials")
def _(world: World) -> None:
    client = world.client()
    client.key = None
    world.stream, world.reply = None, client.call("GetExtendedAgentCard", {})


@then("the answer is an agent card, or the call fails with ExtendedAgentCardNotConfigured")
def _(world: World) -> None:
    reply = world.reply
    assert reply is not None, "expected an agent card or ExtendedAgentCardNotConfigured, got no answer"
    if reply.error is not None:
        assert_fails_with(world, "ExtendedAgentCardNotConfigured")
    elif world.protocol.version == "1.0":
        assert_valid(reply.body, "urn:a2a:v1#/$defs/AgentCard")
    else:  # a 0.3 card, which the client checked against the 0.3 schema of its binding
        assert isinstance(reply.body, dict) and reply.body.get("name"), \
            f"expected an agent card with its name, got {reply}"


@then("the refusal carries an authentication challenge")
def _(world: World) -> None:
    # A2A §3.3.2, §7.4: SHOULD include a challenge naming the scheme (RFC 9110 §11.6.1: WWW-Authenticate)
    reply = world.reply
    assert reply is not None and reply.error is not None and reply.http_status == 401, \
        f"expected a refusal with HTTP 401, got {described(reply)}"
    assert reply.headers is not None and reply.headers.get("WWW-Authenticate"), \
        "expected a WWW-Authenticate challenge with the refusal, got none"


# --- this server with a capability switched off (design: A2A__Capabilities__*) ---

CAPABILITY_NAMES = {"streaming": "streaming", "push notifications": "pushNotifications",
                    "the extended card": "extendedAgentCard"}


@given(parsers.re(r"the server runs with (?P<hybrid>the hybrid card and )?(?P<what>streaming|push notifications|"
                  r"the extended card) switched off$"))
def _(world: World, hybrid: str | None, what: str, server_factory: ServerFactory) -> None:
    settings = {SWITCHES[CAPABILITY_NAMES[what]]: False, **({"hybrid_card": True} if hybrid else {})}
    world.use_server(server_factory(**settings))
    world.public_card = None


@then(parsers.parse("the card's capabilities say {field} is false"))
def _(world: World, field: str) -> None:
    capabilities = world.card.get("capabilities")
    assert isinstance(capabilities, dict) and capabilities.get(field) is False, \
        f"expected capabilities.{field} false, got {shown(capabilities)}"


@then(parsers.parse("the card's 0.3 fields say {path} is false"))
def _(world: World, path: str) -> None:
    value: Any = world.card
    for name in path.split("."):
        assert isinstance(value, dict) and name in value, f"expected the card to have {path}, got {shown(world.card)}"
        value = value[name]
    assert value is False, f"expected {path} false, got {shown(value)}"
