"""client-report.html: the client report as one self-contained page (inline CSS, no script)."""

from __future__ import annotations

import json
from html import escape
from typing import Any

MAX_EXCHANGE_CHARS = 20_000  # an exchange shown under a violation is cut here (the JSON report has it whole)

STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2430; margin: 2rem auto;
       max-width: 72rem; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
.meta { color: #5b6575; margin-top: 0; }
.badges span { display: inline-block; margin: .2rem .4rem .2rem 0; padding: .2rem .6rem; border-radius: 1rem;
               background: #eef1f5; }
.badges .bad { background: #fde2e1; color: #8a1c16; } .badges .good { background: #dff3e4; color: #14532d; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #d5dae1; padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #f4f6f9; font-weight: 600; }
td.cell { text-align: center; min-width: 7.5rem; }
td.ok { background: #dff3e4; } td.mixed { background: #fff4d6; } td.none { color: #8a93a3; }
td.na { background: repeating-linear-gradient(45deg, #f4f6f9, #f4f6f9 4px, #e9ecf1 4px, #e9ecf1 8px);
        color: #8a93a3; }
.yes { color: #14532d; font-weight: 600; } .no { color: #8a93a3; }
.count0 { color: #14532d; } .countN { color: #8a1c16; font-weight: 600; } .pending { color: #8a5a00; }
details { border: 1px solid #d5dae1; border-radius: .4rem; margin: .5rem 0; padding: .4rem .7rem; }
summary { cursor: pointer; } td code { white-space: nowrap; }
code { background: #f4f6f9; padding: 0 .25rem; border-radius: .2rem; }
pre { background: #f7f8fa; border: 1px solid #e4e7ec; padding: .6rem; overflow-x: auto; font-size: 13px; }
.check { font-family: ui-monospace, monospace; font-weight: 600; color: #8a1c16; }
"""


def render(report: dict[str, Any]) -> str:
    summary = report["summary"]
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>A2A client report</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>A2A client report</h1>",
        f'<p class="meta">Generated {escape(report["generated"])} from the records in '
        f'<code>{escape(report["records"])}</code></p>',
        _badges(summary),
        "<h2>Coverage</h2>",
        "<p>Each cell: requests answered without an error / requests sent, per A2A operation, binding and "
        "version. n/a: the operation does not exist in that version.</p>",
        _matrix(report["coverage"]),
        *([f"<p>{report['coverage']['noOperation']} request(s) named no A2A operation: see the violations.</p>"]
          if report["coverage"]["noOperation"] else []),
        f"<p>The public agent card was fetched {summary['cardFetches']} time(s).</p>",
        "<h2>Conventions (MAY / SHOULD)</h2>",
        _conventions(report["conventions"]),
        f"<h2>Violations ({len(report['violations'])})</h2>",
        _violations(report["violations"]),
        "<h2>Behaviours</h2>",
        "<p>How the client behaved across its exchanges: held, broken (with the exchanges), pending (its time "
        "window still open when the report was made) or not exercised.</p>",
        _behaviours(report["behaviours"]),
        "<h2>Checks</h2>",
        _checks(report["checks"]),
    ]
    if summary["exchanges"] and not summary["schemaChecked"]:
        parts.append("<p>The schema check did not run: spec/schemas/ was not found next to the server.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _badges(summary: dict[str, Any]) -> str:
    violations = summary["violations"]
    broken = summary["behavioursBroken"]
    return (
        '<p class="badges">'
        f"<span>{summary['exchanges']} A2A requests</span>"
        f"<span>callers: {escape(', '.join(summary['callers']) or 'none')}</span>"
        f"<span>{summary['cellsExercised']} of {summary['cellsApplicable']} cells exercised</span>"
        f'<span class="{"bad" if violations else "good"}">{violations} violation(s)</span>'
        f'<span class="{"bad" if broken else "good"}">{broken} behaviour(s) broken</span>'
        "</p>"
    )


def _matrix(coverage: dict[str, Any]) -> str:
    columns = coverage["columns"]
    cells = {(c["operation"], c["binding"], c["version"]): c for c in coverage["cells"]}
    rows = ["<table><tr><th>operation</th>" + "".join(f"<th>{escape(c['title'])}</th>" for c in columns) + "</tr>"]
    for operation in coverage["operations"]:
        row = f"<tr><th>{escape(operation)}</th>"
        for column in columns:
            cell = cells[(operation, column["binding"], column["version"])]
            if not cell["applicable"]:
                row += '<td class="cell na">n/a</td>'
            elif not cell["requests"]:
                row += '<td class="cell none">not exercised</td>'
            else:
                kind = "ok" if cell["ok"] == cell["requests"] else "mixed"
                row += f'<td class="cell {kind}">{cell["ok"]} / {cell["requests"]}</td>'
        rows.append(row + "</tr>")
    return "\n".join([*rows, "</table>"])


def _conventions(conventions: list[dict[str, Any]]) -> str:
    rows = ["<table><tr><th>convention</th><th>what it is</th><th>spec</th><th>used</th></tr>"]
    for convention in conventions:
        used = (f'<span class="yes">yes</span>, {convention["requests"]} request(s) (first: '
                f'<code>{escape(convention["first"])}</code>)' if convention["used"] else '<span class="no">no</span>')
        rows.append(f"<tr><td><code>{escape(convention['id'])}</code></td><td>{escape(convention['title'])}</td>"
                    f"<td>{escape(convention['section'])}</td><td>{used}</td></tr>")
    return "\n".join([*rows, "</table>"])


def _violations(violations: list[dict[str, Any]]) -> str:
    if not violations:
        return "<p>None: every request followed the rules checked below.</p>"
    blocks = []
    for found in violations:
        where = " ".join(escape(str(x)) for x in (found.get("method"), found.get("interface")) if x)
        path = f" at <code>{escape(found['path'])}</code>" if found.get("path") else ""
        exchange = _cut(json.dumps(found["exchange"], indent=2, ensure_ascii=False))
        blocks.append(
            "<details><summary>"
            f'<span class="check">{escape(str(found["check"]))}</span> {escape(str(found["message"]))}{path}'
            f" — {where} — <code>{escape(found['where'])}</code></summary>"
            f"<p>{escape(found['title'])} ({escape(found['section'])}) Caller: "
            f"{escape(str(found.get('caller') or '(unauthenticated)'))}, at {escape(str(found.get('time')))}.</p>"
            f"<pre>{escape(exchange)}</pre></details>"
        )
    return "\n".join(blocks)


def _behaviours(behaviours: list[dict[str, Any]]) -> str:
    rows = ["<table><tr><th>behaviour</th><th>what a well-behaved client does</th><th>spec</th><th>seen</th>"
            "<th>result</th></tr>"]
    kinds = {"held": "count0", "broken": "countN", "pending": "pending", "not exercised": "no"}
    for behaviour in behaviours:
        rows.append(f"<tr><td><code>{escape(behaviour['id'])}</code></td><td>{escape(behaviour['title'])}</td>"
                    f"<td>{escape(behaviour['section'])}</td><td>{behaviour['instances']}</td>"
                    f'<td class="{kinds[behaviour["status"]]}">{escape(behaviour["status"])}</td></tr>')
    blocks = []
    for behaviour in behaviours:
        for found in behaviour["findings"]:
            exchanges = _cut(json.dumps(found["exchanges"], indent=2, ensure_ascii=False))
            blocks.append(
                f'<details><summary><span class="check">{escape(behaviour["id"])}</span> '
                f"{escape(found['message'])} — <code>{escape(', '.join(found['where']))}</code></summary>"
                f"<p>{escape(behaviour['title'])} ({escape(behaviour['section'])})</p>"
                f"<pre>{escape(exchanges)}</pre></details>")
        blocks += [f'<p><span class="pending">{escape(behaviour["id"])} pending</span> {escape(found["message"])} '
                   f"— <code>{escape(', '.join(found['where']))}</code></p>" for found in behaviour["waiting"]]
    return "\n".join([*rows, "</table>", *blocks])


def _cut(text: str) -> str:
    if len(text) > MAX_EXCHANGE_CHARS:
        return text[:MAX_EXCHANGE_CHARS] + "\n… (cut; client-report.json has it whole)"
    return text


def _checks(checks: list[dict[str, Any]]) -> str:
    rows = ["<table><tr><th>check</th><th>what a conforming client does</th><th>spec</th><th>violations</th></tr>"]
    for check in checks:
        count = check["violations"]
        rows.append(f"<tr><td><code>{escape(check['id'])}</code></td><td>{escape(check['title'])}</td>"
                    f"<td>{escape(check['section'])}</td>"
                    f'<td class="{"countN" if count else "count0"}">{count}</td></tr>')
    return "\n".join([*rows, "</table>"])
