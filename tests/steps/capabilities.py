"""Steps about what an agent's public card declares (A2A §4.4, §8): its interfaces, capabilities and security,
and the scenarios a card makes apply or not (§3.3.4). A scenario whose condition a card does not meet is skipped,
saying why: that requirement cannot be observed on that server."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from pytest_bdd import given, parsers, then, when
from support.client import A2AClient
from support.schemas import assert_valid

from steps.common import assert_fails_with
from steps.prefixes import world_card

BINDINGS = {"jsonrpc": "JSONRPC", "rest": "HTTP+JSON"}
# A2A §5.8: the standard bindings by name; a custom one SHOULD be a URI
KNOWN_BINDINGS = re.compile(r"^(JSONRPC|GRPC|HTTP\+JSON|[a-z][a-z0-9+.-]*://\S+)$")
VERSION = re.compile(r"^\d+\.\d+$")  # A2A §3.6: Major.Minor, no patch


def capability(world: Any, name: str) -> bool:
    return bool((world_card(world).get("capabilities") or {}).get(name))


def require(condition: bool, reason: str) -> None:
    if not condition:
        pytest.skip(reason)


# --- conditions ---


@given(parsers.re(r"the agent's card (?P<negated>does not declare|declares) (?P<what>streaming|push notifications|"
                  r"an extended card)$"))
def _(world: Any, negated: str, what: str) -> None:
    name = {"streaming": "streaming", "push notifications": "pushNotifications",
            "an extended card": "extendedAgentCard"}[what]
    declared = capability(world, name)
    if negated == "declares":
        require(declared, f"the agent's card does not declare capabilities.{name}")
    else:
        require(not declared, f"the agent's card declares capabilities.{name}: A2A §3.3.4 does not apply")


@given("the agent's card declares a security scheme")
def _(world: Any) -> None:
    card = world_card(world)
    require(bool(card.get("securitySchemes")) and bool(card.get("securityRequirements")),
            "the agent's card declares no security scheme: it asks no caller for credentials")


@given("the agent's card declares an extended card and a security scheme")
def _(world: Any) -> None:
    require(capability(world, "extendedAgentCard"), "the agent's card does not declare capabilities.extendedAgentCard")
    require(bool(world_card(world).get("securitySchemes")), "the agent's card declares no security scheme")


@given(parsers.parse('the agent\'s card takes no media type "{media}"'))
def _(world: Any, media: str) -> None:
    card = world_card(world)
    modes = [*card.get("defaultInputModes", []), *(m for s in card.get("skills", []) for m in s.get("inputModes", []))]
    kind = media.split("/")[0]
    takes = [m for m in modes if m in (media, "*/*", f"{kind}/*")]
    require(not takes, f"the agent's card takes {media} ({', '.join(takes)}): A2A §3.1.1 does not apply")


@given("the agent's card offers A2A 0.3 over JSON-RPC at the same URL")
def _(world: Any) -> None:
    interfaces = [(i["protocolBinding"], i["protocolVersion"], urlsplit(i["url"]).path.rstrip("/"))
                  for i in world_card(world).get("supportedInterfaces", [])]
    one = [path for binding, version, path in interfaces if (binding, version) == ("JSONRPC", "1.0")]
    require(bool(one) and ("JSONRPC", "0.3", one[0]) in interfaces,
            "the agent's card offers no A2A 0.3 JSON-RPC interface at its 1.0 JSON-RPC URL")


@given("the agent's card offers both bindings in A2A 1.0")
def _(world: Any) -> None:
    offered = {(i["protocolBinding"], i["protocolVersion"]) for i in world_card(world).get("supportedInterfaces", [])}
    require({("JSONRPC", "1.0"), ("HTTP+JSON", "1.0")} <= offered, "the agent's card offers one binding in A2A 1.0")


# --- the public card ---


@then("the card is an agent card")
def _(world: Any) -> None:
    card = world.card
    assert isinstance(card, dict) and card.get("name") and card.get("supportedInterfaces"), card


@then("each interface of the card names its binding, its URL and its protocol version")
def _(world: Any) -> None:
    interfaces = world.card.get("supportedInterfaces") or []
    assert interfaces, "the card declares no interface"
    for interface in interfaces:
        url = urlsplit(interface.get("url", ""))
        assert url.scheme in ("http", "https", "grpc", "grpcs") and url.netloc, f"not an absolute URL: {interface}"
        assert KNOWN_BINDINGS.match(interface.get("protocolBinding", "")), interface
        assert VERSION.match(interface.get("protocolVersion", "")), f"not Major.Minor: {interface}"


@when(parsers.parse('the caller gets the task "{task}" at the card\'s URL for this binding'))
def _(world: Any, task: str) -> None:
    binding = BINDINGS[world.protocol.binding]
    urls = [i["url"] for i in world_card(world).get("supportedInterfaces", [])
            if (i["protocolBinding"], i["protocolVersion"]) == (binding, world.protocol.version)]
    assert urls, f"the card declares no {binding} interface in A2A {world.protocol.version}"
    url = urlsplit(urls[0])
    served = urlsplit(world.server.url)
    assert (url.hostname, url.port) == (served.hostname, served.port), f"{urls[0]} is not this server's address"
    client: A2AClient = world.client()
    client.jsonrpc_path = client.rest_prefix = url.path.rstrip("/") or "/"
    world.stream, world.reply = None, client.call("GetTask", {"id": task})


@then(parsers.re(r"the card comes with (?P<header>Cache-Control max-age|an ETag|Last-Modified)$"))
def _(world: Any, header: str) -> None:
    headers = world.notes["card_response"].headers
    if header == "Cache-Control max-age":
        assert re.search(r"max-age=\d+", headers.get("Cache-Control", "")), headers.get("Cache-Control")
    elif header == "an ETag":
        assert headers.get("ETag"), "no ETag"
    else:
        assert headers.get("Last-Modified"), "no Last-Modified"


# --- the extended card ---


@when("the caller fetches the extended agent card without credentials")
def _(world: Any) -> None:
    client = world.client()
    client.key = None
    world.stream, world.reply = None, client.call("GetExtendedAgentCard", {})


@then("the answer is an agent card, or the call fails with ExtendedAgentCardNotConfigured")
def _(world: Any) -> None:
    if world.reply.error is not None:
        assert_fails_with(world, "ExtendedAgentCardNotConfigured")
    elif world.protocol.version == "1.0":
        assert_valid(world.reply.body, "urn:a2a:v1#/$defs/AgentCard")
    else:  # a 0.3 card, which the client checked against the 0.3 schema of its binding
        assert world.reply.body.get("name"), world.reply.body


@then("the refusal carries an authentication challenge")
def _(world: Any) -> None:
    # A2A §3.3.2, §7.4: SHOULD include a challenge naming the scheme (RFC 9110 §11.6.1: WWW-Authenticate)
    reply = world.reply
    assert reply.error is not None and reply.http_status == 401, reply
    assert reply.headers is not None and reply.headers.get("WWW-Authenticate"), "no WWW-Authenticate challenge"
