"""`reference-server conformance [URL]`: run the executable spec (against another server at URL, the portable
scenarios of spec/features/a2a/ only), print the result per requirement (id, level, section, each protocol), per
feature and, against this server from a checkout, per design test, and write reports/conformance.json and the living
documentation page reports/conformance.html. `make conformance` is a thin call of it.

Against another server, discovery comes first (support/target.py): what its card says it speaks, and which
behaviour convention its agent follows, in one paragraph at the top of every report; a card that cannot be read
or a key it refuses stops the run with one sentence.

From a checkout the run is the repository's test run of tests/features (the design's scenarios too, against this
server); from an installed package it is the package's portable suite (scenarios.py), against URL or, without one,
against a reference server it starts on loopback (then a target like any other: each scenario at its level).

Exit status: 0 when every MUST holds, 1 when a MUST fails (or, against this server, a scenario of its design), 2 for
a usage error, 3 when the run could not run (no usable card, a refused key, pytest could not start). A failed SHOULD
is printed as a warning and a failed MAY as information. Under `make` any failure is make's own 2; the line before
it names the real status."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import secrets
import subprocess
import sys
import tempfile
import textwrap
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reference_server.conformance import by_requirement, catalogue, living_page
from reference_server.spec_files import FEATURES, PACKAGE, SPEC_ROOT

CHECKOUT = PACKAGE.parent if (PACKAGE.parent / "tests" / "features").is_dir() else None  # a repository's tests
PROTOCOLS = by_requirement.PROTOCOLS
LEVEL_ORDER = {level: index for index, level in enumerate(catalogue.SPEC_LEVELS)}
PASSED, MUST_FAILED, USAGE, COULD_NOT_RUN = 0, 1, 2, 3
NOT_OFFERED = "not offered"
EXTRA = ("pytest", "pytest_bdd", "jsonschema", "httpx_sse", "trustme")  # the [conformance] extra, by module
NOT_RUN = "not run: "  # the reason of a scenario left out once the server stopped answering (plugin.py)


@dataclass(frozen=True)
class Reports:
    """Where a run writes: the report, pytest's per-scenario results, what discovery found, the living page."""

    folder: Path

    @property
    def report(self) -> Path:
        return self.folder / "conformance.json"

    @property
    def scenarios(self) -> Path:
        return self.folder / "conformance-scenarios.json"

    @property
    def profile(self) -> Path:
        return self.folder / "conformance-target.json"

    @property
    def page(self) -> Path:
        return self.folder / "conformance.html"


def design_tests() -> list[str]:
    """Every test named in the design's Testing section (the markers registered in a checkout's pyproject)."""
    return list(living_page.design_tests(CHECKOUT)) if CHECKOUT is not None else []


def outcome_of(results: list[dict[str, str]]) -> str:
    """The page's word for the results (living_page.outcome), a failure in capitals; "-" for none."""
    if not results:
        return "-"
    word = living_page.outcome(results)
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
    """A report's path, relative to the working folder when it is inside it."""
    here = Path.cwd()
    return str(path.relative_to(here)) if path.is_relative_to(here) else str(path)


