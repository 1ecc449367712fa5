"""The living documentation page (scripts/living_page.py): what it shows, escaped, and that a real browser
renders every feature and scenario of spec/features."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from reference_server.conformance import catalogue
from reference_server.conformance.living_page import (
    PROTOCOLS,
    Page,
    page_for,
    parse_feature,
    render,
    snapshot_stem,
    write,
)

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI") == "true"

FEATURE = '''@cards
Feature: A small feature
  Design, "Small": the first line of the prose,
  and its second line.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  @Card_Public_IsGeneric @v0_3
  Scenario: The card is <b>bold</b> & plain
    When the caller fetches the card
    Then the card matches the snapshot
      """
      <script>alert("not run")</script>
      """

  Scenario Outline: Each version is answered
    When the caller sends A2A-Version "<version>"
    Then the call fails with <error>

    Examples:
      | version | error               |
      | 2.0     | VersionNotSupported |
'''


def result(scenario: str, protocol: str, outcome: str) -> dict[str, Any]:
    return {"nodeid": f"x[{protocol}]", "feature": "small.feature", "scenario": scenario, "tags": [],
            "protocol": protocol, "outcome": outcome}


@pytest.fixture
def small(tmp_path: Path) -> Page:
    (tmp_path / "small.feature").write_text(FEATURE)
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    stem = snapshot_stem("The card is <b>bold</b> & plain")
    for protocol, name in [("jsonrpc-1.0", "Card <one>"), ("rest-1.0", "Card <one>"), ("rest-0.3", "Card 0.3")]:
        (snapshots / f"{stem}[{protocol}].json").write_text(json.dumps({"name": name, "skills": []}))
    results = [result("The card is <b>bold</b> & plain", "jsonrpc-1.0", "passed"),
               result("The card is <b>bold</b> & plain", "rest-1.0", "failed"),
               result("The card is <b>bold</b> & plain", "rest-0.3", "xfailed"),
               result("Each version is answered", "jsonrpc-1.0", "passed"),
               result("Each version is answered", "rest-1.0", "skipped")]
    design = {"Card_Public_IsGeneric": "design test Card_Public_IsGeneric"}
    return Page([parse_feature(tmp_path / "small.feature")], results, design, snapshots, generated="today")


def test_a_feature_is_parsed_with_its_prose_background_steps_and_examples(small: Page) -> None:
    feature = small.features[0]
    assert (feature.name, feature.tags) == ("A small feature", ["cards"])
    assert feature.description == 'Design, "Small": the first line of the prose, and its second line.'
    assert [step.text for step in feature.background] == ['a workspace of "owner-1" with the caller "travel-bot"']
    card, outline = feature.scenarios
    assert card.tags == ["Card_Public_IsGeneric", "v0_3"]
    assert card.steps[1].doc == '<script>alert("not run")</script>'
    assert outline.examples == [[["version", "error"], ["2.0", "VersionNotSupported"]]]


def test_the_page_escapes_everything_it_quotes(small: Page) -> None:
    html = render(small)
    assert "<script>" not in html and "<b>bold</b>" not in html
    assert "The card is &lt;b&gt;bold&lt;/b&gt; &amp; plain" in html
    assert "&lt;script&gt;alert(&quot;not run&quot;)&lt;/script&gt;" in html
    assert "&quot;Card &lt;one&gt;&quot;" in html  # the snapshot's JSON, pretty-printed and escaped


def test_each_scenario_shows_its_result_per_protocol(small: Page) -> None:
    html = render(small)
    start = html.rindex("<article", 0, html.index('id="scenario-the-card-is-b-bold-b-plain"'))
    card = html[start:html.index('id="scenario-each-version')]
    cells = card[card.index('class="results"'):card.index("</table>", card.index('class="results"'))]
    assert [cls for cls in ("pass", "fail", "xfail", "none") if f'<td class="{cls}"' in cells] == [
        "pass", "fail", "xfail", "none"]
    assert cells.count("<td") == len(PROTOCOLS)
    assert 'class="scenario fail"' in card  # a failing scenario stands out, and is listed at the top
    assert '<b>Failing:</b> <a href="#scenario-the-card-is-b-bold-b-plain">' in html
    assert '<td class="skip" title="skipped">skip 0/1</td>' in html


def test_snapshots_are_grouped_by_content_under_their_scenario(small: Page) -> None:
    html = render(small)
    shared = '<p class="muted">JSON-RPC 1.0, HTTP+JSON 1.0</p><pre>{\n  &quot;name&quot;: &quot;Card &lt;one&gt;&quot;'
    assert shared in html
    assert '<p class="muted">HTTP+JSON 0.3</p>' in html
    outline = html[html.index('id="scenario-each-version'):]
    assert "Wire example" not in outline


def test_design_tests_are_listed_with_their_scenarios(small: Page) -> None:
    html = render(small)
    index = html[html.index('id="design-tests"'):html.index("</table>", html.index('id="design-tests"'))]
    assert "<code>Card_Public_IsGeneric</code>" in index
    assert '<a href="#scenario-the-card-is-b-bold-b-plain">' in index
    assert 'class="tag design" title="design test Card_Public_IsGeneric">@Card_Public_IsGeneric' in html


def test_every_real_snapshot_is_shown_under_its_scenario() -> None:
    page = page_for(ROOT, [], design=ROOT)
    stems = {snapshot_stem(scenario.name) for feature in page.features for scenario in feature.scenarios}
    files = {path.stem.partition("[")[0] for path in page.snapshot_dir.glob("*.json")}
    assert files and files <= stems, f"snapshots of no scenario: {sorted(files - stems)}"


def test_the_requirement_view_gives_each_requirement_its_word_and_each_failure_its_step() -> None:
    page = page_for(ROOT, [], design=ROOT, generated="in a test")
    scenario = "Getting a task that does not exist is refused"
    tags = ["CORE-GET-002", "must", "portable", "spec-3.1.3", "tasks", "v0_3"]
    page.results = [
        {"nodeid": "a[jsonrpc-1.0]", "feature": "a2a/get.feature", "scenario": scenario, "tags": tags,
         "level": "must", "protocol": "jsonrpc-1.0", "outcome": "passed"},
        {"nodeid": "a[rest-1.0]", "feature": "a2a/get.feature", "scenario": scenario, "tags": tags, "level": "must",
         "protocol": "rest-1.0", "outcome": "failed", "step": "Then the call fails with TaskNotFound",
         "message": "expected TaskNotFound (HTTP 404), got HTTP 500: <b>boom</b>"}]
    html = render(page)
    row = html[html.index('id="requirement-CORE-GET-002"'):]
    row, details = row[:row.index("</tr>")], row[row.index("</tr>"):row.index("</tr>", row.index("</tr>") + 1)]
    assert '<td class="pass">pass</td><td class="fail">fail</td>' in row
    # what failed, in the row below, the table's whole width
    assert details.startswith('</tr><tr class="details-row"><td colspan=')
    assert f'<a href="#scenario-getting-a-task-that-does-not-exist-is-refused">{scenario}</a>' in details
    assert "<code>Then the call fails with TaskNotFound</code>" in details and "&lt;b&gt;boom&lt;/b&gt;" in details
    signing = html[html.index('id="requirement-CARD-SIGN-001"'):]
    signing = signing[:signing.index("</tr>", signing.index("</tr>") + 1)]  # its row and the row of why
    assert "n/a: Card signing is out of the design&#x27;s scope" in signing
    summary = html[html.index('class="results summary"'):]
    assert '<th>MUST</th><td class="fail">0 pass, 1 fail, ' in summary[:summary.index("</table>")]


def test_the_features_come_in_two_halves_the_protocols_first() -> None:
    html = render(page_for(ROOT, [], design=ROOT, generated="in a test"))
    protocol, design = html.index('id="part-a2a"'), html.index('id="part-design"')
    send, auth = html.index('id="feature-a2a-send-feature"'), html.index('id="feature-design-auth-feature"')
    assert protocol < send < design < auth


# --- the page in a real browser ---


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if IN_CI:
            pytest.fail("chromium is not installed: .ci/run installs Debian's chromium with apt-get")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
    return path


class Headings(HTMLParser):
    """The text of every h2 and h3 of a DOM, as the browser left it."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h2", "h3"):
            self._open = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h2", "h3") and self._open is not None:
            self.headings.append("".join(self._open))
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open.append(data)


