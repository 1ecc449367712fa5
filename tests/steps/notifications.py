"""Steps about push configs and their notifications on any server (A2A §3.1.7-3.1.10, §4.3.3, §13.2).

The webhooks listen on 127.0.0.1 over plain HTTP, so that a server running as its own process reaches them; a
server under test must accept a loopback webhook URL (this one does with A2A__AllowPrivatePushUrls)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when
from support.schemas import assert_valid
from support.webhook import Received, Webhook

from steps.prefixes import send_prefixed
from steps.push import config_id, create_config, hook_url, webhook_of
from steps.tasks import task_id

DELIVERY_SECONDS = 10.0  # how long a step waits for a notification (a retry may wait seconds first)


def started(world: Any, request: pytest.FixtureRequest, name: str) -> Webhook:
    hook = Webhook().start("127.0.0.1", tls=False)
    request.addfinalizer(hook.stop)
    world.notes[name] = hook
    return hook


def about_the_task(world: Any, received: Received) -> bool:
    """A notification that names the scenario's task, whatever its shape (1.0 StreamResponse, 0.3 Task)."""
    return task_id(world) in json.dumps(received.json())


def notifications(world: Any, name: str = "webhook", at_least: int = 1) -> list[Received]:
    """The webhook's notifications about the task, once `at_least` of them came (bounded wait)."""
    hook = webhook_of(world, name)
    deadline = time.monotonic() + DELIVERY_SECONDS
    while True:
        found = [r for r in hook.requests() if about_the_task(world, r)]
        if len(found) >= at_least or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert len(found) >= at_least, (
        f"the webhook got {len(found)} notifications about the task in {DELIVERY_SECONDS:.0f} s "
        f"({len(hook.requests())} requests in all)")
    return found


# --- webhooks ---


@given("a webhook on this machine that records what it receives")
def _(world: Any, request: pytest.FixtureRequest) -> None:
    started(world, request, "webhook")


@given("a second webhook on this machine that records what it receives")
def _(world: Any, request: pytest.FixtureRequest) -> None:
    started(world, request, "second webhook")


@given("the webhook fails once before it accepts")
def _(world: Any) -> None:
    webhook_of(world).answers.append(500)


# --- configs ---


@given(parsers.parse('the caller created a push config for the task with the token "{token}"'))
def _(world: Any, token: str) -> None:
    assert create_config(world, token=token).error is None, world.reply.error
    world.notes.setdefault("configs", []).append(world.notes["config"])


@given(parsers.parse('the caller created another push config for the task with the token "{token}"'))
def _(world: Any, token: str) -> None:
    assert create_config(world, token=token, url=hook_url(world) + "/another").error is None, world.reply.error
    world.notes.setdefault("configs", []).append(world.notes["config"])


@given("the caller created a push config of its own id for the task for each webhook")
def _(world: Any) -> None:
    for name in ("webhook", "second webhook"):
        label = f"tck-{name.replace(' ', '-')}"
        reply = create_config(world, id=label, url=webhook_of(world, name).url, token=label)
        assert reply.error is None, reply.error


@given(parsers.parse('the caller created the push config "{config}" for the task with the token "{token}"'))
def _(world: Any, config: str, token: str) -> None:
    assert create_config(world, id=config, token=token).error is None, world.reply.error
    world.notes.setdefault("configs", []).append(world.notes["config"])


@then(parsers.parse('getting the first push config gives its own webhook and the token "{token}"'))
def _(world: Any, token: str) -> None:
    first = world.notes["configs"][0]
    reply = world.client().call("GetTaskPushNotificationConfig", {"taskId": task_id(world), "id": first["id"]})
    assert reply.error is None, reply.error
    assert (reply.body.get("url"), reply.body.get("token")) == (hook_url(world), token), (
        f"the first config is now {reply.body} (the second create was given the id {world.notes['config']['id']})")


@when(parsers.parse('the caller creates a push config for the task "{task}"'))
def _(world: Any, task: str) -> None:
    world.stream = None
    world.reply = world.client().call("CreateTaskPushNotificationConfig", {"taskId": task, "url": hook_url(world)})


@then("the push config has an id and the webhook's URL")
def _(world: Any) -> None:
    config = world.notes["config"]
    assert config.get("id"), f"no id: {config}"  # A2A §3.1.7: the created configuration, with its id
    assert config.get("url") == hook_url(world), config


@then("listing the task's push configs gives both")
def _(world: Any) -> None:
    reply = world.client().call("ListTaskPushNotificationConfigs", {"taskId": task_id(world)})
    assert reply.error is None, reply.error
    listed = sorted(c["id"] for c in reply.body.get("configs", []))  # ProtoJSON leaves an empty list out
    assert listed == sorted(c["id"] for c in world.notes["configs"]), reply.body


@then("getting the push config fails")
def _(world: Any) -> None:
    reply = world.client().call("GetTaskPushNotificationConfig", {"taskId": task_id(world), "id": config_id(world)})
    assert reply.error is not None, f"the deleted config is still there: {reply.body}"


# --- deliveries ---


@when(parsers.re(r'the caller sends an? "(?P<prefix>[^"]+)" message with a push config for the webhook$'))
def _(world: Any, prefix: str) -> None:
    reply = send_prefixed(world, prefix, taskPushNotificationConfig={"url": webhook_of(world).url,
                                                                     "token": "tck-push-token"})
    assert reply.error is None, reply.error


@when(parsers.re(r'the caller sends an? "(?P<prefix>[^"]+)" message with a push config for the webhook with the '
                 r'scheme "(?P<scheme>[^"]+)" and the credentials "(?P<credentials>[^"]+)"$'))
def _(world: Any, prefix: str, scheme: str, credentials: str) -> None:
    config = {"url": webhook_of(world).url, "authentication": {"scheme": scheme, "credentials": credentials}}
    reply = send_prefixed(world, prefix, taskPushNotificationConfig=config)
    assert reply.error is None, reply.error


@then("the webhook receives at least one notification for the task")
def _(world: Any) -> None:
    notifications(world)


@then("each webhook receives at least one notification for the task")
def _(world: Any) -> None:
    for name in ("webhook", "second webhook"):
        notifications(world, name)


@then("every notification the webhook receives is a StreamResponse of the task")
def _(world: Any) -> None:
    for received in notifications(world):
        body = received.json()
        assert_valid(body, "urn:a2a:v1#/$defs/StreamResponse")  # A2A §4.3.3: exactly one of the four
        ((kind, value),) = body.items()
        assert value.get("id" if kind == "task" else "taskId") == task_id(world), body


@then(parsers.parse('every notification the webhook receives carries the header Authorization "{value}"'))
def _(world: Any, value: str) -> None:
    got = [r.headers.get("Authorization") for r in notifications(world)]
    assert got == [value] * len(got), got  # A2A §4.3.3: the config's scheme and credentials


@then("the webhook is tried again after its failure")
def _(world: Any) -> None:
    # A2A §13.2: a failed delivery SHOULD be retried; the notification that failed comes again
    first, *later = notifications(world, at_least=2)
    assert any(r.body == first.body for r in later), "the notification that failed never came again"
