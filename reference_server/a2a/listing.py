"""ListTasks: filters, newest status first, cursor pages (A2A §3.1.4), over an index of task summaries kept in
listing order, so that a page costs its length and not the number of task files."""

from __future__ import annotations

import base64
import binascii
import bisect
import heapq
import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from reference_server.model.errors import FieldViolation, InvalidParams
from reference_server.model.types import ListTasksQuery, StoredTask, Task, TaskState

DEFAULT_PAGE_SIZE = 50
ACTIVE = (TaskState.SUBMITTED, TaskState.WORKING)  # the states a run holds; without a live run they are stale
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_IDS = 1 << 128  # a task id is a UUID (design), a 128-bit number


@dataclass(frozen=True, slots=True)
class TaskSummary:
    """What a listing filters and sorts on: a few fields of a task, kept small so thousands fit in memory."""

    id: str
    context_id: str
    state: TaskState
    timestamp: datetime | None

    @classmethod
    def of(cls, task: Task, task_id: str | None = None) -> TaskSummary:
        """task_id: an equal string to use instead of the task's (the index keeps one string per id)."""
        return cls(task_id or task.id, task.context_id, task.status.state, task.status.timestamp)


@dataclass
class SummaryPage:
    """One page of summaries; the tasks themselves are read for this page only."""

    summaries: list[TaskSummary]
    next_page_token: str
    page_size: int
    total_size: int


def sort_key(summary: TaskSummary) -> int:
    """A listing's order as one number: the status time in microseconds (none: the epoch), then the id (a UUID, as a
    number: the same order as its text); oldest first, and a listing walks it from the newest."""
    return _key(summary.timestamp, summary.id)


def _key(when: datetime | None, task_id: str) -> int:
    return ((when or _EPOCH) - _EPOCH) // _MICROSECOND * _IDS + int(task_id.replace("-", ""), 16)


@dataclass(slots=True)
class Indexed:
    """What the index keeps of one task file: its caller and summary (None: malformed), where it sorts, and the
    store's fingerprint of the file's stat (0: read it again whatever its stat)."""

    caller: str | None
    summary: TaskSummary | None
    key: int
    seen: int


def _key_of(entry: Indexed) -> int:
    return entry.key


