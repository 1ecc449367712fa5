"""Steps about file parts: inline bytes sent to the agent and saved to the inbox (design step 4)."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from pytest_bdd import parsers, then, when

from steps.common import workspace_of
from steps.lifecycle import INBOX_STAMP, inbox_files, the_prompt
from steps.tasks import send, text_message


def file_part(world: Any, name: str, content: bytes) -> dict[str, Any]:
    """A file part with inline bytes (A2A Part.raw); the bytes are remembered to check the inbox."""
    world.notes["file_bytes"] = content
    return {"raw": base64.b64encode(content).decode(), "filename": name, "mediaType": "application/octet-stream"}


@when(parsers.parse('the caller sends the file "{name}" with the text "{text}"'))
def _(world: Any, name: str, text: str) -> None:
    message = text_message(text)
    message["parts"].append(file_part(world, name, f"the bytes of {name}".encode()))
    send(world, message)


@when(parsers.parse("the caller sends a file of {size:d} bytes"))
def _(world: Any, size: int) -> None:
    send(world, {**text_message(""), "parts": [file_part(world, "big.bin", b"x" * size)]})


@then(parsers.parse('the inbox holds the file as "{pattern}" with the bytes sent'))
def _(world: Any, pattern: str) -> None:
    content = world.notes["file_bytes"]
    saved = inbox_files(world)
    assert len(saved) == 1, saved
    expected = re.escape(pattern).replace(re.escape("<yyyymmdd-hhmmss>"), f"({INBOX_STAMP})")
    match = re.fullmatch(expected, saved[0].name)
    assert match, f"{saved[0].name} does not match {pattern}"
    stamp = datetime.strptime(match.group(1), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    assert abs(datetime.now(UTC) - stamp) < timedelta(minutes=2), f"{stamp} is not the time it arrived (UTC)"
    assert saved[0].read_bytes() == content
    world.notes["saved"] = f"inbox/{saved[0].name}"


@then("the prompt lists the saved file")
def _(world: Any) -> None:
    assert f"Files: {world.notes['saved']}" in the_prompt(world).splitlines()


@then(parsers.parse("the workspace has no {name}"))
def _(world: Any, name: str) -> None:
    assert not (workspace_of(world).path / name).exists()


@then("nothing was saved to the inbox and no task was created")
def _(world: Any) -> None:
    workspace = workspace_of(world)
    assert inbox_files(world) == []
    tasks = list(workspace.tasks_dir.glob("*.json")) if workspace.tasks_dir.is_dir() else []
    assert tasks == [], tasks


