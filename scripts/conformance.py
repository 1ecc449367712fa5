"""`make conformance`: run spec/features (against another server, A2A_TARGET_URL, the portable ones only), print the
result per requirement (id, level, section, each protocol), per feature and per design test, and write
reports/conformance.json and the living documentation page reports/conformance.html.

Against another server, discovery comes first (tests/support/target.py): what its card says it speaks, and which
behaviour convention its agent follows, in one paragraph at the top of every report; a card that cannot be read
or a key it refuses stops the run with one sentence.

Exit status: 0 when every MUST holds, 1 when a MUST fails (or, against this server, a scenario of its design), 3
when the run could not run (no usable card, a refused key, pytest could not start). A failed SHOULD is printed as
a warning and a failed MAY as information. `make` turns any failure into its own 2: run
`.venv/bin/python scripts/conformance.py` to see these codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the scripts package is imported from the repository's root
sys.path.insert(1, str(ROOT / "tests"))  # and discovery from the suite's own support

from scripts import by_requirement, catalogue, conformance_html  # noqa: E402

REPORTS = Path(os.environ.get("A2A_CONFORMANCE_REPORTS") or ROOT / "reports")  # where the reports go
REPORT = REPORTS / "conformance.json"
SCENARIOS = REPORTS / "conformance-scenarios.json"  # what pytest writes: one entry per scenario and protocol
PROFILE = REPORTS / "conformance-target.json"  # what discovery found, handed to the scenarios
PAGE = REPORTS / "conformance.html"
PROTOCOLS = by_requirement.PROTOCOLS
LEVEL_ORDER = {level: index for index, level in enumerate(catalogue.SPEC_LEVELS)}
PASSED, MUST_FAILED, COULD_NOT_RUN = 0, 1, 3
NOT_OFFERED = "not offered"
NOT_RUN = "not run: "  # the reason of a scenario left out once the server stopped answering (tests/conftest.py)


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


def cell(verdict: by_requirement.Verdict, protocol: str, offered: set[str] | None) -> str:
    """A requirement's word on one protocol: pass, FAIL, n/a, "not offered" (the server has no such interface), or
    "-" (no scenario of it runs there)."""
    if not by_requirement.offers(protocol, offered):
        return NOT_OFFERED
    return verdict.outcomes.get(protocol, "-").replace("fail", "FAIL")


def requirement_table(verdicts: list[by_requirement.Verdict], offered: set[str] | None = None) -> list[str]:
    """One line per requirement: id, level, section, its word on each protocol."""
    lines = ["Requirement".ljust(26) + "level   section  " + "".join(p.ljust(13) for p in PROTOCOLS)]
    for verdict in sorted(verdicts, key=lambda v: LEVEL_ORDER[v.requirement.level]):
        r = verdict.requirement
        cells = "".join(cell(verdict, p, offered).ljust(13) for p in PROTOCOLS)
        if not verdict.outcomes:
            cells = "n/a: " + (verdict.reasons[0] if verdict.reasons else "no result")
        lines.append(f"{r.id.ljust(26)}{r.level.upper().ljust(8)}{('§' + r.section).ljust(9)}{cells}")
    return lines


def summary_lines(summary: dict[str, dict[str, dict[str, int]]], offered: set[str] | None = None) -> list[str]:
    """Pass, fail and n/a by level and protocol, in columns as wide as their widest count needs."""
    columns = ["all", *PROTOCOLS]
    texts = {level: [NOT_OFFERED if key in PROTOCOLS and not by_requirement.offers(key, offered)
                     else f"{c['pass']} pass, {c['fail']} fail, {c['n/a']} n/a"
                     for key, c in ((key, row[key]) for key in columns)] for level, row in summary.items()}
    widths = [max(len(name), *(len(row[i]) for row in texts.values())) + 3 for i, name in enumerate(columns)]
    lines = ["Requirements".ljust(14) + "".join(name.ljust(w) for name, w in zip(columns, widths, strict=True))]
    for level, row in texts.items():
        lines.append(level.upper().ljust(14) + "".join(text.ljust(w) for text, w in zip(row, widths, strict=True)))
    return lines


def indented(text: str, prefix: str) -> list[str]:
    return [prefix + line for line in text.splitlines() if line.strip()]


def failure_lines(verdicts: list[by_requirement.Verdict]) -> list[str]:
    """Each failed requirement with the sentence of A2A it tests, then each failure: where, the step, what was
    expected and what came, and the exchange."""
    lines = []
    for verdict in verdicts:
        if verdict.overall != by_requirement.FAIL:
            continue
        r = verdict.requirement
        kind = by_requirement.CONSEQUENCE[r.level].upper()
        lines.append(f"{kind}: {r.id} ({r.level.upper()} §{r.section}) {r.says}")
        if r.quote:
            lines += indented(textwrap.fill(f'A2A §{r.section}: "{r.quote}"', 116), "  ")
        for failure in verdict.failures:
            name = by_requirement.PROTOCOL_NAMES.get(failure.protocol, failure.protocol)
            seen = f" (in {failure.seen} answers)" if failure.seen > 1 else ""
            lines.append(f"  {name}: {failure.scenario} ({failure.feature}){seen}")
            lines += indented(f"{failure.step}: {failure.message}", "    ")
            lines += indented(failure.exchange, "      ")
        lines.append("")
    return lines


def shown_path(path: Path) -> str:
    """A report's path, relative to the checkout when it is inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def could_not_run(target: str, sentence: str, started: datetime) -> int:
    """A run that could not start: the sentence, in the console and in the report."""
    print(textwrap.fill(f"The conformance run against {target} could not start. {sentence}", 116))
    REPORTS.mkdir(exist_ok=True)
    REPORT.write_text(json.dumps({"target": target, "generated": started.isoformat(timespec="seconds"),
                                  "could_not_run": sentence, "exit_status": COULD_NOT_RUN}, indent=2))
    return COULD_NOT_RUN


