"""Steps about file parts: inline bytes sent to the agent and saved to the inbox (design step 4)."""

from __future__ import annotations

import base64
import gzip
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when
from support.design import DesignState

from reference_server.conformance.steps.common import violations_said, workspace_of
from reference_server.conformance.steps.tasks import send, text_message
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import described
from reference_server.conformance.support.webhook import Webhook
from reference_server.conformance.world import World, earlier
from steps.lifecycle import INBOX_STAMP, inbox_files, the_prompt


def file_part(design: DesignState, name: str, content: bytes) -> dict[str, Any]:
    """A file part with inline bytes (A2A Part.raw); the bytes are remembered to check the inbox."""
    design.file_bytes = content
    return {"raw": base64.b64encode(content).decode(), "filename": name, "mediaType": "application/octet-stream"}


@when(parsers.parse('the caller sends the file "{name}" with the text "{text}"'))
def _(world: World, design: DesignState, name: str, text: str) -> None:
    message = text_message(text)
    message["parts"].append(file_part(design, name, f"the bytes of {name}".encode()))
    send(world, message)


@when(parsers.parse("the caller sends a file of {size:d} bytes"))
def _(world: World, design: DesignState, size: int) -> None:
    send(world, {**text_message(""), "parts": [file_part(design, "big.bin", b"x" * size)]})


