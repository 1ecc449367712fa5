"""The script format: parsing, and malformed scripts named by JSON path (and rejected by the schema too)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from reference_server.agent.script import CallTool, Crash, Fail, Pause, Say, ScriptError, parse_script
from reference_server.agent.scripted import DEFAULT_SCRIPT

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "spec" / "schemas" / "script.json"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "urn:reference-server:script"
    return Draft202012Validator(schema)


def test_default_script_matches_the_schema(validator: Draft202012Validator) -> None:
    validator.validate(json.loads(DEFAULT_SCRIPT.read_text()))


def test_every_step_kind_parses() -> None:
    rules = parse_script(json.dumps({"rules": [{"match": "x", "messageId": "m", "turns": [[
        {"say": "hi you", "chunks": ["hi ", "you"]}, {"tool": "send", "args": {"text": "t"}},
        {"pause": 0.5}, {"pause": "{1}"}, {"error": "bad"}, {"crash": "boom"}]]}]}))

    assert rules[0].message_id == "m"
    assert rules[0].turns[0] == (Say("hi you", ("hi ", "you")), CallTool("send", {"text": "t"}), Pause(0.5),
                                 Pause("{1}"), Fail("bad"), Crash("boom"))


def _rules(*turn: Any) -> dict[str, Any]:
    return {"rules": [{"match": "", "turns": [[{"say": "ok"}]]}, {"match": "x", "turns": [list(turn)]}]}


MALFORMED: list[tuple[Any, str]] = [
    ("{not json", "$: not valid JSON"),
    ([], "$: must be an object with 'rules'"),
    ({"rules": {}}, "$.rules: must be a list of rules"),
    ({"rules": [], "extra": 1}, "$: unknown key 'extra'"),
    ({"rules": [{"turns": [[]]}]}, "$.rules[0]: a rule needs 'match' or 'messageId'"),
    ({"rules": [{"match": "(", "turns": [[]]}]}, "$.rules[0].match: bad regular expression"),
    ({"rules": [{"match": "", "turns": []}]}, "$.rules[0].turns: must be a non-empty list of turns"),
    ({"rules": [{"match": "", "turns": [{}]}]}, "$.rules[0].turns[0]: a turn must be a list of steps"),
    (_rules({"say": "a"}, {"sey": "b"}), "$.rules[1].turns[0][1]: unknown step 'sey'"),
    (_rules({"say": "a", "tool": "b"}), "$.rules[1].turns[0][0]: one step per object, found say and tool"),
    (_rules({"say": "a", "args": {}}), "$.rules[1].turns[0][0]: unknown key 'args'"),
    (_rules({"say": "ab", "chunks": ["a"]}),
     "$.rules[1].turns[0][0].chunks: the chunks must join to the say text"),
    (_rules({"tool": ""}), "$.rules[1].turns[0][0].tool: must be a tool name"),
    (_rules({"tool": "t", "args": []}), "$.rules[1].turns[0][0].args: must be an object"),
    (_rules({"pause": -1}), "$.rules[1].turns[0][0].pause: must be a number of seconds"),
    (_rules({"error": 3}), "$.rules[1].turns[0][0].error: must be a string"),
]


@pytest.mark.parametrize(("script", "message"), MALFORMED)
def test_malformed_script_names_the_json_path(script: Any, message: str) -> None:
    with pytest.raises(ScriptError) as raised:
        parse_script(script if isinstance(script, str) else json.dumps(script))

    assert str(raised.value).startswith(message)


# JSON Schema cannot check a regular expression's syntax or that chunks join to the text: the parser does
PARSER_ONLY = ("bad regular expression", "chunks must join")


@pytest.mark.parametrize("script", [
    s for s, message in MALFORMED if not isinstance(s, str) and not any(p in message for p in PARSER_ONLY)
])
def test_schema_rejects_the_malformed_scripts_too(validator: Draft202012Validator, script: Any) -> None:
    assert not validator.is_valid(script)
