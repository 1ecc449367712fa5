"""The requirement catalogue (spec/requirements.toml): every requirement the spec proves, with its level and section,
and the tags the feature files use for them. The spec lint, the conftest, `make conformance` and the living page
read it here."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from reference_server.spec_files import REQUIREMENTS

CATALOGUE = REQUIREMENTS  # spec/requirements.toml, in a checkout or in the package of a wheel (spec_files.py)

# What a scenario proves: one of these tags, exactly. The first three are RFC 2119 levels of A2A v1.0.1; a
# @design scenario makes executable what the design decides, a @server one a convention of this server.
SPEC_LEVELS = ("must", "should", "may")
OWN_LEVELS = ("design", "server")
LEVELS = SPEC_LEVELS + OWN_LEVELS
LEVEL_NAMES = {"must": "MUST", "should": "SHOULD", "may": "MAY", "design": "design", "server": "this server"}
SECTION_TAG = "spec-"  # @spec-3.1.1: the section of A2A v1.0.1 a scenario cites


@dataclass(frozen=True)
class Requirement:
    id: str
    level: str
    section: str
    says: str
    checklist: tuple[int, ...] = ()
    not_applicable: str | None = None  # why no scenario can prove it: a row of docs/conformance.md
    tck_level: str | None = None  # the TCK's level, when it is not the spec's
    note: str | None = None
    quote: str | None = None  # the sentence of A2A v1.0.1 it tests
    acts: tuple[str, ...] = ()  # the ACTS tests that test the same thing (matched by meaning, not by id)
    from_answers: bool = False  # proven by checking every answer, not by a scenario of its own

    @property
    def from_tck(self) -> bool:
        """An id of the official TCK; SPEC-… ids are ours, for checklist items the TCK has no id for."""
        return not self.id.startswith("SPEC-")


@dataclass(frozen=True)
class Catalogue:
    requirements: dict[str, Requirement]
    sections: dict[str, str]  # "3.1.1" -> its title
    checklist: dict[int, str] = field(default_factory=dict)  # DIGEST §15 item -> "must" | "should" | "may" | "none"

    def markers(self) -> dict[str, str]:
        """The pytest markers of the feature tags this catalogue defines: requirement ids and section tags."""
        found = {r.id: f"{r.level.upper()} §{r.section}: {r.says}" for r in self.requirements.values()}
        found.update({SECTION_TAG + number: f"A2A v1.0.1 §{number} {title}" for number, title in self.sections.items()})
        return found


LEVEL_DESCRIPTIONS = {
    "must": "proves a MUST of A2A v1.0.1 (RFC 2119)",
    "should": "proves a SHOULD of A2A v1.0.1: a failure is a warning",
    "may": "shows a MAY of A2A v1.0.1: a failure is information",
    "design": "makes executable what the design decides",
    "server": "shows a convention of this server, where A2A leaves the choice open",
}


def level_markers() -> dict[str, str]:
    return {level: f"level: {LEVEL_DESCRIPTIONS[level]}" for level in LEVELS}


def section_of(tag: str) -> str | None:
    """"spec-3.1.1" -> "3.1.1"; None for any other tag."""
    return tag.removeprefix(SECTION_TAG) if tag.startswith(SECTION_TAG) else None


def levels_in(tags: Iterable[str]) -> list[str]:
    return [tag for tag in tags if tag in LEVELS]


def level_of(feature: Iterable[str], scenario: Iterable[str], examples: Iterable[str] = ()) -> str | None:
    """A scenario's level: the level tag of its Examples table, else its own, else its feature's (a feature may
    give its scenarios a level, a scenario or an Examples table may say otherwise). The lint makes sure each of
    these places has at most one, and every scenario ends up with one."""
    for place in (examples, scenario, feature):
        found = levels_in(place)
        if found:
            return found[0]
    return None


@cache
def load(path: Path = CATALOGUE) -> Catalogue:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    requirements = {}
    for entry in raw["requirement"]:
        requirement = Requirement(
            id=entry["id"], level=entry["level"], section=entry["section"], says=entry["says"],
            checklist=tuple(entry.get("checklist", ())), not_applicable=entry.get("not_applicable"),
            tck_level=entry.get("tck_level"), note=entry.get("note"), quote=entry.get("quote"),
            acts=tuple(entry.get("acts", ())), from_answers=bool(entry.get("from_answers", False)))
        if requirement.id in requirements:
            raise ValueError(f"{path.name}: {requirement.id} is listed twice")
        if requirement.level not in SPEC_LEVELS:
            raise ValueError(f"{path.name}: {requirement.id} has the level {requirement.level!r}")
        requirements[requirement.id] = requirement
    checklist = {int(item): level for item, level in raw["checklist"].items()}
    return Catalogue(requirements, dict(raw["sections"]), checklist)
