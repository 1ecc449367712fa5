"""Steps about ListTasks on any server (A2A §3.1.4): the tasks of one context the scenario made, read page by page,
and what another caller's list holds. Listing by context keeps a scenario apart from the target's other tasks."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import answer_of, field_of
from reference_server.conformance.steps.listing import list_options, listed
from reference_server.conformance.steps.prefixes import OTHER, send_prefixed
from reference_server.conformance.steps.tasks import as_caller
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import Reply, described
from reference_server.conformance.world import World

MAX_PAGES = 20  # a cursor that never ends is a failure, not a hang


@given(parsers.re(r'the caller has (?P<count>\d+) "(?P<prefix>[^"]+)" tasks? in one context$'))
def _(world: World, count: str, prefix: str) -> None:
    made: list[str] = []
    context = None
    for _ in range(int(count)):
        reply = send_prefixed(world, prefix, context_id=context)
        assert reply is not None and reply.error is None, \
            f'expected a task for a "{prefix}" message, got {described(reply)}'
        task = field_of(reply.body, "task", f'an answer to a "{prefix}" message')
        # the first task's context, the agent's own, for the others
        context = context or field_of(task, "contextId", "a task")
        made.append(field_of(task, "id", "a task"))
    world.listing.context, world.listing.tasks = context, made


def list_context(world: World, **params: Any) -> Reply:
    world.stream = None
    reply = world.reply = world.client().call("ListTasks", {"contextId": world.listing.context, **params})
    return reply


@when("the caller lists the tasks of that context")
def _(world: World) -> None:
    list_context(world)


@when(parsers.re(r"the caller lists the tasks of that context with (?P<options>(?!.*page by page).+)$"))
def _(world: World, options: str) -> None:
    list_context(world, **list_options(world, options))


@when(parsers.parse("the caller lists the tasks of that context page by page with pageSize {size:d}"))
def _(world: World, size: int) -> None:
    pages: list[dict[str, Any]] = []
    token: str | None = None
    while len(pages) < MAX_PAGES:
        reply = list_context(world, pageSize=size, **({"pageToken": token} if token else {}))
        assert reply.error is None, f"expected page {len(pages) + 1} of the list, got {reply}"
        assert isinstance(reply.body, dict), f"expected page {len(pages) + 1} of the list, got {reply}"
        pages.append(reply.body)
        token = reply.body.get("nextPageToken")
        # A2A §3.1.4: "" or no token at all ends the list here (that the token is always there is CORE-LIST-004's,
        # checked by "every page but the last has a next page token")
        if not token:
            token = ""
            break
    assert token == "", f"expected the last page within {MAX_PAGES} pages, the cursor still goes on"
    world.listing.pages = pages


@then(parsers.parse("the pages hold each of those tasks once, at most {size:d} a page"))
def _(world: World, size: int) -> None:
    pages = world.listing.pages
    assert all(isinstance(page.get("tasks"), list) and all(isinstance(task, dict) for task in page["tasks"])
               for page in pages), f"expected every page to hold its tasks (A2A §3.1.4), got {shown(pages)}"
    ids = [task.get("id") for page in pages for task in page["tasks"]]
    sizes = [len(page["tasks"]) for page in pages]
    assert all(n <= size for n in sizes), f"expected at most {size} tasks a page, got pages of {shown(sizes)} tasks"
    made = world.listing.tasks
    assert sorted(ids, key=repr) == sorted(made, key=repr), \
        f"expected the pages to hold each of the tasks {shown(made)} once, they held {shown(ids)}"
    assert len(pages) >= 2, f"expected the tasks on two pages or more, all came on one: {shown(ids)}"


@then("every page but the last has a next page token")
def _(world: World) -> None:
    tokens = [page.get("nextPageToken") for page in world.listing.pages]
    assert len(tokens) >= 2 and all(tokens[:-1]) and tokens[-1] == "", \
        f'expected a next page token on every page but the last, and "" on the last, got {shown(tokens)}'


@then("the list holds those tasks, the last one first")
def _(world: World) -> None:
    ids = [task.get("id") for task in listed(world)]
    expected = list(reversed(world.listing.tasks))
    assert ids == expected, f"expected the tasks {shown(expected)}, the last one first, got {shown(ids)}"


@then("the listed status times never go up")
def _(world: World) -> None:
    stamps = [task["status"].get("timestamp") if isinstance(task.get("status"), dict) else None
              for task in listed(world)]
    assert all(isinstance(stamp, str) for stamp in stamps), \
        f"expected every listed task with a status timestamp, got {shown(stamps)}"
    times = [status_time(str(stamp)) for stamp in stamps]
    # A2A §3.1.4: by status timestamp, descending
    assert times == sorted(times, reverse=True), f"expected the status times never to go up, got {shown(stamps)}"


def status_time(stamp: str) -> datetime:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        raise AssertionError(f"expected a status timestamp in RFC 3339, got {shown(stamp)}") from None


@then(parsers.parse('every listed task has an artifact with the text "{text}"'))
def _(world: World, text: str) -> None:
    tasks = listed(world)
    assert tasks, "expected listed tasks, got none"
    for task in tasks:
        artifacts = task.get("artifacts", [])
        assert isinstance(artifacts, list) and all(
            isinstance(a, dict) and isinstance(a.get("parts"), list) and all(isinstance(p, dict) for p in a["parts"])
            for a in artifacts), f"expected the listed task's artifacts, each with its parts, got {shown(task)}"
        texts = ["".join(p.get("text", "") for p in a["parts"]) for a in artifacts]
        assert text in texts, \
            f'expected the listed task {shown(task.get("id"))} to have an artifact with the text "{text}", got the ' \
            f"artifacts {shown(artifacts)}"


@then(parsers.re(r"the list holds at most (?P<count>\d+) tasks? and a next page token$"))
def _(world: World, count: str) -> None:
    tasks = listed(world)
    body = answer_of(world).body
    assert len(tasks) <= int(count), f"expected at most {count} tasks on the page, got {len(tasks)}"
    token = body.get("nextPageToken")
    assert token, f"expected a next page token, as the context has more tasks, got nextPageToken {shown(token)}"


# --- another caller ---


@when("the other caller lists its tasks")
def _(world: World) -> None:
    with as_caller(world, OTHER):
        world.stream = None
        world.reply = world.client().call("ListTasks", {})


@then("the list holds the caller's task but not the other caller's")
def _(world: World) -> None:
    ids = [task.get("id") for task in listed(world)]
    assert world.tasks["the task"] in ids, \
        f'expected the caller\'s task "{world.tasks["the task"]}" listed, got {shown(ids)}'
    assert world.other_task not in ids, \
        f'expected the other caller\'s task "{world.other_task}" not listed, but it is'


@then("the list does not hold the caller's task")
def _(world: World) -> None:
    ids = [task.get("id") for task in listed(world)]
    assert world.tasks["the task"] not in ids, \
        f'expected the caller\'s task "{world.tasks["the task"]}" not in the other caller\'s list, but it is'
