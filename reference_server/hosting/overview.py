"""What an owner sees of a workspace or of a host (design: the /a2a command): the callers (keys masked) and the last
10 tasks of each workspace, with the problems found on the way; as JSON and as text. `reference-server a2a`
(admin.py) prints it."""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reference_server.codecs.task_file import TaskFileCodec
from reference_server.model.caller import Workspace
from reference_server.model.types import StoredTask
from reference_server.workspace.callers import check_callers, masked_key
from reference_server.workspace.task_store import is_task_id

LAST_TASKS = 10  # design: the last 10 server tasks


@dataclass(frozen=True)
class CallerRow:
    name: str
    mode: str
    key: str  # masked: …last4
    note: str | None


@dataclass(frozen=True)
class TaskRow:
    id: str
    caller: str
    state: str
    updated: datetime | None  # the status timestamp: when the task last changed state

    def age(self, now: datetime) -> float | None:
        return None if self.updated is None else max(0.0, (now - self.updated).total_seconds())


@dataclass
class Report:
    """What the command shows of one workspace."""

    workspace: Path
    owner: str
    callers: list[CallerRow] = field(default_factory=list)
    tasks: list[TaskRow] = field(default_factory=list)  # newest first, at most LAST_TASKS
    task_count: int = 0
    problems: list[str] = field(default_factory=list)  # malformed files, said, never a crash


@dataclass
class HostReport:
    """What the command shows of an owner host: each owner's report, in the order the host lists them."""

    root: Path
    owners: list[Report] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # of the host: the owners file, an unknown owner list


def report_of(workspace: Workspace) -> Report:
    """The callers of workspace's callers.json (keys masked) and its newest task files, with what is wrong."""
    report = Report(workspace.path, workspace.owner_id)
    checked = check_callers(workspace.callers_file)
    report.problems += checked.problems
    report.callers = [CallerRow(e.name, e.mode, masked_key(e.key), e.note) for e in checked.entries]
    rows = _task_rows(workspace.tasks_dir, report.problems)
    rows.sort(key=lambda r: (r.updated or datetime.min.replace(tzinfo=UTC), r.id), reverse=True)
    report.task_count = len(rows)
    report.tasks = rows[:LAST_TASKS]
    return report


def _task_rows(folder: Path, problems: list[str]) -> list[TaskRow]:
    """Every task file in folder, as the server reads them; a file it reads as not found is a problem."""
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    codec = TaskFileCodec()
    rows = []
    for name in names:
        if not name.endswith(".json") or not is_task_id(name[:-5]):
            continue  # temp files of interrupted writes and foreign files: the server never reads them either
        path = folder / name
        try:
            stored: StoredTask | None = codec.decode(path.read_bytes())
        except OSError as error:
            problems.append(f"task file {path} cannot be read ({error.strerror})")
            continue
        if stored is None or stored.task.id != name[:-5]:
            problems.append(f"task file {path} is not a valid task file; the server reads it as not found")
            continue
        status = stored.task.status
        rows.append(TaskRow(stored.task.id, stored.caller, status.state.short_name, status.timestamp))
    return rows


def as_json(report: Report, now: datetime) -> dict[str, Any]:
    return {
        "workspace": str(report.workspace),
        "owner": report.owner,
        "callers": [{"name": c.name, "mode": c.mode, "key": c.key, **({"note": c.note} if c.note else {})}
                    for c in report.callers],
        "tasks": [{"id": t.id, "caller": t.caller, "state": t.state,
                   "updated": t.updated.isoformat().replace("+00:00", "Z") if t.updated else None,
                   "ageSeconds": None if (age := t.age(now)) is None else round(age)}
                  for t in report.tasks],
        "taskCount": report.task_count,
        "problems": report.problems,
    }


def as_text(report: Report, now: datetime) -> str:
    lines = [f"A2A of owner {report.owner}: {report.workspace}", "", f"Callers ({len(report.callers)}):"]
    if report.callers:
        lines += _table(["NAME", "MODE", "KEY", "NOTE"],
                        [[c.name, c.mode, c.key, c.note or ""] for c in report.callers])
    else:
        lines.append("  none: no valid entry in .volcanic/a2a/callers.json")
    shown = f"the last {len(report.tasks)} of {report.task_count}" if report.task_count > len(report.tasks) \
        else str(report.task_count)
    lines += ["", f"Tasks ({shown}, newest first):"]
    if report.tasks:
        lines += _table(["CALLER", "STATE", "AGE", "TASK"],
                        [[t.caller, t.state, _age(t.age(now)), t.id] for t in report.tasks])
    else:
        lines.append("  none")
    if report.problems:
        lines += ["", f"Problems ({len(report.problems)}):", *(f"  {p}" for p in report.problems)]
    return "\n".join(lines) + "\n"


def host_as_json(host: HostReport, now: datetime) -> dict[str, Any]:
    return {"root": str(host.root), "owners": [as_json(report, now) for report in host.owners],
            "problems": host.problems}


def host_as_text(host: HostReport, now: datetime) -> str:
    count = len(host.owners)
    head = [f"A2A of {count} owner{'' if count == 1 else 's'} under {host.root}"]
    if host.problems:  # first: they say what the list below is
        head += ["", f"Problems of the host ({len(host.problems)}):", *(f"  {p}" for p in host.problems)]
    return "\n".join(["\n".join(head) + "\n", *(as_text(report, now) for report in host.owners)])


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    rows = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in [header, *rows]]


def printable(text: str) -> str:
    """A cell without control characters: the files are plain files an agent can be talked into editing, and
    what they hold must not drive the terminal (an escape sequence in a note or a task's caller)."""
    return "".join("\N{REPLACEMENT CHARACTER}" if unicodedata.category(c) == "Cc" else c for c in text)


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"
