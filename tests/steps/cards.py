"""Steps about the public and the extended agent card."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from pytest_bdd import given, parsers, then, when
from support.schemas import assert_valid

from steps.common import workspace_of, write_json

CARD_PATH = "/.well-known/agent-card.json"
HYBRID_FIELDS = ("protocolVersion", "url", "preferredTransport", "additionalInterfaces", "security",
                 "supportsAuthenticatedExtendedCard")


def _card(world: Any) -> dict[str, Any]:
    if world.card is not None:
        return world.card  # type: ignore[no-any-return]
    return world.reply.body  # type: ignore[no-any-return]


@given("the workspace's card.json says:")
def _(world: Any, docstring: str) -> None:
    write_json(workspace_of(world).card_file, json.loads(docstring))


@given(parsers.parse('the workspace has no card.json and its PERSONA.md begins with "{line}"'))
def _(world: Any, line: str) -> None:
    workspace = workspace_of(world)
    workspace.card_file.unlink(missing_ok=True)
    (workspace.path / "PERSONA.md").write_text(f"\n# {line}\n\nMore about the persona.\n", encoding="utf-8")


@given("the workspace has no card.json and no PERSONA.md")
def _(world: Any) -> None:
    workspace = workspace_of(world)
    workspace.card_file.unlink(missing_ok=True)
    (workspace.path / "PERSONA.md").unlink(missing_ok=True)


@given("the workspace's card.json is not valid JSON")
def _(world: Any) -> None:
    workspace_of(world).card_file.write_text('{"name": "half a card"', encoding="utf-8")


@when(parsers.parse('the owner changes the name in card.json to "{name}"'))
def _(world: Any, name: str) -> None:
    path = workspace_of(world).card_file
    write_json(path, {**json.loads(path.read_text()), "name": name})


@when("the caller fetches the extended agent card")
def _(world: Any) -> None:
    client = world.client()
    credentials = world.notes.get("credentials") or (
        [("Authorization", f"Bearer {world.key}")] if world.notes.get("bearer") else None)
    saved = world.http.headers
    if credentials is not None:  # these headers instead of the one X-API-Key the client sends
        client.key = None
        world.http.headers = httpx.Headers([*saved.multi_items(), *credentials])
    world.card = None
    try:
        world.reply = client.call("GetExtendedAgentCard", {})
    finally:
        world.http.headers = saved


@when("anyone fetches the public agent card")
def _(world: Any) -> None:
    response = world.http.get(CARD_PATH)
    assert response.status_code == 200, response.text
    if world.ours:  # A2A leaves the card's media type open (§8.2); this server's is application/json
        assert response.headers["content-type"].startswith("application/json")
    world.notes["card_response"] = response
    world.card = response.json()


@when("anyone fetches the public agent card again with that ETag")
def _(world: Any) -> None:
    etag = world.notes["card_response"].headers["ETag"]
    world.notes["card_response"] = world.http.get(CARD_PATH, headers={"If-None-Match": etag})


@when("the server runs with the hybrid card setting")
def _(world: Any, server_factory: Any) -> None:
    world.use_server(server_factory(hybrid_card=True))


@then("the card is a valid A2A 1.0 agent card")
def _(world: Any) -> None:
    assert_valid(_card(world), "urn:a2a:v1#/$defs/AgentCard")


@then("the card shows nothing of any workspace")
def _(world: Any) -> None:
    text = json.dumps(_card(world))
    for workspace in world.workspaces.values():
        assert str(workspace.path) not in text
        assert workspace.owner_id not in text
    for name, key in world.keys.items():
        assert key not in text and name not in text
    assert "Eugene" not in text and "scheduling" not in text


@then("the card matches the snapshot")
def _(world: Any, snapshot_json: Any) -> None:
    card = json.loads(re.sub(r"http://127\.0\.0\.1:\d+", "http://<server>", json.dumps(_card(world))))
    assert card == snapshot_json


@then("the card lists these interfaces:")
def _(world: Any, datatable: list[list[str]]) -> None:
    base = world.server.url
    expected = [{"protocolBinding": b, "protocolVersion": v, "url": base + p} for b, v, p in datatable[1:]]
    assert _card(world)["supportedInterfaces"] == expected


@then(parsers.parse('the card declares the security schemes "{names}"'))
def _(world: Any, names: str) -> None:
    card = _card(world)
    assert sorted(card["securitySchemes"]) == sorted(names.split(", "))
    assert card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"] == {
        "description": card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"]["description"],
        "location": "header", "name": "X-API-Key"}
    assert card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"


@then("the card comes with Cache-Control max-age, an ETag and Last-Modified")
def _(world: Any) -> None:
    headers = world.notes["card_response"].headers
    assert re.search(r"max-age=\d+", headers["Cache-Control"])
    assert headers["ETag"].startswith('"')
    assert headers["Last-Modified"].endswith("GMT")


@then("the card is not modified")
def _(world: Any) -> None:
    assert world.notes["card_response"].status_code == 304


@then("the card has no 0.3 top-level fields")
def _(world: Any) -> None:
    assert not set(HYBRID_FIELDS) & set(_card(world))


@then("the card has the 0.3 top-level fields")
def _(world: Any) -> None:
    card = _card(world)
    assert set(HYBRID_FIELDS) <= set(card)
    assert card["url"] == world.server.url + "/a2a" and card["preferredTransport"] == "JSONRPC"
    assert_valid(card, "urn:a2a:v0.3#/definitions/AgentCard")


@then(parsers.parse('the card\'s {field} is "{value}"'))
def _(world: Any, field: str, value: str) -> None:
    assert _card(world)[field] == value, _card(world)[field]


@then(parsers.parse('the card\'s skills are "{ids}"'))
def _(world: Any, ids: str) -> None:
    assert [s["id"] for s in _card(world)["skills"]] == ids.split(", ")
