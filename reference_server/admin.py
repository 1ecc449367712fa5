"""`reference-server a2a`: the callers (keys masked) and last 10 tasks of a workspace, or of every owner of a host
(design: the /a2a command); `add-caller` and `remove-caller` change a workspace's callers.json."""

from __future__ import annotations

import argparse
import json
import os
import sys
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from reference_server.codecs.task_file import TaskFileCodec
from reference_server.hosting.owners import owner_workspace, parse_owners
from reference_server.model.caller import Workspace
from reference_server.model.types import StoredTask
from reference_server.settings import OWNER_ID, Settings, SettingsError, load_settings
from reference_server.workspace.callers import NAME_PATTERN, check_callers, masked_key
from reference_server.workspace.layout import add_caller, caller_entry, new_key, remove_caller
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


class UsageError(ValueError):
    """Which workspace to show cannot be told from the flags and the environment; the message says why."""


class Refused(ValueError):
    """A change of callers.json that is not made (the file is left as it was); the message says why."""


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


def host_report(root: Path, host: Settings) -> HostReport:
    """Every owner of the host at root, as the host's settings list them now (the owners file read as it is); for a
    root the settings do not describe, every folder under it named like an owner, and a problem saying so."""
    if not root.is_dir():
        raise UsageError(f"the workspace root {root} is not a folder")
    report = HostReport(root)
    if root == _served_root(host):
        listed = listed_owners(host)
        if listed is None:
            raise UsageError(f"the owners file {host.owners_file} cannot be read; expected --owner ID to show one "
                             "owner")
        owners, report.problems = listed[1], listed[2]
    else:
        owners = tuple(sorted(entry.name for entry in os.scandir(root) if entry.is_dir()
                              and OWNER_ID.fullmatch(entry.name)))
        report.problems.append(f"no owner list names the root {root} (A2A__WorkspaceRoot with A2A__Owners or "
                               "A2A__OwnersFile): every folder under it is shown, whether the server serves it or not")
    for owner in owners:
        workspace = owner_workspace(root, owner)
        if workspace.path.is_dir():
            report.owners.append(report_of(workspace))
        else:  # design: an owner's folder may be made after start
            report.owners.append(Report(workspace.path, owner, problems=[
                f"{workspace.path} is not a folder yet; the server serves this owner once it is made"]))
    return report


# --- output ---


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
    rows = [[_printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in [header, *rows]]


def _printable(text: str) -> str:
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


# --- the command ---

LIST_EXITS = """commands:
  add-caller NAME     add a caller with a fresh key, printed this once (see add-caller --help)
  remove-caller NAME  remove a caller (see remove-caller --help)

exit status:
  0  shown, whatever problems the files have (they are listed, not failed on)
  2  what to show cannot be told, or is not a folder, or a flag is wrong"""

ADD_EXITS = """exit status:
  0  added; the key is printed this once
  1  refused, callers.json left as it was: NAME is taken, or the file cannot be
     read, is not a JSON list, or cannot be written
  2  NAME is not a caller name, a flag is wrong, or the workspace cannot be told
     or is not a folder"""

REMOVE_EXITS = """exit status:
  0  removed
  1  refused, callers.json left as it was: no entry has the name NAME, or the
     file cannot be read, is not a JSON list, or cannot be written
  2  a flag is wrong, or the workspace cannot be told or is not a folder"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reference-server a2a", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=LIST_EXITS,
        description="List the A2A callers (keys masked as …last4) and the last 10 tasks of a workspace,\n"
                    "or of every owner of an owner host. Without flags: what the server would serve\n"
                    "(A2A__Workspace, or every owner of A2A__WorkspaceRoot that A2A__Owners or\n"
                    "A2A__OwnersFile lists now), else the demo workspace.")
    where(parser, owner="show only this owner's workspace under the root (default: every owner the host lists)")
    return parser


def add_caller_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reference-server a2a add-caller", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Add the caller NAME with a fresh key to a workspace's .volcanic/a2a/callers.json,\n"
                    "atomically, the other entries kept as they are, and print its key: this once, and\n"
                    "nowhere else. The server accepts the key from the next request.",
        epilog=ADD_EXITS)
    parser.add_argument("name", metavar="NAME", help="the caller's name: 1 to 40 lowercase letters, digits or '-'")
    parser.add_argument("--note", metavar="TEXT", help="a note on the caller, for its owner (default: none)")
    where(parser, owner=CHANGED_OWNER)
    return parser


def remove_caller_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reference-server a2a remove-caller", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Remove the caller NAME from a workspace's .volcanic/a2a/callers.json, atomically,\n"
                    "the other entries kept as they are. The server refuses its key from the next\n"
                    "request.",
        epilog=REMOVE_EXITS)
    parser.add_argument("name", metavar="NAME",
                        help="the caller's name (any entry of that name goes, one the server skips too)")
    where(parser, owner=CHANGED_OWNER)
    return parser


CHANGED_OWNER = "the owner whose workspace under the root to change (default: the host's owner, when it lists one)"


def where(parser: argparse.ArgumentParser, *, owner: str) -> None:
    """The flags that say which workspace, the same for every command; owner: what --owner means to it."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--workspace", metavar="PATH",
                       help="a workspace folder (default: A2A__Workspace, else the demo workspace)")
    group.add_argument("--workspace-root", metavar="ROOT", help="an owner host's root (default: A2A__WorkspaceRoot)")
    parser.add_argument("--owner", metavar="ID", help=owner)
    parser.add_argument("--json", action="store_true", help="print JSON for scripts (default: text)")


