"""ListTasks: filters, newest status first, cursor pages (A2A §3.1.4), over task summaries."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import UTC, datetime

from reference_server.domain.errors import FieldViolation, InvalidParams
from reference_server.domain.model import ListTasksQuery, Task, TaskState

DEFAULT_PAGE_SIZE = 50
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class TaskSummary:
    """What a listing filters and sorts on: a few fields of a task, kept small so thousands fit in memory."""

    id: str
    context_id: str
    state: TaskState
    timestamp: datetime | None

    @classmethod
    def of(cls, task: Task) -> TaskSummary:
        return cls(task.id, task.context_id, task.status.state, task.status.timestamp)


@dataclass
class SummaryPage:
    """One page of summaries; the tasks themselves are read for this page only."""

    summaries: list[TaskSummary]
    next_page_token: str
    page_size: int
    total_size: int


def _sort_key(summary: TaskSummary) -> tuple[datetime, str]:
    return (summary.timestamp or _EPOCH, summary.id)


def page_of(summaries: list[TaskSummary], query: ListTasksQuery) -> SummaryPage:
    """One page of the matching tasks; the cursor names the last task of the previous page."""
    matching = [summary for summary in summaries if _matches(summary, query)]
    matching.sort(key=_sort_key, reverse=True)  # A2A §3.1.4: newest status timestamp first
    start = 0
    if query.page_token:
        after = _decode_cursor(query.page_token)
        start = next((i for i, summary in enumerate(matching) if _sort_key(summary) < after), len(matching))
    size = query.page_size or DEFAULT_PAGE_SIZE
    page = matching[start:start + size]
    more = start + size < len(matching)
    token = _encode_cursor(_sort_key(page[-1])) if more and page else ""
    return SummaryPage(summaries=page, next_page_token=token, page_size=size, total_size=len(matching))


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


def _encode_cursor(key: tuple[datetime, str]) -> str:
    raw = f"{key[0].isoformat()}|{key[1]}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(token: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        stamp, task_id = raw.split("|", 1)
        when = datetime.fromisoformat(stamp)
        if when.tzinfo is None:  # ours always carry their offset; a naive one cannot be compared
            raise ValueError
        return when, task_id
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidParams(violations=[FieldViolation(
            "pageToken", "is not a token this server issued; pass nextPageToken from the previous page")]) from None
