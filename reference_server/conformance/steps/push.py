"""Steps about push notifications: configs (create, get, list, delete), webhooks, and what they receive."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from reference_server.conformance.steps.common import field_of, reply_of, violations_said, workspace_of
from reference_server.conformance.steps.tasks import STATES, as_caller, send, task_id, text_message
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import Reply, described
from reference_server.conformance.support.schemas import assert_valid
from reference_server.conformance.support.webhook import Webhook, until
from reference_server.conformance.world import ServerFactory, World

V1_STREAM_RESPONSE = "urn:a2a:v1#/$defs/StreamResponse"
V03_TASK = "urn:a2a:v0.3#/definitions/Task"
# where the URL of a config sits in each protocol's request (the error names it there)
CONFIG_URL_FIELD = {"1.0": "url", "jsonrpc-0.3": "pushNotificationConfig.url",
                    "rest-0.3": "config.pushNotificationConfig.url"}
SEND_URL_FIELD = {"1.0": "configuration.taskPushNotificationConfig.url",
                  "jsonrpc-0.3": "configuration.pushNotificationConfig.url",
                  "rest-0.3": "configuration.pushNotification.url"}


# the webhook URL of the configs whose pushes no scenario reads: an https URL on a public name, as the TCK gives one,
# so that a server with its default settings takes it (a loopback or plain-http URL is refused by many, this one
# included, as A2A §13.2 advises); its name is in the .invalid domain (RFC 6761 §6.4), so it is never dialled
IDLE_HOOK = "https://webhook.conformance.invalid/tck-push-webhook"


def webhook_of(world: World, name: str = "webhook") -> Webhook:
    return world.push.webhooks[name]


def hook_url(world: World) -> str:
    """The scenario's webhook, or the idle one when the scenario has none."""
    return webhook_of(world).url if "webhook" in world.push.webhooks else IDLE_HOOK


def _started(world: World, request: pytest.FixtureRequest, name: str) -> Webhook:
    hook = Webhook().start()
    request.addfinalizer(hook.stop)
    world.push.webhooks[name] = hook
    return hook


def _field(world: World, fields: dict[str, str]) -> str:
    protocol = world.protocol
    return fields["1.0"] if protocol.version == "1.0" else fields[f"{protocol.binding}-0.3"]


def create_config(world: World, **config: Any) -> Reply:
    params = {"taskId": task_id(world), "url": hook_url(world), **config}
    reply = world.reply = world.client().call("CreateTaskPushNotificationConfig", params)
    if reply.error is None:
        world.push.config = reply.body
    return reply


def config_id(world: World) -> str:
    found: str = field_of(world.push.config, "id", "the created push config")  # as the answer gave it
    return found


def pushed_state(body: Any) -> str:
    """The state of the task a push carried (1.0 `{"task": ...}` or a bare 0.3 Task), as a step names it."""
    state = body["task"]["status"]["state"] if "task" in body else body["status"]["state"]
    names = {value: name for name, value in STATES.items()}
    return str(names.get(state, state))  # 0.3 spells them as the steps do


def listed_ids(world: World) -> list[str]:
    reply = world.client().call("ListTaskPushNotificationConfigs", {"taskId": task_id(world)})
    assert reply.error is None, f"expected the task's push configs, got {reply}"
    configs = reply.body.get("configs", []) if isinstance(reply.body, dict) else None  # ProtoJSON leaves [] out
    assert isinstance(configs, list) and all(isinstance(c, dict) and "id" in c for c in configs), \
        f"expected a list of push configs, each with its id, got {reply}"
    return [config["id"] for config in configs]


# --- setup ---


@given("a webhook that records what it receives")
def _(world: World, request: pytest.FixtureRequest) -> None:
    _started(world, request, "webhook")
    world.push.waits_before = len(world.server.push_waits)


