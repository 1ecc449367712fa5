"""Steps about push configs and their notifications on any server (A2A §3.1.7-3.1.10, §4.3.3, §13.2).

The configs whose pushes no scenario reads name an https URL on a public name that is never dialled (push.IDLE_HOOK),
which a server takes with its default settings. Only the delivery scenarios need a webhook that is reached: it
listens on 127.0.0.1 over plain HTTP, so that a server running as its own process reaches it. A server that refuses
such a URL (this one does unless A2A__AllowPrivatePushUrls, as A2A §13.2 advises) cannot show a delivery: those
scenarios are n/a, with the server's own refusal as the reason."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import field_of
from reference_server.conformance.steps.prefixes import send_prefixed
from reference_server.conformance.steps.push import IDLE_HOOK, config_id, create_config, hook_url, webhook_of
from reference_server.conformance.steps.streams import KINDS, one_kind
from reference_server.conformance.steps.tasks import task_id
from reference_server.conformance.support.exchanges import body_text, shown
from reference_server.conformance.support.replies import ErrorView, Reply
from reference_server.conformance.support.webhook import Received, Webhook
from reference_server.conformance.world import World

DELIVERY_SECONDS = 10.0  # how long a step waits for a notification (a retry may wait seconds first)


def started(world: World, request: pytest.FixtureRequest, name: str) -> Webhook:
    hook = Webhook().start("127.0.0.1", tls=False)
    request.addfinalizer(hook.stop)
    world.push.webhooks[name] = hook
    return hook


def about_the_task(world: World, received: Received) -> bool:
    """A notification that names the scenario's task, whatever its shape (1.0 StreamResponse, 0.3 Task)."""
    return task_id(world) in json.dumps(notification_json(received))


def notification_json(received: Received) -> Any:
    """A notification's body as JSON, or a failure saying what came instead."""
    try:
        return received.json()
    except ValueError:
        content_type = received.headers.get("Content-Type", "")
        raise AssertionError(f"expected a notification whose body is JSON, got {received.method} {received.path} "
                             f"{content_type}: {body_text(received.body, content_type, 300)}") from None


def notifications(world: World, name: str = "webhook", at_least: int = 1) -> list[Received]:
    """The webhook's notifications about the task, once `at_least` of them came (bounded wait)."""
    hook = webhook_of(world, name)
    deadline = time.monotonic() + DELIVERY_SECONDS
    while True:
        found = [r for r in hook.requests() if about_the_task(world, r)]
        if len(found) >= at_least or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert len(found) >= at_least, (
        f"expected at least {at_least} notification{'s' * (at_least != 1)} about the task within "
        f"{DELIVERY_SECONDS:.0f} s, the webhook got {len(found)} ({len(hook.requests())} requests in all)")
    return found


def _idle_config(world: World, label: str, url: str) -> Reply:
    return create_config(world, id=label + "-idle", url=url, token=label)


def refused_webhook(world: World, refusal: ErrorView, accepted: Callable[[str], Reply | None]) -> None:
    """A config for a webhook on this machine was refused: when the same config for the idle https URL is taken,
    the refusal was of the loopback webhook, and a delivery cannot be shown (n/a, with the server's words);
    otherwise it is the failure it looks like."""
    again = accepted(IDLE_HOOK)
    if again is not None and again.error is None:
        pytest.skip(f"the server refuses a webhook on this machine ({webhook_of(world).url}), so no delivery can be "
                    f"seen: {refusal}")
    raise AssertionError(f"expected the push config taken, it was refused: {refusal}")


# --- webhooks ---


@given("a webhook on this machine that records what it receives")
def _(world: World, request: pytest.FixtureRequest) -> None:
    started(world, request, "webhook")


@given("a second webhook on this machine that records what it receives")
def _(world: World, request: pytest.FixtureRequest) -> None:
    started(world, request, "second webhook")


