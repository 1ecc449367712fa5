"""The script format of the scripted provider, validated by hand with errors that name the JSON path."""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from typing import Any

from reference_server.a2a.events import ArtifactOut, MessageOut, OutPart, StateSet


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


# reply, artifact and status steps are the events they emit (agent/events.py), with placeholders still in their strings
Step = Say | CallTool | Pause | Fail | Crash | MessageOut | ArtifactOut | StateSet

# the states a status step may set: every A2A task state an agent sets (submitted is the server's)
AGENT_STATES = ("working", "input-required", "auth-required", "completed", "failed", "canceled", "rejected")


@dataclass(frozen=True)
class Rule:
    """When the latest user text matches, the message asks for the behaviour, its messageId is, starts with or matches
    what is given, and the agent's question before it matches `asked`, play these turns, one per assistant message;
    and ask the HTTP edge for the fault, if the rule names one (a rule with a fault may have no turns: its match then
    only asks for the fault, and the next rule that matches plays)."""

    pattern: re.Pattern[str] | None
    message_id: str | None
    turns: tuple[tuple[Step, ...], ...]
    message_id_prefix: str | None = None
    message_id_pattern: re.Pattern[str] | None = None
    # the fault's keys and values as written (placeholders unfilled); the HTTP edge (bindings/faults.py) knows them
    fault: dict[str, Any] | None = None
    # a behaviour name, asked for by a messageId that starts with it or a text whose first word it is (scripted.py)
    behaviour: str | None = None
    # searched in the question the agent asked just before the user message (a request_input call)
    asked: re.Pattern[str] | None = None

    @property
    def replies(self) -> bool:
        """Its answer is one message (a reply step) and nothing else."""
        return bool(self.turns) and any(isinstance(step, MessageOut) for step in self.turns[0])


# each step kind: its key, the other keys it allows
_STEP_KEYS = {"say": {"chunks"}, "tool": {"args"}, "pause": set(), "error": set(), "crash": set(),
              "reply": {"metadata"}, "artifact": {"id", "name", "description", "metadata", "append", "lastChunk"},
              "status": {"message", "metadata"}}
_TOP_KEYS = {"$schema", "description", "rules"}
_ID_KEYS = ("messageId", "messageIdPrefix", "messageIdMatch")
_CONDITION_KEYS = ("match", "behaviour", *_ID_KEYS, "asked")
_RULE_KEYS = {"description", *_CONDITION_KEYS, "turns", "fault"}
_WORD = re.compile(r"\S+")
_PART_KINDS = ("text", "data", "raw", "url")
_PART_KEYS = {*_PART_KINDS, "filename", "mediaType", "metadata"}


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
    _expect(any(key in data for key in _CONDITION_KEYS), path,
            "a rule needs 'match', 'behaviour', 'messageId', 'messageIdPrefix', 'messageIdMatch' or 'asked'")
    for key in _CONDITION_KEYS:
        _expect(key not in data or isinstance(data[key], str), f"{path}.{key}", "must be a string")
    _expect("behaviour" not in data or _WORD.fullmatch(data["behaviour"]) is not None, f"{path}.behaviour",
            "must be one word: no spaces, not empty")
    # a fault is found before the run, from the message alone: the conversation is not read then
    _expect("asked" not in data or "fault" not in data, f"{path}.asked",
            "a rule with a fault cannot depend on the conversation (a fault is asked for before the run)")
    fault = data.get("fault")
    _expect(fault is None or (isinstance(fault, dict) and len(fault) > 0 and all(
        isinstance(value, str | int | float) for value in fault.values())), f"{path}.fault",
        "must be an object of fault settings, each a number, true or false, or a placeholder string")
    turns = data.get("turns", [] if fault is not None else None)
    _expect(isinstance(turns, list) and (len(turns) > 0 or fault is not None), f"{path}.turns",
            "must be a non-empty list of turns (a rule with a fault may leave it out)")
    rule = Rule(_regex(data, "match", path), data.get("messageId"),
                tuple(_turn(t, f"{path}.turns[{i}]") for i, t in enumerate(turns)),
                message_id_prefix=data.get("messageIdPrefix"), message_id_pattern=_regex(data, "messageIdMatch", path),
                fault=fault, behaviour=data.get("behaviour"), asked=_regex(data, "asked", path))
    for i, turn in enumerate(rule.turns):
        for j, step in enumerate(turn):
            if isinstance(step, MessageOut):
                # A2A §3.1.1: a message answer is the whole answer, so nothing but waiting may come with it
                alone = i == 0 and len(rule.turns) == 1 and j == len(turn) - 1
                _expect(alone and all(isinstance(other, Pause) for other in turn[:j]), f"{path}.turns[{i}][{j}]",
                        "a reply is the whole answer: the last step of a rule's only turn, after pauses only")
    return rule


