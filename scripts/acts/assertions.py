"""The ACTS assertion grammar (§5.1-§5.4) applied to one value.

A bare scalar is exact equality. A map is a mix of operators and fields: a key is an operator when it is an
operator's name and its value has that operator's shape (so a response field called `type` whose assertion is a
map stays a field); the fields are nested assertions on the object's members (§5.2). A YAML array asserts
positions: element i of the spec on element i of the value (the value may be longer). All parts of a map must hold.

Two extensions the corpus uses and the grammar lacks: `items` (a map: every element; an array: by position), and
`one_of` whose alternatives are maps (each is an assertion, as in acts-specification.md §7's own example)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from scripts.acts import paths
from scripts.acts.paths import MISSING

TYPE_NAMES = ("string", "number", "boolean", "array", "object", "null")
_TEXT_OPS = ("contains", "matches", "starts_with", "ends_with")
_NUMBER_OPS = {"gte": lambda a, b: a >= b, "lte": lambda a, b: a <= b, "gt": lambda a, b: a > b,
               "lt": lambda a, b: a < b}
_COUNT_OPS = {"count": lambda n, m: n == m, "count_gte": lambda n, m: n >= m, "count_lte": lambda n, m: n <= m}
OPERATORS = ("type", "exists", "absent", *_TEXT_OPS, *_NUMBER_OPS, *_COUNT_OPS, "one_of", "all_of", "any_of", "not",
             "items")


@dataclass(frozen=True)
class Failure:
    """One assertion that did not hold: where, what was expected, what was there."""

    path: str
    message: str
    expected: Any = None
    actual: Any = MISSING

    def text(self) -> str:
        where = self.path or "(root)"
        return f"{where}: {self.message}"


def show(value: Any, limit: int = 160) -> str:
    """A short rendering of a value for a failure message."""
    if value is MISSING:
        return "missing"
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def type_name(value: Any) -> str:
    if value is MISSING:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def equal(actual: Any, expected: Any) -> bool:
    """JSON equality: true is not 1, 1 is 1.0."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual == expected
    if _is_number(actual) and _is_number(expected):
        return bool(actual == expected)
    if type_name(actual) != type_name(expected):
        return False
    if isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(equal(actual[k], expected[k]) for k in expected)
    if isinstance(expected, list):
        return len(actual) == len(expected) and all(equal(a, e) for a, e in zip(actual, expected, strict=True))
    return bool(actual == expected)


def is_operator(key: str, value: Any) -> bool:
    """Whether key: value is an operator of the grammar (rather than a response field to descend into)."""
    if key == "type":
        return isinstance(value, str) and value in TYPE_NAMES
    if key in ("exists", "absent"):
        return isinstance(value, bool)
    if key in _TEXT_OPS:
        return isinstance(value, str)
    if key in _NUMBER_OPS:
        return _is_number(value)
    if key in _COUNT_OPS:
        return isinstance(value, int) and not isinstance(value, bool)
    if key in ("one_of", "all_of", "any_of"):
        return isinstance(value, list)
    if key == "items":
        return isinstance(value, dict | list)
    return key == "not"


def check(actual: Any, spec: Any, path: str = "") -> Failure | None:
    """The first way actual fails spec, or None when it holds."""
    if isinstance(spec, dict):
        return _check_map(actual, spec, path)
    if isinstance(spec, list):
        return _check_positions(actual, spec, path)
    if actual is MISSING:
        return Failure(path, f"missing (expected {show(spec)})", spec, actual)
    if not equal(actual, spec):
        return Failure(path, f"expected {show(spec)}, got {show(actual)}", spec, actual)
    return None


def holds(actual: Any, spec: Any) -> bool:
    return check(actual, spec) is None


def _check_positions(actual: Any, spec: list[Any], path: str) -> Failure | None:
    if not isinstance(actual, list):
        return Failure(path, f"expected an array of at least {len(spec)}, got {show(actual)}", spec, actual)
    if len(actual) < len(spec):
        return Failure(path, f"expected at least {len(spec)} elements, got {len(actual)}", spec, actual)
    for index, element_spec in enumerate(spec):
        failure = check(actual[index], element_spec, paths.join(path, index))
        if failure:
            return failure
    return None