@given(parsers.parse("the webhook fails {count:d} times before it accepts"))
def _(world: World, count: int) -> None:
    webhook_of(world).answers.extend([500] * count)


@given("the webhook redirects to another webhook")
def _(world: World, request: pytest.FixtureRequest) -> None:
    other = _started(world, request, "other webhook")
    webhook_of(world).redirect_to = other.url


@given("the server does not allow private push URLs")
@given("the server allows neither plain-http nor private URLs")  # the same setting governs file downloads
def _(world: World, server_factory: ServerFactory) -> None:
    world.use_server(server_factory(allow_private_push_urls=False))
    world.push.waits_before = len(world.server.push_waits)


@given("the caller has a task waiting for input")
def _(world: World) -> None:
    send(world, text_message("ask: Where to?"))
    assert world.reply is not None and world.reply.error is None, \
        f"expected a task waiting for input, got {described(world.reply)}"


# --- configs ---


@given(parsers.parse('the caller creates a push config for the task with the token "{token}"'))
@when(parsers.parse('the caller creates a push config for the task with the token "{token}"'))
def _(world: World, token: str) -> None:
    reply = create_config(world, token=token)
    assert reply.error is None, f"expected the push config created, got {reply}"


@when(parsers.parse('the caller creates the push config "{config}" for the task with the token "{token}"'))
def _(world: World, config: str, token: str) -> None:
    reply = create_config(world, id=config, token=token)
    assert reply.error is None, f'expected the push config "{config}" created, got {reply}'


@when(parsers.parse('the caller tries to create the push config "{config}" for the task'))
def _(world: World, config: str) -> None:
    create_config(world, id=config)


@given(parsers.parse("the server allows {count:d} push configs per task"))
def _(world: World, server_factory: ServerFactory, count: int) -> None:
    world.use_server(server_factory(max_push_configs=count))


@when(parsers.parse('the caller creates a push config for the task with the URL "{url}"'))
def _(world: World, url: str) -> None:
    create_config(world, url=url)


@when("the caller deletes the push config")
def _(world: World) -> None:
    world.reply = world.client().call("DeleteTaskPushNotificationConfig",
                                      {"taskId": task_id(world), "id": config_id(world)})


@when(parsers.parse('the caller gets the push config "{config}"'))
def _(world: World, config: str) -> None:
    world.reply = world.client().call("GetTaskPushNotificationConfig", {"taskId": task_id(world), "id": config})


@when(parsers.re(r'"(?P<name>[a-z0-9-]+)" (?P<action>gets the push config|lists the task\'s push configs|'
                 r'deletes the push config|creates a push config for the task)$'))
def _(world: World, name: str, action: str) -> None:
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
def _(world: World) -> None:
    config = world.push.config
    assert config.get("id"), f"expected the created push config with its id, got {shown(config)}"
    assert config["taskId"] == task_id(world), \
        f'expected the created push config of the task "{task_id(world)}", got {shown(config)}'


@then(parsers.parse('getting the push config gives the webhook and the token "{token}"'))
def _(world: World, token: str) -> None:
    reply = world.client().call("GetTaskPushNotificationConfig", {"taskId": task_id(world), "id": config_id(world)})
    assert reply.error is None, f"expected the push config, got {reply}"
    body = reply.body if isinstance(reply.body, dict) else {}
    assert "id" in body and "url" in body, f"expected a push config with its id and URL, got {reply}"
    assert (body["id"], body["url"], body.get("token")) == (config_id(world), hook_url(world), token), \
        f'expected the push config "{config_id(world)}" with the URL {hook_url(world)} and the token "{token}", ' \
        f"got {shown(reply.body)}"


@then("listing the task's push configs gives that config only")
def _(world: World) -> None:
    ids = listed_ids(world)
    assert ids == [config_id(world)], f'expected the push config "{config_id(world)}" only, got {shown(ids)}'


@then("listing the task's push configs gives none")
def _(world: World) -> None:
    ids = listed_ids(world)
    assert ids == [], f"expected no push config, got {shown(ids)}"


