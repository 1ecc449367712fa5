"""domain/listing.py: ListTasks filters, newest first, cursor pages (A2A §3.1.4), from the index of summaries."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_server.a2a.listing import DEFAULT_PAGE_SIZE, SummaryPage, TaskIndex, TaskSummary
from reference_server.model.errors import InvalidParams
from reference_server.model.types import ListTasksQuery, Task, TaskState, TaskStatus

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


CALLER = "travel-bot"


def index_of(tasks: list[Task], caller: str = CALLER) -> TaskIndex:
    index = TaskIndex()
    for task in tasks:
        index.put(task.id, caller, TaskSummary.of(task), seen=1)
    return index


def page_of(tasks: list[Task], query: ListTasksQuery) -> Page:
    page = index_of(tasks).page(CALLER, query, [])
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


def test_an_edited_task_moves_and_a_dropped_one_goes() -> None:
    tasks = [task(m) for m in range(3)]
    index = index_of(tasks)
    moved = task(9, TaskState.CANCELED, task_id=tasks[0].id)  # its file edited: newer, another state
    index.put(moved.id, CALLER, TaskSummary.of(moved), seen=2)
    index.drop(tasks[1].id)
    page = index.page(CALLER, ListTasksQuery(), [])
    assert ids(page.summaries) == [moved.id, tasks[2].id] and page.total_size == 2
    assert index.page(CALLER, ListTasksQuery(status=TaskState.COMPLETED), []).total_size == 1


def test_only_the_callers_tasks_and_its_active_ones() -> None:
    mine, theirs = task(1, TaskState.WORKING), task(2, TaskState.WORKING)
    index = index_of([mine])
    index.put(theirs.id, "other-bot", TaskSummary.of(theirs), seen=1)
    index.put(str(uuid.uuid4()), None, None, seen=1)  # a malformed file: in no listing
    assert ids(index.page(CALLER, ListTasksQuery(), []).summaries) == [mine.id]
    assert index.active(CALLER) == [mine.id] and index.active("other-bot") == [theirs.id]


# --- the index against the definition: every task matched, sorted, filtered, cut at the cursor ---


def expected_pages(summaries: list[TaskSummary], query: ListTasksQuery) -> list[list[str]]:
    """A2A §3.1.4 as plainly as it can be said: the matching tasks, newest status first (ties: the greater id),
    cut into pages of the page size."""
    def matches(s: TaskSummary) -> bool:
        after = query.status_timestamp_after
        return ((query.context_id is None or s.context_id == query.context_id)
                and (query.status is None or s.state is query.status)
                and (after is None or (s.timestamp is not None and s.timestamp >= after)))

    ordered = sorted((s for s in summaries if matches(s)), reverse=True,
                     key=lambda s: (s.timestamp or datetime(1970, 1, 1, tzinfo=UTC), s.id))
    size = query.page_size or DEFAULT_PAGE_SIZE
    return [[s.id for s in ordered[n:n + size]] for n in range(0, len(ordered), size)] or [[]]


summaries_of = st.lists(st.tuples(
    st.sampled_from([CALLER, "other-bot"]), st.sampled_from(["ctx-a", "ctx-b"]),
    st.sampled_from([TaskState.COMPLETED, TaskState.FAILED, TaskState.INPUT_REQUIRED]),
    st.one_of(st.none(), st.integers(0, 5).map(lambda m: T0 + timedelta(minutes=m))),  # ties and no time at all
    st.booleans()), max_size=40)  # the last: whether a live run holds the task (with a newer state)


@given(summaries_of, st.one_of(st.none(), st.sampled_from(["ctx-a", "ctx-b"])),
       st.one_of(st.none(), st.sampled_from([TaskState.COMPLETED, TaskState.FAILED, TaskState.WORKING])),
       st.one_of(st.none(), st.integers(0, 6).map(lambda m: T0 + timedelta(minutes=m))), st.integers(1, 7))
@settings(max_examples=300, deadline=None)
def test_pages_are_the_definitions_pages(rows: list[tuple[str, str, TaskState, datetime | None, bool]],
                                         context: str | None, status: TaskState | None, after: datetime | None,
                                         size: int) -> None:
    index, live, visible, scanned = TaskIndex(), [], [], []
    for n, (caller, ctx, state, when, running) in enumerate(rows):
        summary = TaskSummary(f"00000000-0000-4000-8000-{n:012x}", ctx, state, when)
        if n % 2:  # half as a scan puts them, all at once; half one by one, as the kernel names them
            scanned.append((summary.id, caller, summary, 1))
        else:
            index.put(summary.id, caller, summary, seen=1)
        if caller == CALLER:
            current = TaskSummary(summary.id, ctx, TaskState.WORKING, T0 + timedelta(minutes=3)) if running else summary
            visible.append(current)
            if running:
                live.append(current)
    index.put_all(scanned)
    query = ListTasksQuery(context_id=context, status=status, status_timestamp_after=after, page_size=size)
    expected = expected_pages(visible, query)
    pages, token = [], None
    for _ in range(len(expected) + 1):
        page = index.page(CALLER, replace(query, page_token=token), live)
        assert page.total_size == sum(len(p) for p in expected) and page.page_size == size
        pages.append(ids(page.summaries))
        token = page.next_page_token
        if not token:
            break
    assert pages == expected
