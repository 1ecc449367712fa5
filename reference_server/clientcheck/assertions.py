"""The failure texts of the pytest kit's assertions over a client report: the rule, its section, the exchange.

Each function answers None when what it asserts holds, else the text a failed test shows: every violated rule or
behaviour with its spec section and the exchanges that show it (method and route, status, a short excerpt of the
body), and where the whole report is. The records are already masked (recorder.py): no caller key or push
credential reaches them, so none reaches a text made from them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reference_server.clientcheck.behaviours import BEHAVIOURS
from reference_server.clientcheck.exchange import OPERATIONS
from reference_server.clientcheck.report import BINDING_NAMES, HTML_NAME, JSON_NAME, answered_ok, cell_of

EXCERPT_CHARS = 160  # of a request body shown under a finding (the report has it whole)
ERROR_CHARS = 100  # of the error message an answer carried
SHOWN_REQUESTS = 5  # requests listed when an operation was sent but never answered without an error
STATUSES = ("held", "broken", "pending", "not exercised")


def violations_text(report: dict[str, Any], out: Path) -> str | None:
    """Every violation and broken behaviour of the report (what makes `make client-check` exit 1), or None."""
    violations = report["violations"]
    broken = [b for b in report["behaviours"] if b["status"] == "broken"]
    if not violations and not broken:
        return None
    lines = [f"the client broke {len(violations)} rule(s) and {len(broken)} behaviour(s); {_report_at(out)}"]
    for found in violations:
        at = f" at {found['path']}" if found.get("path") else ""
        lines.append(f"- {found['check']} [{found['section']}]{at}: {found['message']}")
        lines += _exchange(found["exchange"], found.get("interface"))
    for behaviour in broken:
        lines += _behaviour(behaviour, behaviour["findings"])
    return "\n".join(lines)


def called_text(report: dict[str, Any], exchanges: Iterable[dict[str, Any]], out: Path, operation: str,
                binding: str | None, version: str | None, ok: bool) -> str | None:
    """None when the client called the operation (over that binding and version, when given) and, with ok, got at
    least one answer without an error; else what it called instead, and the requests that were not answered."""
    if operation not in OPERATIONS:
        raise ValueError(f"{operation!r} is not an A2A operation: one of {', '.join(OPERATIONS)}")
    if binding is not None and binding not in BINDING_NAMES:
        raise ValueError(f"{binding!r} is not a binding: one of {', '.join(BINDING_NAMES)}")
    cells = [c for c in report["coverage"]["cells"] if c["operation"] == operation
             and binding in (None, c["binding"]) and version in (None, c["version"])]
    sent, answered = sum(c["requests"] for c in cells), sum(c["ok"] for c in cells)
    if answered or (sent and not ok):
        return None
    over = " over " + " ".join(filter(None, (BINDING_NAMES.get(binding or ""), version))) if binding or version \
        else ""
    if not sent:
        lines = [f"the client never called {operation}{over}; {_report_at(out)}", "what it called: " + (
            "; ".join(f"{c['operation']} {_interface(c['binding'], c['version'])} {c['ok']}/{c['requests']}"
                      for c in report["coverage"]["cells"] if c["requests"]) or "nothing")]
        return "\n".join(lines)
    lines = [f"the client called {operation}{over} {sent} time(s) and no answer was without an error; "
             f"{_report_at(out)}"]
    matching = [data for data in exchanges if (cell := cell_of(data)) is not None and cell[0] == operation
                and binding in (None, cell[1]) and version in (None, cell[2]) and not answered_ok(data)]
    for data in matching[:SHOWN_REQUESTS]:
        lines += _exchange(data, _interface(data.get("binding"), data.get("version")))
    return "\n".join(lines)


def behaviour_text(report: dict[str, Any], out: Path, behaviour_id: str, status: str) -> str | None:
    """None when the behaviour has that status in the report; else its status, with what shows it."""
    if behaviour_id not in BEHAVIOURS:
        raise ValueError(f"{behaviour_id!r} is not a behaviour: one of {', '.join(BEHAVIOURS)}")
    if status not in STATUSES:
        raise ValueError(f"{status!r} is not a behaviour's status: one of {', '.join(STATUSES)}")
    [behaviour] = [b for b in report["behaviours"] if b["id"] == behaviour_id]
    if behaviour["status"] == status:
        return None
    lines = [f"{behaviour_id} is {behaviour['status']}, not {status} ({behaviour['instances']} seen); "
             f"{_report_at(out)}", f"{behaviour['title']} ({behaviour['section']})"]
    return "\n".join([*lines, *_behaviour(behaviour, [*behaviour["findings"], *behaviour["waiting"]])])


def _report_at(out: Path) -> str:
    return f"report: {out / HTML_NAME} ({JSON_NAME} beside it)"


def _interface(binding: Any, version: Any) -> str:
    return " ".join(str(x) for x in (BINDING_NAMES.get(str(binding), binding), version) if x)


def _behaviour(behaviour: dict[str, Any], findings: list[dict[str, Any]]) -> list[str]:
    lines = []
    for found in findings:
        lines.append(f"- {behaviour['id']} {behaviour['status']} [{behaviour['section']}]: {found['message']}")
        for shown in found["exchanges"]:
            lines += _exchange(shown, None)
    return lines


def _exchange(exchange: dict[str, Any], interface: str | None) -> list[str]:
    """Two lines for one recorded exchange: its method and route (and JSON-RPC method), its status (and error); its
    body cut."""
    request, response = exchange.get("request") or {}, exchange.get("response") or {}
    route = f"{request.get('method')} {request.get('path')}" + (f"?{request['query']}" if request.get("query") else "")
    body = request.get("body")
    if isinstance(body, dict) and isinstance(body.get("method"), str):
        route += f" {body['method']}"  # JSON-RPC: the method is the operation
    via = f" ({interface})" if interface else ""
    lines = [f"    {route}{via} -> {response.get('status')}{_error(response)}"]
    if "body" in request:
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        lines.append(f"    body: {text[:EXCERPT_CHARS]}" + (" …" if len(text) > EXCERPT_CHARS else ""))
    elif "bodyBytes" in request:
        lines.append(f"    body: {request['bodyBytes']} bytes, not JSON")
    return lines


def _error(response: dict[str, Any]) -> str:
    """The error an answer carried (JSON-RPC's, or HTTP+JSON's google.rpc.Status), its message cut short."""
    body = response.get("body")
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    message = str(error.get("message", ""))
    cut = message[:ERROR_CHARS] + (" …" if len(message) > ERROR_CHARS else "")
    return f", error {error.get('code')}: {cut}"
