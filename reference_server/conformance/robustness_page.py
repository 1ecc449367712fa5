"""The living page's Robustness section: what a robustness run (reports/robustness.json) found, per rule and per
operation, and each finding with its reproducer; scripts/living_page.py puts it into the page."""

from __future__ import annotations

from html import escape
from typing import Any

START, END = "<!-- robustness -->", "<!-- /robustness -->"
CSS = """
.robustness .finding{background:#fff;border:1px solid #d5dae1;border-left:5px solid #c62828;border-radius:6px;
padding:.6rem .9rem;margin:.8rem 0}
.robustness td.count{text-align:right}.robustness .clean{border-left-color:#2e7d32}
"""
INTERFACE_NAMES = {"jsonrpc-1.0": "JSON-RPC 1.0", "rest-1.0": "HTTP+JSON 1.0", "jsonrpc-0.3": "JSON-RPC 0.3",
                   "rest-0.3": "HTTP+JSON 0.3", "": "any interface"}
COLUMNS = ["sent", "2xx", "4xx", "5xx", "no answer"]  # the answers counted per operation, before the rules


def interface_name(interface: str) -> str:
    return INTERFACE_NAMES.get(interface, interface)


def section(report: dict[str, Any]) -> str:
    """The section, between its markers, so that a later run can replace it."""
    out = [START, f'<section class="robustness" id="robustness"><style>{CSS}</style><h2>Robustness</h2>']
    if "could_not_run" in report:
        out.append(f"<p>The robustness run against {escape(report['target'])} could not start: "
                   f"{escape(report['could_not_run'])}</p></section>{END}")
        return "".join(out)
    sent = report["requests"]
    found = len(report["findings"])
    out.append(f'<p class="muted">Hostile requests from <code>tests/fuzz</code> (<code>make fuzz</code> with '
               f"A2A_TARGET_URL) against {escape(report['target'])}, {escape(report['generated'])}: "
               f"{sent['hostile']} hostile requests (seed {report['settings']['seed']}), {sent['probes']} health "
               f"probes, {sent['follow_ups']} follow-up GetTasks, {sent['shrink_tries']} tries to shrink the "
               f"findings, in {report['seconds']:g} s. Exit status {report['exit_status']}: "
               f"{'no finding' if not found else f'{found} finding' + ('s' if found != 1 else '')}.</p>")
    out += [f"<p>{escape(note)}</p>" for note in report["notes"]]
    if report["stopped"]:
        out.append(f"<p><b>The run stopped early:</b> {escape(report['stopped'])}</p>")
    out.append("<table><tr><th>rule</th><th>what it asks</th><th>source</th><th>findings</th><th>requests</th></tr>")
    for rule in report["rules"]:
        word = "fail" if rule["findings"] else "pass"
        out.append(f"<tr><td><code>{escape(rule['id'])}</code></td><td>{escape(rule['says'])}</td>"
                   f"<td>{escape(rule['source'])}</td><td class=\"{word} count\">{rule['findings']}</td>"
                   f"<td class=\"count\">{rule['requests']}</td></tr>")
    out.append("</table>")
    rules = [rule["id"] for rule in report["rules"] if any(op.get(rule["id"]) for op in report["operations"])]
    out.append("<table><tr><th>interface</th><th>operation</th>" + "".join(
        f"<th>{escape(c)}</th>" for c in COLUMNS + rules) + "</tr>")
    for op in report["operations"]:
        out.append(f"<tr><td>{escape(interface_name(op['interface']))}</td><td>{escape(op['operation'])}</td>"
                   + "".join(f'<td class="count">{op.get(c, 0)}</td>' for c in COLUMNS + rules) + "</tr>")
    out.append("</table>")
    for finding in report["findings"]:
        out.append(_finding(finding))
    out.append(f"</section>{END}")
    return "".join(out)


def _finding(finding: dict[str, Any]) -> str:
    reproducer = finding["reproducer"]
    formed = f", {finding['well_formed']} of them well-formed" if finding["well_formed"] else ""
    count = f"{finding['requests']} {'times' if finding['rule'] == 'crash' else 'requests'}"
    parts = [f'<div class="finding"><h3><code>{escape(finding["rule"])}</code> {escape(finding["title"])}: '
             f"{escape(interface_name(finding['interface']))}"
             + (f", {escape(finding['kind'])}" if finding.get("kind") else "") + "</h3>",
             "<p>On: " + escape(", ".join(f"{op} ({n})" for op, n in finding["operations"].items())) + "</p>",
             f'<p class="muted">{count}{formed}; {escape(finding["source"])}</p>',
             f"<p>First: {escape(finding['first'])}</p>",
             f"<p>Reproducer ({escape(reproducer['how'])}): {escape(reproducer['answered'])}</p>"]
    if reproducer["request"] and reproducer["request"]["broken"]:
        parts.append(f"<p class=\"muted\">Broken on purpose: {escape('; '.join(reproducer['request']['broken']))}</p>")
    if reproducer["request"] is not None:
        parts.append(f'<pre class="exchange">{escape(reproducer["curl"])}</pre>')
    if finding["before"]:
        parts.append("<details open><summary>The last requests before it, oldest first</summary>" + "".join(
            f'<pre class="exchange">{escape(sent["curl"])}</pre><p class="muted">got: {escape(sent["got"])}</p>'
            for sent in finding["before"]) + "</details>")
    parts += [f"<p>{escape(note)}</p>" for note in finding["notes"]]
    return "".join(parts) + "</div>"


def placed(page: str, report: dict[str, Any]) -> str:
    """The page with the section of this report: in place of the one it had, or at the end of its main part."""
    if START in page and END in page:
        head, rest = page.split(START, 1)
        return head + section(report) + rest.split(END, 1)[1]
    return page.replace("</main>", section(report) + "</main>", 1)
