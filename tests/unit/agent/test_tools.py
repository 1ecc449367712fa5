"""Workspace tools: read, write, list, send, and the confinement every one of them applies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reference_server.a2a.events import Sent
from reference_server.agent.tools import READ_LIMIT, Tool, ToolContext, ToolError, workspace_tools

from .helpers import run


class _Channel:
    def __init__(self) -> None:
        self.items: list[Sent] = []

    async def deliver(self, item: Sent) -> None:
        self.items.append(item)


def _call(workspace: Path, name: str, channel: _Channel | None = None, /, **args: str) -> str:
    tool: Tool = {t.name: t for t in workspace_tools(workspace)}[name]
    return run(tool.execute(args, ToolContext(workspace, channel or _Channel(), "c1")))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace, with a secret in it."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret")
    return folder


def test_write_read_and_list(workspace: Path) -> None:
    wrote = _call(workspace, "write_file", path="notes/today.md", content="hello")
    assert wrote == "wrote 5 bytes to notes/today.md"
    assert _call(workspace, "read_file", path="notes/today.md") == "hello"
    assert _call(workspace, "list_files") == "notes/"
    assert _call(workspace, "list_files", path="notes") == "today.md"


def test_read_truncates_large_files(workspace: Path) -> None:
    (workspace / "big.txt").write_text("x" * (READ_LIMIT + 10))

    text = _call(workspace, "read_file", path="big.txt")
    assert text.endswith(f"[truncated after {READ_LIMIT} characters]")


def test_send_text_and_file_go_through_the_channel(workspace: Path) -> None:
    channel = _Channel()
    (workspace / "plan.pdf").write_bytes(b"%PDF")

    assert _call(workspace, "send", channel, text="hi there") == "sent"
    assert _call(workspace, "send", channel, path="plan.pdf") == "sent plan.pdf"

    assert channel.items == [Sent("hi there", None, None, None),
                             Sent(None, (workspace / "plan.pdf").resolve(), "plan.pdf", "application/pdf")]


@pytest.mark.parametrize("args", [{}, {"text": "a", "path": "b"}])
def test_send_needs_exactly_one_of_text_or_path(workspace: Path, args: dict[str, str]) -> None:
    with pytest.raises(ToolError, match="exactly one"):
        _call(workspace, "send", **args)


def test_missing_and_wrong_arguments_are_tool_errors(workspace: Path) -> None:
    with pytest.raises(ToolError, match="'path'"):
        _call(workspace, "read_file")
    with pytest.raises(ToolError, match="not a file"):
        _call(workspace, "read_file", path="nothing.txt")
    with pytest.raises(ToolError, match="not a folder"):
        _call(workspace, "list_files", path="nothing")


ESCAPES = ["../outside/secret.txt", "a/../../outside/secret.txt", "..", "/etc/passwd", "link/secret.txt",
           "filelink.txt"]


def _links(workspace: Path, outside: Path) -> None:
    os.symlink(outside, workspace / "link")
    os.symlink(outside / "secret.txt", workspace / "filelink.txt")


@pytest.mark.parametrize("raw", ESCAPES)
def test_read_refuses_every_escape(workspace: Path, outside: Path, raw: str) -> None:
    _links(workspace, outside)
    with pytest.raises(ToolError):
        _call(workspace, "read_file", path=raw)


@pytest.mark.parametrize("raw", [*ESCAPES, "link/new.txt", "../outside/new.txt"])
def test_write_refuses_every_escape(workspace: Path, outside: Path, raw: str) -> None:
    _links(workspace, outside)
    with pytest.raises(ToolError):
        _call(workspace, "write_file", path=raw, content="pwned")
    assert (outside / "secret.txt").read_text() == "secret"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


@pytest.mark.parametrize("raw", ["..", "../outside", "/", "link"])
def test_list_refuses_every_escape(workspace: Path, outside: Path, raw: str) -> None:
    _links(workspace, outside)
    with pytest.raises(ToolError):
        _call(workspace, "list_files", path=raw)


@pytest.mark.parametrize("raw", ESCAPES)
def test_send_refuses_every_escape(workspace: Path, outside: Path, raw: str) -> None:
    _links(workspace, outside)
    channel = _Channel()
    with pytest.raises(ToolError):
        _call(workspace, "send", channel, path=raw)
    assert channel.items == []


def test_symlinks_that_stay_inside_are_followed(workspace: Path) -> None:
    (workspace / "real").mkdir()
    (workspace / "real" / "a.txt").write_text("inside")
    os.symlink(workspace / "real", workspace / "alias")

    assert _call(workspace, "read_file", path="alias/a.txt") == "inside"


def test_list_marks_folders_and_shows_symlinks_as_entries(workspace: Path, outside: Path) -> None:
    _links(workspace, outside)
    (workspace / "sub").mkdir()

    assert _call(workspace, "list_files").splitlines() == ["filelink.txt", "link", "sub/"]
