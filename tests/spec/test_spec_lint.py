"""The spec lints itself (STYLE.md): feature shape, scenario names, tags, levels and requirements, design test
coverage, and the requirement catalogue (spec/requirements.toml) against the features and docs/conformance.md."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gherkin.parser import Parser

from reference_server.conformance import catalogue
from reference_server.conformance.support.conventions import PREFIXES, behaviour_of

ROOT = Path(__file__).resolve().parents[2]
FEATURE_ROOT = ROOT / "spec" / "features"
FEATURES = sorted(FEATURE_ROOT.rglob("*.feature"))
PORTABLE = FEATURE_ROOT / "a2a"  # what A2A asks of every server: portable, at the spec's levels
DESIGN = FEATURE_ROOT / "design"  # what this server's design decides, and its conventions
CONFORMANCE_DOC = ROOT / "docs" / "conformance.md"
# binding-specific features may speak of routes, verbs and status codes; the others speak A2A
BINDING_FEATURES = {"design/jsonrpc.feature", "design/rest.feature", "design/errors.feature",
                    "a2a/jsonrpc.feature", "a2a/rest.feature"}
# design tests whose behaviour belongs to a later issue (none now)
PENDING_DESIGN_TESTS: set[str] = set()
HTTP_WORDS = re.compile(r"\b(POST|GET|PUT|DELETE|HTTP \d{3})\b|/a2a|status code")
# the TCK's messageId prefixes (scenarios/core_operations.feature and streaming.feature of a2a-tck, 1.0-dev): the
# only way a portable scenario may ask an agent for a behaviour
PREFIX_IN_STEP = re.compile(r'\ban? "([^"]+)" message\b')  # the steps that send a message by its behaviour prefix


def markers() -> dict[str, str]:
    """Every registered marker: pyproject's, the level tags, and the ids and sections of the catalogue."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    entries = config["tool"]["pytest"]["ini_options"]["markers"]
    return {**dict(entry.split(": ", 1) for entry in entries), **catalogue.level_markers(),
            **catalogue.load().markers()}


def parsed(path: Path) -> dict[str, Any]:
    return Parser().parse(path.read_text(encoding="utf-8"))["feature"]  # type: ignore[no-any-return]


def scenarios(feature: dict[str, Any]) -> list[dict[str, Any]]:
    return [child["scenario"] for child in feature["children"] if "scenario" in child]


def names(tags: list[dict[str, Any]]) -> list[str]:
    return [tag["name"].lstrip("@") for tag in tags]


@dataclass
class Case:
    """One scenario, or one Examples table of an outline: where it is, its name, its tags and its level."""

    path: Path
    name: str
    feature_tags: list[str]
    scenario_tags: list[str]
    example_tags: list[str]
    steps: list[str]

    @property
    def tags(self) -> set[str]:
        return {*self.feature_tags, *self.scenario_tags, *self.example_tags}

    @property
    def level(self) -> str | None:
        return catalogue.level_of(self.feature_tags, self.scenario_tags, self.example_tags)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(FEATURE_ROOT)}: {self.name!r}"


def cases(paths: list[Path] = FEATURES) -> list[Case]:
    found = []
    for path in paths:
        feature = parsed(path)
        for scenario in scenarios(feature):
            steps = [step["text"] for step in scenario["steps"]]
            tables = scenario.get("examples") or [{"tags": []}]
            for table in tables:
                found.append(Case(path, scenario["name"], names(feature["tags"]), names(scenario["tags"]),
                                  names(table["tags"]), expanded(steps, table)))
    return found


def expanded(steps: list[str], table: dict[str, Any]) -> list[str]:
    """The steps as each row of an Examples table makes them (the steps themselves when there is no table)."""
    if "tableHeader" not in table:
        return steps
    header = [cell["value"] for cell in table["tableHeader"]["cells"]]
    rows = [[cell["value"] for cell in row["cells"]] for row in table["tableBody"]]
    made = []
    for row in rows:
        for step in steps:
            for name, value in zip(header, row, strict=True):
                step = step.replace(f"<{name}>", value)
            made.append(step)
    return made


def portable_cases() -> list[Case]:
    return [case for case in cases() if PORTABLE in case.path.parents]


