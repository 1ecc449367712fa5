"""`reference-server a2a`: the callers (keys masked) and last 10 tasks of a workspace, or of every owner of a host
(design: the /a2a command); `add-caller` and `remove-caller` change a workspace's callers.json."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from reference_server.hosting.overview import (
    HostReport,
    Report,
    as_json,
    as_text,
    host_as_json,
    host_as_text,
    printable,
    report_of,
)
from reference_server.hosting.owners import owner_workspace, parse_owners
from reference_server.model.caller import Workspace
from reference_server.settings import OWNER_ID, Settings, SettingsError, load_settings
from reference_server.workspace.callers import NAME_PATTERN, add_caller, caller_entry, new_key, remove_caller


class UsageError(ValueError):
    """Which workspace to show cannot be told from the flags and the environment; the message says why."""


class Refused(ValueError):
    """A change of callers.json that is not made (the file is left as it was); the message says why."""


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
        out.write(f"removed the caller {printable(args.name)} from {path}; its key is refused from the next "
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
