"""Steps about the public and the extended agent card."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import workspace_of, write_json
from reference_server.conformance.support.exchanges import body_text, shown
from reference_server.conformance.support.replies import described, json_of
from reference_server.conformance.support.schemas import assert_valid, violations
from reference_server.conformance.world import ServerFactory, World, earlier

CARD_PATH = "/.well-known/agent-card.json"
HYBRID_FIELDS = ("protocolVersion", "url", "preferredTransport", "additionalInterfaces", "security",
                 "supportsAuthenticatedExtendedCard")


def _card(world: World) -> dict[str, Any]:
    if world.card is not None:
        return world.card  # type: ignore[no-any-return]
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected an agent card, got {described(reply)}"
    return reply.body  # type: ignore[no-any-return]


@given("the workspace's card.json says:")
def _(world: World, docstring: str) -> None:
    write_json(workspace_of(world).card_file, json.loads(docstring))


@given(parsers.parse('the workspace has no card.json and its PERSONA.md begins with "{line}"'))
def _(world: World, line: str) -> None:
    workspace = workspace_of(world)
    workspace.card_file.unlink(missing_ok=True)
    (workspace.path / "PERSONA.md").write_text(f"\n# {line}\n\nMore about the persona.\n", encoding="utf-8")


@given("the workspace has no card.json and no PERSONA.md")
def _(world: World) -> None:
    workspace = workspace_of(world)
    workspace.card_file.unlink(missing_ok=True)
    (workspace.path / "PERSONA.md").unlink(missing_ok=True)


@given("the workspace's card.json is not valid JSON")
def _(world: World) -> None:
    workspace_of(world).card_file.write_text('{"name": "half a card"', encoding="utf-8")


@when(parsers.parse('the owner changes the name in card.json to "{name}"'))
def _(world: World, name: str) -> None:
    path = workspace_of(world).card_file
    write_json(path, {**json.loads(path.read_text()), "name": name})


@when("the caller fetches the extended agent card")
def _(world: World) -> None:
    client = world.client()
    credentials = world.credentials or ([("Authorization", f"Bearer {world.key}")] if world.bearer else None)
    saved = world.http.headers
    if credentials is not None:  # these headers instead of the one X-API-Key the client sends
        client.key = None
        world.http.headers = httpx.Headers([*saved.multi_items(), *credentials])
    world.card = None
    try:
        world.reply = client.call("GetExtendedAgentCard", {})
    finally:
        world.http.headers = saved


@when("anyone fetches the agent card at the well-known path")
def _(world: World) -> None:
    # A2A §8.2: https://{domain}/.well-known/agent-card.json, whatever the suite was told of the card's place
    response = world.http.get(CARD_PATH)
    assert response.status_code == 200, f"expected the agent card at {CARD_PATH}, got HTTP {response.status_code}: " \
        f"{body_text(response.content, response.headers.get('content-type', ''), 200)}"
    world.card_response = response
    world.card = json_of(response, "the agent card")


@when("anyone fetches the public agent card")
def _(world: World) -> None:
    response = world.http.get(world.server.card_url)
    assert response.status_code == 200, \
        f"expected the agent card at {world.server.card_url}, got HTTP {response.status_code}: " \
        f"{body_text(response.content, response.headers.get('content-type', ''), 200)}"
    if world.ours:  # A2A leaves the card's media type open (§8.2); this server's is application/json
        content_type = response.headers.get("content-type", "")
        assert content_type.startswith("application/json"), \
            f"expected the card as application/json, got {content_type or 'no content type'}"
    world.card_response = response
    world.card = json_of(response, "the agent card")


@when("anyone fetches the public agent card again with that ETag")
def _(world: World) -> None:
    etag = earlier(world.card_response, "the public card").headers["ETag"]
    world.card_response = world.http.get(world.server.card_url, headers={"If-None-Match": etag})


@when("the server runs with the hybrid card setting")
def _(world: World, server_factory: ServerFactory) -> None:
    world.use_server(server_factory(hybrid_card=True))


@then("the card is a valid agent card of its A2A version")
def _(world: World) -> None:
    # a2a.proto AgentCard (A2A §4.4.1); a server that speaks only 0.3 has a 0.3 card (its JSON Schema)
    schema = "urn:a2a:v1#/$defs/AgentCard" if world.protocol.version == "1.0" else "urn:a2a:v0.3#/definitions/AgentCard"
    found = violations(_card(world), schema)
    assert not found, f"the card breaks the A2A {world.protocol.version} AgentCard: " + "; ".join(
        v.line() for v in found)


@then("the card shows nothing of any workspace")
def _(world: World) -> None:
    card = _card(world)
    text = json.dumps(card)
    for workspace in world.workspaces.values():
        assert str(workspace.path) not in text, \
            f"expected nothing of the workspace in the card, it shows its path {workspace.path}: {shown(card)}"
        assert workspace.owner_id not in text, \
            f'expected nothing of the workspace in the card, it shows the owner "{workspace.owner_id}": {shown(card)}'
    for name, key in world.keys.items():
        assert key not in text and name not in text, \
            f'expected nothing of the callers in the card, it shows the caller "{name}" or its key: {shown(card)}'
    assert "Eugene" not in text and "scheduling" not in text, \
        f"expected nothing of the workspace's persona in the card, got {shown(card)}"


@then("the card matches the snapshot")
def _(world: World, snapshot_json: Any) -> None:
    card = json.loads(re.sub(r"http://127\.0\.0\.1:\d+", "http://<server>", json.dumps(_card(world))))
    assert card == snapshot_json, f"expected the card as in its snapshot (spec/snapshots/), got {shown(card)}"


@then("the card lists these interfaces:")
def _(world: World, datatable: list[list[str]]) -> None:
    base = world.server.url
    expected = [{"protocolBinding": b, "protocolVersion": v, "url": base + p} for b, v, p in datatable[1:]]
    got = _card(world)["supportedInterfaces"]
    assert got == expected, f"expected the interfaces {shown(expected)}, got {shown(got)}"


@then(parsers.parse('the card declares the security schemes "{names}"'))
def _(world: World, names: str) -> None:
    card = _card(world)
    schemes = card["securitySchemes"]
    assert sorted(schemes) == sorted(names.split(", ")), \
        f'expected the security schemes "{names}", got {shown(sorted(schemes))}'
    api_key = schemes["apiKey"]["apiKeySecurityScheme"]
    assert api_key == {"description": api_key["description"], "location": "header", "name": "X-API-Key"}, \
        f"expected the apiKey scheme in the header X-API-Key, got {shown(api_key)}"
    bearer = schemes["bearer"]["httpAuthSecurityScheme"]
    assert bearer["scheme"] == "Bearer", f"expected the bearer scheme Bearer, got {shown(bearer)}"


@then("the card comes with Cache-Control max-age, an ETag and Last-Modified")
def _(world: World) -> None:
    headers = earlier(world.card_response, "the public card").headers
    assert re.search(r"max-age=\d+", headers["Cache-Control"]), \
        f"expected Cache-Control with max-age, got {headers['Cache-Control']}"
    assert headers["ETag"].startswith('"'), f"expected a quoted ETag, got {headers['ETag']}"
    assert headers["Last-Modified"].endswith("GMT"), f"expected Last-Modified in GMT, got {headers['Last-Modified']}"


@then("the card is not modified")
def _(world: World) -> None:
    status = earlier(world.card_response, "the public card").status_code
    assert status == 304, f"expected HTTP 304 Not Modified, got HTTP {status}"


@then("the card has no 0.3 top-level fields")
def _(world: World) -> None:
    found = sorted(set(HYBRID_FIELDS) & set(_card(world)))
    assert not found, f"expected no 0.3 top-level field in the card, got {', '.join(found)}"


@then("the card has the 0.3 top-level fields")
def _(world: World) -> None:
    card = _card(world)
    missing = sorted(set(HYBRID_FIELDS) - set(card))
    assert not missing, f"expected the 0.3 top-level fields in the card, it lacks {', '.join(missing)}"
    assert card["url"] == world.server.url + "/a2a" and card["preferredTransport"] == "JSONRPC", \
        f"expected the url {world.server.url}/a2a over JSONRPC, got the url {shown(card['url'])} over " \
        f"{shown(card['preferredTransport'])}"
    assert_valid(card, "urn:a2a:v0.3#/definitions/AgentCard")


@then(parsers.parse('the card\'s {field} is "{value}"'))
def _(world: World, field: str, value: str) -> None:
    got = _card(world)[field]
    assert got == value, f'expected the card\'s {field} "{value}", got {shown(got)}'


@then(parsers.parse('the card\'s skills are "{ids}"'))
def _(world: World, ids: str) -> None:
    got = [s["id"] for s in _card(world)["skills"]]
    assert got == ids.split(", "), f'expected the skills "{ids}", got {shown(got)}'