def _regex(data: dict[str, Any], key: str, path: str) -> re.Pattern[str] | None:
    if key not in data:
        return None
    try:
        return re.compile(data[key])
    except re.error as error:
        raise ScriptError(f"{path}.{key}", f"bad regular expression ({error})") from None


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
    if kind in ("reply", "artifact", "status"):
        return _emitting(kind, data, path)
    _expect(isinstance(value, str), f"{path}.{kind}", "must be a string")
    return Fail(value) if kind == "error" else Crash(value)


def _emitting(kind: str, data: dict[str, Any], path: str) -> MessageOut | ArtifactOut | StateSet:
    metadata = data.get("metadata")
    _expect(metadata is None or isinstance(metadata, dict), f"{path}.metadata", "must be an object")
    if kind == "reply":
        return MessageOut(_parts(data["reply"], f"{path}.reply"), metadata)
    if kind == "status":
        state = data["status"]
        _expect(state in AGENT_STATES, f"{path}.status", f"must be one of {', '.join(AGENT_STATES)}")
        parts = _parts(data["message"], f"{path}.message") if "message" in data else ()
        return StateSet(state, parts, metadata)
    for key in ("id", "name", "description"):
        _expect(key not in data or isinstance(data[key], str), f"{path}.{key}", "must be a string")
    for key in ("append", "lastChunk"):
        _expect(key not in data or isinstance(data[key], bool), f"{path}.{key}", "must be true or false")
    return ArtifactOut(_parts(data["artifact"], f"{path}.artifact"), data.get("id"), data.get("name"),
                       data.get("description"), metadata, data.get("append", False), data.get("lastChunk", True))


def _parts(data: Any, path: str) -> tuple[OutPart, ...]:
    """A string (one text part) or a non-empty list of parts written as A2A 1.0 Parts."""
    if isinstance(data, str):
        return (OutPart(text=data),)
    _expect(isinstance(data, list) and len(data) > 0, path, "must be a string or a non-empty list of parts")
    return tuple(_part(p, f"{path}[{i}]") for i, p in enumerate(data))


def _part(data: Any, path: str) -> OutPart:
    _expect(isinstance(data, dict), path, "a part must be an object")
    _no_unknown_keys(data, _PART_KEYS, path)
    kinds = [k for k in _PART_KINDS if k in data]
    _expect(len(kinds) == 1, path, "a part has exactly one of text, data, raw, url")
    for key in ("text", "url", "filename", "mediaType"):
        _expect(key not in data or isinstance(data[key], str), f"{path}.{key}", "must be a string")
    metadata = data.get("metadata")
    _expect(metadata is None or isinstance(metadata, dict), f"{path}.metadata", "must be an object")
    raw = None
    if "raw" in data:
        try:
            raw = base64.b64decode(data["raw"], validate=True) if isinstance(data["raw"], str) else None
        except binascii.Error:
            raw = None
        _expect(raw is not None, f"{path}.raw", "must be standard base64")
    return OutPart(text=data.get("text"), data=data.get("data"), has_data="data" in data, raw=raw,
                   url=data.get("url"), filename=data.get("filename"), media_type=data.get("mediaType"),
                   metadata=metadata)


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