def _check_map(actual: Any, spec: dict[str, Any], path: str) -> Failure | None:
    operators = {k: v for k, v in spec.items() if is_operator(k, v)}
    fields = {k: v for k, v in spec.items() if k not in operators}
    for key in sorted(operators, key=lambda k: _ORDER[k]):  # existence first: its message is the clearest
        failure = _operator(key, operators[key], actual, path)
        if failure:
            return failure
    if not fields:
        return None
    if not isinstance(actual, dict):
        return Failure(path, f"expected an object with {', '.join(fields)}, got {show(actual)}", fields, actual)
    for key, field_spec in fields.items():
        failure = check(actual.get(key, MISSING), field_spec, paths.join(path, key))
        if failure:
            return failure
    return None


_ORDER = {name: index for index, name in enumerate(("absent", "exists", "type", *OPERATORS))}


def _operator(key: str, value: Any, actual: Any, path: str) -> Failure | None:
    def fail(message: str) -> Failure:
        return Failure(path, message, {key: value}, actual)

    if key == "exists":
        present = actual is not MISSING
        return None if present == value else fail("missing" if value else f"expected absent, got {show(actual)}")
    if key == "absent":
        present = actual is not MISSING
        return None if present != value else fail(f"expected absent, got {show(actual)}" if value else "missing")
    if actual is MISSING and key not in ("not", "any_of", "one_of", "all_of"):
        return fail(f"missing (expected {key}: {show(value)})")
    if key == "type":
        return None if type_name(actual) == value else fail(f"expected a {value}, got {type_name(actual)}")
    if key in _TEXT_OPS:
        return _text(key, value, actual, fail)
    if key in _NUMBER_OPS:
        if not _is_number(actual):
            return fail(f"expected a number {key} {value}, got {show(actual)}")
        return None if _NUMBER_OPS[key](actual, value) else fail(f"expected {key} {value}, got {actual}")
    if key in _COUNT_OPS:
        if not isinstance(actual, list):
            return fail(f"expected an array ({key} {value}), got {type_name(actual)}")
        return None if _COUNT_OPS[key](len(actual), value) else fail(f"expected {key} {value}, got {len(actual)}")
    if key == "one_of":
        for alternative in value:
            if (holds(actual, alternative) if isinstance(alternative, dict | list) else equal(actual, alternative)):
                return None
        return fail(f"expected one of {show(value)}, got {show(actual)}")
    if key == "all_of":
        for part in value:
            failure = check(actual, part, path)
            if failure:
                return failure
        return None
    if key == "any_of":
        failures = [check(actual, part, path) for part in value]
        if any(f is None for f in failures):
            return None
        reasons = "; ".join(f.message for f in failures if f)
        return fail(f"no alternative of any_of holds ({reasons})")
    if key == "not":
        return fail(f"expected not {show(value)}, got {show(actual)}") if holds(actual, value) else None
    return _items(value, actual, path, fail)


def _text(key: str, value: str, actual: Any, fail: Any) -> Failure | None:
    if key == "contains" and isinstance(actual, list):
        return None if any(equal(item, value) for item in actual) else fail(f"no element equals {show(value)}")
    if not isinstance(actual, str):
        return fail(f"expected a string ({key} {show(value)}), got {show(actual)}")
    if key == "contains":
        ok = value in actual
    elif key == "matches":
        ok = re.search(value, actual) is not None
    elif key == "starts_with":
        ok = actual.startswith(value)
    else:
        ok = actual.endswith(value)
    result: Failure | None = None if ok else fail(f"expected {key} {show(value)}, got {show(actual)}")
    return result


def _items(value: dict[str, Any] | list[Any], actual: Any, path: str, fail: Any) -> Failure | None:
    if not isinstance(actual, list):
        return fail(f"expected an array (items), got {type_name(actual)}")
    if isinstance(value, list):
        return _check_positions(actual, value, path)
    for index, element in enumerate(actual):
        failure = check(element, value, paths.join(path, index))
        if failure:
            return failure
    return None