def host_root(args: argparse.Namespace, host: Settings) -> Path | None:
    """The root whose every owner to show: the one named (by the flag, else by the host's settings) without --owner;
    None when one workspace is to be shown."""
    if args.owner is not None or args.workspace is not None:
        return None
    if args.workspace_root:
        return Path(args.workspace_root).expanduser().resolve()
    return _served_root(host) if host.workspace is None else None


def chosen_workspace(args: argparse.Namespace, host: Settings, default: Callable[[], Path]) -> Workspace:
    """The workspace the flags name, else the one the host's environment names, else the default (the demo)."""
    if args.owner is not None and not OWNER_ID.fullmatch(args.owner):
        raise UsageError(f"--owner has the value {args.owner!r}; expected an owner id of letters, digits, '_' "
                         "and '-' (up to 64)")
    root = Path(args.workspace_root).expanduser() if args.workspace_root else None
    if root is None and args.workspace is None:
        root = host.workspace_root
    if root is not None:
        owner = args.owner or (host.owners[0] if len(host.owners) == 1 else None)
        if owner is None:
            listed = f" (A2A__Owners lists {', '.join(host.owners)})" if host.owners else ""
            raise UsageError(f"which owner? expected --owner ID with the workspace root {root}{listed}")
        return owner_workspace(root.resolve(), owner)
    path = Path(args.workspace).expanduser() if args.workspace else host.workspace or default()
    owner = args.owner or (host.owners[0] if host.owners and host.workspace_root is None else "owner")
    return Workspace(path.resolve(), owner_id=owner)


def _served_root(host: Settings) -> Path | None:
    return host.workspace_root.expanduser().resolve() if host.workspace_root is not None else None


def listed_owners(host: Settings) -> tuple[str, tuple[str, ...], list[str]] | None:
    """Where the host's owners are listed, who they are now, and why a line of the owners file names no one (None:
    the owners file cannot be read)."""
    if host.owners_file is None:
        return "A2A__Owners", host.owners, []
    path = host.owners_file.resolve()  # the settings have expanded a leading ~
    try:
        data = path.read_bytes()
    except OSError:
        return None
    owners, problems = parse_owners(path, data)
    return f"the owners file {path}", owners, problems


def unserved(workspace: Workspace, host: Settings) -> str | None:
    """Why the server this environment configures does not serve an owner's workspace under its root, or None."""
    if _served_root(host) != workspace.path.parent or (listed := listed_owners(host)) is None:
        return None
    if workspace.owner_id in listed[1]:
        return None
    return f"owner {workspace.owner_id} is not in {listed[0]}: the server does not serve this workspace"


