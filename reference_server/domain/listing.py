"""ListTasks: filters, newest status first, cursor pages (A2A §3.1.4)."""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime

from reference_server.domain.errors import FieldViolation, InvalidParams
from reference_server.domain.model import ListTasksQuery, Task, TaskPage

DEFAULT_PAGE_SIZE = 50
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _sort_key(task: Task) -> tuple[datetime, str]:
    return (task.status.timestamp or _EPOCH, task.id)


def page_of(tasks: list[Task], query: ListTasksQuery) -> TaskPage:
    """One page of the matching tasks; the cursor names the last task of the previous page."""
    matching = [task for task in tasks if _matches(task, query)]
    matching.sort(key=_sort_key, reverse=True)  # A2A §3.1.4: newest status timestamp first
    start = 0
    if query.page_token:
        after = _decode_cursor(query.page_token)
        start = next((i for i, task in enumerate(matching) if _sort_key(task) < after), len(matching))
    size = query.page_size or DEFAULT_PAGE_SIZE
    page = matching[start:start + size]
    more = start + size < len(matching)
    token = _encode_cursor(_sort_key(page[-1])) if more and page else ""
    return TaskPage(tasks=page, next_page_token=token, page_size=size, total_size=len(matching))


def _matches(task: Task, query: ListTasksQuery) -> bool:
    if query.context_id is not None and task.context_id != query.context_id:
        return False
    if query.status is not None and task.status.state is not query.status:
        return False
    after = query.status_timestamp_after
    # A2A ListTasksRequest: status timestamp >= the given value
    return after is None or (task.status.timestamp is not None and task.status.timestamp >= after)


def _encode_cursor(key: tuple[datetime, str]) -> str:
    raw = f"{key[0].isoformat()}|{key[1]}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(token: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        stamp, task_id = raw.split("|", 1)
        return datetime.fromisoformat(stamp), task_id
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidParams(violations=[FieldViolation(
            "pageToken", "is not a token this server issued; pass nextPageToken from the previous page")]) from None
