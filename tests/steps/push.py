"""Steps about push notifications: configs (create, get, list, delete), webhooks, and what they receive."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when
from support.schemas import assert_valid
from support.webhook import Webhook, until

from steps.common import reply_of, workspace_of
from steps.tasks import STATES, as_caller, send, task_id, text_message

V1_STREAM_RESPONSE = "urn:a2a:v1#/$defs/StreamResponse"
V03_TASK = "urn:a2a:v0.3#/definitions/Task"
# where the URL of a config sits in each protocol's request (the error names it there)
CONFIG_URL_FIELD = {"1.0": "url", "jsonrpc-0.3": "pushNotificationConfig.url",
                    "rest-0.3": "config.pushNotificationConfig.url"}
SEND_URL_FIELD = {"1.0": "configuration.taskPushNotificationConfig.url",
                  "jsonrpc-0.3": "configuration.pushNotificationConfig.url",
                  "rest-0.3": "configuration.pushNotification.url"}


# a webhook URL on loopback where nothing listens: for configs whose pushes no scenario reads (never off the machine)
IDLE_HOOK = "http://127.0.0.1:9/tck-push-webhook"


def webhook_of(world: Any, name: str = "webhook") -> Webhook:
    return world.notes[name]  # type: ignore[no-any-return]


def hook_url(world: Any) -> str:
    """The scenario's webhook, or the idle one when the scenario has none."""
    return webhook_of(world).url if "webhook" in world.notes else IDLE_HOOK


def _started(world: Any, request: pytest.FixtureRequest, name: str) -> Webhook:
    hook = Webhook().start()
    request.addfinalizer(hook.stop)
    world.notes[name] = hook
    return hook


def _field(world: Any, fields: dict[str, str]) -> str:
    protocol = world.protocol
    return fields["1.0"] if protocol.version == "1.0" else fields[f"{protocol.binding}-0.3"]


def create_config(world: Any, **config: Any) -> Any:
    params = {"taskId": task_id(world), "url": hook_url(world), **config}
    world.reply = world.client().call("CreateTaskPushNotificationConfig", params)
    if world.reply.error is None:
        world.notes["config"] = world.reply.body
    return world.reply


def config_id(world: Any) -> str:
    return world.notes["config"]["id"]  # type: ignore[no-any-return]


def pushed_state(body: Any) -> str:
    """The state of the task a push carried (1.0 `{"task": ...}` or a bare 0.3 Task), as a step names it."""
    state = body["task"]["status"]["state"] if "task" in body else body["status"]["state"]
    names = {value: name for name, value in STATES.items()}
    return names.get(state, state)  # 0.3 spells them as the steps do


def listed_ids(world: Any) -> list[str]:
    reply = world.client().call("ListTaskPushNotificationConfigs", {"taskId": task_id(world)})
    assert reply.error is None, reply.error
    return [config["id"] for config in reply.body.get("configs", [])]  # ProtoJSON leaves an empty list out


# --- setup ---


@given("a webhook that records what it receives")
def _(world: Any, request: pytest.FixtureRequest) -> None:
    _started(world, request, "webhook")
    world.notes["waits_before"] = len(world.server.push_waits)


@given(parsers.parse("the webhook fails {count:d} times before it accepts"))
def _(world: Any, count: int) -> None:
    webhook_of(world).answers.extend([500] * count)


@given("the webhook redirects to another webhook")
def _(world: Any, request: pytest.FixtureRequest) -> None:
    other = _started(world, request, "other webhook")
    webhook_of(world).redirect_to = other.url


@given("the server does not allow private push URLs")
@given("the server allows neither plain-http nor private URLs")  # the same setting governs file downloads
def _(world: Any, server_factory: Any) -> None:
    world.use_server(server_factory(allow_private_push_urls=False))
    world.notes["waits_before"] = len(world.server.push_waits)


@given("the caller has a task waiting for input")
def _(world: Any) -> None:
    send(world, text_message("ask: Where to?"))
    assert world.reply.error is None, world.reply.error


# --- configs ---


@given(parsers.parse('the caller creates a push config for the task with the token "{token}"'))
@when(parsers.parse('the caller creates a push config for the task with the token "{token}"'))
def _(world: Any, token: str) -> None:
    assert create_config(world, token=token).error is None, world.reply.error


@when(parsers.parse('the caller creates the push config "{config}" for the task with the token "{token}"'))
def _(world: Any, config: str, token: str) -> None:
    assert create_config(world, id=config, token=token).error is None, world.reply.error


