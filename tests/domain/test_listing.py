"""domain/listing.py: ListTasks filters, newest first, cursor pages (A2A §3.1.4)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from reference_server.domain import listing
from reference_server.domain.errors import InvalidParams
from reference_server.domain.listing import DEFAULT_PAGE_SIZE, SummaryPage, TaskSummary
from reference_server.domain.model import ListTasksQuery, Task, TaskState, TaskStatus

T0 = datetime(2026, 10, 7, 14, 0, tzinfo=UTC)


def task(minute: int, state: TaskState = TaskState.COMPLETED, context: str = "ctx-1",
         task_id: str | None = None) -> Task:
    return Task(task_id or str(uuid.uuid4()), context, TaskStatus(state, timestamp=T0 + timedelta(minutes=minute)))


def ids(tasks: list[Task] | list[TaskSummary]) -> list[str]:
    return [t.id for t in tasks]


class Page(SummaryPage):
    @property
    def tasks(self) -> list[TaskSummary]:
        return self.summaries


def page_of(tasks: list[Task], query: ListTasksQuery) -> Page:
    page = listing.page_of([TaskSummary.of(task) for task in tasks], query)
    return Page(page.summaries, page.next_page_token, page.page_size, page.total_size)


def test_newest_status_first() -> None:
    tasks = [task(1), task(3), task(2)]
    page = page_of(tasks, ListTasksQuery())
    assert ids(page.tasks) == [tasks[1].id, tasks[2].id, tasks[0].id]
    assert (page.next_page_token, page.page_size, page.total_size) == ("", DEFAULT_PAGE_SIZE, 3)


def test_equal_timestamps_have_a_stable_order() -> None:
    tasks = [task(1, task_id=f"00000000-0000-4000-8000-00000000000{n}") for n in range(4)]
    first = page_of(tasks, ListTasksQuery())
    again = page_of(list(reversed(tasks)), ListTasksQuery())
    assert ids(first.tasks) == ids(again.tasks) == sorted(ids(tasks), reverse=True)


def test_a_task_without_a_timestamp_comes_last() -> None:
    undated = Task(str(uuid.uuid4()), "ctx-1", TaskStatus(TaskState.COMPLETED))
    dated = task(1)
    assert ids(page_of([undated, dated], ListTasksQuery()).tasks) == [dated.id, undated.id]


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_pages_follow_each_other_without_gaps_or_repeats(size: int) -> None:
    tasks = [task(m % 3) for m in range(7)]  # some timestamps shared, so the cursor must use the id too
    seen: list[str] = []
    token = None
    for _ in range(10):
        page = page_of(tasks, ListTasksQuery(page_size=size, page_token=token))
        assert len(page.tasks) <= size and page.total_size == 7
        seen += ids(page.tasks)
        token = page.next_page_token
        if not token:
            break
    assert seen == ids(page_of(tasks, ListTasksQuery()).tasks)


def test_the_last_page_has_no_token() -> None:
    page = page_of([task(1), task(2)], ListTasksQuery(page_size=2))
    assert page.next_page_token == "" and len(page.tasks) == 2


def test_a_cursor_stays_valid_when_its_task_is_gone() -> None:
    tasks = [task(m) for m in range(5)]
    first = page_of(tasks, ListTasksQuery(page_size=2))
    remaining = [t for t in tasks if t.id != first.tasks[-1].id]
    second = page_of(remaining, ListTasksQuery(page_size=2, page_token=first.next_page_token))
    assert ids(second.tasks) == [tasks[2].id, tasks[1].id]


def test_filters_by_context_state_and_timestamp() -> None:
    a = task(1, TaskState.COMPLETED, "ctx-a")
    b = task(2, TaskState.FAILED, "ctx-a")
    c = task(3, TaskState.COMPLETED, "ctx-b")
    tasks = [a, b, c]
    assert ids(page_of(tasks, ListTasksQuery(context_id="ctx-a")).tasks) == [b.id, a.id]
    assert ids(page_of(tasks, ListTasksQuery(status=TaskState.COMPLETED)).tasks) == [c.id, a.id]
    # A2A ListTasksRequest: status timestamp at or after the given time
    after = page_of(tasks, ListTasksQuery(status_timestamp_after=T0 + timedelta(minutes=2)))
    assert ids(after.tasks) == [c.id, b.id]
    both = page_of(tasks, ListTasksQuery(context_id="ctx-a", status=TaskState.COMPLETED))
    assert ids(both.tasks) == [a.id] and both.total_size == 1


@pytest.mark.parametrize("token", ["not a token", "!!!", "YWJj", "MjAyNi0xMC0wN1QxNDowMDowMHxhYmM"],
                         ids=["words", "symbols", "base64-no-bar", "naive-timestamp"])
def test_a_token_this_server_did_not_issue_is_invalid_params(token: str) -> None:
    with pytest.raises(InvalidParams) as raised:
        page_of([task(1)], ListTasksQuery(page_token=token))
    assert [v.field for v in raised.value.violations] == ["pageToken"]
