"""Results by requirement (conformance/by_requirement.py): a word per protocol, the failures and the reasons a
requirement did not apply, the counts by level, and the exit status of `make conformance`."""

from __future__ import annotations

from typing import Any

from reference_server.conformance import by_requirement
from reference_server.conformance.catalogue import Catalogue, Requirement

CATALOGUE = Catalogue(
    requirements={r.id: r for r in [
        Requirement("CORE-GET-002", "must", "3.1.3", "GetTask of an unknown task is TaskNotFoundError."),
        Requirement("CORE-HIST-001", "should", "3.2.4", "historyLength 0 leaves the history out."),
        Requirement("CARD-CACHE-003", "may", "8.6.1", "The card may come with Last-Modified."),
        Requirement("CORE-CAP-001", "must", "3.3.4", "Push ops without the capability are unsupported."),
        Requirement("CARD-SIGN-001", "must", "8.4.1", "JCS before signing.", not_applicable="signing is left out"),
    ]},
    sections={},
)


def result(scenario: str, tags: list[str], protocol: str, outcome: str, **extra: Any) -> dict[str, Any]:
    return {"nodeid": f"x[{protocol}]", "feature": "a2a/x.feature", "scenario": scenario, "tags": tags,
            "level": extra.pop("level", "must"), "protocol": protocol, "outcome": outcome, **extra}


RESULTS = [
    result("Getting a task that does not exist is refused", ["CORE-GET-002", "must"], "jsonrpc-1.0", "passed"),
    result("Getting a task that does not exist is refused", ["CORE-GET-002", "must"], "rest-1.0", "failed",
           step="Then the call fails with TaskNotFound", message="expected TaskNotFound (HTTP 404), got HTTP 500"),
    result("History zero", ["CORE-HIST-001", "should"], "jsonrpc-1.0", "failed", level="should",
           step="Then the task has no history", message="history: [...]"),
    result("History zero", ["CORE-HIST-001", "should"], "rest-0.3", "xfailed", level="should"),
    result("Last-Modified", ["CARD-CACHE-003", "may"], "none-1.0", "passed", level="may"),
    result("Push unsupported", ["CORE-CAP-001", "must"], "jsonrpc-1.0", "skipped",
           message="the agent's card declares capabilities.pushNotifications: A2A §3.3.4 does not apply"),
]


def verdicts() -> dict[str, by_requirement.Verdict]:
    return {v.requirement.id: v for v in by_requirement.verdicts(RESULTS, CATALOGUE)}


def test_a_requirement_has_a_word_per_protocol_it_ran_on() -> None:
    found = verdicts()
    assert found["CORE-GET-002"].outcomes == {"jsonrpc-1.0": "pass", "rest-1.0": "fail"}
    assert found["CORE-GET-002"].overall == "fail"
    assert found["CORE-HIST-001"].outcomes == {"jsonrpc-1.0": "fail", "rest-0.3": "n/a"}  # an expected failure
    assert found["CARD-CACHE-003"].overall == "pass"


def test_a_failure_names_the_scenario_the_step_and_its_message() -> None:
    (failure,) = verdicts()["CORE-GET-002"].failures
    assert (failure.scenario, failure.protocol, failure.step, failure.message) == (
        "Getting a task that does not exist is refused", "rest-1.0", "Then the call fails with TaskNotFound",
        "expected TaskNotFound (HTTP 404), got HTTP 500")


def test_a_requirement_that_does_not_apply_says_why() -> None:
    found = verdicts()
    assert found["CORE-CAP-001"].overall == "n/a"
    assert found["CORE-CAP-001"].reasons == [
        "the agent's card declares capabilities.pushNotifications: A2A §3.3.4 does not apply"]
    assert (found["CARD-SIGN-001"].overall, found["CARD-SIGN-001"].reasons) == ("n/a", ["signing is left out"])


def test_the_summary_counts_requirements_by_level_and_protocol() -> None:
    summary = by_requirement.summary(list(verdicts().values()))
    assert summary["must"]["all"] == {"pass": 0, "fail": 1, "n/a": 2}
    assert summary["must"]["rest-1.0"] == {"pass": 0, "fail": 1, "n/a": 0}
    assert summary["should"]["rest-0.3"] == {"pass": 0, "fail": 0, "n/a": 1}
    assert summary["may"]["none-1.0"] == {"pass": 1, "fail": 0, "n/a": 0}


def test_only_a_failed_must_or_a_failed_design_scenario_fails_the_run() -> None:
    must_failed = by_requirement.verdicts(RESULTS, CATALOGUE)
    assert by_requirement.exit_status(must_failed, RESULTS) == 1
    without = [r for r in RESULTS if not (r["tags"][0] == "CORE-GET-002" and r["outcome"] == "failed")]
    assert by_requirement.exit_status(by_requirement.verdicts(without, CATALOGUE), without) == 0  # SHOULD: a warning
    design = [*without, result("A task file is the task", ["design"], "jsonrpc-1.0", "failed", level="design")]
    assert by_requirement.exit_status(by_requirement.verdicts(design, CATALOGUE), design) == 1
