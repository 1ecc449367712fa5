"""The request reader's JSON limits: exactly at and beyond each, with and without the scans that skip the walk."""

from __future__ import annotations

import pytest

from reference_server.bindings.http import parse_json
from reference_server.model.errors import ParseError


@pytest.mark.parametrize("body", [
    "[" * 4 + "]" * 4,                     # nested exactly at the limit
    '{"a":[{"b":[1]}]}',                   # the same, mixed
    '{"s":"[[[[[[[[[["}',                 # brackets in a string only look deep: the walk finds nothing
    r'{"pair":"\ud83d\ude00"}',            # an escaped surrogate pair is one character
    r'{"text":"\\ud800"}',                 # an escaped backslash, then plain text
])
def test_within_the_limits(body: str) -> None:
    assert parse_json(body.encode(), max_depth=4) is not None


@pytest.mark.parametrize(("body", "says"), [
    ("[" * 5 + "]" * 5, "nested deeper than 4 levels"),
    ('{"a":{"b":{"c":{"d":{}}}}}', "nested deeper than 4 levels"),
    (r'{"a":"x\ud800"}', "$.a holds a lone UTF-16 surrogate"),
    (r'{"a":["\uDFFF"]}', "$.a[0] holds a lone UTF-16 surrogate"),
    (r'{"\udc00":1}', "a key in $ holds a lone UTF-16 surrogate"),
])
def test_beyond_them(body: str, says: str) -> None:
    with pytest.raises(ParseError, match=says.replace("[", r"\[").replace("$", r"\$")):
        parse_json(body.encode(), max_depth=4)
