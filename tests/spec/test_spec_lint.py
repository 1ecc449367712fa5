"""The spec lints itself (STYLE.md): feature shape, scenario names, tags, design test coverage."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from gherkin.parser import Parser

ROOT = Path(__file__).resolve().parents[2]
FEATURES = sorted((ROOT / "spec" / "features").rglob("*.feature"))
# binding-specific features may speak of routes, verbs and status codes; the others speak A2A
BINDING_FEATURES = {"jsonrpc.feature", "rest.feature", "errors.feature"}
# design tests whose behaviour belongs to a later issue (none now)
PENDING_DESIGN_TESTS: set[str] = set()
HTTP_WORDS = re.compile(r"\b(POST|GET|PUT|DELETE|HTTP \d{3})\b|/a2a|status code")


def markers() -> dict[str, str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    entries = config["tool"]["pytest"]["ini_options"]["markers"]
    return dict(entry.split(": ", 1) for entry in entries)


def parsed(path: Path) -> dict[str, Any]:
    return Parser().parse(path.read_text(encoding="utf-8"))["feature"]  # type: ignore[no-any-return]


def scenarios(feature: dict[str, Any]) -> list[dict[str, Any]]:
    return [child["scenario"] for child in feature["children"] if "scenario" in child]


def test_there_are_features() -> None:
    assert len(FEATURES) >= 8


@pytest.mark.parametrize("path", FEATURES, ids=lambda p: p.name)
def test_a_feature_opens_with_the_sentence_it_makes_executable(path: Path) -> None:
    feature = parsed(path)
    lines = [line for line in feature["description"].splitlines() if line.strip()]
    assert 2 <= len(lines) <= 4, f"{path.name}: the description has {len(lines)} lines"
    assert re.search(r"A2A|[Dd]esign", feature["description"]), f"{path.name}: cite the spec or the design"


@pytest.mark.parametrize("path", FEATURES, ids=lambda p: p.name)
def test_scenario_names_are_short_present_tense_statements(path: Path) -> None:
    for scenario in scenarios(parsed(path)):
        name = scenario["name"]
        assert len(name) <= 70, f"{name!r} is longer than 70 characters"
        assert not re.search(r"\bshould\b|^test|^Test", name), f"{name!r}: state the behaviour"
        assert name[0].isupper() and not name.endswith("."), f"{name!r}"


def test_scenario_names_are_unique() -> None:
    names = [s["name"] for path in FEATURES for s in scenarios(parsed(path))]
    repeated = {n for n in names if names.count(n) > 1}
    assert not repeated, repeated


def test_every_tag_is_a_registered_marker() -> None:
    known = markers()
    for path in FEATURES:
        feature = parsed(path)
        tags = [t["name"] for t in feature["tags"]]
        for scenario in scenarios(feature):
            tags += [t["name"] for t in scenario["tags"]]
            for examples in scenario.get("examples", []):
                tags += [t["name"] for t in examples["tags"]]
        unknown = {t.lstrip("@") for t in tags} - set(known)
        assert not unknown, f"{path.name}: unregistered tags {unknown}"


def test_every_design_test_is_a_scenario() -> None:
    design = {name for name, text in markers().items() if text.startswith("design test")}
    tagged = {t["name"].lstrip("@") for path in FEATURES for s in scenarios(parsed(path)) for t in s["tags"]}
    assert design - tagged == PENDING_DESIGN_TESTS, f"missing: {sorted(design - tagged - PENDING_DESIGN_TESTS)}"


@pytest.mark.parametrize("path", [p for p in FEATURES if p.name not in BINDING_FEATURES], ids=lambda p: p.name)
def test_steps_speak_a2a_not_http(path: Path) -> None:
    feature = parsed(path)
    steps = [step for child in feature["children"] for part in child.values() if isinstance(part, dict)
             for step in part.get("steps", [])]
    for step in steps:
        assert not HTTP_WORDS.search(step["text"]), f"{path.name}: {step['text']!r} speaks HTTP"
