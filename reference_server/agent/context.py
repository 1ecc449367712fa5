"""The system prompt of a session, built from the workspace's context files when a run starts."""

from __future__ import annotations

import functools
from pathlib import Path

from reference_server.platform.disk import StatCache

PREAMBLE = (
    "You are the assistant of this workspace. File tools take paths relative to the workspace; "
    "use send to deliver text or a file to the person you are talking to."
)

# design "Decisions": a session loads the workspace's AGENTS.md (or CLAUDE.md), PERSONA.md and MEMORY.md
_SECTIONS = (
    (("AGENTS.md", "CLAUDE.md"), "Project context"),
    (("PERSONA.md",), "Persona"),
    (("MEMORY.md",), "Memory"),
)


def system_prompt(workspace: Path) -> str:
    """The preamble, then one section per context file present (AGENTS.md wins over CLAUDE.md)."""
    parts = [PREAMBLE]
    for candidates, title in _paths(workspace):
        found = next(((path.name, text) for path in candidates if (text := _TEXTS.get(path)) is not None), None)
        if found is not None:
            parts.append(f"# {title} ({found[0]})\n\n{found[1]}")
    return "\n\n".join(parts)


@functools.lru_cache(maxsize=1024)
def _paths(workspace: Path) -> tuple[tuple[tuple[Path, ...], str], ...]:
    """The context files' paths in a workspace, joined once (each run checks them)."""
    return tuple((tuple(workspace / name for name in names), title) for names, title in _SECTIONS)


def _text(path: Path) -> str | None:
    """The file's text, stripped; None when it is not a readable file."""
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


# the context files are checked when each run starts (so edits apply) and read again only when they change
_TEXTS: StatCache[str | None] = StatCache(_text)
