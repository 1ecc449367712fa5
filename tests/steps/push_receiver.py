"""Steps about the push receiver: the owner's watches, pushes arriving for them, and each watch's log."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from pytest_bdd import given, parsers, then, when
from support.design import DesignState
from support.live import live

from reference_server.conformance.steps.common import TIMESTAMP, add_workspace, workspace_of, write_json
from reference_server.conformance.support.exchanges import body_text, shown
from reference_server.conformance.support.schemas import assert_valid
from reference_server.conformance.world import World, earlier

TOKEN_HEADER = "X-A2A-Notification-Token"
WIRE_ERROR = "urn:reference-server:wire-errors#/$defs/RestError"


def _watches(world: World) -> list[dict[str, Any]]:
    watches: list[dict[str, Any]] = json.loads(workspace_of(world).watches_file.read_text(encoding="utf-8"))
    return watches


def _tokens(design: DesignState) -> list[str]:
    return design.receiver.tokens


def _push(world: World, design: DesignState, watch: str, token: str | None,
          content: bytes | None = None) -> httpx.Response:
    """A push as a remote agent's push sender makes it: the watch's URL, its token, no caller key."""
    pushes = design.receiver
    n = len(pushes.sent)
    body = {"statusUpdate": {"taskId": f"task-{n}", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}},
            "note": f"push {n}, é"}
    headers = {TOKEN_HEADER: token} if token is not None else {}
    if content is None:
        pushes.sent.append(body)
        content = json.dumps(body).encode()
    pushes.first_sent_at = pushes.first_sent_at or datetime.now(UTC)
    response = world.http.post(f"{live(world.server).push_prefix}/{watch}", content=content,
                               headers={**headers, "Content-Type": "application/json"})
    pushes.answer = response
    return response


def _refusal(design: DesignState, status: int) -> dict[str, Any]:
    answer = earlier(design.receiver.answer, "a push sent")
    assert answer.status_code == status, f"expected HTTP {status}, got {said(answer)}"
    body: dict[str, Any] = answer.json()
    assert_valid(body, WIRE_ERROR)
    return body["error"]  # type: ignore[no-any-return]


def said(answer: httpx.Response) -> str:
    """What the push receiver answered, as a message says it."""
    content_type = answer.headers.get("content-type", "")
    return f"HTTP {answer.status_code}: {body_text(answer.content, content_type, 300)}"


def _log_lines(world: World, design: DesignState, watch: str) -> list[dict[str, Any]]:
    """The log of the watch, in the workspace that lists it first; no other workspace has one."""
    first, *others = world.workspaces.values()
    assert not any((w.pushes_dir / f"{watch}.jsonl").exists() for w in others), \
        f'expected the log of "{watch}" in the first workspace that lists it only, but another workspace logged it'
    path = first.pushes_dir / f"{watch}.jsonl"
    assert path.exists(), f'expected the log of "{watch}" at {path}, there is none'
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n"), f'expected every line of the log of "{watch}" to end with a newline, the last does not'
    lines = [json.loads(line) for line in text.splitlines()]
    sent_at, now = earlier(design.receiver.first_sent_at, "a push sent"), datetime.now(UTC)
    for line in lines:
        assert_valid(line, "urn:reference-server:push-log")
        assert line["watch"] == watch, f'expected log lines of the watch "{watch}", got {shown(line)}'
        assert TIMESTAMP.match(line["receivedAt"]), \
            f"expected receivedAt in RFC 3339 UTC with milliseconds, got {shown(line['receivedAt'])}"
        received = datetime.fromisoformat(line["receivedAt"])
        assert sent_at - timedelta(seconds=1) <= received <= now, \
            f"expected receivedAt between {sent_at.isoformat()} (the first push) and {now.isoformat()}, got " \
            f"{line['receivedAt']}"
    return lines


# --- the owner's watches ---


@given(parsers.parse('a workspace of "{owner}" that watches "{watch}" with the token "{token}"'))
def _(world: World, design: DesignState, owner: str, watch: str, token: str) -> None:
    workspace = add_workspace(world, owner, [])
    write_json(workspace.watches_file, [{"id": watch, "token": token, "description": "CI of the web app"}])
    _tokens(design).append(token)


@given(parsers.parse('the workspace also watches "{watch}" with the token "{token}"'))
def _(world: World, design: DesignState, watch: str, token: str) -> None:
    write_json(workspace_of(world).watches_file, [*_watches(world), {"id": watch, "token": token}])
    _tokens(design).append(token)


@given(parsers.parse('the workspace also watches "{watch}" without a token'))
def _(world: World, watch: str) -> None:
    write_json(workspace_of(world).watches_file, [*_watches(world), {"id": watch}])


@given("the watches file is not valid JSON")
def _(world: World, design: DesignState) -> None:
    workspace_of(world).watches_file.write_text('[{"id": "build-status", "token": "' + _tokens(design)[0] + '"')


@when(parsers.parse('the owner removes "{watch}" from the watches file'))
def _(world: World, watch: str) -> None:
    write_json(workspace_of(world).watches_file, [w for w in _watches(world) if w["id"] != watch])


@when(parsers.parse('the owner adds "{watch}" with the token "{token}" to the watches file'))
def _(world: World, watch: str, token: str) -> None:
    write_json(workspace_of(world).watches_file, [*_watches(world), {"id": watch, "token": token}])


# --- pushes arriving ---


@when(parsers.re(r'a push notification arrives for "(?P<watch>[^"]*)" with the token "(?P<token>[^"]*)"$'))
def _(world: World, design: DesignState, watch: str, token: str) -> None:
    _push(world, design, watch, token)


@when(parsers.re(r'a push notification arrives for "(?P<watch>[^"]*)" without a token$'))
def _(world: World, design: DesignState, watch: str) -> None:
    _push(world, design, watch, None)


@when(parsers.parse('{count:d} push notifications arrive for "{watch}" with the token "{token}"'))
def _(world: World, design: DesignState, count: int, watch: str, token: str) -> None:
    for _n in range(count):
        answer = _push(world, design, watch, token)
        assert answer.status_code == 204, f"expected the push accepted (HTTP 204), got {said(answer)}"


@when(parsers.parse('a push notification of {mebibytes:d} MiB arrives for "{watch}" with the token "{token}"'))
def _(world: World, design: DesignState, mebibytes: int, watch: str, token: str) -> None:
    _push(world, design, watch, token, json.dumps({"note": "x" * (mebibytes * 1024 * 1024)}).encode())


@when(parsers.parse('a push notification that is not JSON arrives for "{watch}" with the token "{token}"'))
def _(world: World, design: DesignState, watch: str, token: str) -> None:
    _push(world, design, watch, token, b'{"statusUpdate": ')


# --- what the sender is told, and what the owner sees ---


@then("the push is accepted")
def _(world: World, design: DesignState) -> None:
    answer = earlier(design.receiver.answer, "a push sent")
    assert answer.status_code == 204 and answer.content == b"", \
        f"expected the push accepted (HTTP 204, no body), got {said(answer)}"


@then("the push is refused as not found")
def _(world: World, design: DesignState) -> None:
    error = _refusal(design, 404)
    assert error["status"] == "NOT_FOUND" and error["message"] == "Watch not found", \
        f'expected NOT_FOUND saying "Watch not found", got {shown(error)}'


@then("the push is refused as too large, with the limit in the message")
def _(world: World, design: DesignState) -> None:
    error = _refusal(design, 413)
    assert "Request body too large" in error["message"] and "A2A__MaxPushBytes" in error["message"], \
        f'expected the message to say "Request body too large" and name A2A__MaxPushBytes, got {shown(error)}'


@then("the push is refused as not JSON")
def _(world: World, design: DesignState) -> None:
    error = _refusal(design, 400)
    assert error["details"][0]["reason"] == "JSON_PARSE", f"expected the reason JSON_PARSE, got {shown(error)}"


@then(parsers.parse('the log of "{watch}" holds exactly that push'))
def _(world: World, design: DesignState, watch: str) -> None:
    bodies = [line["body"] for line in _log_lines(world, design, watch)]
    assert bodies == design.receiver.sent[-1:], \
        f'expected the log of "{watch}" to hold exactly {shown(design.receiver.sent[-1:])}, got {shown(bodies)}'


@then(parsers.parse('the log of "{watch}" holds the {count:d} pushes in the order they arrived'))
def _(world: World, design: DesignState, watch: str, count: int) -> None:
    bodies = [line["body"] for line in _log_lines(world, design, watch)]
    assert len(bodies) == count and bodies == design.receiver.sent, \
        f'expected the log of "{watch}" to hold the {count} pushes in the order they arrived, got {shown(bodies)}'


@then("no push is logged")
def _(world: World) -> None:
    for workspace in world.workspaces.values():
        assert not workspace.pushes_dir.exists(), \
            f"expected no push logged, got the logs {', '.join(sorted(p.name for p in workspace.pushes_dir.iterdir()))}"


@then("a warning names the watches file but not the token")
def _(world: World, design: DesignState, caplog: pytest.LogCaptureFixture) -> None:
    warnings = "\n".join(r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    path = workspace_of(world).watches_file
    assert str(path) in warnings, f"expected a warning naming the watches file {path}, got:\n{warnings or 'none'}"
    assert not any(token in caplog.text for token in _tokens(design)), \
        "expected no watch's token in a log line, but one holds it"
