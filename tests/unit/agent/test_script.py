"""The script format: parsing, and malformed scripts named by JSON path (and rejected by the schema too)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from reference_server.a2a.events import ArtifactOut, MessageOut, OutPart, StateSet
from reference_server.agent.script import CallTool, Crash, Fail, Pause, Say, ScriptError, parse_script
from reference_server.agent.scripted import DEFAULT_SCRIPT

SCHEMA_PATH = Path(__file__).resolve().parents[3] / "spec" / "schemas" / "script.json"


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


def test_reply_artifact_and_status_steps_parse_to_the_events_they_emit(validator: Draft202012Validator) -> None:
    script = {"rules": [
        {"messageIdPrefix": "tck-", "turns": [[{"pause": 0}, {"reply": "hi", "metadata": {"k": 1}}]]},
        {"messageIdMatch": "^(?P<kind>[a-z]+)-", "turns": [[
            {"artifact": [{"text": "t"}, {"data": [1, 2]},
                          {"raw": "dGNr", "filename": "f.txt", "mediaType": "text/plain"},
                          {"url": "https://example.com/f", "metadata": {"m": True}}],
             "id": "a1", "name": "report", "description": "d", "metadata": {"v": 1}, "append": True,
             "lastChunk": False},
            {"status": "auth-required", "message": "sign in", "metadata": {"p": 2}},
            {"status": "working"}]]}]}
    rules = parse_script(json.dumps(script))

    validator.validate(script)
    assert (rules[0].message_id_prefix, rules[0].replies) == ("tck-", True)
    assert rules[0].turns[0][1] == MessageOut((OutPart(text="hi"),), {"k": 1})
    assert rules[1].message_id_pattern is not None and not rules[1].replies
    assert rules[1].turns[0] == (
        ArtifactOut((OutPart(text="t"), OutPart(data=[1, 2], has_data=True),
                     OutPart(raw=b"tck", filename="f.txt", media_type="text/plain"),
                     OutPart(url="https://example.com/f", metadata={"m": True})),
                    "a1", "report", "d", {"v": 1}, append=True, last_chunk=False),
        StateSet("auth-required", (OutPart(text="sign in"),), {"p": 2}),
        StateSet("working"))


def test_behaviour_and_asked_conditions_parse(validator: Draft202012Validator) -> None:
    script = {"rules": [{"behaviour": "tck-complete-task", "asked": "^Which (?P<what>city)", "match": "done",
                         "turns": [[{"say": "ok"}]]}]}
    (rule,) = parse_script(json.dumps(script))

    validator.validate(script)
    assert rule.behaviour == "tck-complete-task"
    assert rule.asked is not None and rule.asked.pattern == "^Which (?P<what>city)"


def _rules(*turn: Any) -> dict[str, Any]:
    return {"rules": [{"match": "", "turns": [[{"say": "ok"}]]}, {"match": "x", "turns": [list(turn)]}]}


MALFORMED: list[tuple[Any, str]] = [
    ("{not json", "$: not valid JSON"),
    ([], "$: must be an object with 'rules'"),
    ({"rules": {}}, "$.rules: must be a list of rules"),
    ({"rules": [], "extra": 1}, "$: unknown key 'extra'"),
    ({"rules": [{"turns": [[]]}]}, "$.rules[0]: a rule needs 'match', 'behaviour', 'messageId', 'messageIdPrefix', "
                                   "'messageIdMatch' or 'asked'"),
    ({"rules": [{"messageIdPrefix": 3, "turns": [[]]}]}, "$.rules[0].messageIdPrefix: must be a string"),
    ({"rules": [{"behaviour": 3, "turns": [[]]}]}, "$.rules[0].behaviour: must be a string"),
    ({"rules": [{"behaviour": "tck-x y", "turns": [[]]}]}, "$.rules[0].behaviour: must be one word"),
    ({"rules": [{"behaviour": "", "turns": [[]]}]}, "$.rules[0].behaviour: must be one word"),
    ({"rules": [{"asked": "(", "turns": [[]]}]}, "$.rules[0].asked: bad regular expression"),
    ({"rules": [{"asked": "x", "fault": {"cutAfter": 1}}]},
     "$.rules[0].asked: a rule with a fault cannot depend on the conversation"),
    ({"rules": [{"messageIdMatch": "(", "turns": [[]]}]}, "$.rules[0].messageIdMatch: bad regular expression"),
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
    (_rules({"reply": []}), "$.rules[1].turns[0][0].reply: must be a string or a non-empty list of parts"),
    (_rules({"reply": "a", "name": "n"}), "$.rules[1].turns[0][0]: unknown key 'name'"),
    (_rules({"say": "a"}, {"reply": "b"}),
     "$.rules[1].turns[0][1]: a reply is the whole answer: the last step of a rule's only turn, after pauses only"),
    (_rules({"reply": "b"}, {"pause": 1}),
     "$.rules[1].turns[0][0]: a reply is the whole answer: the last step of a rule's only turn, after pauses only"),
    ({"rules": [{"match": "", "turns": [[{"tool": "list_files"}], [{"reply": "b"}]]}]},
     "$.rules[0].turns[1][0]: a reply is the whole answer: the last step of a rule's only turn, after pauses only"),
    (_rules({"artifact": [{"text": "a", "data": 1}]}),
     "$.rules[1].turns[0][0].artifact[0]: a part has exactly one of text, data, raw, url"),
    (_rules({"artifact": [{}]}), "$.rules[1].turns[0][0].artifact[0]: a part has exactly one of text, data, raw, url"),
    (_rules({"artifact": [{"text": "a", "name": "n"}]}), "$.rules[1].turns[0][0].artifact[0]: unknown key 'name'"),
    (_rules({"artifact": [{"raw": "not base64!"}]}), "$.rules[1].turns[0][0].artifact[0].raw: must be standard base64"),
    (_rules({"artifact": [{"url": 3}]}), "$.rules[1].turns[0][0].artifact[0].url: must be a string"),
    (_rules({"artifact": "a", "append": "yes"}), "$.rules[1].turns[0][0].append: must be true or false"),
    (_rules({"artifact": "a", "metadata": []}), "$.rules[1].turns[0][0].metadata: must be an object"),
    (_rules({"status": "submitted"}), "$.rules[1].turns[0][0].status: must be one of working, input-required, "
                                      "auth-required, completed, failed, canceled, rejected"),
    (_rules({"status": "failed", "message": 3}),
     "$.rules[1].turns[0][0].message: must be a string or a non-empty list of parts"),
]


@pytest.mark.parametrize(("script", "message"), MALFORMED)
def test_malformed_script_names_the_json_path(script: Any, message: str) -> None:
    with pytest.raises(ScriptError) as raised:
        parse_script(script if isinstance(script, str) else json.dumps(script))

    assert str(raised.value).startswith(message)


# JSON Schema cannot check a regular expression's syntax, that chunks join to the text, or where a reply stands: the
# parser does
PARSER_ONLY = ("bad regular expression", "chunks must join", "a reply is the whole answer")


@pytest.mark.parametrize("script", [
    s for s, message in MALFORMED if not isinstance(s, str) and not any(p in message for p in PARSER_ONLY)
])
def test_schema_rejects_the_malformed_scripts_too(validator: Draft202012Validator, script: Any) -> None:
    assert not validator.is_valid(script)