def could_not_run(reports: Reports, target: str, sentence: str, started: datetime) -> int:
    """A run that could not start: the sentence, in the console and in the report."""
    print(textwrap.fill(f"The conformance run against {target} could not start. {sentence}", 116))
    reports.report.write_text(json.dumps({"target": target, "generated": started.isoformat(timespec="seconds"),
                                  "could_not_run": sentence, "exit_status": COULD_NOT_RUN}, indent=2))
    return COULD_NOT_RUN


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reference-server conformance",
        description="Run the portable A2A conformance suite against the A2A server at URL (without URL: against this "
                    "server), and print and write the result per requirement.",
        epilog="exit status: 0 every MUST holds, 1 a MUST failed, 2 usage error, 3 the run could not run (no usable "
               "card, a refused key, pytest could not start). Further pytest arguments (-k, -x, ...) go after --.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("url", nargs="?", default=os.environ.get("A2A_TARGET_URL") or None,
                        help="the server's base URL; its card is read from /.well-known/agent-card.json "
                             "(A2A_TARGET_URL)")
    parser.add_argument("--key", default=os.environ.get("A2A_TARGET_KEY") or None,
                        help="a caller key the server accepts (A2A_TARGET_KEY)")
    parser.add_argument("--card-url", default=os.environ.get("A2A_TARGET_CARD_URL") or None,
                        help="the card's URL, when it is not at the well-known path (A2A_TARGET_CARD_URL)")
    parser.add_argument("--reports", type=Path, default=Path(os.environ.get("A2A_CONFORMANCE_REPORTS") or "reports"),
                        help="where conformance.json and conformance.html are written (A2A_CONFORMANCE_REPORTS)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    cut = args.index("--") if "--" in args else len(args)
    options = parser().parse_args(args[:cut])
    options.pytest_args = args[cut + 1:]  # after --: pytest's own, as they are
    missing = [name for name in EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        print(f"reference-server conformance: {', '.join(missing)} is not installed; the suite runs under pytest-bdd: "
              "pip install 'a2a-reference-server[conformance]'", file=sys.stderr)
        return COULD_NOT_RUN
    if not options.url and CHECKOUT is None:  # installed, no URL: against a reference server of its own
        return against_own_server(options.reports, options.pytest_args)
    reports = Reports(options.reports.resolve())
    target = options.url.rstrip("/") if options.url else None
    started = datetime.now(UTC)
    given = (("A2A_TARGET_URL", target), ("A2A_TARGET_KEY", options.key), ("A2A_TARGET_CARD_URL", options.card_url))
    os.environ.update({name: value for name, value in given if value})  # discovery reads them, as the scenarios do
    env = dict(os.environ)
    reports.folder.mkdir(parents=True, exist_ok=True)
    server = None
    if target:
        from reference_server.conformance.support.conventions import Unusable
        from reference_server.conformance.support.target import discover

        try:
            server = discover(target)
        except Unusable as unusable:
            return could_not_run(reports, target, str(unusable), started)
        reports.profile.write_text(json.dumps(server.as_json(), indent=2))
        env["A2A_TARGET_PROFILE"] = str(reports.profile)
        print(textwrap.fill(server.description(), 116))
        print()
    reports.scenarios.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="a2a-conformance-") as scratch:
        command, cwd = pytest_command(reports, bool(target), options.pytest_args, Path(scratch))
        run = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    if not reports.scenarios.exists():
        print(run.stdout[-4000:], run.stderr[-4000:])
        return COULD_NOT_RUN
    results = json.loads(reports.scenarios.read_text())
    status = report(reports, results, target, server, started)
    if run.returncode not in (0, 1):  # pytest could not run the spec (usage, collection or internal error)
        print(run.stdout[-2000:], run.stderr[-2000:])
        status = COULD_NOT_RUN
    print(run.stdout.strip().splitlines()[-1] if run.stdout.strip() else "")
    return status


def against_own_server(reports: Path, pytest_args: list[str]) -> int:
    """The portable suite against a reference server started here, on loopback, with two callers (the second opens
    the scenarios about what one caller may see of another's tasks); its log is server.log beside the reports."""
    from reference_server.clientcheck.run import free_port, make_workspace, start_server, stop, wait_until_serving

    key, other = ("k_" + secrets.token_hex(24) for _ in range(2))
    reports.mkdir(parents=True, exist_ok=True)
    log = reports / "server.log"
    with tempfile.TemporaryDirectory(prefix="a2a-conformance-server-") as temp:
        workspace = Path(temp) / "workspace"
        make_workspace(workspace, {"conformance": key, "other": other}, "made by reference-server conformance")
        port = free_port()
        server = start_server(workspace, None, port, log)
        try:
            if not wait_until_serving(server, port):
                print(f"reference-server conformance: the reference server did not start; its log is {log}",
                      file=sys.stderr)
                return COULD_NOT_RUN
            os.environ["A2A_TARGET_OTHER_KEY"] = other
            return main([f"http://127.0.0.1:{port}", "--key", key, "--reports", str(reports), "--", *pytest_args])
        finally:
            stop(server)


def pytest_command(reports: Reports, targeted: bool, extra: list[str], scratch: Path) -> tuple[list[str], Path]:
    """The pytest run and its folder: a checkout's tests/features (its design scenarios too), or the package's
    portable scenarios (scenarios.py) under an ini of their own in a scratch folder."""
    common = ["-q", "-p", "no:randomly", f"--conformance-report={reports.scenarios}",
              *(["-m", "portable"] if targeted else []), *extra]
    if CHECKOUT is not None:
        return [sys.executable, "-m", "pytest", "tests/features", *common], CHECKOUT
    ini = scratch / "pytest.ini"
    ini.write_text(f"[pytest]\nbdd_features_base_dir = {FEATURES}\n")
    return [sys.executable, "-m", "pytest", "-c", str(ini), "--rootdir", str(scratch), "-p", "no:cacheprovider",
            "-p", "reference_server.conformance.plugin", "--pyargs", "reference_server.conformance.scenarios",
            *common], scratch


def report(reports: Reports, results: list[dict[str, Any]], target: str | None, server: Any,
           started: datetime) -> int:
    """Print the result per requirement, feature and design test, write the report and the page; the exit status."""
    seconds = (datetime.now(UTC) - started).total_seconds()
    offered = {f"{b}-{v}" for b, v in server.interfaces} if server else None
    verdicts = by_requirement.verdicts(results, catalogue.load())
    summary = by_requirement.summary(verdicts)
    print(f"target: {target} (portable scenarios only)" if target else "target: the reference server (live)")
    print_results(results, verdicts, summary, offered, targeted=bool(target))
    generated = started.strftime("generated %Y-%m-%d %H:%M UTC")
    status = by_requirement.exit_status(verdicts, results)
    reports.report.write_text(json.dumps({
        "target": target or "the reference server (live)", "generated": started.isoformat(timespec="seconds"),
        "server": server.as_json() if server else None, "description": server.description() if server else None,
        "seconds": round(seconds, 1), "exit_status": status, "summary": summary,
        "requirements": [v.as_json() for v in verdicts], "scenarios": results,
    }, indent=2))
    living_page.write(reports.page, living_page.page_for(
        SPEC_ROOT, results, target=target, generated=generated, design=CHECKOUT,
        description=server.description() if server else None, offered=offered))
    print(f"\n{len(results)} results in {seconds:.0f} s; machine-readable report: {shown_path(reports.report)}")
    print(f"living documentation: {shown_path(reports.page)} (open it in a browser)")
    return status


def print_results(results: list[dict[str, Any]], verdicts: list[by_requirement.Verdict],
                  summary: dict[str, dict[str, dict[str, int]]], offered: set[str] | None, *, targeted: bool) -> None:
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
    named = design_tests() if not targeted else []  # read once: pyproject's markers
    if named:
        missing = [name for name in named if name not in by_design]
        print()
        print("\n".join(table("Design test", by_design, named)))
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


if __name__ == "__main__":
    sys.exit(main())
