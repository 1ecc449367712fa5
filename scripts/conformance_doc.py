"""docs/conformance.md, written by `make conformance-peers` from the reports of its runs: the totals per server and
level, a table per level with a row per requirement and a column per server, each peer failure with the cause
verified on the wire (docs/conformance-findings.toml), and the requirements no scenario can prove; then where the TCK
and ACTS differ from the spec text, and what they gave against this server (docs/conformance-acts-run.toml).

`--static` writes the page again without running anything: every section from its data files, around the peers'
sections as the last `make conformance-peers` wrote them.

    .venv/bin/python scripts/conformance_doc.py --static
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the scripts package is imported from the repository's root

from reference_server.conformance import catalogue  # noqa: E402
from reference_server.conformance.by_requirement import FAIL, NOT_APPLICABLE, PASS, PROTOCOL_NAMES  # noqa: E402

FINDINGS = ROOT / "docs" / "conformance-findings.toml"
DOC = ROOT / "docs" / "conformance.md"

INTRO = """\
# Conformance

The portable half of the executable spec (`spec/features/a2a/`) is a conformance suite for any A2A server: each
scenario proves one requirement of A2A v1.0.1 at its level (`@must`, `@should`, `@may`), names its section
(`@spec-3.1.1`) and, where the official TCK (a2aproject/a2a-tck, branch `1.0-dev`) has one, its requirement id
(`@CORE-SEND-002`). The catalogue of every requirement, with its level, its section, the sentence of A2A it tests,
the ACTS tests of the same meaning and the checklist items of the spec digest it covers, is `spec/requirements.toml`.

## What it does against a server it does not know

- **Discovery comes first.** The card says what the server speaks: A2A 1.0 interfaces (`supportedInterfaces`), the
  A2A 0.3 fields (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`), or both. The scenarios
  run on the bindings and versions it offers and nowhere else: a server that speaks only 0.3 runs the 0.3
  scenarios, and its 1.0 columns say **not offered**, never FAIL. The report opens with one paragraph saying what
  the suite found. A card that cannot be read or understood, or a key the server refuses, stops the run at once
  with one sentence: where the suite looked and what came back.
- **The agent's convention is detected, not assumed.** A scenario asks the agent for a behaviour only through a
  convention of the TCK (the behaviour's prefix starts the messageId: `tck-complete-task-<uuid>`) or of ACTS, the
  A2A project's newer draft corpus (the prefix starts the first text part: `tck-complete-task hello`). Before the
  scenarios run, a probe sends a `tck-reject-task` message both ways and sees which one the agent follows. An agent
  that follows neither (a plain echo agent, say) offers only what a plain message gets it (a completed task, or a
  message); a scenario that needs another behaviour is **n/a**, with the reason ("the agent does not offer the
  behaviour tck-input-required: …, a tck-reject-task message got a task, completed"), never a failure. The
  scenarios that need only the protocol (errors on unknown ids, the JSON-RPC envelope, versions, the card,
  authentication, validation) run on every server.
- **One defect, one failure.** Every answer the suite reads is checked against the JSON Schemas of
  `spec/schemas/` (a2a.proto for 1.0, the 0.3 schema in 0.3), as strictly as ever, but a violation does not stop
  the scenario that happened to see it: it is recorded and reported once, under the requirement its rule belongs
  to (a timestamp without its `Z` under DM-SERIAL-003, a missing REQUIRED field under the data-model requirement
  of that message, an enum under DM-SERIAL-002, any other rule under SPEC-WIRE-001: every answer is valid JSON of
  a2a.proto), each distinct violation listed once with its JSON path, what is wrong and the offending value. The
  scenarios go on to their own assertions and report their own causes; one stopped because an answer could not be
  read is n/a, and says which violation stopped it.
- **Messages a person can act on.** A failure says the requirement and the sentence of A2A it tests, what was
  expected and what came, and the exchange, trimmed to what matters: the request line and body, the status, the
  body or the events. An answer of an unexpected shape is described as such: an HTML 500, a body that is not JSON,
  a JSON-RPC answer with no id, a stream that ends before any event. The console, `reports/conformance.json` and
  the living page (`reports/conformance.html`, titled with the server under test) say the same.
- **A server's default settings are not a failure.** The push config scenarios give an https webhook URL on a
  public name that is never dialled (`https://webhook.conformance.invalid/…`: the `.invalid` domain never resolves,
  RFC 6761), which a server takes with its default settings. Only the delivery scenarios need a webhook that is
  reached, on `127.0.0.1` over plain HTTP; a server that refuses one (as this server does unless
  `A2A__AllowPrivatePushUrls`, and as A2A §13.2 advises) makes them n/a, with its own refusal as the reason.