@when(parsers.parse('the caller tries to create the push config "{config}" for the task'))
def _(world: Any, config: str) -> None:
    create_config(world, id=config)


@given(parsers.parse("the server allows {count:d} push configs per task"))
def _(world: Any, server_factory: Any, count: int) -> None:
    world.use_server(server_factory(max_push_configs=count))


@when(parsers.parse('the caller creates a push config for the task with the URL "{url}"'))
def _(world: Any, url: str) -> None:
    create_config(world, url=url)


@when("the caller deletes the push config")
def _(world: Any) -> None:
    world.reply = world.client().call("DeleteTaskPushNotificationConfig",
                                      {"taskId": task_id(world), "id": config_id(world)})


@when(parsers.parse('the caller gets the push config "{config}"'))
def _(world: Any, config: str) -> None:
    world.reply = world.client().call("GetTaskPushNotificationConfig", {"taskId": task_id(world), "id": config})


@when(parsers.re(r'"(?P<name>[a-z0-9-]+)" (?P<action>gets the push config|lists the task\'s push configs|'
                 r'deletes the push config|creates a push config for the task)$'))
def _(world: Any, name: str, action: str) -> None:
    with as_caller(world, name):
        client, tid = world.client(), task_id(world)
        if action == "gets the push config":
            world.reply = client.call("GetTaskPushNotificationConfig", {"taskId": tid, "id": config_id(world)})
        elif action == "deletes the push config":
            world.reply = client.call("DeleteTaskPushNotificationConfig", {"taskId": tid, "id": config_id(world)})
        elif action == "creates a push config for the task":
            world.reply = client.call("CreateTaskPushNotificationConfig", {"taskId": tid, "url": webhook_of(world).url})
        else:
            world.reply = client.call("ListTaskPushNotificationConfigs", {"taskId": tid})


@then("the push config has an id chosen by the server")
def _(world: Any) -> None:
    config = world.notes["config"]
    assert config.get("id"), f"no id in {config}"
    assert config["taskId"] == task_id(world), config


@then(parsers.parse('getting the push config gives the webhook and the token "{token}"'))
def _(world: Any, token: str) -> None:
    reply = world.client().call("GetTaskPushNotificationConfig", {"taskId": task_id(world), "id": config_id(world)})
    assert reply.error is None, reply.error
    assert (reply.body["id"], reply.body["url"], reply.body.get("token")) == (
        config_id(world), hook_url(world), token), reply.body


@then("listing the task's push configs gives that config only")
def _(world: Any) -> None:
    assert listed_ids(world) == [config_id(world)]


@then("listing the task's push configs gives none")
def _(world: Any) -> None:
    assert listed_ids(world) == []


@then(parsers.parse('listing the task\'s push configs gives "{config}" with the token "{token}" only'))
def _(world: Any, config: str, token: str) -> None:
    reply = world.client().call("ListTaskPushNotificationConfigs", {"taskId": task_id(world)})
    assert reply.error is None, reply.error
    assert [(c["id"], c.get("token")) for c in reply.body["configs"]] == [(config, token)], reply.body


@then(parsers.parse('the task has the push configs "{first}" and "{second}"'))
def _(world: Any, first: str, second: str) -> None:
    assert sorted(listed_ids(world)) == sorted([first, second])


@then(parsers.parse('the error names the push config\'s URL, saying "{why}"'))
def _(world: Any, why: str) -> None:
    _names(world, _field(world, CONFIG_URL_FIELD), why)


@then(parsers.parse('the error names the URL of the message\'s push config, saying "{why}"'))
def _(world: Any, why: str) -> None:
    _names(world, _field(world, SEND_URL_FIELD), why)


def _names(world: Any, field: str, why: str) -> None:
    error = reply_of(world).error
    assert error is not None, "expected an error"
    found = {v["field"]: v["description"] for v in error.violations}
    assert field in found, f"no violation for {field!r}; violations: {found}"
    assert why in found[field], f"{field}: {found[field]!r} does not say {why!r}"


# --- sending with a config ---


@when(parsers.parse('the caller sends "{text}" with a push config for the webhook and the token "{token}"'))
def _(world: Any, text: str, token: str) -> None:
    send(world, text_message(text), taskPushNotificationConfig={"url": webhook_of(world).url, "token": token})


@when(parsers.parse('the caller sends "{text}" with a push config for the webhook with the scheme "{scheme}" '
                    'and the credentials "{credentials}"'))
