"""docs/conformance.md as scripts/conformance_doc.py writes it: the totals per server and level, a column per server,
each peer failure with its verified cause (or marked as not verified), the requirements that cannot apply; and the
checked-in page is what the kept findings and the catalogue make of its servers."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from reference_server.conformance import catalogue
from scripts import conformance_doc

ROOT = Path(__file__).resolve().parents[1]


def report(label: str, results: dict[str, str], *, failure: tuple[str, str] | None = None) -> dict[str, Any]:
    """A kept report: every requirement n/a but those given (id -> pass | fail)."""
    requirements = []
    for requirement in catalogue.load().requirements.values():
        word = results.get(requirement.id, "n/a")
        failures = []
        if word == "fail" and failure is not None:
            failures = [{"scenario": failure[0], "feature": "a2a/x.feature", "protocol": "rest-1.0",
                         "step": "Then the call fails with TaskNotFound", "message": failure[1]}]
        requirements.append({"id": requirement.id, "level": requirement.level, "section": requirement.section,
                             "says": requirement.says, "result": word,
                             "protocols": {"rest-1.0": word} if word != "n/a" else {}, "failures": failures})
    return {"label": label, "generated": "2026-12-02T06:00:00+00:00", "wall_seconds": 21.4,
            "requirements": requirements}


def test_the_doc_has_a_column_per_server_and_totals_per_level() -> None:
    text = conformance_doc.render([report("this server", {"CORE-GET-002": "pass"}),
                                   report("peer", {"CORE-GET-002": "fail", "CARD-CACHE-003": "pass"},
                                          failure=("Getting a task that does not exist is refused", "HTTP 500"))])
    assert "| level | this server | peer |" in text
    must = sum(r.level == "must" for r in catalogue.load().requirements.values())
    assert f"| MUST | 1 pass, 0 fail, {must - 1} n/a | 0 pass, 1 fail, {must - 1} n/a |" in text
    assert "| run time | 21 s | 21 s |" in text
    row = next(line for line in text.splitlines() if line.startswith("| CORE-GET-002 |"))
    assert row.endswith("| pass | **FAIL** H |"), row


def test_a_peer_failure_without_a_verified_cause_says_so() -> None:
    text = conformance_doc.render([report("this server", {}),
                                   report("peer", {"CORE-GET-002": "fail"},
                                          failure=("Getting a task that does not exist is refused", "HTTP 500"))])
    section = text[text.index("## Peer failures"):text.index("## Requirements that cannot apply")]
    assert "**CORE-GET-002** (MUST §3.1.3, HTTP+JSON 1.0)" in section
    assert "*Cause not verified yet.* First failing step: `Then the call fails with TaskNotFound`: HTTP 500" in section


def test_a_verified_cause_comes_with_the_spec_and_the_exchange() -> None:
    (server, requirement), found = next(iter(conformance_doc.findings().items()))
    text = conformance_doc.render([report("this server", {}), report(server, {requirement: "fail"},
                                                                       failure=("A scenario", "why"))])
    section = text[text.index(f"### {server}"):]
    assert found["cause"].strip()[:60] in section and "```http" in section
    assert found["wire"].strip().splitlines()[0] in section


def test_every_requirement_that_cannot_apply_has_its_row() -> None:
    text = conformance_doc.render([report("this server", {})])
    for requirement in catalogue.load().requirements.values():
        if requirement.not_applicable:
            assert f"| {requirement.id} | {requirement.level.upper()} | §{requirement.section} |" in text


def test_every_kept_finding_is_about_a_requirement_of_the_catalogue() -> None:
    requirements = catalogue.load().requirements
    for (server, requirement), found in conformance_doc.findings().items():
        assert requirement in requirements, f"{server}: {requirement} is not in spec/requirements.toml"
        assert found["cause"].strip() and found["wire"].strip(), (server, requirement)


def test_the_checked_in_page_lists_every_peer_failure_with_a_verified_cause() -> None:
    text = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    assert "| level | this server | a2a-sdk 1.3 (Python) | @a2a-js/sdk 1.3 |" in text
    assert "Cause not verified yet" not in text


def test_the_static_sections_are_written_again_around_the_kept_peer_sections(tmp_path: Path) -> None:
    doc = tmp_path / "conformance.md"
    doc.write_text(conformance_doc.render([report("this server", {"CORE-GET-002": "pass"}),
                                           report("peer", {"CORE-GET-002": "fail"}, failure=("A scenario", "why"))],
                                          doc), encoding="utf-8")
    before = doc.read_text(encoding="utf-8")
    assert conformance_doc.main(["--static", "--doc", str(doc)]) == 0
    assert doc.read_text(encoding="utf-8") == before
    bare = tmp_path / "bare.md"
    bare.write_text("# Conformance\n", encoding="utf-8")
    assert conformance_doc.main(["--static", "--doc", str(bare)]) == 1  # no peers' sections to keep


def test_the_acts_and_tck_runs_are_on_the_page() -> None:
    text = conformance_doc.render([report("this server", {})])
    acts = text[text.index("### ACTS against this server"):]
    tck = text[text.index("### The official TCK against this server"):text.index("## Where ACTS")]
    runs = conformance_doc.runs()
    for failing in runs["failing"]:
        assert f"- **{failing['id']}** ({failing['pass']}, {failing['bindings']}) ({failing['category']})" in acts
    for failure in runs["tck"]["failure"]:
        assert f"`{failure['test']}` ({failure['requirement']}" in tck


def test_every_acts_failure_counted_is_listed_with_its_reason() -> None:
    runs = conformance_doc.runs()
    differences = {entry["title"]: entry["acts"] for entry in
                   tomllib.loads(conformance_doc.ACTS.read_text(encoding="utf-8"))["difference"]}
    for run in runs["pass"]:
        for count in run["counts"]:
            listed = [f["id"] for f in runs["failing"] if f["pass"] == run["name"]
                      and f["bindings"] in ("both", count["binding"])]
            assert len(listed) == len(set(listed)) == count["fail"], (run["name"], count["binding"], listed)
    for failing in runs["failing"]:
        assert failing["category"] in ("a", "b") and failing["why"].strip(), failing["id"]
        assert (failing["category"] == "a") == bool(failing.get("differences")), failing["id"]
        for title in failing.get("differences", []):
            assert failing["id"] in differences[title], f"{failing['id']} is not in the difference {title!r}"


def test_a_server_that_stopped_answering_is_said_once_with_what_it_left_unchecked() -> None:
    stopped = ("not run: the server stopped answering after the scenario 'Canceling a task' (jsonrpc-1.0), whose "
               "requests were all answered: its card now answers HTTP 500. Restart the server to run the scenarios "
               "after it.")
    report = {"requirements": [{"not_applicable": [stopped]}, {"not_applicable": [stopped]},
                               {"not_applicable": ["the agent's card does not declare streaming"]}]}
    said = conformance_doc.crash(report)
    assert said == ("It stopped answering after the scenario 'Canceling a task' (jsonrpc-1.0), whose requests were all "
                    "answered: its card now answers HTTP 500. 2 requirements could not be checked after it.")
    assert conformance_doc.crash({"requirements": [{"not_applicable": []}]}) == ""