@given("the webhook fails once before it accepts")
def _(world: World) -> None:
    webhook_of(world).answers.append(500)


# --- configs ---


@given(parsers.parse('the caller created a push config for the task with the token "{token}"'))
def _(world: World, token: str) -> None:
    reply = create_config(world, token=token)
    assert reply.error is None, f"expected the push config created, got {reply}"
    world.push.configs.append(world.push.config)


@given(parsers.parse('the caller created another push config for the task with the token "{token}"'))
def _(world: World, token: str) -> None:
    reply = create_config(world, token=token, url=hook_url(world) + "/another")
    assert reply.error is None, f"expected the push config created, got {reply}"
    world.push.configs.append(world.push.config)


@given("the caller created a push config of its own id for the task for each webhook")
def _(world: World) -> None:
    for name in ("webhook", "second webhook"):
        label = f"tck-{name.replace(' ', '-')}"
        reply = create_config(world, id=label, url=webhook_of(world, name).url, token=label)
        if reply.error is not None:
            refused_webhook(world, reply.error, functools.partial(_idle_config, world, label))


@given(parsers.parse('the caller created the push config "{config}" for the task with the token "{token}"'))
def _(world: World, config: str, token: str) -> None:
    reply = create_config(world, id=config, token=token)
    assert reply.error is None, f'expected the push config "{config}" created, got {reply}'
    world.push.configs.append(world.push.config)


@then(parsers.parse('getting the first push config gives its own webhook and the token "{token}"'))
def _(world: World, token: str) -> None:
    first = world.push.configs[0]
    first_id = field_of(first, "id", "a created push config")
    reply = world.client().call("GetTaskPushNotificationConfig", {"taskId": task_id(world), "id": first_id})
    assert reply.error is None, f"expected the first push config, got {reply}"
    body = reply.body if isinstance(reply.body, dict) else {}
    assert (body.get("url"), body.get("token")) == (hook_url(world), token), (
        f'expected the first push config with the URL {hook_url(world)} and the token "{token}", got '
        f"{shown(reply.body)} (the second create was given the id {shown(world.push.config.get('id'))})")


@when(parsers.parse('the caller creates a push config for the task "{task}"'))
def _(world: World, task: str) -> None:
    world.stream = None
    world.reply = world.client().call("CreateTaskPushNotificationConfig", {"taskId": task, "url": hook_url(world)})


@then("the push config has an id and the webhook's URL")
def _(world: World) -> None:
    config = world.push.config
    assert isinstance(config, dict) and config.get("id"), \
        f"expected the created push config with its id, got {shown(config)}"  # A2A §3.1.7
    assert config.get("url") == hook_url(world), \
        f"expected the created push config with the webhook's URL {hook_url(world)}, got {shown(config)}"


@then("listing the task's push configs gives both")
def _(world: World) -> None:
    reply = world.client().call("ListTaskPushNotificationConfigs", {"taskId": task_id(world)})
    assert reply.error is None, f"expected the task's push configs, got {reply}"
    configs = reply.body.get("configs", []) if isinstance(reply.body, dict) else None  # ProtoJSON leaves [] out
    assert isinstance(configs, list) and all(isinstance(c, dict) and "id" in c for c in configs), \
        f"expected a list of push configs, each with its id, got {reply}"
    listed = sorted(c["id"] for c in configs)
    created = sorted(c["id"] for c in world.push.configs)
    assert listed == created, f"expected the push configs {shown(created)}, got {shown(reply.body)}"


@then("getting the push config fails")
def _(world: World) -> None:
    reply = world.client().call("GetTaskPushNotificationConfig", {"taskId": task_id(world), "id": config_id(world)})
    if reply.error is None and not world.ours:
        # a server that also finds a config that never existed fails PUSH-GET-002, not the deleting
        never = world.client().call("GetTaskPushNotificationConfig", {"taskId": task_id(world),
                                                                      "id": "tck-no-such-config"})
        if never.error is None:
            pytest.skip("the deleted push config is still found, and so is one that never existed: whether a "
                        "deleted config is gone cannot be told apart from PUSH-GET-002's failure")
    assert reply.error is not None, f"expected the deleted push config gone, got {reply}"


