"""Watches: <workspace>/.volcanic/a2a/watches.json, and the push log of each watch (the default host's on_push)."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reference_server.model.caller import Workspace
from reference_server.model.types import is_watch_id
from reference_server.platform.disk import WRITER, StatCache, finished, off_loop

log = logging.getLogger("reference_server.watches")

# the same shape as a client contextId (design): safe as a file name, never `.` or `..`
@dataclass(frozen=True)
class Watch:
    """One valid entry of a watches.json file: a webhook the owner gave out, with the token it expects."""

    id: str
    token: str | None = None  # None: every push for the watch is taken

    def __repr__(self) -> str:  # tokens never reach a log line
        return f"Watch(id={self.id!r}, token={'…' if self.token else None!r})"

    def accepts(self, token: str | None) -> bool:
        """The presented token opens this watch; compared in constant time, as UTF-8 bytes."""
        if self.token is None:
            return True
        if token is None:
            return False
        # surrogatepass: JSON and headers can both carry a lone surrogate; it must not raise, only differ
        return hmac.compare_digest(self.token.encode("utf-8", "surrogatepass"), token.encode("utf-8", "surrogatepass"))


def read_watches(path: Path) -> dict[str, Watch]:
    """The valid watches of a watches.json by id, as the file is now (an edit applies to the next push)."""
    return _WATCHES.get(path)


def _parse_watches(path: Path) -> dict[str, Watch]:
    """Missing file = no watches; malformed = none plus one warning naming the file (never a token)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("watches file %s cannot be read (%s); no watches", path, type(exc).__name__)
        return {}
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        log.warning("watches file %s is not valid JSON (line %d); no watches", path, exc.lineno)
        return {}
    if not isinstance(raw, list):
        log.warning("watches file %s must hold a JSON array; no watches", path)
        return {}
    watches: dict[str, Watch] = {}
    for index, item in enumerate(raw):
        problem = _entry_problem(item)
        if problem is None and item["id"] in watches:
            problem = f"repeats the id {item['id']!r}"
        if problem is not None:
            log.warning("watches file %s: entry %d %s; skipped", path, index, problem)
            continue
        watches[item["id"]] = Watch(item["id"], item.get("token"))  # other fields (a description) are the owner's
    return watches


def _entry_problem(item: Any) -> str | None:
    """Why an entry is skipped, or None; never shows the token."""
    if not isinstance(item, dict):
        return "is not an object"
    watch_id, token = item.get("id"), item.get("token")
    if not isinstance(watch_id, str) or not is_watch_id(watch_id):
        return "has no valid id (expected [A-Za-z0-9_-]{1,100})"
    if token is not None and (not isinstance(token, str) or not token):
        return f"({watch_id}) has a token that is not a non-empty string"
    return None


_WATCHES: StatCache[dict[str, Watch]] = StatCache(_parse_watches)


# characters that some readers take for a line break (Python's str.splitlines, JavaScript before ES2019);
# json.dumps leaves them raw with ensure_ascii=False, so they are escaped: one push is always one line
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _log_line(watch_id: str, body: Any, received_at: datetime) -> str:
    """One line of pushes/<watchId>.jsonl (spec/schemas/push-log.json), newline included."""
    stamp = received_at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    line = json.dumps({"receivedAt": stamp, "watch": watch_id, "body": body}, ensure_ascii=False,
                      separators=(",", ":"))
    return line.translate(_LINE_BREAKS) + "\n"


class WorkspaceWatches:
    """The default host's on_push over the workspaces the function yields: the first workspace whose
    watches.json lists the watch decides; its token must match; the body is appended to that workspace's
    pushes/<watchId>.jsonl before the push is accepted."""

    def __init__(self, workspaces: Callable[[], Iterable[Workspace]]) -> None:
        self._workspaces = workspaces

    async def __call__(self, watch_id: str, token: str | None, body: Any) -> bool:
        if not is_watch_id(watch_id):
            return False  # never touches the file system
        found = await off_loop(self.find, watch_id)
        if found is None:
            log.info("push for watch %s refused: no workspace has that watch", watch_id)
            return False
        workspace, watch = found
        if not watch.accepts(token):
            log.info("push for watch %s refused: %s", watch_id, "no token" if token is None else "wrong token")
            return False
        path = workspace.pushes_dir / f"{watch_id}.jsonl"
        await finished(WRITER.append(path, _log_line(watch_id, body, datetime.now(UTC))))
        log.info("push for watch %s recorded in %s", watch_id, path)
        return True

    def find(self, watch_id: str) -> tuple[Workspace, Watch] | None:
        """The first workspace whose watches.json lists the watch, with the watch (on a disk thread)."""
        for workspace in self._workspaces():
            watch = read_watches(workspace.watches_file).get(watch_id)
            if watch is not None:
                return workspace, watch
        return None
