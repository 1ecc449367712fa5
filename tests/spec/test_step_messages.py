"""Every check of the step definitions (reference_server/conformance/steps/, tests/steps/) says in words what it
expected and what came.

A step's failure is read by people who implement other A2A servers (the portable scenarios run as a conformance
suite), and only an assertion's own message reaches them (conformance/support/reasons.py drops pytest's explanation). So
no assert goes without a message, and no message shows a value with a !r conversion, a Python repr: JSON values go
through support.exchanges.shown, errors and answers through their own str.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STEPS = [ROOT / "reference_server" / "conformance" / "steps", ROOT / "tests" / "steps"]  # the portable, the design's
STEP_FILES = sorted(path for folder in STEPS for path in folder.glob("*.py"))
REPR = ord("r")


def where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"


def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def messages(tree: ast.Module) -> Iterator[tuple[ast.AST, ast.expr]]:
    """Each failure message of the module with the node that fails with it: an assert's message, and the first
    argument of a `raise AssertionError(...)`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.msg is not None:
            yield node, node.msg
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            called = node.exc.func
            if isinstance(called, ast.Name) and called.id == "AssertionError":
                yield node, node.exc.args[0]


def test_the_step_modules_are_found() -> None:
    assert len(STEP_FILES) > 20, f"expected the step modules in {STEPS}, found {len(STEP_FILES)}"


@pytest.mark.parametrize("path", STEP_FILES, ids=lambda path: path.name)
def test_every_assert_has_a_message(path: Path) -> None:
    bare = [where(path, node) for node in ast.walk(tree_of(path)) if isinstance(node, ast.Assert) and node.msg is None]
    assert not bare, ("asserts without a message (a failure would say nothing: give each one what was expected and "
                      "what came):\n" + "\n".join(bare))


@pytest.mark.parametrize("path", STEP_FILES, ids=lambda path: path.name)
def test_no_message_shows_a_python_repr(path: Path) -> None:
    found = [where(path, value) for _, message in messages(tree_of(path)) for value in ast.walk(message)
             if isinstance(value, ast.FormattedValue) and value.conversion == REPR]
    assert not found, ("failure messages with a !r conversion (a Python repr: show JSON values with shown(...), "
                       "quote strings by hand):\n" + "\n".join(found))