@then(parsers.parse('listing the task\'s push configs gives "{config}" with the token "{token}" only'))
def _(world: World, config: str, token: str) -> None:
    reply = world.client().call("ListTaskPushNotificationConfigs", {"taskId": task_id(world)})
    assert reply.error is None, f"expected the task's push configs, got {reply}"
    assert [(c["id"], c.get("token")) for c in reply.body["configs"]] == [(config, token)], \
        f'expected the push config "{config}" with the token "{token}" only, got {shown(reply.body)}'


@then(parsers.parse('the task has the push configs "{first}" and "{second}"'))
def _(world: World, first: str, second: str) -> None:
    ids = listed_ids(world)
    assert sorted(ids) == sorted([first, second]), \
        f'expected the push configs "{first}" and "{second}", got {shown(ids)}'


@then(parsers.parse('the error names the push config\'s URL, saying "{why}"'))
def _(world: World, why: str) -> None:
    _names(world, _field(world, CONFIG_URL_FIELD), why)


@then(parsers.parse('the error names the URL of the message\'s push config, saying "{why}"'))
def _(world: World, why: str) -> None:
    _names(world, _field(world, SEND_URL_FIELD), why)


def _names(world: World, field: str, why: str) -> None:
    reply = reply_of(world)
    error = reply.error if reply is not None else None
    assert error is not None, f'expected an error naming the field "{field}", got {described(reply)}'
    found = {v["field"]: v["description"] for v in error.violations}
    assert field in found, f'expected the error to name the field "{field}", got {violations_said(found)}: {error}'
    assert why in found[field], f'expected the violation of "{field}" to say "{why}", got {shown(found[field])}'


# --- sending with a config ---


@when(parsers.parse('the caller sends "{text}" with a push config for the webhook and the token "{token}"'))
def _(world: World, text: str, token: str) -> None:
    send(world, text_message(text), taskPushNotificationConfig={"url": webhook_of(world).url, "token": token})


@when(parsers.parse('the caller sends "{text}" with a push config for the webhook with the scheme "{scheme}" '
                    'and the credentials "{credentials}"'))
def _(world: World, text: str, scheme: str, credentials: str) -> None:
    config = {"url": webhook_of(world).url, "authentication": {"scheme": scheme, "credentials": credentials}}
    send(world, text_message(text), taskPushNotificationConfig=config)


@when(parsers.parse('the caller sends "{text}" with a push config for "{host}", a name that resolves to 127.0.0.1'))
def _(world: World, text: str, host: str) -> None:
    url = webhook_of(world).url.replace("localhost", host)
    send(world, text_message(text), taskPushNotificationConfig={"url": url, "token": "tok-rebind"})


@when(parsers.parse('the caller sends "{text}" with a push config for the URL "{url}"'))
def _(world: World, text: str, url: str) -> None:
    send(world, text_message(text), taskPushNotificationConfig={"url": url})


# --- what the webhooks receive ---


@then(parsers.re(r"the webhook receives the task as (?P<states>[a-z-]+(?:(?:, then |, )[a-z-]+)*)$"))
def _(world: World, states: str) -> None:
    wanted = [s.strip() for s in states.replace(", then ", ", ").split(", ")]
    received = webhook_of(world).wait_for(len(wanted))
    got = [pushed_state(r.json()) for r in received]
    assert got == wanted, f"expected pushes of the task {', '.join(wanted)}, got {', '.join(got) or 'none'}: " \
        f"{shown([r.json() for r in received])}"
    world.push.received = received