def _(world: Any, text: str, scheme: str, credentials: str) -> None:
    config = {"url": webhook_of(world).url, "authentication": {"scheme": scheme, "credentials": credentials}}
    send(world, text_message(text), taskPushNotificationConfig=config)


@when(parsers.parse('the caller sends "{text}" with a push config for "{host}", a name that resolves to 127.0.0.1'))
def _(world: Any, text: str, host: str) -> None:
    url = webhook_of(world).url.replace("localhost", host)
    send(world, text_message(text), taskPushNotificationConfig={"url": url, "token": "tok-rebind"})
    world.notes["token"] = "tok-rebind"


@when(parsers.parse('the caller sends "{text}" with a push config for the URL "{url}"'))
def _(world: Any, text: str, url: str) -> None:
    send(world, text_message(text), taskPushNotificationConfig={"url": url})


# --- what the webhooks receive ---


@then(parsers.re(r"the webhook receives the task as (?P<states>[a-z-]+(?:(?:, then |, )[a-z-]+)*)$"))
def _(world: Any, states: str) -> None:
    wanted = [s.strip() for s in states.replace(", then ", ", ").split(", ")]
    received = webhook_of(world).wait_for(len(wanted))
    assert [pushed_state(r.json()) for r in received] == wanted, [r.json() for r in received]
    world.notes["pushes"] = received


@then("the webhook receives the working push 3 times, then the completed push 3 times, and nothing more")
def _(world: Any, caplog: pytest.LogCaptureFixture) -> None:
    received = webhook_of(world).wait_for(6)
    assert [pushed_state(r.json()) for r in received] == ["working"] * 3 + ["completed"] * 3
    until(lambda: len(dropped(world, caplog)) == 2, "both pushes given up")  # no attempt can follow now
    assert len(webhook_of(world).requests()) == 6, [pushed_state(r.json()) for r in webhook_of(world).requests()]


def dropped(world: Any, caplog: pytest.LogCaptureFixture) -> list[str]:
    """The log lines of the task's pushes given up after their last attempt."""
    tid = task_id(world)
    return [r.getMessage() for r in caplog.records
            if r.name == "reference_server.push" and tid in r.getMessage() and "after 3 attempts" in r.getMessage()]


@then(parsers.parse('every push carries the token "{token}"'))
def _(world: Any, token: str) -> None:
    pushes = world.notes["pushes"]
    assert [p.headers.get("X-A2A-Notification-Token") for p in pushes] == [token] * len(pushes)
    assert all("Authorization" not in p.headers for p in pushes), "no authentication was configured"


@then(parsers.parse('every push carries the header Authorization "{value}"'))
def _(world: Any, value: str) -> None:
    pushes = world.notes["pushes"]
    assert [p.headers.get("Authorization") for p in pushes] == [value] * len(pushes)


@then("every push is the whole task, valid against the schema of the config's A2A version")
def _(world: Any) -> None:
    for push in world.notes["pushes"]:
        body = push.json()
        if world.protocol.version == "0.3":  # what 0.3 receivers parse: the Task itself
            assert push.headers["Content-Type"] == "application/json", push.headers
            assert_valid(body, V03_TASK)
            assert body["id"] == task_id(world)
        else:
            assert push.headers["Content-Type"] == "application/a2a+json", push.headers
            assert_valid(body, V1_STREAM_RESPONSE)
            assert body["task"]["id"] == task_id(world)


@then(parsers.parse("the pushes waited {first:d} s, then {second:d} s"))
def _(world: Any, first: int, second: int) -> None:
    assert world.server.push_waits[world.notes["waits_before"]:] == [first, second]


@then("the server logs that pushes for the task were dropped after 3 attempts, without the token")
def _(world: Any, caplog: pytest.LogCaptureFixture) -> None:
    lines = until(lambda: dropped(world, caplog), "the log line of a dropped push")
    for token in ("tok-5", "tok-6", "tok-rebind"):
        assert all(token not in line for line in lines), lines


@then("the other webhook receives nothing")
def _(world: Any) -> None:
    assert webhook_of(world, "other webhook").requests() == []


@then("the webhook received nothing")
def _(world: Any) -> None:
    assert webhook_of(world).requests() == []


@then("the caller has no tasks")
def _(world: Any) -> None:
    tasks_dir = workspace_of(world).tasks_dir
    assert not tasks_dir.exists() or not any(tasks_dir.iterdir()), list(tasks_dir.iterdir())
