"""Results by requirement: the scenario results of a conformance run gathered under the requirement ids they are
tagged with (spec/requirements.toml), one verdict per protocol, for the console, reports/conformance.json and the
living page. A failed MUST fails the run; a failed SHOULD is a warning, a failed MAY information.

What the answers broke of their schemas is recorded beside the scenarios (conformance/support/replies.py Seen) and
counts once, under the requirement its rule belongs to (conformance/support/schemas.py Violation.requirement), each
distinct violation listed once with where it was seen first; it does not fail the scenario that happened to see it."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from reference_server.conformance.catalogue import SPEC_LEVELS, Catalogue, Requirement

# the protocols a scenario can run on (tests/conftest.py), in the order of the result columns
PROTOCOLS = ("jsonrpc-1.0", "rest-1.0", "jsonrpc-0.3", "rest-0.3", "none-1.0", "none-0.3")
PROTOCOL_NAMES = {"jsonrpc-1.0": "JSON-RPC 1.0", "rest-1.0": "HTTP+JSON 1.0", "jsonrpc-0.3": "JSON-RPC 0.3",
                  "rest-0.3": "HTTP+JSON 0.3", "none-1.0": "no binding", "none-0.3": "no binding (0.3 card)"}
# what a failure means at each level
CONSEQUENCE = {"must": "failure", "should": "warning", "may": "information"}
PASS, FAIL, NOT_APPLICABLE = "pass", "fail", "n/a"
NOT_OFFERED = "not offered: "  # the reason of a result on a protocol the server does not offer: no result at all


@dataclass
class Failure:
    scenario: str
    feature: str
    protocol: str
    step: str
    message: str
    exchange: str = ""  # the exchange the failure is about, as the report shows it
    seen: int = 1  # a violation of an answer's schema: how many answers showed it


@dataclass
class Verdict:
    """One requirement's results: a word per protocol it ran on, and what failed or did not apply."""

    requirement: Requirement
    outcomes: dict[str, str] = field(default_factory=dict)  # protocol -> pass | fail | n/a
    failures: list[Failure] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # why it did not apply, when it did not

    @property
    def overall(self) -> str:
        """fail if any protocol failed, pass if any passed (and none failed), else n/a."""
        words = set(self.outcomes.values())
        if FAIL in words:
            return FAIL
        return PASS if PASS in words else NOT_APPLICABLE

    def as_json(self) -> dict[str, Any]:
        r = self.requirement
        return {"id": r.id, "level": r.level, "section": r.section, "says": r.says, "tck": r.from_tck,
                "result": self.overall, "protocols": self.outcomes,
                "failures": [vars(f) for f in self.failures], "not_applicable": sorted(set(self.reasons))}


def offers(protocol: str, offered: set[str] | None) -> bool:
    """Whether a server that offers these protocols (None: all) offers this one; "none-<version>", the card, is
    offered with any interface of that version (a server that speaks only 0.3 has no 1.0 card to check)."""
    if offered is None or protocol in offered:
        return True
    binding, _, version = protocol.partition("-")
    return binding == "none" and any(p.endswith(f"-{version}") for p in offered)


def word(results: list[dict[str, Any]]) -> str:
    """One word for a requirement's results on one protocol (an expected failure counts as not applying)."""
    outcomes = {r["outcome"] for r in results}
    if "failed" in outcomes:
        return FAIL
    return PASS if "passed" in outcomes else NOT_APPLICABLE


WHERE = re.compile(r"\[\d+\]")


def violation_failures(results: list[dict[str, Any]]) -> dict[str, dict[str, list[Failure]]]:
    """requirement -> protocol -> each distinct violation of an answer's schema (the same rule broken at the same
    place of the same kind of answer), with the first exchange that showed it and how many did."""
    found: dict[str, dict[str, list[Failure]]] = defaultdict(lambda: defaultdict(list))
    first: dict[tuple[str, ...], Failure] = {}
    for result in results:
        for violation in result.get("violations") or []:
            key = (violation["requirement"], result["protocol"], violation["operation"], violation["schema"],
                   WHERE.sub("[*]", violation["path"]), violation["rule"])
            if key in first:
                first[key].seen += 1
                continue
            failure = Failure(result["scenario"], result["feature"], result["protocol"],
                              f"the answer to {violation['operation']}", f"{violation['path']}: {violation['says']}",
                              violation.get("exchange", ""))
            first[key] = failure
            found[violation["requirement"]][result["protocol"]].append(failure)
    return found


def checked_answers(results: list[dict[str, Any]]) -> dict[str, int]:
    """protocol -> how many answers were checked against their schemas."""
    counted: dict[str, int] = defaultdict(int)
    for result in results:
        counted[result["protocol"]] += int(result.get("answers") or 0)
    return counted


def verdicts(results: list[dict[str, Any]], catalogue: Catalogue) -> list[Verdict]:
    """A verdict for every requirement of the catalogue, in its order."""
    tagged: dict[str, list[dict[str, Any]]] = defaultdict(list)
    results = [r for r in results if not str(r.get("message", "")).startswith(NOT_OFFERED)]
    for result in results:
        for tag in result["tags"]:
            if tag in catalogue.requirements:
                tagged[tag].append(result)
    broken = violation_failures(results)
    answers = checked_answers(results)
    found = []
    for requirement in catalogue.requirements.values():
        verdict = Verdict(requirement)
        if requirement.not_applicable:
            verdict.reasons.append(requirement.not_applicable)
        by_protocol: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for result in tagged[requirement.id]:
            by_protocol[result["protocol"]].append(result)
        for protocol in PROTOCOLS:
            if by_protocol[protocol]:
                verdict.outcomes[protocol] = word(by_protocol[protocol])
        for result in tagged[requirement.id]:
            if result["outcome"] == "failed":
                verdict.failures.append(Failure(result["scenario"], result["feature"], result["protocol"],
                                                result.get("step", ""), result.get("message", ""),
                                                result.get("exchange", "")))
            elif result["outcome"] == "skipped" and result.get("message"):
                verdict.reasons.append(result["message"])
        if requirement.from_answers:  # proven by every answer checked, not by a scenario of its own
            for protocol, count in answers.items():
                if count:
                    verdict.outcomes.setdefault(protocol, PASS)
        for protocol, failures in broken.get(requirement.id, {}).items():
            verdict.outcomes[protocol] = FAIL
            verdict.failures += failures
        found.append(verdict)
    return found


def summary(found: list[Verdict]) -> dict[str, dict[str, dict[str, int]]]:
    """Per level, per protocol (and "all"): how many requirements passed, failed, did not apply."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    for level in SPEC_LEVELS:
        rows = [v for v in found if v.requirement.level == level]
        table[level] = {"all": _count(v.overall for v in rows)}
        for protocol in PROTOCOLS:
            table[level][protocol] = _count(v.outcomes[protocol] for v in rows if protocol in v.outcomes)
    return table


def _count(words: Any) -> dict[str, int]:
    counted = {PASS: 0, FAIL: 0, NOT_APPLICABLE: 0}
    for item in words:
        counted[item] += 1
    return counted


def own_failures(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Failed results of this server's own scenarios (@design, @server): failures when the target is this server."""
    return [r for r in results if r["outcome"] == "failed" and r.get("level") in ("design", "server")]


def exit_status(found: list[Verdict], results: list[dict[str, Any]]) -> int:
    """1 when a MUST failed, or a scenario of this server's own design did; SHOULD and MAY failures do not count."""
    failed_must = any(v.overall == FAIL and v.requirement.level == "must" for v in found)
    return 1 if failed_must or own_failures(results) else 0