def canned_results(page: Page) -> list[dict[str, Any]]:
    """A result for every real scenario on both 1.0 bindings, as a conformance run writes them (no spec run)."""
    return [{"nodeid": f"tests/features/test_spec.py::{snapshot_stem(s.name)}[{protocol}]", "feature": f.file,
             "scenario": s.name, "tags": s.tags, "protocol": protocol, "outcome": "passed"}
            for f in page.features for s in f.scenarios for protocol in ("jsonrpc-1.0", "rest-1.0")]


def test_every_feature_and_scenario_is_on_the_page_rendered_by_chromium(tmp_path: Path) -> None:
    browser = chromium()
    page = page_for(ROOT, [], design=ROOT, generated="in a test")
    page.results = canned_results(page)
    path = tmp_path / "conformance.html"
    write(path, page)
    run = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", path.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    dom = Headings()
    dom.feed(run.stdout)
    features = [feature.name for feature in page.features]
    scenarios = [scenario.name for feature in page.features for scenario in feature.scenarios]
    assert len(features) == len(list((ROOT / "spec" / "features").rglob("*.feature"))) and scenarios
    missing = [name for name in [*features, *scenarios] if name not in dom.headings]
    assert not missing, f"not on the rendered page: {missing}"
    assert run.stdout.count('class="results"') == len(scenarios)
    assert {"Requirements", "A2A: what every server does", "This server's design"} <= set(dom.headings)
    rows = run.stdout.count('id="requirement-')
    assert rows == len(catalogue.load().requirements), f"{rows} requirement rows on the rendered page"
