"""The scripted provider: plays the turns of the first script rule matching the latest user message."""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import math
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from reference_server.a2a.events import ArtifactOut, MessageOut, OutPart, StateSet
from reference_server.agent.provider import ProviderError, ProviderEvent, ProviderRequest, TextChunk, ToolCall
from reference_server.agent.script import (
    CallTool,
    Crash,
    Fail,
    Pause,
    Rule,
    Say,
    ScriptError,
    Step,
    parse_script,
)
from reference_server.model.layout import SCRIPT
from reference_server.model.types import AskedFault
from reference_server.platform.disk import StatCache

DEFAULT_SCRIPT = Path(__file__).with_name("default_script.json")
PLACEHOLDER = re.compile(r"\{(\w+)\}")  # a value a message fills in: {text}, {word1}, ...
_FRAMING = "[A2A message from"


class ScriptedProvider:
    """Deterministic "model": the workspace's script if present, else the default script (design README)."""

    def __init__(self, default_script: Path | None = None) -> None:
        self._default = default_script or DEFAULT_SCRIPT

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        script, shown = self._script(request.workspace)
        user, turn, result, question = _position(request.messages, asks=script.asks)
        text = strip_framing(user)
        chosen = _choose(script.rules, script.incoming(text, request.message_id, question))
        if chosen is None or turn >= len(chosen[0].turns):
            return  # no rule, or its turns are played: an empty message, so the run settles
        rule, groups = chosen
        # a group named text, result or system wins over the built-in value
        values = {"text": text, "result": result, "system": request.system_prompt} | groups
        for step in rule.turns[turn]:
            async for event in _play(step, values, shown):
                yield event

    def answers_with_message(self, prompt: str, message_id: str | None, workspace: Path) -> bool:
        """Whether a run of prompt would play a rule whose answer is a reply step (a script that cannot be
        loaded answers False: its run fails as usual). The conversation is not read here: a rule that asks about it
        (`asked`) is taken not to match; if it does in the run, the answer is the task as the run ended."""
        try:
            script = self._script(workspace)[0]
        except ProviderError:
            return False
        # the rules after the last one that replies cannot make the answer a message: not matched here
        chosen = _choose(script.foreseeable, script.incoming(strip_framing(prompt), message_id))
        return chosen is not None and chosen[0].replies

    def fault_for(self, prompt: str, message_id: str | None, workspace: Path) -> AskedFault | None:
        """The fault the first rule with one asks for, when it matches the prompt and message id (bindings/faults.py
        carries it out; a script that cannot be loaded asks for none: its run fails as usual)."""
        try:
            script, shown = self._script(workspace)
        except ProviderError:
            return None
        text = strip_framing(prompt)
        incoming = script.incoming(text, message_id)
        for index, rule in script.faults:
            values = _match(rule, incoming)
            if values is not None:
                assert rule.fault is not None
                values = {"text": text} | values
                return AskedFault(_fill_args(rule.fault, values), f"script {shown}: $.rules[{index}].fault")
        return None

    def _script(self, workspace: Path) -> tuple[_Script, str]:
        # design README: the script is checked on every run, so an edit applies to the next one
        path, shown = _script_path(workspace), SCRIPT.as_posix()
        loaded = _SCRIPTS.get(path)
        if loaded is None:  # the built-in script ships with the package: read once, not looked at again
            path, shown = self._default, self._default.name
            loaded = _read_default(path)
        if loaded is None:
            loaded = "cannot be read (FileNotFoundError)"
        if isinstance(loaded, str):
            raise ProviderError(f"script {shown}: {loaded}")
        return loaded, shown


@functools.lru_cache(maxsize=1024)
def _script_path(workspace: Path) -> Path:
    return workspace / SCRIPT


@dataclass(frozen=True)
class _Incoming:
    """What a rule is matched against: the user text, the messageId, the behaviour the message asks for, and the
    question the agent asked just before it (None when it asked none, or when the conversation is not read)."""

    text: str
    message_id: str | None
    behaviour: str | None
    question: str | None = None


