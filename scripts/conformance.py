"""`make conformance`: run spec/features, print the result per feature and per design test, per protocol, and
write reports/conformance.json and the living documentation page reports/conformance.html."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import conformance_html

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "reports" / "conformance.json"
PAGE = ROOT / "reports" / "conformance.html"
PROTOCOLS = conformance_html.PROTOCOLS


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


def main() -> int:
    command = [sys.executable, "-m", "pytest", "tests/features", "-q", "-p", "no:randomly",
               f"--conformance-report={REPORT}", *sys.argv[1:]]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if not REPORT.exists():
        print(run.stdout[-4000:], run.stderr[-4000:])
        return run.returncode or 1
    results = json.loads(REPORT.read_text())
    target = os.environ.get("A2A_TARGET_URL")
    print(f"target: {target} (portable scenarios only)" if target else "target: the reference server (live)")
    by_feature: dict[str, dict[str, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    by_design: dict[str, dict[str, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        by_feature[result["feature"]][result["protocol"]].append(result)
        for tag in result["tags"]:
            by_design[tag][result["protocol"]].append(result)
    missing = [name for name in design_tests() if name not in by_design]
    print("\n".join(table("Feature", by_feature, sorted(by_feature))))
    print()
    print("\n".join(table("Design test", by_design, design_tests())))
    print(f"\n{len(results)} results; design tests without a scenario yet: {len(missing)}"
          + (f" ({', '.join(missing)})" if missing else ""))
    generated = datetime.now(UTC).strftime("generated %Y-%m-%d %H:%M UTC")
    conformance_html.write(PAGE, conformance_html.page_for(ROOT, results, target=target, generated=generated))
    print(f"machine-readable report: {REPORT.relative_to(ROOT)}")
    print(f"living documentation: {PAGE.relative_to(ROOT)} (open it in a browser)")
    print(run.stdout.strip().splitlines()[-1] if run.stdout.strip() else "")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
