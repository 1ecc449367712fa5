"""Printing the verdicts and writing the JSON report (ACTS §12.6, §12.7, §13). The report is ACTS §13's per
binding, with this runner's additions: `verdict` (PASS, FAIL, SKIP, NOT RUN), `reason`, `notes` (how the runner
read what the test writes outside the grammar), `corpus_conflict` (where the test contradicts A2A v1.0.1), the
failing request and response (trimmed), and `not_run` in the counts. ACTS's `result` is pass/fail/skip, and
`error` for NOT RUN (a test the runner could not execute)."""

from __future__ import annotations

import json
import platform
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from scripts.acts.corpus import LEVELS, Test
from scripts.acts.execute import FAIL, NOT_RUN, PASS, SKIP, Outcome
from scripts.acts.known import CONFLICTS

VERDICTS = (PASS, FAIL, SKIP, NOT_RUN)
RESULT = {PASS: "pass", FAIL: "fail", SKIP: "skip", NOT_RUN: "error"}
TRIM = 300


@dataclass
class Row:
    binding: str
    test: Test
    outcome: Outcome


def trim(text: str, limit: int = TRIM) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def line(row: Row) -> str:
    outcome, test = row.outcome, row.test
    head = f"{row.binding:<7} {test.id:<17} {test.level:<6} {outcome.verdict:<7}"
    return f"{head} {trim(outcome.reason, 400)}".rstrip()


def details(row: Row) -> list[str]:
    """The request and the answer of a failure, and the corpus's conflict with the spec when there is one."""
    lines = []
    outcome = row.outcome
    if outcome.verdict == FAIL and outcome.exchange is not None:
        lines.append(f"{'':>33}> {trim(outcome.exchange.request.show())}")
        lines.append(f"{'':>33}< {trim(outcome.exchange.show_response())}")
    if outcome.verdict in (FAIL, PASS) and row.test.id in CONFLICTS:
        lines.append(f"{'':>33}corpus: {CONFLICTS[row.test.id]}")
    return lines


def counts(rows: list[Row]) -> dict[str, Counter[str]]:
    by_level: dict[str, Counter[str]] = {level: Counter() for level in LEVELS}
    for row in rows:
        by_level[row.test.level][row.outcome.verdict] += 1
    return by_level


def totals(rows: list[Row], label: str) -> str:
    parts = []
    for level, counter in counts(rows).items():
        shown = ", ".join(f"{counter[v]} {v.lower()}" for v in VERDICTS if counter[v])
        parts.append(f"{level.upper()} {sum(counter.values())}: {shown or 'none'}")
    return f"{label:<8} " + " | ".join(parts)


def print_run(rows: list[Row], bindings: list[str], out: TextIO, verbose: bool) -> None:
    for row in rows:
        print(line(row), file=out)
        for extra in details(row):
            print(extra, file=out)
        if verbose:
            for note in row.outcome.notes:
                print(f"{'':>33}note: {note}", file=out)
    print(file=out)
    for binding in bindings:
        print(totals([r for r in rows if r.binding == binding], binding), file=out)
    if len(bindings) > 1:
        print(totals(rows, "all"), file=out)


def _level_summary(rows: list[Row]) -> dict[str, int]:
    counter = Counter(r.outcome.verdict for r in rows)
    return {"total": len(rows), "passed": counter[PASS], "failed": counter[FAIL], "skipped": counter[SKIP],
            "errors": counter[NOT_RUN], "not_run": counter[NOT_RUN]}


def summary(rows: list[Row]) -> dict[str, Any]:
    result: dict[str, Any] = _level_summary(rows)
    result["duration_ms"] = sum(r.outcome.duration_ms for r in rows)
    result["by_level"] = {level: _level_summary([r for r in rows if r.test.level == level]) for level in LEVELS}
    return result


def test_result(row: Row) -> dict[str, Any]:
    outcome, test = row.outcome, row.test
    result: dict[str, Any] = {"id": test.id, "name": test.name, "level": test.level,
                              "result": RESULT[outcome.verdict], "verdict": outcome.verdict,
                              "duration_ms": outcome.duration_ms, "source": test.source}
    if outcome.verdict in (SKIP, NOT_RUN):
        result["skip_reason" if outcome.verdict == SKIP else "reason"] = outcome.reason
    if outcome.verdict == FAIL:
        failure = outcome.failure
        result["failure"] = {"message": outcome.reason, "step_id": outcome.step_id}
        if failure is not None:
            result["failure"]["assertion_path"] = failure.path
            if failure.expected is not None:
                result["failure"]["expected"] = json.dumps(failure.expected, default=str)[:TRIM]
        if outcome.exchange is not None:
            result["failure"]["request"] = trim(outcome.exchange.request.show(), 2000)
            result["failure"]["response"] = trim(outcome.exchange.show_response(), 2000)
    if outcome.steps:
        result["steps"] = outcome.steps
    if outcome.notes:
        result["notes"] = outcome.notes
    if test.id in CONFLICTS:
        result["corpus_conflict"] = CONFLICTS[test.id]
    return result


def document(rows: list[Row], bindings: list[str], meta: dict[str, Any], card: dict[str, Any]) -> dict[str, Any]:
    runs = []
    for binding in bindings:
        mine = [r for r in rows if r.binding == binding]
        suites: dict[str, dict[str, Any]] = {}
        for row in mine:
            suite = suites.setdefault(row.test.suite_id, {"id": row.test.suite_id, "name": row.test.suite_name,
                                                          "tests": []})
            suite["tests"].append(test_result(row))
        runs.append({"transport": binding, "summary": summary(mine), "suites": list(suites.values())})
    return {
        "acts_version": "1.0",
        "spec_version": rows[0].test.spec_version if rows else "1.0",
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "sdk": {"name": str(card.get("name", "")), "version": str(card.get("version", "")), "language": "unknown"},
        "environment": {"runtime": f"python {platform.python_version()}", "os": platform.platform()},
        "runner": meta,
        "summary": summary(rows),
        "runs": runs,
    }


def write(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
