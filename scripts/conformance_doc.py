"""docs/conformance.md, written by `make conformance-peers` from the reports of its runs: the totals per server and
level, a table per level with a row per requirement and a column per server, each peer failure with the cause
verified on the wire (docs/conformance-findings.toml), and the requirements no scenario can prove."""

from __future__ import annotations

import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

from scripts import catalogue
from scripts.by_requirement import FAIL, NOT_APPLICABLE, PASS, PROTOCOL_NAMES

ROOT = Path(__file__).resolve().parents[1]
FINDINGS = ROOT / "docs" / "conformance-findings.toml"

INTRO = """\
# Conformance

The portable half of the executable spec (`spec/features/a2a/`) is a conformance suite for any A2A 1.0 server:
each scenario proves one requirement of A2A v1.0.1 at its level (`@must`, `@should`, `@may`), names its section
(`@spec-3.1.1`) and, where the official TCK (a2aproject/a2a-tck, branch `1.0-dev`) has one, its requirement id
(`@CORE-SEND-002`). The catalogue of every requirement, with its level, section and the checklist items of the spec
digest it covers, is `spec/requirements.toml`. The scenarios ask the agent for a behaviour only through the TCK's
messageId prefixes (`tck-complete-task`, `tck-input-required`, `tck-reject-task`, `tck-message-response`,
`tck-artifact-*`, `tck-stream-*`), so any server that runs the TCK runs them unchanged, with no side channel.

Against another server a step asserts only what its scenario's level requires: the JSON-RPC code, or the HTTP
status and ErrorInfo reason, of an error (§5.4, §11.6), never this server's error names, wording or violation format.
A requirement that a server's card makes moot (a capability it does not declare, a security scheme it does not have,
a media type it takes) is **n/a** for that server, with the reason in its report. The scenarios of an operation A2A
0.3 also has (tagged `@v0_3`) run in 0.3 as well, on the bindings whose 0.3 interface the card offers at the same
URL: this server's report has them (the two SDK agents here serve 1.0 only).

## How to run it

Against this server, every scenario, portable or not (`make conformance`); against another one, the portable ones on
the bindings and versions its card offers. A second caller's key (`A2A_TARGET_OTHER_KEY`, optional) enables the
scenarios about what one caller may see of another's tasks; the push delivery scenarios need the server to accept a
webhook on `127.0.0.1`.

<!-- not run: it runs the portable suite against another server; tests/test_target_mode.py runs this mode -->
```sh
A2A_TARGET_URL=http://127.0.0.1:9999 A2A_TARGET_KEY=<a key> A2A_TARGET_OTHER_KEY=<another> make conformance
```

The exit status is 1 when a MUST fails; a failed SHOULD is printed as a warning and a failed MAY as information.
`reports/conformance.json` holds the results by requirement and by scenario, and `reports/conformance.html` the
living page with its requirement view. `make conformance-peers` runs the portable suite against three servers on
loopback and writes this page: this server, and small agents that answer the TCK's prefixes on the official a2a-sdk
1.3 Python server (`scripts/bench_kit/sdk_tck.py`) and the @a2a-js/sdk 1.3 server
(`scripts/bench_kit/js/tck_agent.mjs`), each with its SDK's defaults and push notifications on, as the TCK's own
a2a-python SUT is configured (plus push).

<!-- not run: it starts three servers and runs the suite against each (minutes) -->
```sh
make conformance-peers
```

How long a run takes, beside the official TCK (1.0-dev, `run_tck.py`, which tests 122 requirements over the same
bindings; this server behind a loopback proxy that adds its key), measured one after the other on 2026-12-02 on a
shared 2-core machine: against this server the TCK took 72 s and this suite 28 s; against the a2a-sdk agent 68 s and
22 s; against the @a2a-js/sdk agent 68 s and 30 s.
"""


def findings() -> dict[tuple[str, str], dict[str, str]]:
    """(server label, requirement id) -> the verified cause of that failure."""
    if not FINDINGS.exists():
        return {}
    raw = tomllib.loads(FINDINGS.read_text(encoding="utf-8"))
    return {(entry["server"], entry["requirement"]): entry for entry in raw.get("finding", [])}


def cell(result: dict[str, Any] | None) -> str:
    """A server's word for a requirement, with the protocols that failed."""
    if result is None:
        return "&ndash;"
    if result["result"] == FAIL:
        failed = [PROTOCOL_NAMES[p] for p, word in result["protocols"].items() if word == FAIL]
        return f"**FAIL** ({', '.join(failed)})"
    return {PASS: "pass", NOT_APPLICABLE: "n/a"}[result["result"]]