def main() -> int:
    target = os.environ.get("A2A_TARGET_URL")
    started = datetime.now(UTC)
    env = dict(os.environ)
    server = None
    if target:
        from support.conventions import Unusable  # the suite's own support: tests/ is on the path
        from support.target import discover

        try:
            server = discover(target)
        except Unusable as unusable:
            return could_not_run(target, str(unusable), started)
        REPORTS.mkdir(exist_ok=True)
        PROFILE.write_text(json.dumps(server.as_json(), indent=2))
        env["A2A_TARGET_PROFILE"] = str(PROFILE)
        print(textwrap.fill(server.description(), 116))
        print()
    offered = {f"{b}-{v}" for b, v in server.interfaces} if server else None
    command = [sys.executable, "-m", "pytest", "tests/features", "-q", "-p", "no:randomly",
               f"--conformance-report={SCENARIOS}", *(["-m", "portable"] if target else []), *sys.argv[1:]]
    SCENARIOS.unlink(missing_ok=True)
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    seconds = (datetime.now(UTC) - started).total_seconds()
    if not SCENARIOS.exists():
        print(run.stdout[-4000:], run.stderr[-4000:])
        return COULD_NOT_RUN
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
    print("\n".join(requirement_table(verdicts, offered)))
    print()
    print("\n".join(summary_lines(summary, offered)))
    print()
    print("\n".join(table("Feature", by_feature, sorted(by_feature))))
    if not target:
        missing = [name for name in design_tests() if name not in by_design]
        print()
        print("\n".join(table("Design test", by_design, design_tests())))
        print(f"design tests without a scenario yet: {len(missing)}" + (f" ({', '.join(missing)})" if missing else ""))
    stopped = sorted({r["message"] for r in results if r.get("message", "").startswith(NOT_RUN)})
    if stopped:
        skipped = sum(r.get("message", "").startswith(NOT_RUN) for r in results)
        print("\n" + textwrap.fill(f"THE SERVER STOPPED ANSWERING: {skipped} results were not run. "
                                   + stopped[0].removeprefix(NOT_RUN), 116))
    failures = failure_lines(verdicts)
    own = by_requirement.own_failures(results)
    if failures or own:
        print()
        print("\n".join(failures))
        for result in own:
            print(f"FAILURE: {result['scenario']} ({result['feature']}, @{result['level']}) on {result['protocol']}")
            print("\n".join(indented(f"{result.get('step', '')}: {result.get('message', '')}", "    ")))
    generated = started.strftime("generated %Y-%m-%d %H:%M UTC")
    status = by_requirement.exit_status(verdicts, results)
    if run.returncode not in (0, 1):  # pytest could not run the spec (usage, collection or internal error)
        print(run.stdout[-2000:], run.stderr[-2000:])
        status = COULD_NOT_RUN
    REPORT.write_text(json.dumps({
        "target": target or "the reference server (live)", "generated": started.isoformat(timespec="seconds"),
        "server": server.as_json() if server else None, "description": server.description() if server else None,
        "seconds": round(seconds, 1), "exit_status": status, "summary": summary,
        "requirements": [v.as_json() for v in verdicts], "scenarios": results,
    }, indent=2))
    conformance_html.write(PAGE, conformance_html.page_for(ROOT, results, target=target, generated=generated,
                                                           description=server.description() if server else None,
                                                           offered=offered))
    print(f"\n{len(results)} results in {seconds:.0f} s; machine-readable report: {shown_path(REPORT)}")
    print(f"living documentation: {shown_path(PAGE)} (open it in a browser)")
    print(run.stdout.strip().splitlines()[-1] if run.stdout.strip() else "")
    return status


if __name__ == "__main__":
    sys.exit(main())