@then("the webhook receives the working push 3 times, then the completed push 3 times, and nothing more")
def _(world: World, caplog: pytest.LogCaptureFixture) -> None:
    received = webhook_of(world).wait_for(6)
    got = [pushed_state(r.json()) for r in received]
    assert got == ["working"] * 3 + ["completed"] * 3, \
        f"expected the working push 3 times, then the completed push 3 times, got {', '.join(got)}"
    until(lambda: len(dropped(world, caplog)) == 2, "both pushes given up")  # no attempt can follow now
    pushes = [pushed_state(r.json()) for r in webhook_of(world).requests()]
    assert len(pushes) == 6, f"expected nothing more after 6 pushes, got {len(pushes)}: {', '.join(pushes)}"


def dropped(world: World, caplog: pytest.LogCaptureFixture) -> list[str]:
    """The log lines of the task's pushes given up after their last attempt."""
    tid = task_id(world)
    return [r.getMessage() for r in caplog.records
            if r.name == "reference_server.push" and tid in r.getMessage() and "after 3 attempts" in r.getMessage()]


@then(parsers.parse('every push carries the token "{token}"'))
def _(world: World, token: str) -> None:
    pushes = world.push.received
    tokens = [p.headers.get("X-A2A-Notification-Token") for p in pushes]
    assert tokens == [token] * len(pushes), f'expected every push with the token "{token}", got {shown(tokens)}'
    assert all("Authorization" not in p.headers for p in pushes), \
        "expected no Authorization header, as no authentication was configured, but a push carries one"


@then(parsers.parse('every push carries the header Authorization "{value}"'))
def _(world: World, value: str) -> None:
    pushes = world.push.received
    got = [p.headers.get("Authorization") for p in pushes]
    assert got == [value] * len(pushes), \
        f'expected every push with the header Authorization "{value}", got {shown(got)}'


@then("every push is the whole task, valid against the schema of the config's A2A version")
def _(world: World) -> None:
    for push in world.push.received:
        body = push.json()
        if world.protocol.version == "0.3":  # what 0.3 receivers parse: the Task itself
            assert push.headers["Content-Type"] == "application/json", \
                f"expected a push of Content-Type application/json, got {push.headers['Content-Type']}"
            assert_valid(body, V03_TASK)
            assert body["id"] == task_id(world), f'expected a push of the task "{task_id(world)}", got {shown(body)}'
        else:
            assert push.headers["Content-Type"] == "application/a2a+json", \
                f"expected a push of Content-Type application/a2a+json, got {push.headers['Content-Type']}"
            assert_valid(body, V1_STREAM_RESPONSE)
            assert body["task"]["id"] == task_id(world), \
                f'expected a push of the task "{task_id(world)}", got {shown(body)}'


@then(parsers.parse("the pushes waited {first:d} s, then {second:d} s"))
def _(world: World, first: int, second: int) -> None:
    waits = world.server.push_waits[world.push.waits_before:]
    assert waits == [first, second], f"expected waits of {first} s, then {second} s, got {shown(waits)}"


@then("the server logs that pushes for the task were dropped after 3 attempts, without the token")
def _(world: World, caplog: pytest.LogCaptureFixture) -> None:
    lines = until(lambda: dropped(world, caplog), "the log line of a dropped push")
    for token in ("tok-5", "tok-6", "tok-rebind"):
        assert all(token not in line for line in lines), \
            f'expected no token in the log lines, got the token "{token}" in:\n' + "\n".join(lines)


@then("the other webhook receives nothing")
def _(world: World) -> None:
    got = webhook_of(world, "other webhook").requests()
    assert got == [], f"expected nothing at the other webhook, it received {len(got)} requests"


@then("the webhook received nothing")
def _(world: World) -> None:
    got = webhook_of(world).requests()
    assert got == [], f"expected nothing at the webhook, it received {len(got)} requests"


@then("the caller has no tasks")
def _(world: World) -> None:
    tasks_dir = workspace_of(world).tasks_dir
    assert not tasks_dir.exists() or not any(tasks_dir.iterdir()), \
        f"expected no task files, got {', '.join(sorted(p.name for p in tasks_dir.iterdir()))}"
