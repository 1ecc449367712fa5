"""Steps about what a task says: its response artifact, its status message, its history and its context."""

from __future__ import annotations

from pytest_bdd import parsers, then

from reference_server.conformance.steps.common import UUID
from reference_server.conformance.steps.tasks import artifact_text, response_text, status_text, task_id, the_task
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.world import World, earlier


@then("the answer continues the same task")
def _(world: World) -> None:
    assert task_id(world) == task_id(world, "the previous task"), (
        f'expected the answer to continue the task "{task_id(world, "the previous task")}", got another task '
        f'"{task_id(world)}"')


@then(parsers.parse('the response artifact says "{text}"'))
def _(world: World, text: str) -> None:
    said = response_text(the_task(world))
    assert said == text, f'expected the response artifact to say "{text}", got "{said}"'


@then(parsers.parse('the response artifact begins with "{text}"'))
def _(world: World, text: str) -> None:
    said = response_text(the_task(world))
    assert said.startswith(text), f'expected the response artifact to begin with "{text}", got "{said}"'


@then(parsers.parse('no artifact of the task mentions "{text}"'))
def _(world: World, text: str) -> None:
    artifacts = the_task(world).get("artifacts", [])
    assert all(text not in artifact_text(a) for a in artifacts), \
        f'expected no artifact to mention "{text}", got the artifacts {shown(artifacts)}'


@then(parsers.parse('the task\'s status message says "{text}"'))
def _(world: World, text: str) -> None:
    said = status_text(the_task(world))
    assert said == text, f'expected the status message to say "{text}", got "{said}"'


@then(parsers.parse('the task\'s status message mentions "{text}"'))
def _(world: World, text: str) -> None:
    said = status_text(the_task(world))
    assert text in said, f'expected the status message to mention "{text}", got "{said}"'


@then(parsers.re(r"the task has (?P<count>\d+) messages? in its history$"))
def _(world: World, count: str) -> None:
    history = the_task(world).get("history", [])
    assert len(history) == int(count), \
        f"expected {count} messages in the task's history, got {len(history)}: {shown(history)}"


@then("the task has no history")
def _(world: World) -> None:
    # A2A §3.2.4: historyLength 0 → history SHOULD be omitted
    task = the_task(world)
    assert "history" not in task, f"expected a task without history, got the history {shown(task.get('history'))}"


@then(parsers.parse('the latest message in the task\'s history says "{text}"'))
def _(world: World, text: str) -> None:
    latest = the_task(world)["history"][-1]
    said = "".join(part.get("text", "") for part in latest["parts"])
    assert said == text, f'expected the latest message in the history to say "{text}", got {shown(latest)}'


@then(parsers.parse('the task\'s context is "{context}"'))
def _(world: World, context: str) -> None:
    got = the_task(world)["contextId"]
    assert got == context, f'expected the task\'s context "{context}", got {shown(got)}'


@then("the task's context is a new UUID")
def _(world: World) -> None:
    context = the_task(world)["contextId"]
    assert UUID.match(context), f'expected the task\'s context to be a UUID, got "{context}"'
    assert context not in world.contexts[:-1], \
        f'expected a new context, got "{context}", the context of an earlier task of the scenario'


@then(parsers.parse("the cancel returned within {seconds:d} seconds"))
def _(world: World, seconds: int) -> None:
    took = earlier(world.cancel_seconds, "a cancel")
    assert took < seconds, f"expected the cancel to return within {seconds} s, it took {took:.1f} s"