@dataclass(frozen=True)
class _Script:
    rules: list[Rule]  # the rules with turns to play, in order
    foreseeable: list[Rule]  # the rules up to the last one that replies (with a message, not a task)
    faults: list[tuple[int, Rule]]  # the rules that ask for a fault, with their place in the file
    behaviours: tuple[str, ...]  # the behaviours its rules name, the longest first
    first_word: re.Pattern[str] | None  # a text that starts with one of them as a whole word
    asks: bool  # a rule depends on the agent's last question: the conversation is read for it

    @classmethod
    def of(cls, rules: list[Rule]) -> _Script:
        playable = [rule for rule in rules if rule.turns]
        end = max((n + 1 for n, rule in enumerate(playable) if rule.replies), default=0)
        # the longest first, so that tck-artifact-file-url is never taken for tck-artifact-file
        behaviours = tuple(sorted({r.behaviour for r in rules if r.behaviour is not None}, key=len, reverse=True))
        first_word = (re.compile(r"\s*(" + "|".join(map(re.escape, behaviours)) + r")(?=\s|\Z)")
                      if behaviours else None)
        return cls(playable, playable[:end], [(n, rule) for n, rule in enumerate(rules) if rule.fault is not None],
                   behaviours, first_word, any(rule.asked is not None for rule in rules))

    def incoming(self, text: str, message_id: str | None, question: str | None = None) -> _Incoming:
        return _Incoming(text, message_id, self.behaviour(text, message_id), question)

    def behaviour(self, text: str, message_id: str | None) -> str | None:
        """The behaviour a message asks for: the one its messageId starts with (the TCK's convention), else the one
        its text starts with as a whole word (ACTS's: the first text part, which the prompt's text starts with). The
        messageId wins: a test kit that names the behaviour there chose it whatever the text says."""
        if message_id:
            by_id = next((b for b in self.behaviours if message_id.startswith(b)), None)
            if by_id is not None:
                return by_id
        found = self.first_word.match(text) if self.first_word is not None else None
        return found.group(1) if found is not None else None


