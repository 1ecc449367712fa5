"""The robustness report: reports/robustness.json from a run's outcome, and the console's text from that report (the
living page's section is scripts/robustness_page.py). Counts per rule and per operation, each finding with its
reproducer, and the exit status: 0 no finding, 1 findings, 3 a run that could not run."""

from __future__ import annotations

import base64
import textwrap
from collections import Counter
from dataclasses import asdict
from typing import Any

from fuzz.rules import BY_ID, RULES
from fuzz.strategies import FuzzRequest
from fuzz.surface import Secrets

from reference_server.conformance.robustness_page import COLUMNS, interface_name
from scripts.robustness_kit.campaign import Finding, Outcome, Settings
from scripts.robustness_kit.curl import KEY_VARIABLE, curl_line

NO_FINDING, FINDINGS, COULD_NOT_RUN = 0, 1, 3
STATUSES = "0: no finding, 1: findings, 3: the run could not run"
SHOWN_CURL = 1500  # characters of a curl line in the console (the whole line is in the JSON report)


def request_json(request: FuzzRequest, secrets: Secrets) -> dict[str, Any]:
    """A request as the report keeps it: the caller's key named, never shown; the body as text, or base64 when it
    is not UTF-8."""
    def hidden(text: str) -> str:
        return text.replace(secrets.key, KEY_VARIABLE) if secrets.key else text

    try:
        body = {"body": hidden(request.body.decode("utf-8"))}
    except UnicodeDecodeError:
        body = {"body_base64": base64.b64encode(request.body).decode()}
    headers = [[name, hidden(value)] for name, value in request.headers]
    return {"verb": request.verb, "url": request.origin + request.target, "headers": headers, **body,
            "interface": request.interface, "operation": request.operation, "well_formed": request.well_formed,
            "broken": request.notes}


def finding_json(finding: Finding, secrets: Secrets) -> dict[str, Any]:
    """A finding as the report keeps it. A crash not traced to one request is reproduced by the requests before it,
    in their order."""
    rule = BY_ID[finding.rule]
    reproducer = finding.reproducer
    shown: dict[str, Any]
    if reproducer is not None:
        shown = {"curl": curl_line(reproducer, secrets), "request": request_json(reproducer, secrets)}
    else:
        shown = {"curl": "\n".join(curl_line(sent.request, secrets) for sent in finding.before), "request": None}
    return {"rule": rule.id, "title": rule.title, "source": rule.source, "interface": finding.interface,
            "kind": finding.kind, "operations": dict(finding.operations.most_common()), "requests": finding.count,
            "well_formed": finding.well_formed,
            "first": finding.says,
            "reproducer": {**shown, "answered": finding.answered or finding.says, "how": finding.shrink},
            "before": [{"curl": curl_line(sent.request, secrets), "got": sent.got, "bad": sent.bad}
                       for sent in finding.before], "notes": finding.notes}


def build(target: str, generated: str, description: str, settings: Settings, outcome: Outcome, secrets: Secrets,
          notes: list[str]) -> dict[str, Any]:
    findings = [finding_json(f, secrets) for f in outcome.findings]
    per_rule = {rule.id: {"findings": 0, "requests": 0} for rule in RULES}
    for finding in outcome.findings:
        per_rule[finding.rule]["findings"] += 1
        per_rule[finding.rule]["requests"] += finding.count
    operations = [{"interface": interface, "operation": operation, **dict(counts)}
                  for (interface, operation), counts in sorted(outcome.counts.items())]
    return {
        "target": target, "generated": generated, "description": description,
        "settings": asdict(settings), "seconds": round(outcome.seconds, 1),
        "exit_status": FINDINGS if findings else NO_FINDING,
        "requests": {"hostile": outcome.sent, "probes": outcome.probes, "follow_ups": outcome.follow_ups,
                     "shrink_tries": outcome.shrink_tries, "total": outcome.total},
        "stopped": outcome.stopped, "notes": notes + outcome.notes,
        "credentials": [name for name, _ in secrets.named()],
        "rules": [{**asdict(rule), **per_rule[rule.id]} for rule in RULES],
        "operations": operations, "findings": findings,
    }


def could_not_run(target: str, generated: str, sentence: str) -> dict[str, Any]:
    return {"target": target, "generated": generated, "could_not_run": sentence, "exit_status": COULD_NOT_RUN}


