"""Tools the model can call, and the workspace tools: files confined to the workspace, and send."""

from __future__ import annotations

import mimetypes
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from reference_server.a2a.events import Sent

READ_LIMIT = 256 * 1024  # characters returned by read_file before it truncates
LIST_LIMIT = 500  # entries returned by list_files


class ToolError(Exception):
    """A tool failed in a way the model should hear about; the run goes on."""


class ChatChannel(Protocol):
    """Where the send tool delivers; the session turns each delivery into a Sent event, in order."""

    async def deliver(self, item: Sent) -> None: ...


@dataclass(frozen=True)
class ToolContext:
    """What a tool execution may use besides its arguments."""

    workspace: Path
    channel: ChatChannel
    call_id: str


@dataclass
class Tool:
    """A callable tool: its name, description and JSON Schema of the arguments, and what it does."""

    name: str
    description: str
    parameters: dict[str, Any]
    execute: Callable[[dict[str, Any], ToolContext], Awaitable[str]]
    ends_turn: bool = False


def object_schema(required: dict[str, str], optional: dict[str, str] | None = None) -> dict[str, Any]:
    """The JSON Schema of an object of string arguments: {name: description}."""
    every = {**required, **(optional or {})}
    props = {name: {"type": "string", "description": d} for name, d in every.items()}
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


def string_arg(args: dict[str, Any], name: str, *, default: str | None = None) -> str:
    """The string argument name, or ToolError naming it."""
    value = args.get(name, default)
    if not isinstance(value, str):
        raise ToolError(f"the argument '{name}' must be a string")
    return value


def confine(workspace: Path, raw: str) -> Path:
    """The absolute path of raw inside workspace; `..`, absolute paths and escaping symlinks are refused."""
    if "\x00" in raw:
        raise ToolError("the path contains a NUL character")
    relative = Path(raw)
    if relative.is_absolute():
        raise ToolError(f"'{raw}' is absolute; give a path relative to the workspace")
    if ".." in relative.parts:
        raise ToolError(f"'{raw}' contains '..'; paths must stay inside the workspace")
    root = workspace.resolve()
    target = (root / relative).resolve()  # follows symlinks, so a link that leaves the workspace is caught
    if not target.is_relative_to(root):
        raise ToolError(f"'{raw}' leads outside the workspace")
    return target


def workspace_tools(workspace: Path) -> list[Tool]:
    """read_file, write_file, list_files and send, all confined to workspace."""
    return [
        Tool(name, description, parameters, partial(execute, workspace))
        for name, description, parameters, execute in _WORKSPACE_TOOLS
    ]


async def _read_file(workspace: Path, args: dict[str, Any], ctx: ToolContext) -> str:
    path = confine(workspace, string_arg(args, "path"))
    if not path.is_file():
        raise ToolError(f"'{args['path']}' is not a file")
    with path.open(encoding="utf-8", errors="replace") as f:
        text = f.read(READ_LIMIT + 1)
    if len(text) > READ_LIMIT:
        return text[:READ_LIMIT] + f"\n[truncated after {READ_LIMIT} characters]"
    return text


async def _write_file(workspace: Path, args: dict[str, Any], ctx: ToolContext) -> str:
    path = confine(workspace, string_arg(args, "path"))
    content = string_arg(args, "content")
    if path.is_dir():
        raise ToolError(f"'{args['path']}' is a folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8")
    path.write_bytes(data)
    return f"wrote {len(data)} bytes to {args['path']}"


async def _list_files(workspace: Path, args: dict[str, Any], ctx: ToolContext) -> str:
    raw = string_arg(args, "path", default=".")
    folder = confine(workspace, raw)
    if not folder.is_dir():
        raise ToolError(f"'{raw}' is not a folder")
    names = sorted(p.name + ("/" if p.is_dir() and not p.is_symlink() else "") for p in folder.iterdir())
    shown = names[:LIST_LIMIT]
    if len(names) > LIST_LIMIT:
        shown.append(f"[{len(names) - LIST_LIMIT} more entries]")
    return "\n".join(shown) if shown else "(empty folder)"


async def _send(workspace: Path, args: dict[str, Any], ctx: ToolContext) -> str:
    if ("text" in args) == ("path" in args):
        raise ToolError("give exactly one of 'text' or 'path'")
    if "text" in args:
        await ctx.channel.deliver(Sent(string_arg(args, "text"), None, None, None))
        return "sent"
    raw = string_arg(args, "path")
    path = confine(workspace, raw)
    if not path.is_file():
        raise ToolError(f"'{raw}' is not a file")
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    await ctx.channel.deliver(Sent(None, path, path.name, media_type))
    return f"sent {path.name}"


_WORKSPACE_TOOLS: list[tuple[str, str, dict[str, Any], Any]] = [  # schemas built once
    ("read_file", "Read a text file of the workspace.",
     object_schema({"path": "path relative to the workspace"}), _read_file),
    ("write_file", "Write a text file in the workspace, creating folders as needed.",
     object_schema({"path": "path relative to the workspace", "content": "the whole new content"}), _write_file),
    ("list_files", "List a folder of the workspace (folders end with '/').",
     object_schema({}, {"path": "folder relative to the workspace (default: the workspace)"}), _list_files),
    ("send", "Deliver text or a workspace file to the person you are talking to. Give exactly one of text or path.",
     object_schema({}, {"text": "text to deliver", "path": "workspace file to deliver"}), _send),
]
