"""`make conformance`: run spec/features (against another server, A2A_TARGET_URL, the portable ones only), print the
result per requirement (id, level, section, each protocol), per feature and per design test, and write
reports/conformance.json and the living documentation page reports/conformance.html.

The exit status is 1 when a MUST fails (or, against this server, a scenario of its design); a failed SHOULD is
printed as a warning and a failed MAY as information."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the scripts package is imported from the repository's root

from scripts import by_requirement, catalogue, conformance_html  # noqa: E402

REPORTS = ROOT / "reports"
REPORT = REPORTS / "conformance.json"
SCENARIOS = REPORTS / "conformance-scenarios.json"  # what pytest writes: one entry per scenario and protocol
PAGE = REPORTS / "conformance.html"
PROTOCOLS = by_requirement.PROTOCOLS
LEVEL_ORDER = {level: index for index, level in enumerate(catalogue.SPEC_LEVELS)}


def design_tests() -> list[str]:
    """Every test named in the design's Testing section (the markers registered in pyproject)."""
    return list(conformance_html.design_tests(ROOT))


def outcome_of(results: list[dict[str, str]]) -> str:
    """The page's word for the results (conformance_html.outcome), a failure in capitals; "-" for none."""
    if not results:
        return "-"
    word = conformance_html.outcome(results)
    return "FAIL" if word == "fail" else word


def table(title: str, rows: dict[str, dict[str, list[dict[str, str]]]], names: list[str]) -> list[str]:
    used = [p for p in PROTOCOLS if any(rows[n].get(p) for n in names)]
    width = max([len(title), *map(len, names)]) + 2
    lines = [title.ljust(width) + "".join(p.ljust(16) for p in used)]
    for name in names:
        cells = []
        for protocol in used:
            results = rows[name].get(protocol, [])
            passed = sum(r["outcome"] == "passed" for r in results)
            cell = outcome_of(results)
            xfailed = sum(r["outcome"] == "xfailed" for r in results)
            text = f"{cell} {passed}/{len(results)}" + (f" {xfailed}xf" if xfailed and cell != "xfail" else "")
            cells.append((text if results else "-").ljust(16))
        lines.append(name.ljust(width) + "".join(cells))
    return lines


def requirement_table(verdicts: list[by_requirement.Verdict]) -> list[str]:
    """One line per requirement: id, level, section, its word on each protocol ("-": it does not run there)."""
    lines = ["Requirement".ljust(26) + "level   section  " + "".join(p.ljust(13) for p in PROTOCOLS)]
    for verdict in sorted(verdicts, key=lambda v: LEVEL_ORDER[v.requirement.level]):
        r = verdict.requirement
        cells = "".join(verdict.outcomes.get(p, "-").replace("fail", "FAIL").ljust(13) for p in PROTOCOLS)
        if not verdict.outcomes:
            cells = "n/a: " + (verdict.reasons[0] if verdict.reasons else "no result")
        lines.append(f"{r.id.ljust(26)}{r.level.upper().ljust(8)}{('§' + r.section).ljust(9)}{cells}"[:200])
    return lines


def summary_lines(summary: dict[str, dict[str, dict[str, int]]]) -> list[str]:
    lines = ["Requirements".ljust(14) + "all".ljust(24) + "".join(p.ljust(24) for p in PROTOCOLS)]
    for level, row in summary.items():
        cells = [f"{c['pass']} pass, {c['fail']} fail, {c['n/a']} n/a".ljust(24) for c in row.values()]
        lines.append(level.upper().ljust(14) + "".join(cells))
    return lines


def failure_lines(verdicts: list[by_requirement.Verdict]) -> list[str]:
    lines = []
    for verdict in verdicts:
        if verdict.overall != by_requirement.FAIL:
            continue
        r = verdict.requirement
        kind = by_requirement.CONSEQUENCE[r.level].upper()
        lines.append(f"{kind}: {r.id} ({r.level.upper()} §{r.section}) {r.says}")
        for failure in verdict.failures:
            lines.append(f"  {failure.protocol}: {failure.scenario} ({failure.feature})")
            lines.append(f"    {failure.step}: {failure.message}")
    return lines


def main() -> int:
    target = os.environ.get("A2A_TARGET_URL")
    command = [sys.executable, "-m", "pytest", "tests/features", "-q", "-p", "no:randomly",
               f"--conformance-report={SCENARIOS}", *(["-m", "portable"] if target else []), *sys.argv[1:]]
    SCENARIOS.unlink(missing_ok=True)
    started = datetime.now(UTC)
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = (datetime.now(UTC) - started).total_seconds()
    if not SCENARIOS.exists():
        print(run.stdout[-4000:], run.stderr[-4000:])
        return run.returncode or 1
    results = json.loads(SCENARIOS.read_text())
    verdicts = by_requirement.verdicts(results, catalogue.load())
    summary = by_requirement.summary(verdicts)
    print(f"target: {target} (portable scenarios only)" if target else "target: the reference server (live)")
    by_feature: dict[str, dict[str, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    by_design: dict[str, dict[str, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        by_feature[result["feature"]][result["protocol"]].append(result)
        for tag in result["tags"]:
            by_design[tag][result["protocol"]].append(result)
    print("\n".join(requirement_table(verdicts)))
    print()
    print("\n".join(summary_lines(summary)))
    print()
    print("\n".join(table("Feature", by_feature, sorted(by_feature))))
    if not target:
        missing = [name for name in design_tests() if name not in by_design]
        print()
        print("\n".join(table("Design test", by_design, design_tests())))
        print(f"design tests without a scenario yet: {len(missing)}" + (f" ({', '.join(missing)})" if missing else ""))
    failures = failure_lines(verdicts)
    own = by_requirement.own_failures(results)
    if failures or own:
        print()
        print("\n".join(failures))
        for result in own:
            print(f"FAILURE: {result['scenario']} ({result['feature']}, @{result['level']}) on {result['protocol']}")
            print(f"    {result.get('step', '')}: {result.get('message', '')}")
    generated = started.strftime("generated %Y-%m-%d %H:%M UTC")
    REPORT.write_text(json.dumps({
        "target": target or "the reference server (live)", "generated": started.isoformat(timespec="seconds"),
        "seconds": round(seconds, 1), "summary": summary, "requirements": [v.as_json() for v in verdicts],
        "scenarios": results,
    }, indent=2))
    conformance_html.write(PAGE, conformance_html.page_for(ROOT, results, target=target, generated=generated))
    print(f"\n{len(results)} results in {seconds:.0f} s; machine-readable report: {REPORT.relative_to(ROOT)}")
    print(f"living documentation: {PAGE.relative_to(ROOT)} (open it in a browser)")
    print(run.stdout.strip().splitlines()[-1] if run.stdout.strip() else "")
    status = by_requirement.exit_status(verdicts, results)
    if run.returncode not in (0, 1):  # pytest could not run the spec (usage, collection or internal error)
        print(run.stdout[-2000:], run.stderr[-2000:])
        return run.returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
