"""The system prompt of a session, built from the workspace's context files when a run starts."""

from __future__ import annotations

from pathlib import Path

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
    for candidates, title in _SECTIONS:
        found = next((workspace / name for name in candidates if (workspace / name).is_file()), None)
        if found is not None:
            text = found.read_text(encoding="utf-8", errors="replace").strip()
            parts.append(f"# {title} ({found.name})\n\n{text}")
    return "\n\n".join(parts)
