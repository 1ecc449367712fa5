"""The living documentation page: spec/features with their results per protocol and their wire examples, as one
self-contained HTML file (inline CSS, no script) that `make conformance` writes beside reports/conformance.json."""

from __future__ import annotations

import json
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from html import escape, unescape
from pathlib import Path
from typing import Any

from gherkin.parser import Parser
from pytest_bdd.scenario import make_python_name

from reference_server.conformance import by_requirement, catalogue, requirements_page, robustness_page
from reference_server.conformance.by_requirement import PROTOCOL_NAMES, PROTOCOLS

# the two halves of spec/features: what A2A asks of every server, and what this server's design decides
FOLDERS = {"a2a/": ("A2A: what every server does", "Portable scenarios: they drive any A2A server through the TCK's "
                    "messageId prefixes, and each proves a requirement of A2A v1.0.1 at its level."),
           "design/": ("This server's design", "What the design decides and this server's own conventions: these "
                       "scenarios need this server's workspace, settings or scripted agent.")}
OUTCOME_WORDS = {"pass": "passed", "fail": "failed", "xfail": "expected to fail", "skip": "skipped"}


@dataclass
class Step:
    keyword: str
    text: str
    table: list[list[str]] = field(default_factory=list)
    doc: str | None = None


@dataclass
class Scenario:
    name: str
    keyword: str
    tags: list[str]
    description: str
    steps: list[Step]
    examples: list[list[list[str]]]  # each Examples table: header row, then the rows


@dataclass
class Feature:
    file: str
    name: str
    tags: list[str]
    description: str
    background: list[Step]
    scenarios: list[Scenario]


def _step(raw: dict[str, Any]) -> Step:
    table = [[cell["value"] for cell in row["cells"]] for row in raw.get("dataTable", {}).get("rows", [])]
    doc = raw["docString"]["content"] if "docString" in raw else None
    return Step(raw["keyword"].strip(), raw["text"], table, doc)


def _prose(text: str) -> str:
    """A description as the feature file wraps it, reflowed: one paragraph per block of lines."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


def parse_feature(path: Path, base: Path | None = None) -> Feature:
    """A feature file as the page shows it (the same gherkin parser as the spec lint), named by its path under
    `base` (spec/features) when given."""
    raw: Any = Parser().parse(path.read_text(encoding="utf-8"))["feature"]
    background: list[Step] = []
    scenarios: list[Scenario] = []
    for child in raw["children"]:
        if "background" in child:
            background = [_step(step) for step in child["background"]["steps"]]
        elif "scenario" in child:
            s = child["scenario"]
            examples = [[[c["value"] for c in e["tableHeader"]["cells"]],
                         *[[c["value"] for c in row["cells"]] for row in e["tableBody"]]]
                        for e in s.get("examples", []) if "tableHeader" in e]
            tags = [t["name"].lstrip("@") for t in [*s["tags"], *(t for e in s.get("examples", []) for t in e["tags"])]]
            scenarios.append(Scenario(s["name"], s["keyword"], list(dict.fromkeys(tags)),
                                      _prose(s["description"]), [_step(step) for step in s["steps"]], examples))
    name = path.relative_to(base).as_posix() if base is not None else path.name
    return Feature(name, raw["name"], [t["name"].lstrip("@") for t in raw["tags"]], _prose(raw["description"]),
                   background, scenarios)


def snapshot_stem(scenario: str) -> str:
    """The test function pytest-bdd makes of a scenario, whose name the snapshot files carry."""
    return "test_" + make_python_name(scenario)


def snapshots_of(scenario: str, snapshot_dir: Path) -> list[tuple[list[str], Any]]:
    """The scenario's snapshots as (the protocols that share it, the content), one entry per distinct content."""
    prefix = snapshot_stem(scenario) + "["
    grouped: dict[str, tuple[list[str], Any]] = {}
    for path in sorted(snapshot_dir.glob("*.json")):
        if path.stem.startswith(prefix):
            content = json.loads(path.read_text(encoding="utf-8"))
            key = json.dumps(content, sort_keys=True)
            grouped.setdefault(key, ([], content))[0].append(path.stem[len(prefix):].rstrip("]"))
    order = {protocol: index for index, protocol in enumerate(PROTOCOLS)}
    return [(sorted(protocols, key=lambda p: (order.get(p, len(order)), p)), content)
            for protocols, content in grouped.values()]


def outcome(results: list[dict[str, Any]]) -> str:
    """One word for the results of one scenario on one protocol (as the terminal table of `make conformance`)."""
    outcomes = {r["outcome"] for r in results}
    if "failed" in outcomes:
        return "fail"
    if outcomes == {"xfailed"}:
        return "xfail"
    if "skipped" in outcomes:
        return "skip"
    return "pass"