def test_there_are_features() -> None:
    assert len(FEATURES) >= 8
    assert {path.parent for path in FEATURES} == {PORTABLE, DESIGN}, "features live in a2a/ or design/"


@pytest.mark.parametrize("path", FEATURES, ids=lambda p: str(p.relative_to(FEATURE_ROOT)))
def test_a_feature_opens_with_the_sentence_it_makes_executable(path: Path) -> None:
    feature = parsed(path)
    lines = [line for line in feature["description"].splitlines() if line.strip()]
    assert 2 <= len(lines) <= 4, f"{path.name}: the description has {len(lines)} lines"
    assert re.search(r"A2A|[Dd]esign", feature["description"]), f"{path.name}: cite the spec or the design"


@pytest.mark.parametrize("path", FEATURES, ids=lambda p: str(p.relative_to(FEATURE_ROOT)))
def test_scenario_names_are_short_present_tense_statements(path: Path) -> None:
    for scenario in scenarios(parsed(path)):
        name = scenario["name"]
        assert len(name) <= 70, f"{name!r} is longer than 70 characters"
        assert not re.search(r"\bshould\b|^test|^Test", name), f"{name!r}: state the behaviour"
        assert name[0].isupper() and not name.endswith("."), f"{name!r}"


def test_scenario_names_are_unique() -> None:
    names_ = [s["name"] for path in FEATURES for s in scenarios(parsed(path))]
    repeated = {n for n in names_ if names_.count(n) > 1}
    assert not repeated, repeated


def test_every_tag_is_a_registered_marker() -> None:
    known = markers()
    for case in cases():
        unknown = case.tags - set(known)
        assert not unknown, f"{case.where}: unregistered tags {unknown}"


# --- what each scenario proves


def test_each_place_has_at_most_one_level_and_each_scenario_one_level() -> None:
    for case in cases():
        for place in (case.feature_tags, case.scenario_tags, case.example_tags):
            assert len(catalogue.levels_in(place)) <= 1, f"{case.where}: two level tags in one place: {place}"
        assert case.level is not None, f"{case.where}: no level tag (@{', @'.join(catalogue.LEVELS)})"


def test_portable_scenarios_prove_a_level_of_the_spec_and_cite_its_section() -> None:
    sections = catalogue.load().sections
    for case in portable_cases():
        assert case.level in catalogue.SPEC_LEVELS, f"{case.where}: a2a/ holds what A2A requires, not @{case.level}"
        cited = {catalogue.section_of(tag) for tag in case.tags} - {None}
        assert cited, f"{case.where}: no @{catalogue.SECTION_TAG}<section> tag"
        assert case.tags & set(catalogue.load().requirements), f"{case.where}: no requirement id (make conformance " \
            "reports results by requirement: add the TCK's id, or a SPEC-… one to spec/requirements.toml)"
        assert cited <= set(sections), f"{case.where}: sections {cited - set(sections)} are not in the catalogue"


def test_design_scenarios_are_the_designs_or_this_servers() -> None:
    for case in cases():
        if DESIGN in case.path.parents:
            assert case.level in catalogue.OWN_LEVELS, (
                f"{case.where}: spec/features/design/ holds @design and @server scenarios; a scenario that proves "
                "what A2A requires of every server belongs in spec/features/a2a/")


def test_portable_is_the_folder_not_a_tag() -> None:
    for case in cases():
        assert "portable" not in case.tags, f"{case.where}: a scenario is portable by living in spec/features/a2a/"


def test_a_requirement_tag_agrees_with_its_scenario() -> None:
    requirements = catalogue.load().requirements
    for case in cases():
        ids = case.tags & set(requirements)
        if not ids:
            continue
        assert PORTABLE in case.path.parents, f"{case.where}: requirement ids tag portable scenarios only"
        sections = {catalogue.section_of(tag) for tag in case.tags}
        for requirement in (requirements[i] for i in ids):
            assert requirement.level == case.level, (
                f"{case.where}: {requirement.id} is {requirement.level.upper()}, the scenario @{case.level}: a "
                "scenario proves requirements of its own level only")
            assert requirement.section in sections, f"{case.where}: {requirement.id} is §{requirement.section}"


