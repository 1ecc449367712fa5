"""ACTS variables (§8.1, §12.2): `{{name}}`, `{{stepId.var}}`, `{{stepId.response}}`, `{{env.NAME}}`, `{{$uuid}}`.

Precedence, highest first: a step's captures, the document's (and the runner's) variables, the environment, the
generators. A string that is exactly one `{{...}}` becomes the value itself (an object stays an object, a number a
number); inside a longer string a value is written as text (JSON for objects and arrays)."""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scripts.acts import paths

_ONE = re.compile(r"^\{\{\s*([^{}]+?)\s*\}\}$")
_ANY = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")
_MAX_DEPTH = 8  # a variable whose value names another variable, and so on


class Unresolved(LookupError):
    """A `{{...}}` that names nothing. `runner_input` is true for a bare name (no step, no env): a value the runner
    is expected to provide (ACTS leaves e.g. insufficientAuthToken or otherUserTaskId to the runner)."""

    def __init__(self, expression: str, why: str, runner_input: bool) -> None:
        super().__init__(f"cannot resolve {{{{{expression}}}}}: {why}")
        self.expression = expression
        self.runner_input = runner_input


@dataclass
class Scope:
    """What `{{...}}` can name in one test: variables, and per step id its captures and its `response`."""

    variables: dict[str, Any] = field(default_factory=dict)
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def lookup(self, expression: str, depth: int = 0) -> Any:
        expression = expression.strip()
        if expression == "$uuid":
            return str(uuid.uuid4())
        head, _, rest = expression.partition(".")
        if rest and head in self.steps:
            name, _, sub = rest.partition(".")
            captured = self.steps[head]
            if name not in captured:
                raise Unresolved(expression, f"step {head!r} captured no {name!r}", runner_input=False)
            value = captured[name]
            if sub:
                value = paths.get(value, sub)
                if value is paths.MISSING:
                    raise Unresolved(expression, f"{sub!r} is not in {head}.{name}", runner_input=False)
            return value
        if expression in self.variables:
            value = self.variables[expression]
            if isinstance(value, str) and "{{" in value and depth < _MAX_DEPTH:
                return render(value, self, depth + 1)
            return value
        if head == "env" and rest:
            if rest in self.env:
                return self.env[rest]
            raise Unresolved(expression, f"the environment has no {rest}", runner_input=False)
        if rest:
            raise Unresolved(expression, f"no step {head!r} ran before this one", runner_input=False)
        raise Unresolved(expression, "no such variable (the runner was given none: --var NAME=VALUE)",
                         runner_input=True)


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list) or value is None:
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def render(value: Any, scope: Scope, depth: int = 0) -> Any:
    """value with every `{{...}}` replaced, recursively through objects and arrays (keys too)."""
    if isinstance(value, str):
        whole = _ONE.match(value)
        if whole:
            return scope.lookup(whole.group(1), depth)
        if "{{" not in value:
            return value
        return _ANY.sub(lambda m: _as_text(scope.lookup(m.group(1), depth)), value)
    if isinstance(value, dict):
        return {render(k, scope, depth): render(v, scope, depth) for k, v in value.items()}
    if isinstance(value, list):
        return [render(item, scope, depth) for item in value]
    return value


def names(value: Any) -> list[str]:
    """Every expression written `{{...}}` in value, in order (for checking before a test runs)."""
    found: list[str] = []
    if isinstance(value, str):
        found.extend(m.group(1).strip() for m in _ANY.finditer(value))
    elif isinstance(value, dict):
        for k, v in value.items():
            found.extend(names(k))
            found.extend(names(v))
    elif isinstance(value, list):
        for item in value:
            found.extend(names(item))
    return found