# --- HTML ---

CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d232b;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:1.5rem}
h1{margin:.2rem 0}h2{margin:2.5rem 0 .3rem;border-bottom:2px solid #d5dae1;padding-bottom:.2rem}
h3{margin:0 0 .4rem;font-size:1.05rem}
a{color:#0b5cad}code,pre,.step{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:13px}
.prose{white-space:pre-line;color:#333}.muted{color:#667}
.scenario{background:#fff;border:1px solid #d5dae1;border-radius:6px;padding:.8rem 1rem;margin:.8rem 0}
.scenario.fail{border-left:5px solid #c62828}
.tag{display:inline-block;font-size:12px;padding:0 .4rem;margin:0 .2rem .2rem 0;border-radius:3px;background:#e8ebef}
.tag.design{background:#fff3c4;border:1px solid #e0c25c}
.steps{margin:.4rem 0;padding-left:1rem;list-style:none}.step b{color:#6a3d9a}
table{border-collapse:collapse;margin:.3rem 0}td,th{border:1px solid #d5dae1;padding:.15rem .5rem;text-align:left}
th{background:#eef1f4}
.results td{text-align:center;min-width:7.5rem}
.pass{background:#dff3e1}.fail{background:#fbdcdc}.xfail{background:#fff3c4}.skip{background:#eceff1}
.none{color:#99a}
pre{background:#0f1720;color:#e6edf3;padding:.6rem .8rem;border-radius:4px;overflow:auto;max-height:30rem}
details{margin:.4rem 0}summary{cursor:pointer;color:#0b5cad}
nav ul{columns:2;padding-left:1.2rem}
.requirements td{text-align:left}
.details{margin:.2rem 0;padding-left:1rem}.details .failure{color:#8a1c1c}
.tag.level{background:#dde8f7;border:1px solid #8fb0de}
.server{background:#fff;border:1px solid #d5dae1;border-left:5px solid #0b5cad;padding:.6rem .9rem;border-radius:4px}
.exchange{white-space:pre-wrap;word-break:break-word;max-height:14rem;font-size:12px;margin:.3rem 0}
.reason{white-space:pre-line}.quote{font-style:italic;color:#445}
.requirements{table-layout:fixed;width:100%}.requirements td,.requirements th{overflow-wrap:anywhere}
.requirements th:nth-child(1){width:9.5rem}.requirements th:nth-child(2){width:4rem}
.requirements th:nth-child(3){width:auto}.requirements th:nth-child(n+4){width:6.5rem}
.details-row td{background:#fff;padding:.2rem .8rem .5rem}
.requirements td.pass,.requirements td.fail,.requirements td.skip,.requirements td.none{width:5.2rem;min-width:0}
.results.summary td{min-width:0}
"""


def _tags(tags: list[str], design: dict[str, str]) -> str:
    return "".join(
        f'<span class="tag design" title="{escape(design[t])}">@{escape(t)}</span>' if t in design
        else f'<span class="tag level" title="{escape(catalogue.LEVEL_DESCRIPTIONS[t])}">@{escape(t)}</span>'
        if t in catalogue.LEVELS else f'<span class="tag">@{escape(t)}</span>' for t in tags)


def _table(rows: list[list[str]], *, header: bool) -> str:
    head, body = (rows[0], rows[1:]) if header else ([], rows)
    out = ["<table>"]
    if head:
        out.append("<tr>" + "".join(f"<th>{escape(c)}</th>" for c in head) + "</tr>")
    out += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in body]
    return "".join(out) + "</table>"


def _steps(steps: list[Step]) -> str:
    items = []
    for step in steps:
        extra = _table(step.table, header=False) if step.table else ""
        extra += f"<pre>{escape(step.doc)}</pre>" if step.doc is not None else ""
        items.append(f'<li class="step"><b>{escape(step.keyword)}</b> {escape(step.text)}{extra}</li>')
    return f'<ul class="steps">{"".join(items)}</ul>'


def _results(by_protocol: dict[str, list[dict[str, Any]]]) -> str:
    head = "".join(f"<th>{PROTOCOL_NAMES[p]}</th>" for p in PROTOCOLS)
    cells = []
    for protocol in PROTOCOLS:
        results = by_protocol.get(protocol, [])
        if not results:
            cells.append('<td class="none" title="does not run on this protocol">&ndash;</td>')
            continue
        word = outcome(results)
        passed = sum(r["outcome"] == "passed" for r in results)
        count = f" {passed}/{len(results)}" if len(results) > 1 or word != "pass" else ""
        cells.append(f'<td class="{word}" title="{OUTCOME_WORDS[word]}">{word}{count}</td>')
    return f'<table class="results"><tr>{head}</tr><tr>{"".join(cells)}</tr></table>'


def _wire(examples: list[tuple[list[str], Any]]) -> str:
    if not examples:
        return ""
    blocks = []
    for protocols, content in examples:
        names = ", ".join(PROTOCOL_NAMES.get(p, p) for p in protocols)
        text = json.dumps(content, indent=2, ensure_ascii=False)
        blocks.append(f'<p class="muted">{escape(names)}</p><pre>{escape(text)}</pre>')
    return (f"<details open><summary>Wire example{'s' if len(examples) > 1 else ''} from the snapshots</summary>"
            f"{''.join(blocks)}</details>")


def anchor(kind: str, name: str) -> str:
    return kind + "-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass
class Page:
    features: list[Feature]
    results: list[dict[str, Any]]
    design_tests: dict[str, str]  # name -> description (the pytest markers of the design's Testing section)
    snapshot_dir: Path
    target: str | None = None
    generated: str = ""
    description: str | None = None  # what discovery found the target speaks (conformance/support/target.py)
    offered: set[str] | None = None  # the protocols the target's card offers; None: this server, all of them


def render(page: Page) -> str:
    """The whole page: summary, design tests, then every feature with its scenarios."""
    by_scenario: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for result in page.results:
        by_scenario[result["feature"], result["scenario"]][result["protocol"]].append(result)
    totals: dict[str, int] = defaultdict(int)
    for result in page.results:
        totals[result["outcome"]] += 1
    failing = [(f, s) for f in page.features for s in f.scenarios
               if any(outcome(rs) == "fail" for rs in by_scenario[f.file, s.name].values())]
    count = sum(len(f.scenarios) for f in page.features)

    title = (f"A2A conformance of {page.target}" if page.target
             else "A2A reference server: living documentation")
    out = [f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
           f'<meta name="viewport" content="width=device-width, initial-scale=1">'
           f'<meta name="a2a-target" content="{escape(page.target or "")}">'
           f"<title>{escape(title)}</title><style>{CSS}</style></head><body><main>"
           f"<h1>{escape(title)}</h1>"
           + (f'<p class="server">{escape(page.description)}</p>' if page.description else "") +
           f'<p class="muted">The executable specification in <code>spec/features/</code>: {len(page.features)} '
           f"features, {count} scenarios, run against "
           f"{escape(page.target) + ' (portable scenarios only)' if page.target else 'the reference server'}"
           f"{', ' + escape(page.generated) if page.generated else ''}. "
           "Each scenario runs on every protocol its tags ask for, and every response is validated against the "
           "JSON Schemas in <code>spec/schemas/</code>. A dash means the scenario does not run on that protocol.</p>"
           f"<p>{len(page.results)} results: " + ", ".join(f"{n} {escape(k)}" for k, n in sorted(totals.items()))
           + "</p>"]
    if failing:
        out.append("<p><b>Failing:</b> " + ", ".join(
            f'<a href="#{anchor("scenario", s.name)}">{escape(s.name)}</a>' for _f, s in failing) + "</p>")
    verdicts = by_requirement.verdicts(page.results, catalogue.load())
    out.append(requirements_page.view(verdicts, lambda name: anchor("scenario", name), page.offered))
    halves = [(folder, title, text, [f for f in page.features if f.file.startswith(folder)])
              for folder, (title, text) in FOLDERS.items()]
    halves.append(("", "Features", "", [f for f in page.features if not f.file.startswith(tuple(FOLDERS))]))
    out.append("<nav>" + "".join(
        f"<h2>{escape(title)}</h2><ul>" + "".join(
            f'<li><a href="#{anchor("feature", f.file)}">{escape(f.name)}</a> '
            f'<span class="muted">({len(f.scenarios)})</span></li>' for f in features) + "</ul>"
        for _folder, title, _text, features in halves if features) + "</nav>")
    out.append(_design_index(page, by_scenario))
    for folder, title, text, features in halves:
        if features:
            out.append(f'<h2 id="{anchor("part", folder or "other")}" class="part">{escape(title)}</h2>'
                       f'<p class="muted">{escape(text)}</p>')
        for feature in features:
            out.append(_feature(feature, page, by_scenario))
    out.append("</main></body></html>")
    return "\n".join(out)


def _design_index(page: Page, by_scenario: dict[tuple[str, str], dict[str, list[dict[str, Any]]]]) -> str:
    rows = []
    for name, description in page.design_tests.items():
        scenarios = [(f, s) for f in page.features for s in f.scenarios if name in s.tags]
        links = "<br>".join(f'<a href="#{anchor("scenario", s.name)}">{escape(s.name)}</a>' for _f, s in scenarios)
        results = [r for f, s in scenarios for rs in by_scenario[f.file, s.name].values() for r in rs]
        word = outcome(results) if results else "none"
        shown = word if results else "&ndash;"
        rows.append(f'<tr><td title="{escape(description)}"><code>{escape(name)}</code></td>'
                    f'<td>{links or "no scenario yet"}</td><td class="{word}">{shown}</td></tr>')
    return ('<h2 id="design-tests">Design tests</h2><p class="muted">The test names of the design\'s Testing '
            "section; each is the tag of the scenarios that make it executable.</p>"
            "<table><tr><th>design test</th><th>scenarios</th><th>result</th></tr>" + "".join(rows) + "</table>")


def _feature(feature: Feature, page: Page,
             by_scenario: dict[tuple[str, str], dict[str, list[dict[str, Any]]]]) -> str:
    out = [f'<section id="{anchor("feature", feature.file)}"><h2>{escape(feature.name)}</h2>',
           f'<p class="muted"><code>spec/features/{escape(feature.file)}</code> {_tags(feature.tags, {})}</p>',
           f'<p class="prose">{escape(feature.description)}</p>']
    if feature.background:
        out.append(f'<div class="scenario"><h3>Background</h3>{_steps(feature.background)}</div>')
    for scenario in feature.scenarios:
        results = by_scenario[feature.file, scenario.name]
        failed = any(outcome(rs) == "fail" for rs in results.values())
        out.append(f'<article class="scenario{" fail" if failed else ""}" id="{anchor("scenario", scenario.name)}">'
                   f"<h3>{escape(scenario.name)}</h3><div>{_tags(scenario.tags, page.design_tests)}</div>")
        if scenario.description:
            out.append(f'<p class="prose">{escape(scenario.description)}</p>')
        out.append(_steps(scenario.steps))
        for table in scenario.examples:
            out.append("<p class=\"muted\">Examples</p>" + _table(table, header=True))
        out.append(_results(results))
        out.append(_wire(snapshots_of(scenario.name, page.snapshot_dir)))
        out.append("</article>")
    out.append("</section>")
    return "\n".join(out)


def design_tests(checkout: Path | None) -> dict[str, str]:
    """Every test named in the design's Testing section (the markers registered in a checkout's pyproject), with its
    text; none outside a checkout."""
    if checkout is None:
        return {}
    markers = tomllib.loads((checkout / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    return dict(m.split(": ", 1) for m in markers if ": design test " in m)


def page_for(root: Path, results: list[dict[str, Any]], *, target: str | None = None, generated: str = "",
             description: str | None = None, offered: set[str] | None = None, design: Path | None = None) -> Page:
    """The page of spec/features under root (a checkout, or the package of a wheel) with these results; the design
    tests and the snapshots of the checkout `design`, when there is one."""
    base = root / "spec" / "features"
    features = [parse_feature(path, base) for path in sorted(base.rglob("*.feature"))]
    snapshots = (design or root) / "spec" / "snapshots" / "test_spec"
    return Page(features, results, design_tests(design), snapshots, target, generated, description, offered)


def write(path: Path, page: Page) -> None:
    """The page, with the Robustness section of the robustness report beside it when that report is of the same
    target (`make fuzz` with the same A2A_TARGET_URL)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    html = render(page)
    report = _robustness_report(path.parent / "robustness.json")
    if report is not None and _same_target(report.get("target"), page.target):
        html = robustness_page.placed(html, report)
    path.write_text(html, encoding="utf-8")


def add_robustness(path: Path, report: dict[str, Any], *, any_target: bool = False) -> bool:
    """Put a robustness report's section into the living page at `path` (in place of the one it had), when the page
    is of the same target, or of any with any_target (a peer's page, whose port changes from run to run). Whether
    it did."""
    try:
        html = path.read_text(encoding="utf-8")
    except OSError:
        return False
    found = re.search(r'<meta name="a2a-target" content="([^"]*)">', html)
    if not any_target and (found is None or not _same_target(report.get("target"), unescape(found.group(1)))):
        return False
    path.write_text(robustness_page.placed(html, report), encoding="utf-8")
    return True


def _robustness_report(path: Path) -> dict[str, Any] | None:
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) and "could_not_run" not in report else None


def _same_target(one: Any, other: str | None) -> bool:
    return bool(one) and bool(other) and str(one).rstrip("/") == str(other).rstrip("/")