def test_portable_scenarios_ask_for_behaviour_only_with_the_tcks_or_acts_prefixes() -> None:
    for case in portable_cases():
        for step in case.steps:
            for prefix in PREFIX_IN_STEP.findall(step):
                assert behaviour_of(prefix) in PREFIXES, f"{case.where}: {prefix!r} is a behaviour neither the TCK " \
                    "nor ACTS names (conformance/support/conventions.py PREFIXES): no invented prefixes"


# --- the catalogue


def test_every_requirement_is_proven_by_a_portable_scenario_or_says_why_not() -> None:
    tagged = {tag for case in portable_cases() for tag in case.tags}
    for requirement in catalogue.load().requirements.values():
        if requirement.not_applicable:
            assert requirement.id not in tagged, f"{requirement.id} has a scenario and a reason why it has none"
        elif requirement.from_answers:
            assert requirement.id not in tagged, f"{requirement.id} is proven by every answer, not by a scenario"
        else:
            assert requirement.id in tagged, f"{requirement.id}: no portable scenario and no not_applicable reason"


def test_every_must_and_should_of_the_checklist_has_a_requirement() -> None:
    loaded = catalogue.load()
    cited = {item for requirement in loaded.requirements.values() for item in requirement.checklist}
    assert set(loaded.checklist) == set(range(1, 61)), "DIGEST §15 has 60 items"
    missing = [item for item, level in loaded.checklist.items() if level in ("must", "should") and item not in cited]
    assert not missing, f"checklist items without a requirement: {missing}"


def test_the_tck_ids_are_all_there() -> None:
    # a2a-tck 1.0-dev defines 129 requirements; the 7 GRPC-* ones are for a binding the design leaves out
    tck = [r for r in catalogue.load().requirements.values() if r.from_tck]
    assert len(tck) == 122
    assert not [r.id for r in tck if r.id.startswith("GRPC-")]


def test_every_requirement_that_cannot_apply_has_its_row_in_the_conformance_doc() -> None:
    doc = CONFORMANCE_DOC.read_text(encoding="utf-8")
    for requirement in catalogue.load().requirements.values():
        if requirement.not_applicable:
            assert f"| {requirement.id} |" in doc, f"docs/conformance.md has no row for {requirement.id}"


# --- design tests and the wording of steps


def test_every_design_test_is_a_scenario() -> None:
    design = {name for name, text in markers().items() if text.startswith("design test")}
    tagged = {tag for case in cases() for tag in case.tags}
    assert design - tagged == PENDING_DESIGN_TESTS, f"missing: {sorted(design - tagged - PENDING_DESIGN_TESTS)}"


@pytest.mark.parametrize("path", [p for p in FEATURES if str(p.relative_to(FEATURE_ROOT)) not in BINDING_FEATURES],
                         ids=lambda p: str(p.relative_to(FEATURE_ROOT)))
def test_steps_speak_a2a_not_http(path: Path) -> None:
    feature = parsed(path)
    steps = [step for child in feature["children"] for part in child.values() if isinstance(part, dict)
             for step in part.get("steps", [])]
    for step in steps:
        assert not HTTP_WORDS.search(step["text"]), f"{path.name}: {step['text']!r} speaks HTTP"


# --- ACTS, the A2A project's draft corpus (spec/acts/)


def acts_tests() -> set[str]:
    """The ids of the vendored ACTS tests."""
    found = {m for path in (ROOT / "spec" / "acts").glob("*.acts.yaml")
             for m in re.findall(r"^      - id: (\S+)$", path.read_text(encoding="utf-8"), re.M)}
    assert len(found) == 111, f"the vendored ACTS corpus has 111 tests, {len(found)} were read"
    return found


def test_every_acts_id_of_a_requirement_is_an_acts_test() -> None:
    known = acts_tests()
    for requirement in catalogue.load().requirements.values():
        unknown = set(requirement.acts) - known
        assert not unknown, f"{requirement.id}: {sorted(unknown)} are not ACTS tests (spec/acts/)"


def test_every_acts_difference_names_acts_tests() -> None:
    known = acts_tests()
    differences = tomllib.loads((ROOT / "docs" / "conformance-acts.toml").read_text(encoding="utf-8"))["difference"]
    for entry in differences:
        unknown = set(entry["acts"]) - known
        assert not unknown, f"docs/conformance-acts.toml, {entry['title']}: {sorted(unknown)} are not ACTS tests"
