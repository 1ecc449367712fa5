"""The requirement view of the living page: how many requirements passed, failed or did not apply, by level and
protocol; then every requirement with its word on each protocol, and for each failure the scenario and the message
of the step that failed."""

from __future__ import annotations

from html import escape
from typing import Any

from reference_server.conformance.by_requirement import (
    FAIL,
    NOT_APPLICABLE,
    PASS,
    PROTOCOL_NAMES,
    PROTOCOLS,
    Verdict,
    offers,
    summary,
)
from reference_server.conformance.catalogue import LEVEL_NAMES, SPEC_LEVELS

CLASSES = {PASS: "pass", FAIL: "fail", NOT_APPLICABLE: "skip"}  # the page's result colours
MEANING = {"must": "a failure fails the run", "should": "a failure is a warning", "may": "a failure is information"}


NOT_OFFERED = '<td class="none" title="the server offers no such interface">not offered</td>'




def view(verdicts: list[Verdict], scenario_anchor: Any, offered: set[str] | None = None) -> str:
    """The section, given the verdicts, how to link to a scenario by its name, and the protocols the server offers
    (None: all)."""
    out = ['<section id="requirements"><h2>Requirements</h2>',
           '<p class="muted">Each requirement of <code>spec/requirements.toml</code> (the official TCK\'s ids, and '
           "SPEC-&hellip; ids of ours for the spec's MUSTs and SHOULDs it has no id for) with the results of the "
           "portable scenarios tagged with it. <b>n/a</b>: it cannot be observed on this server (the reason is "
           "given) or the scenario does not run on that protocol there.</p>",
           _summary(verdicts, offered)]
    for level in SPEC_LEVELS:
        rows = [v for v in verdicts if v.requirement.level == level]
        out.append(f'<h3 id="requirements-{level}">{LEVEL_NAMES[level]} ({len(rows)}): {MEANING[level]}</h3>')
        out.append(_table(rows, scenario_anchor, offered))
    out.append("</section>")
    return "\n".join(out)


def _summary(verdicts: list[Verdict], offered: set[str] | None) -> str:
    counts = summary(verdicts)
    head = "<tr><th>level</th><th>all protocols</th>" + "".join(f"<th>{PROTOCOL_NAMES[p]}</th>" for p in PROTOCOLS)
    rows = []
    for level, row in counts.items():
        cells = []
        for key in ("all", *PROTOCOLS):
            if key != "all" and not offers(key, offered):
                cells.append(NOT_OFFERED)
                continue
            c = row[key]
            word = FAIL if c[FAIL] else PASS if c[PASS] else NOT_APPLICABLE
            text = f"{c[PASS]} pass, {c[FAIL]} fail, {c[NOT_APPLICABLE]} n/a"
            empty = '<td class="none">&ndash;</td>'
            cells.append(f'<td class="{CLASSES[word]}">{text}</td>' if sum(c.values()) else empty)
        rows.append(f"<tr><th>{LEVEL_NAMES[level]}</th>{''.join(cells)}</tr>")
    return f'<table class="results summary">{head}</tr>{"".join(rows)}</table>'


def _table(rows: list[Verdict], scenario_anchor: Any, offered: set[str] | None) -> str:
    """One row a requirement, with a column for each protocol that has a result in the table or that the server
    offers (the summary above says which it does not); what failed, or why it does not apply, in a row of its own
    below, the table's whole width, so that a long message and its exchange read as prose."""
    shown = [p for p in PROTOCOLS if offers(p, offered) or any(v.outcomes.get(p) for v in rows)]
    head = ("<tr><th>requirement</th><th>section</th><th>what it asks</th>"
            + "".join(f"<th>{PROTOCOL_NAMES[p]}</th>" for p in shown) + "</tr>")
    body = []
    for verdict in rows:
        r = verdict.requirement
        cells = []
        for protocol in shown:
            word = verdict.outcomes.get(protocol)
            if not offers(protocol, offered):
                cells.append(NOT_OFFERED)
                continue
            cells.append(f'<td class="{CLASSES[word]}">{word}</td>' if word else '<td class="none">&ndash;</td>')
        said = escape(r.says) + (f'<br><span class="muted">{escape(r.note)}</span>' if r.note else "")
        body.append(f'<tr id="requirement-{escape(r.id)}"><td><code>{escape(r.id)}</code></td>'
                    f"<td>&sect;{escape(r.section)}</td><td>{said}</td>{''.join(cells)}</tr>")
        details = _details(verdict, scenario_anchor)
        if details:
            body.append(f'<tr class="details-row"><td colspan="{3 + len(shown)}">{details}</td></tr>')
    return f'<table class="results requirements">{head}{"".join(body)}</table>'


def _details(verdict: Verdict, scenario_anchor: Any) -> str:
    """For a failed requirement, the sentence of A2A it tests, then each failure: the scenario, protocol, the
    failing step, what was expected and what came, and the exchange; or why the requirement did not apply."""
    items = []
    if verdict.failures and verdict.requirement.quote:
        items.append(f'<li class="quote">A2A &sect;{escape(verdict.requirement.section)}: '
                     f"&ldquo;{escape(verdict.requirement.quote)}&rdquo;</li>")
    for f in verdict.failures:
        seen = f" (in {f.seen} answers)" if f.seen > 1 else ""
        exchange = f'<pre class="exchange">{escape(f.exchange)}</pre>' if f.exchange else ""
        items.append(f'<li class="failure"><a href="#{scenario_anchor(f.scenario)}">{escape(f.scenario)}</a> '
                     f'<span class="muted">({escape(PROTOCOL_NAMES.get(f.protocol, f.protocol))}){seen}</span>: '
                     f'<code>{escape(f.step)}</code><div class="reason">{escape(f.message)}</div>{exchange}</li>')
    if verdict.overall == NOT_APPLICABLE:
        items += [f'<li class="muted">n/a: {escape(reason)}</li>' for reason in sorted(set(verdict.reasons))]
    return f'<ul class="details">{"".join(items)}</ul>' if items else ""
