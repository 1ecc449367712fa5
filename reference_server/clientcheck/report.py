"""`reference-server report DIR`: the records of a run as client-report.json and client-report.html.

The report holds the coverage matrix (operation x binding x version, exercised or not), every violation with its
spec section and the exchange that made it, the MAY/SHOULD conventions the client used or not, and how the client
behaved across exchanges (behaviours.py): held, broken (with the exchanges), pending (its time window still open)
or not exercised.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reference_server.a2a.catalogue import V0_3, V1_0
from reference_server.clientcheck.behaviours import assess
from reference_server.clientcheck.checks import CHECKS, CONVENTIONS
from reference_server.clientcheck.exchange import CARD, JSONRPC, NOT_IN_V03, OPERATIONS, REST, named_operation
from reference_server.clientcheck.page import render

JSON_NAME = "client-report.json"
HTML_NAME = "client-report.html"
COLUMNS: tuple[tuple[str, str], ...] = ((JSONRPC, V1_0), (REST, V1_0), (JSONRPC, V0_3), (REST, V0_3))
BINDING_NAMES = {JSONRPC: "JSON-RPC", REST: "HTTP+JSON"}


@dataclass(frozen=True)
class Record:
    file: str
    line: int
    data: dict[str, Any]


def read_records(folder: Path) -> tuple[list[Record], int]:
    """Every record of every *.jsonl in folder, and how many lines could not be read."""
    records, unreadable = [], 0
    for path in sorted(folder.glob("*.jsonl")):
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                data = json.loads(text)
            except ValueError:
                unreadable += 1
                continue
            if isinstance(data, dict):
                records.append(Record(path.name, number, data))
            else:
                unreadable += 1
    records.sort(key=lambda r: (str(r.data.get("time")), r.file, r.line))
    return records, unreadable


def answered_ok(data: dict[str, Any]) -> bool:
    """2xx, and no JSON-RPC error in the body or in any event (a stream's error comes as `event: error`)."""
    response = data.get("response") or {}
    status = response.get("status")
    if not isinstance(status, int) or not 200 <= status < 300:
        return False
    body = response.get("body")
    if isinstance(body, dict) and "error" in body:
        return False
    return not any(e.get("event") == "error" or (isinstance(e.get("data"), dict) and "error" in e["data"])
                   for e in response.get("events") or [])


def build(folder: Path, now: float | None = None) -> dict[str, Any]:
    """The report of folder's records, its behaviours judged at now (Unix seconds; None: the present, since the
    server may still be recording; behaviours.RUN_ENDED when the run is over and no request can come any more)."""
    records, unreadable = read_records(folder)
    calls = [r for r in records if r.data.get("binding") != CARD]
    violations = [_violation(record, found) for record in records
                  for found in (record.data.get("checks") or {}).get("violations") or []]
    coverage, no_operation = _coverage(calls)
    behaviours = assess(((f"{r.file}:{r.line}", r.data) for r in records), time.time() if now is None else now)
    exercised = sum(1 for cell in coverage if cell["requests"])
    applicable = sum(1 for cell in coverage if cell["applicable"])
    return {
        "generated": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "records": str(folder),
        "summary": {
            "exchanges": len(calls),
            "cardFetches": len(records) - len(calls),
            "callers": sorted({r.data.get("caller") or "(unauthenticated)" for r in calls}),
            "violations": len(violations),
            "behavioursBroken": sum(1 for b in behaviours if b["status"] == "broken"),
            "behavioursPending": sum(1 for b in behaviours if b["status"] == "pending"),
            "cellsExercised": exercised,
            "cellsApplicable": applicable,
            "schemaChecked": sum(1 for r in calls if (r.data.get("checks") or {}).get("schemaChecked")),
            "unreadableLines": unreadable,
        },
        "coverage": {
            "columns": [{"binding": b, "version": v, "title": f"{BINDING_NAMES[b]} {v}"} for b, v in COLUMNS],
            "operations": list(OPERATIONS),
            "cells": coverage,
            "noOperation": no_operation,  # requests that named no A2A operation (see the method-unknown violations)
        },
        "checks": [{"id": c.id, "section": c.section, "title": c.title,
                    "violations": sum(1 for v in violations if v["check"] == c.id)} for c in CHECKS.values()],
        "conventions": _conventions(calls),
        "violations": violations,
        "behaviours": behaviours,
    }


def failed(report: dict[str, Any]) -> bool:
    """Whether the client broke a rule: a request's violation, or a broken behaviour (`make client-check` exits 1)."""
    return bool(report["summary"]["violations"] or report["summary"]["behavioursBroken"])


def cell_of(data: dict[str, Any]) -> tuple[str, str, str] | None:
    """The coverage cell (operation, binding, version) of a record: the operation the server read it as, else the
    one its method or route names (a request refused for a missing A2A-Version is still a try at that operation,
    and counts as sent and not answered); None for a request that names no A2A operation."""
    binding = str(data.get("binding"))
    if data.get("operation") is not None:
        return str(data["operation"]), binding, str(data.get("version"))
    request = data.get("request") or {}
    named = named_operation(binding, str(request.get("method")), str(request.get("path")), str(data.get("method")))
    return (named[0], binding, named[1]) if named is not None else None


def _coverage(calls: list[Record]) -> tuple[list[dict[str, Any]], int]:
    """The cells, and how many requests named no A2A operation."""
    by_cell: dict[tuple[str, str, str] | None, list[Record]] = {}
    for record in calls:
        by_cell.setdefault(cell_of(record.data), []).append(record)
    cells = []
    for operation in OPERATIONS:
        for binding, version in COLUMNS:
            matching = by_cell.get((operation, binding, version), [])
            cells.append({"operation": operation, "binding": binding, "version": version,
                          "applicable": not (version == V0_3 and operation in NOT_IN_V03),
                          "requests": len(matching), "ok": sum(1 for r in matching if answered_ok(r.data))})
    return cells, len(by_cell.get(None, []))


def _conventions(calls: list[Record]) -> list[dict[str, Any]]:
    found = []
    for convention in CONVENTIONS:
        using = [r for r in calls if convention.id in ((r.data.get("checks") or {}).get("uses") or [])]
        found.append({"id": convention.id, "section": convention.section, "title": convention.title,
                      "used": bool(using), "requests": len(using),
                      "first": f"{using[0].file}:{using[0].line}" if using else None})
    return found


def _violation(record: Record, found: dict[str, Any]) -> dict[str, Any]:
    data = record.data
    check = CHECKS.get(str(found.get("check")))
    return {
        "check": found.get("check"),
        "section": found.get("section") or (check.section if check else ""),
        "title": check.title if check else "",
        "message": found.get("message"),
        "path": found.get("path"),
        "where": f"{record.file}:{record.line}",
        "time": data.get("time"),
        "caller": data.get("caller"),
        "binding": data.get("binding"),
        "version": data.get("version"),
        "operation": data.get("operation"),
        "method": data.get("method"),
        "interface": " ".join(str(x) for x in (BINDING_NAMES.get(str(data.get("binding")), data.get("binding")),
                                               data.get("version")) if x),
        "exchange": {"request": data.get("request"), "response": data.get("response")},
    }


def summary_text(report: dict[str, Any]) -> str:
    """The report as a terminal reads it: the matrix, the conventions, the violations."""
    summary = report["summary"]
    callers = ", ".join(summary["callers"]) or "none"
    pending = f" ({summary['behavioursPending']} pending)" if summary["behavioursPending"] else ""
    lines = [f"Client check: {summary['exchanges']} A2A requests from {callers}; "
             f"{summary['violations']} violation(s); {summary['behavioursBroken']} behaviour(s) broken{pending}; "
             f"{summary['cellsExercised']} of "
             f"{summary['cellsApplicable']} operation x binding x version cells exercised", ""]
    columns = report["coverage"]["columns"]
    width = max(len(op) for op in report["coverage"]["operations"]) + 2
    lines.append("Coverage (requests answered without error / requests):")
    lines.append("".ljust(width) + "".join(c["title"].ljust(16) for c in columns))
    cells = {(c["operation"], c["binding"], c["version"]): c for c in report["coverage"]["cells"]}
    for operation in report["coverage"]["operations"]:
        row = operation.ljust(width)
        for column in columns:
            cell = cells[(operation, column["binding"], column["version"])]
            text = "n/a" if not cell["applicable"] else f"{cell['ok']}/{cell['requests']}" if cell["requests"] else "-"
            row += text.ljust(16)
        lines.append(row.rstrip())
    if report["coverage"]["noOperation"]:
        lines.append(f"({report['coverage']['noOperation']} request(s) named no A2A operation: see the violations)")
    lines.append(f"(the public agent card was fetched {summary['cardFetches']} time(s))")
    lines += ["", "Conventions (MAY/SHOULD):"]
    for convention in report["conventions"]:
        mark = "x" if convention["used"] else " "
        lines.append(f"  [{mark}] {convention['id']}: {convention['title']} ({convention['section']})"
                     + (f", {convention['requests']} request(s)" if convention["used"] else ", not used"))
    lines += ["", "Behaviours:"]
    for behaviour in report["behaviours"]:
        counted = f" ({behaviour['instances']} seen, {behaviour['broken']} broken)" if behaviour["instances"] else ""
        lines.append(f"  {behaviour['status']:<13} {behaviour['id']}: {behaviour['title']} ({behaviour['section']})"
                     + counted)
        lines += [f"      {', '.join(found['where'])}: {found['message']}"
                  for found in [*behaviour["findings"], *behaviour["waiting"]]]
    lines.append("")
    if not report["violations"]:
        lines.append("Violations: none")
    else:
        lines.append(f"Violations ({len(report['violations'])}):")
        for found in report["violations"]:
            at = f" at {found['path']}" if found.get("path") else ""
            what = " ".join(str(x) for x in (found.get("method"), found.get("interface")) if x)
            lines.append(f"  {found['check']} [{found['section']}] {found['where']} {what}{at}: {found['message']}")
    if summary["exchanges"] and not summary["schemaChecked"]:
        lines += ["", "Note: the schema check did not run (spec/schemas/ was not found next to the server)."]
    return "\n".join(lines)


def write(folder: Path, out: Path | None = None, now: float | None = None) -> tuple[dict[str, Any], Path, Path]:
    """Build the report of folder's records (at now, as build); write the JSON and the HTML into out (default:
    folder)."""
    report = build(folder, now)
    out = out or folder
    out.mkdir(parents=True, exist_ok=True)
    json_path, html_path = out / JSON_NAME, out / HTML_NAME
    json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    html_path.write_text(render(report), encoding="utf-8")
    return report, json_path, html_path