class TaskIndex:
    """The summaries of one workspace's task files, each caller's kept in listing order. A page is found by
    bisection and costs its length; a filter by context or state walks the caller's summaries, in memory.
    Not thread-safe: its store holds a lock around it."""

    def __init__(self) -> None:
        self.files: dict[str, Indexed] = {}  # task id -> what its file holds
        self._order: dict[str, list[Indexed]] = {}  # caller -> the summaries of its tasks, oldest first
        self._active: dict[str, set[str]] = {}  # caller -> its task ids whose file says submitted or working

    def put(self, task_id: str, caller: str | None, summary: TaskSummary | None, seen: int) -> None:
        """The file of task_id as read now (caller and summary None: malformed)."""
        entry = self._replace(task_id, caller, summary, seen)
        if entry is not None:
            bisect.insort(self._order.setdefault(entry.caller or "", []), entry, key=_key_of)

    def put_all(self, files: list[tuple[str, str | None, TaskSummary | None, int]]) -> None:
        """Many files as read now (a scan): one sort per caller instead of an insertion each."""
        added: dict[str, list[Indexed]] = {}
        for task_id, caller, summary, seen in files:
            entry = self._replace(task_id, caller, summary, seen)
            if entry is not None:
                added.setdefault(entry.caller or "", []).append(entry)
        for caller, entries in added.items():
            order = self._order.setdefault(caller, [])
            order.extend(entries)
            order.sort(key=_key_of)

    def _replace(self, task_id: str, caller: str | None, summary: TaskSummary | None, seen: int) -> Indexed | None:
        """Forget what the file held; remember what it holds now; the entry to put in order (None: malformed)."""
        self.drop(task_id)
        entry = Indexed(caller, summary, sort_key(summary) if summary is not None else 0, seen)
        self.files[task_id] = entry
        if caller is None or summary is None:
            return None
        if summary.state in ACTIVE:
            self._active.setdefault(caller, set()).add(task_id)
        return entry

    def drop(self, task_id: str) -> None:
        """The file of task_id is gone."""
        entry = self.files.pop(task_id, None)
        if entry is None or entry.caller is None or entry.summary is None:
            return
        order = self._order[entry.caller]
        at = bisect.bisect_left(order, entry.key, key=_key_of)
        while order[at] is not entry:  # files share a key only when one holds another's id: rare, and next
            at += 1
        del order[at]
        if not order:
            del self._order[entry.caller]
        active = self._active.get(entry.caller)
        if active is not None:
            active.discard(task_id)

    def active(self, caller: str) -> list[str]:
        """The caller's task ids whose file says submitted or working."""
        return list(self._active.get(caller, ()))

    def page(self, caller: str, query: ListTasksQuery, live: list[TaskSummary]) -> SummaryPage:
        """A page of the caller's tasks that match the query, newest first, the live runs' summaries (given) in
        place of their files'; the cursor names the last task of the previous page."""
        order = self._order.get(caller, [])
        live_ids = {summary.id for summary in live}
        after = query.status_timestamp_after
        # A2A ListTasksRequest: status timestamp >= statusTimestampAfter: a suffix of the order
        low = 0 if after is None else bisect.bisect_left(order, _key(after, _FIRST_ID), key=_key_of)
        cursor = _decode_cursor(query.page_token) if query.page_token else None
        high = len(order) if cursor is None else bisect.bisect_left(order, cursor, key=_key_of)
        # newest first: the files' summaries from just below the cursor down, and the live ones, merged
        files = (entry.summary for entry in _downwards(order, low, high) if entry.summary is not None
                 and entry.summary.id not in live_ids and _matches(entry.summary, query))
        matching_live = sorted((s for s in live if _matches(s, query)), key=sort_key, reverse=True)
        before = [s for s in matching_live if cursor is None or sort_key(s) < cursor]
        size = query.page_size or DEFAULT_PAGE_SIZE
        found = list(itertools.islice(heapq.merge(files, before, key=sort_key, reverse=True), size + 1))
        page = found[:size]
        token = _encode_cursor(page[-1]) if len(found) > size else ""
        total = self._matching_files(caller, order, low, query, live_ids) + len(matching_live)
        return SummaryPage(summaries=page, next_page_token=token, page_size=size, total_size=total)

    def _matching_files(self, caller: str, order: list[Indexed], low: int, query: ListTasksQuery,
                        live_ids: set[str]) -> int:
        """How many of the caller's files match the query, the cursor aside, those of live runs left out."""
        if query.context_id is not None or query.status is not None:  # a walk of the caller's summaries
            return sum(1 for entry in itertools.islice(order, low, None) if entry.summary is not None
                       and entry.summary.id not in live_ids and _matches(entry.summary, query))
        counted = len(order) - low
        for task_id in live_ids:  # a live run's task is counted once, as the run has it
            entry = self.files.get(task_id)
            if entry is not None and entry.caller == caller and entry.summary is not None \
                    and _matches(entry.summary, query):
                counted -= 1
        return counted


_FIRST_ID = "00000000-0000-0000-0000-000000000000"


def _downwards(order: list[Indexed], low: int, high: int) -> itertools.islice[Indexed]:
    """order[low:high], newest first, without copying it."""
    return itertools.islice(reversed(order), len(order) - high, len(order) - low)


def _matches(summary: TaskSummary, query: ListTasksQuery) -> bool:
    if query.context_id is not None and summary.context_id != query.context_id:
        return False
    if query.status is not None and summary.state is not query.status:
        return False
    after = query.status_timestamp_after
    # A2A ListTasksRequest: status timestamp >= the given value
    return after is None or (summary.timestamp is not None and summary.timestamp >= after)


def check_cursor(token: str | None) -> None:
    """Raise InvalidParams for a page token this server did not issue (before any file is read)."""
    if token:
        _decode_cursor(token)


def _encode_cursor(summary: TaskSummary) -> str:
    raw = f"{(summary.timestamp or _EPOCH).isoformat()}|{summary.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(token: str) -> int:
    """Where the previous page ended, as a sort key."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        stamp, task_id = raw.split("|", 1)
        when = datetime.fromisoformat(stamp)
        if when.tzinfo is None or len(task_id) != 36:  # ours carry their offset, and a task id (a UUID)
            raise ValueError
        return _key(when, task_id)
    except (binascii.Error, UnicodeDecodeError, ValueError, OverflowError):
        raise InvalidParams(violations=[FieldViolation(
            "pageToken", "is not a token this server issued; pass nextPageToken from the previous page")]) from None


@dataclass
class Listing:
    """A page of a caller's tasks, or the task ids that need restart recovery before a page can be made."""

    page: SummaryPage | None = None
    tasks: list[StoredTask] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