def totals(reports: list[dict[str, Any]]) -> list[str]:
    lines = ["| level | " + " | ".join(r["label"] for r in reports) + " |",
             "| --- |" + " --- |" * len(reports)]
    for level in catalogue.SPEC_LEVELS:
        cells = []
        for report in reports:
            words = [q["result"] for q in report["requirements"] if q["level"] == level]
            cells.append(f"{words.count(PASS)} pass, {words.count(FAIL)} fail, {words.count(NOT_APPLICABLE)} n/a")
        lines.append(f"| {catalogue.LEVEL_NAMES[level]} | " + " | ".join(cells) + " |")
    lines.append("| run time | " + " | ".join(f"{r.get('wall_seconds', r.get('seconds', 0)):.0f} s" for r in reports)
                 + " |")
    return lines


def requirement_tables(reports: list[dict[str, Any]]) -> list[str]:
    by_server = [{q["id"]: q for q in report["requirements"]} for report in reports]
    lines: list[str] = []
    for level in catalogue.SPEC_LEVELS:
        rows = [r for r in catalogue.load().requirements.values() if r.level == level]
        lines += ["", f"### {catalogue.LEVEL_NAMES[level]}", "",
                  "| requirement | section | what it asks | " + " | ".join(r["label"] for r in reports) + " |",
                  "| --- | --- | --- |" + " --- |" * len(reports)]
        for requirement in rows:
            cells = " | ".join(cell(found.get(requirement.id)) for found in by_server)
            lines.append(f"| {requirement.id} | §{requirement.section} | {requirement.says} | {cells} |")
    return lines


def failure_sections(reports: list[dict[str, Any]]) -> list[str]:
    verified = findings()
    lines: list[str] = []
    for report in reports[1:]:  # the peers: this server's own failures are bugs to fix, not findings
        failed = [q for q in report["requirements"] if q["result"] == FAIL]
        lines += ["", f"### {report['label']}", ""]
        if not failed:
            lines.append("No requirement failed.")
        by_level: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for requirement in failed:
            by_level[requirement["level"]].append(requirement)
        for level in catalogue.SPEC_LEVELS:
            for requirement in by_level[level]:
                lines += _finding(report, requirement, verified.get((report["label"], requirement["id"])))
    return lines


def _finding(report: dict[str, Any], requirement: dict[str, Any], found: dict[str, str] | None) -> list[str]:
    protocols = ", ".join(PROTOCOL_NAMES[p] for p, word in requirement["protocols"].items() if word == FAIL)
    lines = [f"**{requirement['id']}** ({requirement['level'].upper()} §{requirement['section']}, {protocols}): "
             f"{requirement['says']}", ""]
    scenarios = sorted({f["scenario"] for f in requirement["failures"]})
    lines.append("Failing scenario" + ("s" if len(scenarios) > 1 else "") + ": " + "; ".join(scenarios) + ".")
    if found is None:
        lines += ["", "*Cause not verified yet.* First failing step: `" + requirement["failures"][0]["step"] + "`: "
                  + requirement["failures"][0]["message"][:300], ""]
        return lines
    lines += ["", "Cause: " + found["cause"].strip()]
    if found.get("spec"):
        lines += ["", "The spec: " + found["spec"].strip()]
    if found.get("wire"):
        lines += ["", "On the wire:", "", "```http", found["wire"].strip(), "```"]
    lines.append("")
    return lines


def not_applicable() -> list[str]:
    lines = ["| requirement | level | section | why no scenario proves it |", "| --- | --- | --- | --- |"]
    for requirement in catalogue.load().requirements.values():
        if requirement.not_applicable:
            lines.append(f"| {requirement.id} | {requirement.level.upper()} | §{requirement.section} | "
                         f"{requirement.not_applicable} |")
    return lines


def level_notes() -> list[str]:
    lines = []
    for requirement in catalogue.load().requirements.values():
        if requirement.note:
            lines.append(f"- **{requirement.id}** ({requirement.level.upper()}): {requirement.note}")
    return lines


def render(reports: list[dict[str, Any]]) -> str:
    generated = ", ".join(f"{r['label']} {r['generated'][:10]}" for r in reports)
    out = [INTRO, "## Three servers side by side", "",
           f"The last `make conformance-peers` ({generated}): requirements passed, failed and not applicable, by "
           "level, and how long each run took (the whole portable suite, on both bindings and in both versions where "
           "the server offers them).", "", *totals(reports), "",
           "A cell names the bindings and versions a requirement failed on; **n/a**: it could not be observed on that "
           "server (its reason is in the server's report), or no scenario can prove it (see the last section).",
           *requirement_tables(reports), "", "## Peer failures and their causes", "",
           "Each failure of a peer was checked by hand: the exchange captured on the wire against the peer, and the "
           "spec text that makes it a failure. The causes are kept in `docs/conformance-findings.toml`.",
           *failure_sections(reports), "", "## Requirements that cannot apply", "", *not_applicable(), "",
           "## Where the TCK and the spec text differ", "",
           "The level of each requirement is taken from the A2A v1.0.1 text; these notes say where the TCK (which "
           "tests v1.0.0 in places) or the text itself says otherwise.", "", *level_notes()]
    return "\n".join(out) + "\n"