@then(parsers.parse('the inbox holds the file as "{pattern}" with the bytes sent'))
def _(world: World, design: DesignState, pattern: str) -> None:
    content = earlier(design.file_bytes, "the bytes of a file")
    saved = inbox_files(world)
    assert len(saved) == 1, f"expected one file in the inbox, got {', '.join(p.name for p in saved) or 'none'}"
    expected = re.escape(pattern).replace(re.escape("<yyyymmdd-hhmmss>"), f"({INBOX_STAMP})")
    match = re.fullmatch(expected, saved[0].name)
    assert match, f'expected the file saved as "{pattern}", got "{saved[0].name}"'
    stamp = datetime.strptime(match.group(1), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    assert abs(datetime.now(UTC) - stamp) < timedelta(minutes=2), \
        f"expected the time the file arrived (UTC) in its name, got {stamp}"
    kept = saved[0].read_bytes()
    assert kept == content, f"expected the {len(content)} bytes sent, the inbox holds {len(kept)} other bytes"
    design.saved = f"inbox/{saved[0].name}"


@then("the prompt lists the saved file")
def _(world: World, design: DesignState) -> None:
    prompt = the_prompt(world)
    assert f"Files: {design.saved}" in prompt.splitlines(), \
        f'expected the prompt to list "Files: {design.saved}", got:\n{prompt}'


@then(parsers.parse("the workspace has no {name}"))
def _(world: World, name: str) -> None:
    assert not (workspace_of(world).path / name).exists(), f"expected no {name} in the workspace, but there is one"


@then("nothing was saved to the inbox and no task was created")
def _(world: World) -> None:
    workspace = workspace_of(world)
    saved = inbox_files(world)
    assert saved == [], f"expected nothing saved to the inbox, got {', '.join(p.name for p in saved)}"
    tasks = list(workspace.tasks_dir.glob("*.json")) if workspace.tasks_dir.is_dir() else []
    assert tasks == [], f"expected no task created, got the task files {', '.join(p.name for p in tasks)}"




# --- file parts given by URL, served by a loopback https file server (conformance/support/webhook.py) ---


def _file_server(design: DesignState, request: pytest.FixtureRequest, name: str) -> Webhook:
    server = Webhook().start()
    request.addfinalizer(server.stop)
    design.file_servers[name] = server
    return server


@given(parsers.parse('a file server that serves "{name}"'))
def _(world: World, design: DesignState, request: pytest.FixtureRequest, name: str) -> None:
    _file_server(design, request, "file server").files[name] = (f"the bytes of {name}".encode(), "application/pdf")


@given(parsers.parse('the file server also serves "{name}" of {size:d} bytes'))
def _(world: World, design: DesignState, name: str, size: int) -> None:
    design.file_servers["file server"].files[name] = (b"x" * size, "application/octet-stream")


@given(parsers.parse('the file server also serves "{name}" gzip-compressed, {size:d} bytes once inflated'))
def _(world: World, design: DesignState, name: str, size: int) -> None:
    server = design.file_servers["file server"]
    server.files[name] = (gzip.compress(b"a gzipped line\n" * (size // 15) + b"x" * (size % 15)), "text/plain")
    server.encodings[name] = "gzip"


@given("the file server redirects every request to another file server")
def _(world: World, design: DesignState, request: pytest.FixtureRequest) -> None:
    other = _file_server(design, request, "other file server")
    design.file_servers["file server"].redirect_to = other.file_url("plan.pdf")


def _send_url(world: World, url: str, text: str) -> None:
    message = text_message(text)
    message["parts"].append({"url": url, "filename": url.rsplit("/", 1)[-1]})
    send(world, message)


@when(parsers.parse('the caller sends the URL of "{name}" with the text "{text}"'))
def _(world: World, design: DesignState, name: str, text: str) -> None:
    server = design.file_servers["file server"]
    served = server.files[name][0]
    design.file_bytes = gzip.decompress(served) if server.encodings.get(name) == "gzip" else served
    _send_url(world, server.file_url(name), text)


@when(parsers.parse('the caller sends the URL of "{name}" on "{host}", a name that resolves to 127.0.0.1'))
def _(world: World, design: DesignState, name: str, host: str) -> None:
    _send_url(world, design.file_servers["file server"].file_url(name).replace("localhost", host), "Here")


@when(parsers.parse('the caller sends the file URL "{url}" with the text "{text}"'))
def _(world: World, url: str, text: str) -> None:
    _send_url(world, url, text)


@then(parsers.parse('the inbox holds the file as "{pattern}" with the bytes served'))
def _(world: World, design: DesignState, pattern: str) -> None:
    saved = inbox_files(world)
    assert len(saved) == 1, f"expected one file in the inbox, got {', '.join(p.name for p in saved) or 'none'}"
    expected = re.escape(pattern).replace(re.escape("<yyyymmdd-hhmmss>"), INBOX_STAMP)
    assert re.fullmatch(expected, saved[0].name), f'expected the file saved as "{pattern}", got "{saved[0].name}"'
    kept, served = saved[0].read_bytes(), earlier(design.file_bytes, "the bytes a file server serves")
    assert kept == served, f"expected the {len(served)} bytes served, the inbox holds {len(kept)} other bytes"
    design.saved = f"inbox/{saved[0].name}"


@then(parsers.parse('the error names the file part\'s URL, saying "{why}"'))
def _(world: World, why: str) -> None:
    # the 1.0 name of the part's URL, and its 0.3 names (JSON-RPC `file.uri`, the 0.3 proto's `fileWithUri`)
    field = {"1.0": "message.parts[1].url", "jsonrpc-0.3": "message.parts[1].file.uri",
             "rest-0.3": "message.content[1].file.fileWithUri"}[
        "1.0" if world.protocol.version == "1.0" else f"{world.protocol.binding}-0.3"]
    error = world.reply.error if world.reply is not None else None
    assert error is not None, f'expected an error naming the field "{field}", got {described(world.reply)}'
    found = {v["field"]: v["description"] for v in error.violations}
    assert field in found, f'expected the error to name the field "{field}", got {violations_said(found)}: {error}'
    assert why in found[field], f'expected the violation of "{field}" to say "{why}", got {shown(found[field])}'


@then("nothing was saved to the inbox")
def _(world: World) -> None:
    saved = inbox_files(world)
    assert saved == [], f"expected nothing saved to the inbox, got {', '.join(p.name for p in saved)}"


@then(parsers.re(r"the (?P<name>file server|other file server) was never asked$"))
def _(world: World, design: DesignState, name: str) -> None:
    got = design.file_servers[name].requests()
    assert got == [], f"expected the {name} never asked, it got {len(got)} requests"