- **A crash is not a hundred failures.** After a scenario that saw a server error or a dropped connection, the
  suite asks again for the card and for a GetTask that worked at the start. A server that no longer answers them
  has crashed: the scenarios after it are "not run", and the report names the scenario and the request after which
  it stopped.

Against another server a step asserts only what its scenario's level requires: the JSON-RPC code, or the ErrorInfo
reason (the HTTP status where there is none) of an error (§5.4, §11.6), never this server's error names, wording
or violation format. A requirement that a server's card makes moot (a capability it does not declare, a security
scheme it does not have, a media type it takes) is **n/a** for that server, with the reason in its report.

## How to run it

Against this server, every scenario, portable or not (`make conformance`); against another one, the portable ones.
The key (`A2A_TARGET_KEY`) is one the server accepts; a second caller's key (`A2A_TARGET_OTHER_KEY`, optional)
enables the scenarios about what one caller may see of another's tasks; `A2A_TARGET_CARD_URL` names a card that is
not at `/.well-known/agent-card.json` (CARD-DISC-001 still looks there).

<!-- not run: it runs the suite against another server; tests/test_conformance_targets.py runs this mode -->
```sh
A2A_TARGET_OTHER_KEY=<another> reference-server conformance http://127.0.0.1:9999 --key <a key>
```

`reference-server` is the installed command (`pip install 'a2a-reference-server[conformance]'`; in a checkout,
`.venv/bin/reference-server`). Its exit status is **0** when every MUST holds, **1** when a MUST fails, **2** for a
usage error and **3** when the run could not run (no card it can read, a refused key, pytest could not start); a
failed SHOULD is printed as a warning and a failed MAY as information. `make conformance` runs the same command,
but make turns any failure into its own status 2: it prints the command's status before it exits.
`reports/conformance.json` holds the results by requirement and by
scenario, the discovery paragraph and the exit status; `reports/conformance.html` is the living page with its
requirement view.

`make conformance-peers` runs the portable suite against this server and the peers below, on loopback, and writes
this page. The SDK peers are the project's own small agents (`scripts/bench_kit/`); the independent servers are
installed, pinned, from PyPI and npm into a folder outside the checkout
(`${XDG_CACHE_HOME:-~/.cache}/a2a-reference-server/peers/`).

<!-- not run: it starts the peers and runs the suite against each (minutes) -->
```sh
make conformance-peers
```
"""


MUTANTS_BEGIN, MUTANTS_END = "<!-- mutants: begin -->", "<!-- mutants: end -->"  # scripts/conformance_mutants.py
ACTS = ROOT / "docs" / "conformance-acts.toml"
ACTS_RUN = ROOT / "docs" / "conformance-acts-run.toml"
# the part of the page a peers run writes: from its first heading to the first heading of the static part after it
PEERS_BEGIN = re.compile(r"^## \d+ servers side by side$", re.MULTILINE)
PEERS_END = "## Requirements that cannot apply"


def mutants_block(doc: Path) -> list[str]:
    """The table `make conformance-mutants` last wrote into the page, kept as it is when the page is written again."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    if MUTANTS_BEGIN not in text or MUTANTS_END not in text:
        return [MUTANTS_BEGIN, "No `make conformance-mutants` has run yet.", MUTANTS_END]
    return text[text.index(MUTANTS_BEGIN): text.index(MUTANTS_END) + len(MUTANTS_END)].splitlines()


def acts_differences() -> list[str]:
    """Where ACTS's draft corpus and the A2A v1.0.1 text disagree (docs/conformance-acts.toml)."""
    raw = tomllib.loads(ACTS.read_text(encoding="utf-8")) if ACTS.exists() else {}
    lines = []
    for entry in raw.get("difference", []):
        lines.append(f"- **{', '.join(entry['acts'])}** ({entry['title']}): {entry['acts_says'].strip()} "
                     f"The spec: {entry['spec'].strip()}")
    return lines


def findings() -> dict[tuple[str, str], dict[str, str]]:
    """(server label, requirement id) -> the verified cause of that failure."""
    if not FINDINGS.exists():
        return {}
    raw = tomllib.loads(FINDINGS.read_text(encoding="utf-8"))
    return {(entry["server"], entry["requirement"]): entry for entry in raw.get("finding", [])}


# short names of the protocols a requirement failed on, so that a table of six servers stays readable
SHORT = {"jsonrpc-1.0": "J", "rest-1.0": "H", "jsonrpc-0.3": "J0.3", "rest-0.3": "H0.3", "none-1.0": "card",
         "none-0.3": "card"}