# --- deliveries ---


@when(parsers.re(r'the caller sends an? "(?P<prefix>[^"]+)" message with a push config for the webhook$'))
def _(world: World, prefix: str) -> None:
    reply = send_prefixed(world, prefix, taskPushNotificationConfig={"url": webhook_of(world).url,
                                                                     "token": "tck-push-token"})
    assert reply is not None, f'expected an answer to a "{prefix}" message with a push config, got no answer'
    if reply.error is not None:
        refused_webhook(world, reply.error, lambda url: send_prefixed(
            world, prefix, taskPushNotificationConfig={"url": url, "token": "tck-push-token"}))


@when(parsers.re(r'the caller sends an? "(?P<prefix>[^"]+)" message with a push config for the webhook with the '
                 r'scheme "(?P<scheme>[^"]+)" and the credentials "(?P<credentials>[^"]+)"$'))
def _(world: World, prefix: str, scheme: str, credentials: str) -> None:
    config = {"url": webhook_of(world).url, "authentication": {"scheme": scheme, "credentials": credentials}}
    reply = send_prefixed(world, prefix, taskPushNotificationConfig=config)
    assert reply is not None, f'expected an answer to a "{prefix}" message with a push config, got no answer'
    if reply.error is not None:
        refused_webhook(world, reply.error, lambda url: send_prefixed(
            world, prefix, taskPushNotificationConfig={**config, "url": url}))


@then("the webhook receives at least one notification for the task")
def _(world: World) -> None:
    notifications(world)


@then("each webhook receives at least one notification for the task")
def _(world: World) -> None:
    for name in ("webhook", "second webhook"):
        notifications(world, name)


@then("every notification the webhook receives is a StreamResponse of the task")
def _(world: World) -> None:
    for received in notifications(world):
        body = notification_json(received)
        world.check(body, "urn:a2a:v1#/$defs/StreamResponse", "a push notification")
        assert one_kind(body), f"expected a StreamResponse (exactly one of {', '.join(KINDS)}), got {shown(body)}"
        assert isinstance(body, dict) and len(body) == 1, \
            f"expected a notification holding exactly one of task, message, statusUpdate, artifactUpdate, got " \
            f"{shown(body)}"
        kind, value = next(iter(body.items()))
        named = value.get("id" if kind == "task" else "taskId") if isinstance(value, dict) else None
        assert named == task_id(world), f'expected a notification of the task "{task_id(world)}", got {shown(body)}'


@then(parsers.parse('every notification the webhook receives carries the header Authorization "{value}"'))
def _(world: World, value: str) -> None:
    got = [r.headers.get("Authorization") for r in notifications(world)]
    # A2A §4.3.3: the config's scheme and credentials
    assert got == [value] * len(got), \
        f'expected every notification with the header Authorization "{value}", got {shown(got)}'


@then("the webhook is tried again after its failure")
def _(world: World) -> None:
    # A2A §13.2: a failed delivery SHOULD be retried; the notification that failed comes again, maybe after the
    # task's later ones (a backoff may wait seconds first), so the whole bounded wait is given to it
    first = notifications(world)[0]
    hook, deadline = webhook_of(world), time.monotonic() + DELIVERY_SECONDS
    later: list[Received] = []
    while time.monotonic() < deadline:
        later = [r for r in hook.requests() if about_the_task(world, r)][1:]
        if any(r.body == first.body for r in later):
            return
        time.sleep(0.05)
    raise AssertionError(f"expected the notification that failed to come again within {DELIVERY_SECONDS:.0f} s, it "
                         f"did not among the {len(later)} later ones")
