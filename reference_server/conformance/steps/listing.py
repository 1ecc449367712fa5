"""Steps about ListTasks (A2A §3.1.4): its options, its pages, and what each listed task carries (the portable
scenarios list the tasks of one context: steps/pages.py)."""

from __future__ import annotations

from typing import Any

from pytest_bdd import parsers, then, when

from reference_server.conformance.steps.common import answer_of, field_of
from reference_server.conformance.steps.tasks import STATES, as_caller, quoted, response_text
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import described
from reference_server.conformance.world import World


def _list_value(world: World, name: str, value: str) -> Any:
    if value.startswith('"'):
        return value.strip('"')
    if value == "the next page token":
        reply = world.reply
        assert reply is not None and reply.error is None, f"expected a page of tasks, got {described(reply)}"
        return field_of(reply.body, "nextPageToken", "a ListTasks answer")
    if value.startswith("the status time of "):
        return world.tasks_seen[value.removeprefix("the status time of ").strip('"')]["status"]["timestamp"]
    if value in ("true", "false"):
        return value == "true"
    if name == "status":
        return STATES[value]
    return int(value)


def list_options(world: World, options: str) -> dict[str, Any]:
    """ListTasks parameters from a step's words: "pageSize 2 and pageToken the next page token"."""
    params = {}
    for option in options.split(" and "):
        name, _, value = option.partition(" ")
        params[name] = _list_value(world, name, value)
    return params


@when(parsers.re(r"the caller lists its tasks with (?P<options>.+)$"))
def _(world: World, options: str) -> None:
    world.stream = None
    world.reply = world.client().call("ListTasks", list_options(world, options))


@when(parsers.parse('"{name}" lists its tasks'))
def _(world: World, name: str) -> None:
    with as_caller(world, name):
        world.stream = None
        world.reply = world.client().call("ListTasks", {})


def listed(world: World) -> list[dict[str, Any]]:
    """The tasks of the last ListTasks answer (A2A §3.1.4: `tasks` is REQUIRED, ProtoJSON writes an empty one)."""
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a list of tasks, got {described(reply)}"
    tasks = field_of(reply.body, "tasks", "a ListTasks answer")
    assert isinstance(tasks, list) and all(isinstance(task, dict) for task in tasks), \
        f"expected a list of tasks, got {shown(reply.body)}"
    return tasks


def listed_task(world: World, label: str) -> dict[str, Any]:
    found = [task for task in listed(world) if task.get("id") == world.tasks[label]]
    assert len(found) == 1, f'expected the task "{label}" listed once, got it {len(found)} times'
    return found[0]


@then(parsers.re(r"the list holds the tasks? (?P<labels>.+)$"))
def _(world: World, labels: str) -> None:
    expected = [world.tasks[label] for label in quoted(labels)]
    got = [task.get("id") for task in listed(world)]
    names = {world.tasks[label]: label for label in reversed(quoted(labels))}
    said = ", ".join(f'"{names[i]}"' if isinstance(i, str) and i in names else shown(i) for i in got) or "none"
    assert got == expected, f"expected the tasks {labels} in that order, listed {said}"


@then("the list holds no tasks")
def _(world: World) -> None:
    tasks = listed(world)
    assert tasks == [], f"expected no task listed, got {shown([task.get('id') for task in tasks])}"


@then(parsers.parse("the list counts {total:d} tasks in all, on a page of {size:d}"))
def _(world: World, total: int, size: int) -> None:
    body = answer_of(world).body
    assert (body["totalSize"], body["pageSize"]) == (total, size), \
        f"expected totalSize {total} and pageSize {size}, got {shown(body)}"


@then("the list has a next page token")
def _(world: World) -> None:
    token = answer_of(world).body["nextPageToken"]
    assert isinstance(token, str) and token, f"expected a next page token, got nextPageToken {shown(token)}"


@then("the list is the last page")
def _(world: World) -> None:
    # A2A §3.1.4: nextPageToken is always present, "" on the last page
    reply = world.reply
    assert reply is not None and reply.error is None, f"expected a list of tasks, got {described(reply)}"
    token = field_of(reply.body, "nextPageToken", "a ListTasks answer")
    assert token == "", f'expected the last page (nextPageToken ""), got nextPageToken {shown(token)}'


@then("the listed tasks carry no artifacts")
def _(world: World) -> None:
    tasks = listed(world)
    assert tasks, "expected listed tasks, got none"
    carrying = [task.get("id") for task in tasks if "artifacts" in task]
    assert not carrying, f"expected no listed task to carry artifacts, got artifacts in {shown(carrying)}"


@then(parsers.parse('the listed task "{label}" carries the response artifact "{text}"'))
def _(world: World, label: str, text: str) -> None:
    said = response_text(listed_task(world, label))
    assert said == text, f'expected the listed task "{label}" to say "{text}" in its response artifact, got "{said}"'


@then("the listed tasks carry no history")
def _(world: World) -> None:
    tasks = listed(world)
    assert tasks, "expected listed tasks, got none"
    carrying = [task.get("id") for task in tasks if "history" in task]
    assert not carrying, f"expected no listed task to carry history, got history in {shown(carrying)}"


@then(parsers.re(r"every listed task has (?P<count>\d+) messages? in its history$"))
def _(world: World, count: str) -> None:
    tasks = listed(world)
    assert tasks, "expected listed tasks, got none"
    lengths = [len(task.get("history", [])) for task in tasks]
    assert lengths == [int(count)] * len(tasks), \
        f"expected {count} messages in the history of every listed task, got {shown(lengths)}"


@then(parsers.parse('the history of the listed task "{label}" ends with "{text}"'))
def _(world: World, label: str, text: str) -> None:
    latest = listed_task(world, label)["history"][-1]
    said = "".join(part.get("text", "") for part in latest["parts"])
    assert said == text, f'expected the history of "{label}" to end with "{text}", got {shown(latest)}'


@when("the caller lists its tasks")
def _(world: World) -> None:
    world.stream = None
    world.reply = world.client().call("ListTasks", {})