def cell(result: dict[str, Any] | None) -> str:
    """A server's word for a requirement, with the protocols that failed (J: JSON-RPC, H: HTTP+JSON)."""
    if result is None:
        return "&ndash;"
    if result["result"] == FAIL:
        failed = [SHORT.get(p, PROTOCOL_NAMES.get(p, p)) for p, word in result["protocols"].items() if word == FAIL]
        return f"**FAIL** {' '.join(failed)}"
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
        stopped = crash(report)
        if stopped:
            lines += [f"**The server stopped answering during the run.** {stopped}", ""]
        if not failed:
            lines.append("No requirement failed.")
        by_level: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for requirement in failed:
            by_level[requirement["level"]].append(requirement)
        for level in catalogue.SPEC_LEVELS:
            for requirement in by_level[level]:
                lines += _finding(report, requirement, verified.get((report["label"], requirement["id"])))
    return lines


def crash(report: dict[str, Any]) -> str:
    """What the report says of a server that stopped answering (tests/conftest.py stopped_after), once, with how many
    requirements it left unchecked; "" when it did not."""
    reasons = [n for q in report["requirements"] for n in q.get("not_applicable", [])
               if n.startswith("not run: the server stopped answering")]
    if not reasons:
        return ""
    unchecked = sum(1 for q in report["requirements"] if any(n in reasons for n in q.get("not_applicable", [])))
    said = reasons[0].removeprefix("not run: the server ").partition(" Restart the server")[0].strip()
    return f"It {said} {unchecked} requirement{'s' * (unchecked != 1)} could not be checked after it."


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


def described(reports: list[dict[str, Any]]) -> list[str]:
    """What discovery found of each server: its paragraph from the report."""
    return [f"- **{r['label']}**: {r['description']}" for r in reports if r.get("description")]


def render(reports: list[dict[str, Any]], doc: Path | None = None) -> str:
    return page(peer_sections(reports), doc)


def peer_sections(reports: list[dict[str, Any]]) -> list[str]:
    """What the peers' reports make of the page: the totals, a table per level and each peer failure's cause."""
    unrun = [r for r in reports if "requirements" not in r]
    reports = [r for r in reports if "requirements" in r]
    generated = ", ".join(f"{r['label']} {r['generated'][:10]}" for r in reports)
    return [f"## {len(reports)} servers side by side", "",
            f"The last `make conformance-peers` ({generated}): requirements passed, failed and not applicable, by "
            "level, and how long each run took (the whole portable suite, on both bindings and in both versions where "
            "the server offers them). What the suite found each server to speak:", "", *described(reports),
            *(f"- **{r['label']}**: the run could not start. {r.get('could_not_run', '')}" for r in unrun), "",
            *totals(reports), "",
            "A cell names the bindings and versions a requirement failed on (J: JSON-RPC, H: HTTP+JSON; 1.0 unless "
            "0.3 is said); **n/a**: it could not be observed on that server (its reason is in the server's report: a "
            "behaviour the agent does not offer, a capability it does not declare, an interface it does not serve), "
            "or no scenario can prove it (see the last section).",
            *requirement_tables(reports), "", "## Peer failures and their causes", "",
            "Each failure of a peer was checked by hand: the exchange captured on the wire against the peer, and the "
            "spec text that makes it a failure. The causes are kept in `docs/conformance-findings.toml`.",
            *failure_sections(reports), ""]


def page(peers: list[str], doc: Path | None = None) -> str:
    """The whole page around the peers' sections."""
    out = [INTRO, "## The suite measured by known defects", "",
           "`make conformance-mutants` puts one known defect at a time in front of this server, through a rewriting "
           "proxy (`tests/support/proxy.py`; the defects are `tests/support/mutants.py`, so the server itself never "
           "carries a mutation switch), and runs the portable suite against the proxy as against any server. A "
           "mutant is **caught** when the requirement it breaks fails, and the catch is **precise** when no other "
           "requirement fails. A first run through a proxy that changes nothing must fail nothing.", "",
           *mutants_block(doc or DOC), "", *peers,
           PEERS_END, "", *not_applicable(), "",
           "## Where the TCK and the spec text differ", "",
           "The level of each requirement is taken from the A2A v1.0.1 text; these notes say where the TCK (which "
           "tests v1.0.0 in places) or the text itself says otherwise.", "", *level_notes(), "",
           *tck_run(), "## Where ACTS and the spec text differ", "",
           "ACTS (a2aproject/A2A branch `conformance-spec`, the draft corpus copied in `shared/a2a-spec/acts/`) "
           "reuses some TCK ids for other tests; `spec/requirements.toml` matches its tests to ours by meaning "
           "(`acts`). Where an ACTS test contradicts the A2A v1.0.1 text, the suite follows the text:", "",
           *acts_differences(), "", *acts_run()]
    return "\n".join(out).rstrip("\n") + "\n"