def list_main(args: argparse.Namespace, host: Settings, default: Callable[[], Path], out: TextIO) -> int:
    """The listing: every owner of a host, or one workspace. UsageError when what to show cannot be told."""
    now = datetime.now(UTC)
    root = host_root(args, host)
    if root is not None:
        shown = host_report(root, host)
        out.write(json.dumps(host_as_json(shown, now), ensure_ascii=False, indent=2) + "\n" if args.json
                  else host_as_text(shown, now))
        return 0
    workspace = chosen_workspace(args, host, default)
    if not workspace.path.is_dir():
        raise UsageError(f"{workspace.path} is not a folder")
    report = report_of(workspace)
    if (why := unserved(workspace, host)) is not None:
        report.problems.append(why)
    out.write(json.dumps(as_json(report, now), ensure_ascii=False, indent=2) + "\n" if args.json
              else as_text(report, now))
    return 0


def add_caller_main(args: argparse.Namespace, workspace: Workspace, host: Settings, out: TextIO) -> int:
    """Adds the caller and prints its key (this once); UsageError for a name that is not one, Refused when the file
    cannot take it."""
    if not NAME_PATTERN.fullmatch(args.name):
        raise UsageError(f"NAME {args.name!r} is not a caller name; expected 1 to 40 lowercase letters, digits or "
                         "'-'")
    key, path = new_key(), workspace.callers_file
    try:
        add_caller(path, caller_entry(args.name, key, args.note))
    except ValueError as error:
        raise Refused(str(error)) from None
    except OSError as error:
        raise Refused(f"{path} cannot be written ({error.strerror})") from None
    if (why := unserved(workspace, host)) is not None:
        print(f"reference-server a2a add-caller: warning: {why}", file=sys.stderr)
    if args.json:
        out.write(json.dumps({"name": args.name, "key": key, "owner": workspace.owner_id, "callersFile": str(path)},
                             ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(f"added the caller {args.name} to {path}\nkey: {key}\n"
                  "The key is shown this once: give it to the caller, who sends it as X-API-Key.\n")
    return 0


def remove_caller_main(args: argparse.Namespace, workspace: Workspace, host: Settings, out: TextIO) -> int:
    """Removes the caller; Refused when no entry has the name, or the file cannot be changed."""
    path = workspace.callers_file
    try:
        remove_caller(path, args.name)
    except ValueError as error:
        raise Refused(str(error)) from None
    except OSError as error:
        raise Refused(f"{path} cannot be written ({error.strerror})") from None
    if args.json:
        out.write(json.dumps({"name": args.name, "owner": workspace.owner_id, "callersFile": str(path)},
                             ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(f"removed the caller {_printable(args.name)} from {path}; its key is refused from the next "
                  "request\n")
    return 0


Change = Callable[[argparse.Namespace, Workspace, Settings, TextIO], int]
CHANGES: dict[str, tuple[Callable[[], argparse.ArgumentParser], Change]] = {
    "add-caller": (add_caller_parser, add_caller_main),
    "remove-caller": (remove_caller_parser, remove_caller_main),
}


def main(argv: Sequence[str], *, default_workspace: Callable[[], Path], env: Mapping[str, str] | None = None,
         out: TextIO | None = None) -> int:
    """The listing, or the change that argv's first word names; 0 done, 1 a change refused, 2 a usage error."""
    words = list(argv)
    parser, change = CHANGES[words.pop(0)] if words and words[0] in CHANGES else (build_parser, None)
    command = parser()
    args = command.parse_args(words)
    out = out or sys.stdout
    try:
        host = load_settings(os.environ if env is None else env)
        if change is None:
            return list_main(args, host, default_workspace, out)
        workspace = chosen_workspace(args, host, default_workspace)
        if not workspace.path.is_dir():
            raise UsageError(f"{workspace.path} is not a folder")
        return change(args, workspace, host, out)
    except (SettingsError, UsageError) as error:
        print(f"{command.prog}: {error}", file=sys.stderr)
        return 2
    except Refused as error:
        print(f"{command.prog}: {error}", file=sys.stderr)
        return 1
