"""Steps about ListTasks on any server (A2A §3.1.4): the tasks of one context the scenario made, read page by page,
and what another caller's list holds. Listing by context keeps a scenario apart from the target's other tasks."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pytest_bdd import given, parsers, then, when

from steps.prefixes import OTHER, send_prefixed
from steps.tasks import as_caller, list_options, listed

MAX_PAGES = 20  # a cursor that never ends is a failure, not a hang


@given(parsers.re(r'the caller has (?P<count>\d+) "(?P<prefix>[^"]+)" tasks? in one context$'))
def _(world: Any, count: str, prefix: str) -> None:
    made: list[str] = []
    context = None
    for _ in range(int(count)):
        reply = send_prefixed(world, prefix, context_id=context)
        assert reply.error is None, reply.error
        task = reply.body["task"]
        context = context or task["contextId"]  # the first task's context, the agent's own, for the others
        made.append(task["id"])
    world.notes["list context"], world.notes["context tasks"] = context, made


def list_context(world: Any, **params: Any) -> Any:
    world.stream = None
    world.reply = world.client().call("ListTasks", {"contextId": world.notes["list context"], **params})
    return world.reply


@when("the caller lists the tasks of that context")
def _(world: Any) -> None:
    list_context(world)


@when(parsers.re(r"the caller lists the tasks of that context with (?P<options>(?!.*page by page).+)$"))
def _(world: Any, options: str) -> None:
    list_context(world, **list_options(world, options))


@when(parsers.parse("the caller lists the tasks of that context page by page with pageSize {size:d}"))
def _(world: Any, size: int) -> None:
    pages: list[dict[str, Any]] = []
    token: str | None = None
    while len(pages) < MAX_PAGES:
        reply = list_context(world, pageSize=size, **({"pageToken": token} if token else {}))
        assert reply.error is None, reply.error
        pages.append(reply.body)
        token = reply.body.get("nextPageToken")
        assert token is not None, f"page {len(pages)} has no nextPageToken"  # A2A §3.1.4: always present
        if token == "":
            break
    assert token == "", f"the cursor still goes on after {MAX_PAGES} pages"
    world.notes["pages"], world.notes["page size"] = pages, size


@then(parsers.parse("the pages hold each of those tasks once, at most {size:d} a page"))
def _(world: Any, size: int) -> None:
    pages = world.notes["pages"]
    ids = [task["id"] for page in pages for task in page["tasks"]]
    assert all(len(page["tasks"]) <= size for page in pages), [len(page["tasks"]) for page in pages]
    assert sorted(ids) == sorted(world.notes["context tasks"]), f"the pages held {ids}"
    assert len(pages) >= 2, "all the tasks came on one page"


@then("every page but the last has a next page token")
def _(world: Any) -> None:
    tokens = [page["nextPageToken"] for page in world.notes["pages"]]
    assert len(tokens) >= 2 and all(tokens[:-1]) and tokens[-1] == "", tokens


@then("the list holds those tasks, the last one first")
def _(world: Any) -> None:
    ids = [task["id"] for task in listed(world)]
    assert ids == list(reversed(world.notes["context tasks"])), f"listed {ids}"


@then("the listed status times never go up")
def _(world: Any) -> None:
    times = [datetime.fromisoformat(task["status"]["timestamp"].replace("Z", "+00:00")) for task in listed(world)]
    assert times == sorted(times, reverse=True), times  # A2A §3.1.4: by status timestamp, descending


@then(parsers.parse('every listed task has an artifact with the text "{text}"'))
def _(world: Any, text: str) -> None:
    tasks = listed(world)
    assert tasks, "nothing was listed"
    for task in tasks:
        texts = ["".join(p.get("text", "") for p in a["parts"]) for a in task.get("artifacts", [])]
        assert text in texts, f"{task['id']}: {task.get('artifacts')}"


@then(parsers.re(r"the list holds at most (?P<count>\d+) tasks? and a next page token$"))
def _(world: Any, count: str) -> None:
    body = world.reply.body
    assert len(listed(world)) <= int(count), f"{len(listed(world))} tasks on one page"
    assert body.get("nextPageToken"), f"no next page token although the context has more: {body.get('nextPageToken')!r}"


# --- another caller ---


@when("the other caller lists its tasks")
def _(world: Any) -> None:
    with as_caller(world, OTHER):
        world.stream = None
        world.reply = world.client().call("ListTasks", {})


@then("the list holds the caller's task but not the other caller's")
def _(world: Any) -> None:
    ids = [task["id"] for task in listed(world)]
    assert world.tasks["the task"] in ids, f"the caller's task is not listed: {ids}"
    assert world.notes["other task"] not in ids, "the other caller's task is listed"


@then("the list does not hold the caller's task")
def _(world: Any) -> None:
    assert world.tasks["the task"] not in [task["id"] for task in listed(world)]
