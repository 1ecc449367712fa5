"""Dot paths into JSON values (ACTS §5.2): `task.id`, `task.artifacts[0].parts[*].text`. A field that is not there
is MISSING, which is not JSON null."""

from __future__ import annotations

import re
from typing import Any, Final


class _Missing:
    """The value of a field that is not there (ACTS `absent`), distinct from JSON null."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<missing>"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()

WILDCARD: Final = "*"
_TOKEN = re.compile(r"\[(\d+|\*)\]|([^.\[\]]+)")


class PathError(ValueError):
    """A path that cannot be parsed."""


def parse(path: str) -> list[str | int]:
    """`a.b[0].c[*]` → ["a", "b", 0, "c", "*"]; an empty path is []."""
    tokens: list[str | int] = []
    position = 0
    text = path.strip()
    while position < len(text):
        if text[position] == ".":
            position += 1
            continue
        match = _TOKEN.match(text, position)
        if match is None:
            raise PathError(f"cannot parse the path {path!r} at {text[position:]!r}")
        index, name = match.groups()
        if name is not None:
            tokens.append(name)
        else:
            tokens.append(WILDCARD if index == WILDCARD else int(index))
        position = match.end()
    return tokens


def _step(value: Any, token: str | int) -> Any:
    if isinstance(token, int):
        if isinstance(value, list) and -len(value) <= token < len(value):
            return value[token]
        return MISSING
    if isinstance(value, dict):
        return value.get(token, MISSING)
    return MISSING


def get(value: Any, path: str) -> Any:
    """The value at path (no wildcards), or MISSING."""
    for token in parse(path):
        if token == WILDCARD:
            raise PathError(f"a wildcard is not allowed here: {path!r}")
        value = _step(value, token)
        if value is MISSING:
            return MISSING
    return value


def collect(value: Any, path: str) -> list[Any]:
    """Every value the path reaches, [*] expanding arrays; what is not there is left out."""
    current = [value]
    for token in parse(path):
        following: list[Any] = []
        for item in current:
            if token == WILDCARD:
                if isinstance(item, list):
                    following.extend(item)
            else:
                child = _step(item, token)
                if child is not MISSING:
                    following.append(child)
        current = following
    return current


def join(base: str, token: str | int) -> str:
    """The path of a child, for messages: join("task", "id") = "task.id", join("parts", 0) = "parts[0]"."""
    if isinstance(token, int):
        return f"{base}[{token}]"
    return f"{base}.{token}" if base else token
