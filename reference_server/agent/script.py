"""The script format of the scripted provider, validated by hand with errors that name the JSON path."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


class ScriptError(ValueError):
    """The script is malformed; path is the JSON path of the culprit ("$.rules[2].turns[0][1]")."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class Say:
    """Stream text, in the given chunks or in a few chunks split at word boundaries."""

    text: str
    chunks: tuple[str, ...] | None = None


@dataclass(frozen=True)
class CallTool:
    """Call a tool with these arguments (strings may hold placeholders)."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Pause:
    """Wait, mid-message: a number of seconds, or a placeholder that gives one ("{seconds}")."""

    seconds: float | str


@dataclass(frozen=True)
class Fail:
    """Fail the run with a provider error."""

    message: str


@dataclass(frozen=True)
class Crash:
    """Raise an unexpected exception."""

    detail: str


Step = Say | CallTool | Pause | Fail | Crash


@dataclass(frozen=True)
class Rule:
    """When the latest user text matches (and/or its messageId is), play these turns, one per message."""

    pattern: re.Pattern[str] | None
    message_id: str | None
    turns: tuple[tuple[Step, ...], ...]


# each step kind: its key, the other keys it allows
_STEP_KEYS = {"say": {"chunks"}, "tool": {"args"}, "pause": set(), "error": set(), "crash": set()}
_TOP_KEYS = {"$schema", "description", "rules"}
_RULE_KEYS = {"description", "match", "messageId", "turns"}


def parse_script(text: str) -> list[Rule]:
    """The rules of a script, or ScriptError naming the JSON path of the first problem."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ScriptError("$", f"not valid JSON ({error})") from None
    _expect(isinstance(data, dict), "$", "must be an object with 'rules'")
    _no_unknown_keys(data, _TOP_KEYS, "$")
    rules = data.get("rules")
    _expect(isinstance(rules, list), "$.rules", "must be a list of rules")
    return [_rule(rule, f"$.rules[{i}]") for i, rule in enumerate(rules)]


def _rule(data: Any, path: str) -> Rule:
    _expect(isinstance(data, dict), path, "a rule must be an object")
    _no_unknown_keys(data, _RULE_KEYS, path)
    _expect("match" in data or "messageId" in data, path, "a rule needs 'match' or 'messageId'")
    pattern = None
    if "match" in data:
        _expect(isinstance(data["match"], str), f"{path}.match", "must be a string")
        try:
            pattern = re.compile(data["match"])
        except re.error as error:
            raise ScriptError(f"{path}.match", f"bad regular expression ({error})") from None
    message_id = data.get("messageId")
    _expect(message_id is None or isinstance(message_id, str), f"{path}.messageId", "must be a string")
    turns = data.get("turns")
    _expect(isinstance(turns, list) and len(turns) > 0, f"{path}.turns", "must be a non-empty list of turns")
    return Rule(pattern, message_id, tuple(_turn(t, f"{path}.turns[{i}]") for i, t in enumerate(turns)))


def _turn(data: Any, path: str) -> tuple[Step, ...]:
    _expect(isinstance(data, list), path, "a turn must be a list of steps")
    return tuple(_step(s, f"{path}[{i}]") for i, s in enumerate(data))


def _step(data: Any, path: str) -> Step:
    _expect(isinstance(data, dict), path, "a step must be an object")
    kinds = [k for k in data if k in _STEP_KEYS]
    if not kinds:
        unknown = next(iter(data), None)
        raise ScriptError(path, f"unknown step '{unknown}'" if unknown else "empty step")
    _expect(len(kinds) == 1, path, f"one step per object, found {' and '.join(kinds)}")
    kind = kinds[0]
    _no_unknown_keys(data, {kind} | _STEP_KEYS[kind], path)
    value = data[kind]
    if kind == "say":
        return _say(data, path)
    if kind == "tool":
        _expect(isinstance(value, str) and value != "", f"{path}.tool", "must be a tool name")
        args = data.get("args", {})
        _expect(isinstance(args, dict), f"{path}.args", "must be an object")
        return CallTool(value, args)
    if kind == "pause":
        number = isinstance(value, int | float) and not isinstance(value, bool)
        ok = isinstance(value, str) or (number and value >= 0)
        _expect(ok, f"{path}.pause", "must be a number of seconds >= 0 or a placeholder string")
        return Pause(value)
    _expect(isinstance(value, str), f"{path}.{kind}", "must be a string")
    return Fail(value) if kind == "error" else Crash(value)


def _say(data: dict[str, Any], path: str) -> Say:
    text = data["say"]
    _expect(isinstance(text, str), f"{path}.say", "must be a string")
    if "chunks" not in data:
        return Say(text)
    chunks = data["chunks"]
    ok = isinstance(chunks, list) and all(isinstance(c, str) for c in chunks)
    _expect(ok, f"{path}.chunks", "must be a list of strings")
    _expect("".join(chunks) == text, f"{path}.chunks", "the chunks must join to the say text")
    return Say(text, tuple(chunks))


def _no_unknown_keys(data: dict[str, Any], allowed: set[str], path: str) -> None:
    for key in data:
        _expect(key in allowed, path, f"unknown key '{key}'")


def _expect(condition: bool, path: str, reason: str) -> None:
    if not condition:
        raise ScriptError(path, reason)