def kept_peer_sections(doc: Path) -> list[str]:
    """The peers' sections of the page as the last peers run wrote them, to write the rest again around them."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    begin = PEERS_BEGIN.search(text)
    end = text.find(f"\n{PEERS_END}\n", begin.end() if begin else 0)
    if begin is None or end < 0:
        raise ValueError(f"{doc} has no peers' sections ('## N servers side by side' to '{PEERS_END}'): "
                         "run make conformance-peers")
    return text[begin.start():end].split("\n")


# --- ACTS and the TCK against this server (docs/conformance-acts-run.toml)


def runs() -> dict[str, Any]:
    return tomllib.loads(ACTS_RUN.read_text(encoding="utf-8")) if ACTS_RUN.exists() else {}


def acts_run() -> list[str]:
    """The ACTS passes against this server: counts per pass and binding, and every id that still fails, with why."""
    data = runs()
    lines = ["### ACTS against this server", ""]
    if not data.get("pass"):
        return [*lines, "ACTS has not been run against this server yet (`docs/conformance-acts-run.toml`).", ""]
    titles = {entry["title"] for entry in tomllib.loads(ACTS.read_text(encoding="utf-8")).get("difference", [])}
    lines += [f"`scripts/acts_run.py` ran the corpus ({data['tests']} tests, commit `{data['corpus'][:8]}`) against "
              f"this server on {data['date']}, as its specification says, in this runner's three passes (ACTS itself "
              "has none). A test runs once per binding; **skip**: a precondition or a transport filter the server "
              "does not meet, **not run**: what this runner cannot execute.", "",
              "| pass | server | binding | pass | fail | skip | not run |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for run in data["pass"]:
        for count in run["counts"]:
            lines.append(f"| {run['name']} | {run['server']} | {count['binding']} | {count['pass']} | {count['fail']} "
                         f"| {count['skip']} | {count['not_run']} |")
    lines += ["", "Every id that still fails, checked on the wire: **(a)** the corpus contradicts the A2A v1.0.1 text "
                  "(the difference above it names), **(b)** it needs what the design leaves out or refuses by default.",
              ""]
    for failing in data.get("failing", []):
        unknown = [t for t in failing.get("differences", []) if t not in titles]
        if unknown:
            raise ValueError(f"{failing['id']}: no difference titled {unknown} in {ACTS.name}")
        named = "; ".join(f"*{title}*" for title in failing.get("differences", []))
        lines.append(f"- **{failing['id']}** ({failing['pass']}, {failing['bindings']}) ({failing['category']}) "
                     f"{failing['why'].strip()}" + (f" See {named}." if named else ""))
    lines += ["", "Not run, or skipped for more than a transport filter:", ""]
    for group in data.get("not_run", []):
        lines.append(f"- {', '.join(group['ids'])} ({group['pass']}): {group['why'].strip()}")
    return [*lines, ""]


def tck_run() -> list[str]:
    """The official TCK against this server: its counts per server setting, and each failure with why."""
    tck = runs().get("tck")
    if not tck:
        return []
    lines = ["### The official TCK against this server", "",
             f"a2aproject/a2a-tck `{tck['branch']}` (commit `{tck['commit'][:8]}`), `{tck['command']}`, on "
             f"{runs()['date']}. {tck['how'].strip()}", "", "| server | passed | failed | skipped |",
             "| --- | --- | --- | --- |"]
    lines += [f"| {run['server']} | {run['passed']} | {run['failed']} | {run['skipped']} |" for run in tck["runs"]]
    lines += ["", tck["skipped"].strip(), "", "No failure is this server's:", ""]
    lines += [f"- `{f['test']}` ({f['requirement']}, {f['runs']}): {f['why'].strip()}" for f in tck["failure"]]
    return [*lines, ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--static", action="store_true", required=True,
                        help="write the page again from its data files, keeping the peers' sections as they are")
    parser.add_argument("--doc", type=Path, default=DOC, help="the page (default: docs/conformance.md)")
    args = parser.parse_args(argv)
    try:
        text = page(kept_peer_sections(args.doc), args.doc)
    except ValueError as error:
        print(f"conformance_doc: {error}", file=sys.stderr)
        return 1
    args.doc.write_text(text, encoding="utf-8")
    print(f"wrote {args.doc} (the peers' sections kept as they were)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