def _read_script(path: Path) -> _Script | str | None:
    """The rules of a script file, what is wrong with it, or None when there is no such file."""
    try:
        return _Script.of(parse_script(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except ScriptError as error:
        return str(error)
    except (OSError, UnicodeDecodeError) as error:
        return f"cannot be read ({type(error).__name__})"


_SCRIPTS: StatCache[_Script | str | None] = StatCache(_read_script)
_read_default = functools.lru_cache(maxsize=4)(_read_script)


def strip_framing(text: str) -> str:
    """The caller's text without the leading "[A2A message from ...]" paragraph, when there is one."""
    if text.startswith(_FRAMING):
        header, blank, rest = text.partition("\n\n")
        if blank and header.rstrip().endswith("]"):
            return rest
    return text


_WORD_START = re.compile(r"(?<=\s)(?=\S)")


def split_chunks(text: str, count: int = 4) -> list[str]:
    """text in up to count chunks of about equal length, each cut where a word starts (whitespace stays with the
    word before it). By position, not by a list of the words: a 4 MB echo made 650,000 strings to count them."""
    cuts = [0]
    for k in range(1, count):
        found = _WORD_START.search(text, max(cuts[-1] + 1, len(text) * k // count))
        if found is None:
            break
        cuts.append(found.start())
    cuts.append(len(text))
    return [text[start:end] for start, end in itertools.pairwise(cuts) if end > start]


async def pause(seconds: float) -> None:
    """A script's pause (sleep N, slow start, the behaviours' waits): the one place they wait, which a test may
    replace to count them instead."""
    await asyncio.sleep(seconds)


def fill(template: str, values: dict[str, str]) -> str:
    """Replace {name} / {1} with the value of that name; unknown placeholders stay as written."""
    whole = PLACEHOLDER.fullmatch(template)
    if whole is not None:  # "{text}": the value itself, not a copy of it (an echo of 4 MB made one)
        return values.get(whole.group(1), template)
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _position(messages: list[dict[str, Any]], *, asks: bool) -> tuple[str, int, str, str | None]:
    """The latest user text, how many assistant messages follow it, the latest tool result since, and (when asks) the
    question the agent asked just before it."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    user = messages[last_user].get("content") if last_user >= 0 else ""
    after = messages[last_user + 1:]
    turn = sum(1 for m in after if m.get("role") == "assistant")
    result = next((str(m.get("content") or "") for m in reversed(after) if m.get("role") == "tool"), "")
    question = _question(messages, last_user) if asks else None
    return user if isinstance(user, str) else "", turn, result, question


def _question(messages: list[dict[str, Any]], before: int) -> str | None:
    """The question of the request_input call of the agent's last message before messages[before], when that message
    asked one (None when another user message comes first: that one was never answered by a question).

    The agent core knows sessions, never A2A tasks: what it remembers of a task waiting for input is the
    conversation, where the question it asked is the last thing it said. So a rule that goes on with a task asks
    about that question (`asked`), and a task whose answer asks again goes on for as many turns as it takes.
    """
    for index in range(before - 1, -1, -1):
        message = messages[index]
        role = message.get("role")
        if role == "user":
            return None
        if role != "assistant":
            continue
        for call in reversed(message.get("tool_calls") or []):
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and function.get("name") == "request_input":
                try:
                    question = json.loads(function.get("arguments") or "{}").get("question")
                except (ValueError, AttributeError):
                    return None
                return question if isinstance(question, str) else None
        return None
    return None


def _choose(rules: list[Rule], incoming: _Incoming) -> tuple[Rule, dict[str, str]] | None:
    """The first rule matching the message, with its placeholder values."""
    return next(((r, v) for r in rules if (v := _match(r, incoming)) is not None), None)


def _match(rule: Rule, incoming: _Incoming) -> dict[str, str] | None:
    message_id = incoming.message_id
    if rule.behaviour is not None and rule.behaviour != incoming.behaviour:
        return None
    if rule.message_id is not None and rule.message_id != message_id:
        return None
    if rule.message_id_prefix is not None and not (message_id or "").startswith(rule.message_id_prefix):
        return None
    if rule.asked is not None and (incoming.question is None or rule.asked.search(incoming.question) is None):
        return None
    values: dict[str, str] = {}
    if rule.message_id_pattern is not None:
        found_id = rule.message_id_pattern.search(message_id or "")
        if found_id is None:
            return None
        values = {k: v or "" for k, v in found_id.groupdict().items()}
    if rule.pattern is None:
        return values
    found = rule.pattern.search(incoming.text)
    if found is None:
        return None
    values |= {str(i): g or "" for i, g in enumerate([found.group(0), *found.groups()])}
    return values | {k: v or "" for k, v in found.groupdict().items()}


async def _play(step: Step, values: dict[str, str], shown: str) -> AsyncIterator[ProviderEvent]:
    if isinstance(step, Say):
        text = fill(step.text, values)
        chunks = [fill(c, values) for c in step.chunks] if step.chunks is not None else split_chunks(text)
        for chunk in chunks:
            yield TextChunk(chunk)
    elif isinstance(step, CallTool):
        yield ToolCall(f"call_{uuid.uuid4().hex[:12]}", step.name, _fill_args(step.args, values))
    elif isinstance(step, Pause):
        await pause(_seconds(step.seconds, values, shown))
    elif isinstance(step, Fail):
        raise ProviderError(fill(step.message, values))
    elif isinstance(step, Crash):
        raise RuntimeError(fill(step.detail, values))
    else:
        yield _filled(step, values)


def _filled(step: MessageOut | ArtifactOut | StateSet, values: dict[str, str]) -> ProviderEvent:
    """The event a reply, artifact or status step emits, its strings filled (raw bytes stay as written)."""
    parts = tuple(_fill_part(part, values) for part in step.parts)
    metadata = _fill_args(step.metadata, values)
    if isinstance(step, ArtifactOut):
        return replace(step, parts=parts, metadata=metadata, artifact_id=_fill_optional(step.artifact_id, values),
                       name=_fill_optional(step.name, values), description=_fill_optional(step.description, values))
    return replace(step, parts=parts, metadata=metadata)


def _fill_part(part: OutPart, values: dict[str, str]) -> OutPart:
    return replace(part, text=_fill_optional(part.text, values), url=_fill_optional(part.url, values),
                   data=_fill_args(part.data, values), filename=_fill_optional(part.filename, values),
                   media_type=_fill_optional(part.media_type, values), metadata=_fill_args(part.metadata, values))


def _fill_optional(value: str | None, values: dict[str, str]) -> str | None:
    return None if value is None else fill(value, values)


def _fill_args(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return fill(value, values)
    if isinstance(value, dict):
        return {k: _fill_args(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill_args(v, values) for v in value]
    return value


def _seconds(value: float | str, values: dict[str, str], shown: str) -> float:
    if not isinstance(value, str):
        return float(value)
    try:
        seconds = float(fill(value, values))
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < math.inf:
        raise ProviderError(f"script {shown}: pause {fill(value, values)!r} is not a number of seconds")
    return seconds