def console(report: dict[str, Any]) -> list[str]:
    """What the console shows of a report (after the server's description): what was run, a table per rule and per
    operation, each finding."""
    if "could_not_run" in report:
        return textwrap.wrap(f"The robustness run against {report['target']} could not start. "
                             f"{report['could_not_run']}", 116)
    sent, settings = report["requests"], report["settings"]
    lines = [""]
    pace = f"at most {settings['rate']:g} a second" if settings["rate"] else "unpaced"
    lines += textwrap.wrap(
        f"Robustness of {report['target']}: {sent['hostile']} hostile requests (seed {settings['seed']}), "
        f"{sent['probes']} health probes, {sent['follow_ups']} follow-up GetTasks, {sent['shrink_tries']} tries "
        f"to shrink the findings: {sent['total']} requests in {report['seconds']:g} s, {pace}.", 116)
    lines += [textwrap.fill(note, 116) for note in report["notes"]]
    lines += ["", "Rule".ljust(18) + "findings  requests  what (source)"]
    for rule in report["rules"]:
        lines.append(f"{rule['id'].ljust(18)}{str(rule['findings']).rjust(8)}{str(rule['requests']).rjust(10)}  "
                     f"{rule['title']} ({rule['source']})")
    lines += ["", operation_table(report["operations"])]
    if report["stopped"]:
        lines += ["", *textwrap.wrap("THE RUN STOPPED EARLY: " + report["stopped"], 116)]
    if report["findings"]:
        lines += ["", f"FINDINGS ({len(report['findings'])})"]
    for finding in report["findings"]:
        lines += finding_lines(finding)
    return lines


def operation_table(operations: list[dict[str, Any]]) -> str:
    columns = COLUMNS + [rule.id for rule in RULES if any(op.get(rule.id) for op in operations)]
    widths = [max(8, len(c)) + 2 for c in columns]
    width = max([28, *(len(f"{interface_name(op['interface'])} {op['operation']}") + 2 for op in operations)])
    lines = ["Operation".ljust(width) + "".join(c.rjust(w) for c, w in zip(columns, widths, strict=True))]
    total: Counter[str] = Counter()
    for op in operations:
        total.update({k: v for k, v in op.items() if isinstance(v, int)})
        name = f"{interface_name(op['interface'])} {op['operation']}"
        lines.append(name.ljust(width) + "".join(str(op.get(c, 0)).rjust(w) for c, w in zip(columns, widths,
                                                                                           strict=True)))
    lines.append("all".ljust(width) + "".join(str(total.get(c, 0)).rjust(w) for c, w in zip(columns, widths,
                                                                                           strict=True)))
    return "\n".join(lines)


def operations_text(finding: dict[str, Any]) -> str:
    """The operations a finding was seen on, most first, with how many requests each."""
    return ", ".join(f"{op} ({n})" for op, n in finding["operations"].items())


def finding_lines(finding: dict[str, Any]) -> list[str]:
    where = interface_name(finding["interface"]) + (f", {finding['kind']}" if finding["kind"] else "")
    formed = f", {finding['well_formed']} of them well-formed" if finding["well_formed"] and finding[
        "rule"] != "crash" else ""
    count = finding["requests"]
    what = ("time" if count == 1 else "times") if finding["rule"] == "crash" else (
        "request" if count == 1 else "requests")
    lines = [f"{finding['rule'].upper()} ({finding['title']}; {finding['source']}): {where}: {count} {what}{formed}"]
    lines += textwrap.wrap("on: " + operations_text(finding), 112, initial_indent="  ", subsequent_indent="    ")
    lines += textwrap.wrap(f"first: {finding['first']}", 112, initial_indent="  ", subsequent_indent="    ")
    reproducer = finding["reproducer"]
    lines.append(f"  reproducer ({reproducer['how']}):")
    lines += textwrap.wrap(f"got: {reproducer['answered']}", 112, initial_indent="    ", subsequent_indent="      ")
    if reproducer["request"] and reproducer["request"]["broken"]:
        lines += textwrap.wrap("broken on purpose: " + "; ".join(reproducer["request"]["broken"]), 112,
                               initial_indent="    ", subsequent_indent="      ")
    elif reproducer["request"]:
        lines.append("    a well-formed request: it needs no bad input")
    if reproducer["request"] is not None:
        curl = reproducer["curl"]
        lines.append("    " + (curl if len(curl) <= SHOWN_CURL else curl[:SHOWN_CURL] + " … (all of it: the report)"))
    if finding["before"]:
        lines.append("  the last requests before it, oldest first" + (
            ", sent in this order" if reproducer["request"] is None else "") + ":")
        first_bad = next((i for i, sent in enumerate(finding["before"]) if sent["bad"]), None)
        for index, sent in enumerate(finding["before"]):
            curl = sent["curl"]
            lines.append("    " + (curl if len(curl) <= 300 else curl[:300] + " …"))
            lines.append(f"      got: {sent['got']}" + ("  <- the first bad answer" if index == first_bad else ""))
    lines += [textwrap.fill(note, 112, initial_indent="  ", subsequent_indent="  ") for note in finding["notes"]]
    return [*lines, ""]
