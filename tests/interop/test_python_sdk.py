"""The official a2a-sdk 1.3 Python client against a live server: both 1.0 bindings, then 0.3 JSON-RPC.

REAL-CLIENTS.md §5 describes how the client is built and what it sends; these tests build it the
same way (ClientFactory, the card fetched from /.well-known/agent-card.json, X-API-Key as a default
header of the shared httpx client) and assert the values the SDK hands back to its caller.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    InvalidParamsError,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskNotCancelableError,
    TaskNotFoundError,
    TaskPushNotificationConfig,
    TaskState,
    UnsupportedOperationError,
)
from google.protobuf import json_format

from interop.desk import CARD_NAME, interop_desk

pytestmark = pytest.mark.interop

BINDINGS = ["JSONRPC", "HTTP+JSON"]
CALL_TIMEOUT = 10.0  # per SDK call (httpx timeout): a request the server never answers fails fast
TEST_TIMEOUT = 40.0  # per test: a stream the server never closes (REAL-CLIENTS §7.4) fails too
WORKSPACE_CARD_NAME = CARD_NAME
ECHO_TEXT = "interop over the official client"


# --- the live server and one caller of one workspace ---


@dataclass
class Agent:
    url: str
    key: str


@pytest.fixture(scope="module")
def agent() -> Iterator[Agent]:
    with interop_desk("sdk-client") as desk:
        yield Agent(desk.url, desk.key)


# --- the SDK client, and a record of what it put on the wire ---


@dataclass
class Sent:
    """One HTTP request the SDK sent: enough to prove which binding and protocol version it used."""

    method: str
    path: str
    version: str | None
    rpc_method: str | None


@dataclass
class Wire:
    requests: list[Sent] = field(default_factory=list)

    async def record(self, request: httpx.Request) -> None:
        rpc_method = None
        if request.method == "POST" and request.url.path == "/a2a":
            rpc_method = json.loads(request.content).get("method")
        self.requests.append(Sent(request.method, request.url.path, request.headers.get("a2a-version"), rpc_method))


@asynccontextmanager
async def http_for(agent: Agent, wire: Wire) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(headers={"X-API-Key": agent.key}, timeout=CALL_TIMEOUT,
                                 event_hooks={"request": [wire.record]}) as http:
        yield http


@asynccontextmanager
async def sdk_client(agent: Agent, binding: str, wire: Wire, *, streaming: bool = True) -> AsyncIterator[Client]:
    """A client built as REAL-CLIENTS §5 says: the card from the server, the key as a default header."""
    async with http_for(agent, wire) as http:
        config = ClientConfig(streaming=streaming, supported_protocol_bindings=[binding], httpx_client=http)
        client = await ClientFactory(config).create_from_url(agent.url)
        async with client:
            yield client


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    async def bounded() -> None:
        async with asyncio.timeout(TEST_TIMEOUT):
            await scenario()

    asyncio.run(bounded())


def user_message(text: str, *, task_id: str = "", context_id: str = "") -> Message:
    return Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)],
                   task_id=task_id, context_id=context_id)


async def send(client: Client, text: str, *, return_immediately: bool = False, task_id: str = "",
               context_id: str = "") -> list[StreamResponse]:
    request = SendMessageRequest(message=user_message(text, task_id=task_id, context_id=context_id),
                                 configuration=SendMessageConfiguration(return_immediately=return_immediately))
    return [event async for event in client.send_message(request)]


async def send_for_task(client: Client, text: str, **options: Any) -> Task:
    """A non-streaming send: the SDK yields exactly one StreamResponse holding the task."""
    events = await send(client, text, **options)
    assert len(events) == 1 and events[0].HasField("task"), events
    return events[0].task


async def wait_for_state(client: Client, task_id: str, state: str, *, within: float = 15.0) -> Task:
    """GetTask until the task is in `state`, or fail at the deadline showing the last task seen."""
    deadline = time.monotonic() + within
    while True:
        task = await client.get_task(GetTaskRequest(id=task_id))
        if state_name(task.status.state) == state or time.monotonic() > deadline:
            assert state_name(task.status.state) == state, task
            return task
        await asyncio.sleep(0.05)  # the polling interval, not a wait for the run


def text_of(parts: Any) -> str:
    return "".join(part.text for part in parts)


def response_text(task: Task) -> str:
    responses = [artifact for artifact in task.artifacts if artifact.name == "response"]
    assert len(responses) == 1, task.artifacts
    return text_of(responses[0].parts)


def state_name(state: int) -> str:
    return TaskState.Name(state)


def assert_binding(wire: Wire, binding: str, version: str = "1.0") -> None:
    """Every A2A call went to the binding under test, with the A2A-Version the SDK is meant to send."""
    calls = [sent for sent in wire.requests if sent.path != "/.well-known/agent-card.json"]
    assert calls, "the SDK sent no A2A request"
    for sent in calls:
        on_binding = sent.path.startswith("/a2a/v1/") if binding == "HTTP+JSON" else sent.path == "/a2a"
        assert on_binding and sent.version == version, sent


# --- A2A 1.0 on both bindings ---


@pytest.mark.parametrize("binding", BINDINGS)
def test_blocking_send_completes_with_the_echo(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            task = await send_for_task(client, ECHO_TEXT)
        assert state_name(task.status.state) == "TASK_STATE_COMPLETED"
        assert task.id and task.context_id
        assert response_text(task) == ECHO_TEXT
        assert task.history[0].role == Role.ROLE_USER and text_of(task.history[0].parts) == ECHO_TEXT

    run(scenario)
    assert_binding(wire, binding)
    if binding == "JSONRPC":
        assert [sent.rpc_method for sent in wire.requests if sent.rpc_method] == ["SendMessage"]
    else:
        assert [(s.method, s.path) for s in wire.requests][-1] == ("POST", "/a2a/v1/message:send")


@pytest.mark.parametrize("binding", BINDINGS)
def test_return_immediately_then_get_task_until_completed(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            task = await send_for_task(client, "sleep 2", return_immediately=True)
            assert state_name(task.status.state) == "TASK_STATE_WORKING"
            done = await wait_for_state(client, task.id, "TASK_STATE_COMPLETED")
        assert done.id == task.id and done.context_id == task.context_id
        assert response_text(done) == "Sleeping for 2 seconds. Done sleeping."

    run(scenario)
    assert_binding(wire, binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_streaming_send_yields_task_status_and_artifact_updates(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire) as client:
            events = await send(client, ECHO_TEXT)
        kinds = [event.WhichOneof("payload") for event in events]
        assert kinds[0] == "task", kinds
        assert kinds[-1] == "status_update", kinds
        assert "artifact_update" in kinds, kinds
        task = events[0].task
        assert text_of(task.history[0].parts) == ECHO_TEXT
        updates = [event.status_update for event in events if event.HasField("status_update")]
        chunks = [event.artifact_update for event in events if event.HasField("artifact_update")]
        assert all(u.task_id == task.id and u.context_id == task.context_id for u in [*updates, *chunks])
        assert state_name(updates[0].status.state) == "TASK_STATE_WORKING"
        assert state_name(updates[-1].status.state) == "TASK_STATE_COMPLETED"
        assert [state_name(u.status.state) for u in updates].count("TASK_STATE_COMPLETED") == 1
        response = [chunk for chunk in chunks if chunk.artifact.name == "response"]
        assert not response[0].append and all(chunk.append for chunk in response[1:])
        assert response[-1].last_chunk
        assert "".join(text_of(chunk.artifact.parts) for chunk in response) == ECHO_TEXT

    run(scenario)
    assert_binding(wire, binding)
    if binding == "JSONRPC":
        assert [sent.rpc_method for sent in wire.requests if sent.rpc_method] == ["SendStreamingMessage"]
    else:
        assert wire.requests[-1].path == "/a2a/v1/message:stream"


@pytest.mark.parametrize("binding", BINDINGS)
def test_get_task_honours_history_length(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            asked = await send_for_task(client, "ask: Window or aisle?")
            await send_for_task(client, "Window, please", task_id=asked.id)
            full = await client.get_task(GetTaskRequest(id=asked.id))
            last = await client.get_task(GetTaskRequest(id=asked.id, history_length=1))
        assert full.id == asked.id and state_name(full.status.state) == "TASK_STATE_COMPLETED"
        assert response_text(full) == "Window, please"
        user_texts = [text_of(m.parts) for m in full.history if m.role == Role.ROLE_USER]
        assert user_texts == ["ask: Window or aisle?", "Window, please"], full.history
        assert len(last.history) == 1
        assert last.history[0] == full.history[-1]

    run(scenario)
    assert_binding(wire, binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_list_tasks_pages_through_the_callers_tasks(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            first = await send_for_task(client, "first of two")
            second = await send_for_task(client, "second of two", context_id=first.context_id)
            assert second.context_id == first.context_id
            everything = await client.list_tasks(ListTasksRequest(page_size=100))
            page1 = await client.list_tasks(ListTasksRequest(context_id=first.context_id, page_size=1))
            page2 = await client.list_tasks(ListTasksRequest(context_id=first.context_id, page_size=1,
                                                             page_token=page1.next_page_token))
        assert {first.id, second.id} <= {task.id for task in everything.tasks}
        assert len(page1.tasks) == 1 and page1.next_page_token
        assert len(page2.tasks) == 1 and not page2.next_page_token
        assert {page1.tasks[0].id, page2.tasks[0].id} == {first.id, second.id}
        assert page1.total_size == 2 and page1.page_size == 1
        listed = {task.id: task for task in [*page1.tasks, *page2.tasks]}
        assert state_name(listed[second.id].status.state) == "TASK_STATE_COMPLETED"

    run(scenario)
    assert_binding(wire, binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_cancel_task_cancels_a_sleeping_task(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            task = await send_for_task(client, "sleep 30", return_immediately=True)
            assert state_name(task.status.state) == "TASK_STATE_WORKING"
            canceled = await client.cancel_task(CancelTaskRequest(id=task.id))
            assert canceled.id == task.id
            assert state_name(canceled.status.state) == "TASK_STATE_CANCELED"
            again = await client.get_task(GetTaskRequest(id=task.id))
        assert state_name(again.status.state) == "TASK_STATE_CANCELED"

    run(scenario)
    assert_binding(wire, binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_subscribe_to_task_starts_with_the_task_and_ends_completed(agent: Agent, binding: str) -> None:
    wire = Wire()
    task_ids: list[str] = []

    async def scenario() -> None:
        # the SDK streams every send while streaming is on, so a non-streaming client starts the task
        async with sdk_client(agent, binding, wire, streaming=False) as starter:
            task = await send_for_task(starter, "sleep 2", return_immediately=True)
        task_ids.append(task.id)
        async with sdk_client(agent, binding, wire) as client:
            events = [event async for event in client.subscribe(SubscribeToTaskRequest(id=task.id))]
        assert events[0].HasField("task"), events[0]
        assert events[0].task.id == task.id
        assert state_name(events[0].task.status.state) == "TASK_STATE_WORKING"
        last = events[-1]
        assert last.HasField("status_update") and last.status_update.task_id == task.id
        assert state_name(last.status_update.status.state) == "TASK_STATE_COMPLETED"

    run(scenario)
    assert_binding(wire, binding)
    if binding == "HTTP+JSON":
        assert ("POST", f"/a2a/v1/tasks/{task_ids[0]}:subscribe") in [(s.method, s.path) for s in wire.requests]
    else:
        assert "SubscribeToTask" in [sent.rpc_method for sent in wire.requests]


@pytest.mark.parametrize("binding", BINDINGS)
def test_ask_is_input_required_and_the_continuation_completes(agent: Agent, binding: str) -> None:
    wire = Wire()
    question = "Which dates suit you?"

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            asked = await send_for_task(client, f"ask: {question}")
            assert state_name(asked.status.state) == "TASK_STATE_INPUT_REQUIRED"
            assert asked.status.message.role == Role.ROLE_AGENT
            assert text_of(asked.status.message.parts) == question
            answered = await send_for_task(client, "May 3 to May 9", task_id=asked.id)
        assert answered.id == asked.id and answered.context_id == asked.context_id
        assert state_name(answered.status.state) == "TASK_STATE_COMPLETED"
        assert response_text(answered) == "May 3 to May 9"

    run(scenario)
    assert_binding(wire, binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_unknown_task_raises_the_sdk_task_not_found_error(agent: Agent, binding: str) -> None:
    wire = Wire()
    unknown = str(uuid.uuid4())

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            with pytest.raises(TaskNotFoundError):
                await client.get_task(GetTaskRequest(id=unknown))
            with pytest.raises(TaskNotFoundError):
                await client.cancel_task(CancelTaskRequest(id=unknown))

    run(scenario)
    assert_binding(wire, binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_extended_card_is_the_workspace_card(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            card = await client.get_extended_agent_card(GetExtendedAgentCardRequest())
        assert card.name == WORKSPACE_CARD_NAME
        assert card.description == "The interop desk."
        assert card.capabilities.streaming

    run(scenario)
    public = httpx.get(agent.url + "/.well-known/agent-card.json", timeout=CALL_TIMEOUT).json()
    assert public["name"] != WORKSPACE_CARD_NAME  # the public card stays generic
    assert public["capabilities"]["extendedAgentCard"] is True
    assert_binding(wire, binding)
    if binding == "JSONRPC":
        assert [sent.rpc_method for sent in wire.requests if sent.rpc_method] == ["GetExtendedAgentCard"]
    else:
        assert ("GET", "/a2a/v1/extendedAgentCard") in [(s.method, s.path) for s in wire.requests]


async def push_config_round_trip(client: Client, task_id: str) -> None:
    """Create (no id: the server picks one), get, list, delete, list again: what the SDK's push calls see."""
    created = await client.create_task_push_notification_config(TaskPushNotificationConfig(
        task_id=task_id, url="https://hooks.example.com/notify", token="tok-interop"))
    assert created.id and created.task_id == task_id and created.token == "tok-interop"
    got = await client.get_task_push_notification_config(
        GetTaskPushNotificationConfigRequest(task_id=task_id, id=created.id))
    assert (got.id, got.url, got.token) == (created.id, "https://hooks.example.com/notify", "tok-interop")
    listed = await client.list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest(task_id=task_id))
    assert [config.id for config in listed.configs] == [created.id]
    await client.delete_task_push_notification_config(
        DeleteTaskPushNotificationConfigRequest(task_id=task_id, id=created.id))
    listed = await client.list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest(task_id=task_id))
    assert list(listed.configs) == []
    with pytest.raises(TaskNotFoundError):
        await client.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=task_id, id=created.id))


@pytest.mark.parametrize("binding", BINDINGS)
def test_push_config_create_get_list_delete(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            task = await send_for_task(client, "ask: Which city?")
            await push_config_round_trip(client, task.id)

    run(scenario)
    assert_binding(wire, binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_refused_operations_raise_the_sdk_error_types(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            done = await send_for_task(client, ECHO_TEXT)
            with pytest.raises(TaskNotCancelableError, match=done.id):  # A2A §3.1.5
                await client.cancel_task(CancelTaskRequest(id=done.id))
            with pytest.raises(UnsupportedOperationError, match=done.id):  # a terminal task takes no messages
                await send_for_task(client, "once more", task_id=done.id)
        async with sdk_client(agent, binding, wire) as client:
            with pytest.raises(UnsupportedOperationError, match=done.id):  # A2A §3.1.6
                [event async for event in client.subscribe(SubscribeToTaskRequest(id=done.id))]

    run(scenario)
    assert_binding(wire, binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_invalid_params_raise_the_sdk_invalid_params_error(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            no_parts = SendMessageRequest(message=Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER))
            with pytest.raises(InvalidParamsError, match=r"message\.parts"):
                [event async for event in client.send_message(no_parts)]

    run(scenario)


# --- A2A 0.3 over JSON-RPC: the SDK's compat transport ---


@asynccontextmanager
async def v03_client(agent: Agent, wire: Wire, *, streaming: bool = False) -> AsyncIterator[Client]:
    """The SDK picks CompatJsonRpcTransport when the card's only JSON-RPC interface says 0.3."""
    async with http_for(agent, wire) as http:
        card: AgentCard = await A2ACardResolver(http, agent.url).get_agent_card()
        legacy = [i for i in card.supported_interfaces
                  if i.protocol_binding == "JSONRPC" and i.protocol_version == "0.3"]
        assert [i.url for i in legacy] == [agent.url + "/a2a"], card.supported_interfaces
        del card.supported_interfaces[:]
        card.supported_interfaces.extend(legacy)
        config = ClientConfig(streaming=streaming, supported_protocol_bindings=["JSONRPC"], httpx_client=http)
        async with ClientFactory(config).create(card) as client:
            yield client


def assert_v03(wire: Wire, methods: list[str]) -> None:
    calls = [sent for sent in wire.requests if sent.rpc_method]
    assert [sent.rpc_method for sent in calls] == methods
    assert all(sent.version == "0.3" for sent in calls), calls


def test_v03_push_config_create_get_list_delete(agent: Agent) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with v03_client(agent, wire) as client:
            task = await send_for_task(client, "ask: Which city?")
            await push_config_round_trip(client, task.id)

    run(scenario)
    assert_v03(wire, ["message/send", "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
                      "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete",
                      "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/get"])


def test_v03_send_then_get(agent: Agent) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with v03_client(agent, wire) as client:
            task = await send_for_task(client, ECHO_TEXT)
            assert state_name(task.status.state) == "TASK_STATE_COMPLETED"
            assert response_text(task) == ECHO_TEXT
            got = await client.get_task(GetTaskRequest(id=task.id, history_length=1))
        assert got.id == task.id and got.context_id == task.context_id
        assert state_name(got.status.state) == "TASK_STATE_COMPLETED"
        assert response_text(got) == ECHO_TEXT
        assert len(got.history) == 1

    run(scenario)
    assert_v03(wire, ["message/send", "tasks/get"])


def test_v03_unknown_task_raises_task_not_found(agent: Agent) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with v03_client(agent, wire) as client:
            with pytest.raises(TaskNotFoundError):
                await client.get_task(GetTaskRequest(id=str(uuid.uuid4())))

    run(scenario)
    assert_v03(wire, ["tasks/get"])


def test_v03_streaming_send_ends_completed(agent: Agent) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with v03_client(agent, wire, streaming=True) as client:
            events = await send(client, ECHO_TEXT)
        assert events[0].HasField("task")
        last = events[-1]
        assert last.HasField("status_update")
        assert state_name(last.status_update.status.state) == "TASK_STATE_COMPLETED"
        chunks = [e.artifact_update for e in events if e.HasField("artifact_update")]
        assert "".join(text_of(c.artifact.parts) for c in chunks if c.artifact.name == "response") == ECHO_TEXT

    run(scenario)
    assert_v03(wire, ["message/stream"])


def test_v03_cancel_resubscribe_and_extended_card(agent: Agent) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with v03_client(agent, wire) as client:
            long = await send_for_task(client, "sleep 30", return_immediately=True)
            short = await send_for_task(client, "sleep 2", return_immediately=True)
            assert state_name(long.status.state) == "TASK_STATE_WORKING"
            canceled = await client.cancel_task(CancelTaskRequest(id=long.id))
            assert canceled.id == long.id and state_name(canceled.status.state) == "TASK_STATE_CANCELED"
            card = await client.get_extended_agent_card(GetExtendedAgentCardRequest())
            assert card.name == WORKSPACE_CARD_NAME
        async with v03_client(agent, wire, streaming=True) as client:
            events = [event async for event in client.subscribe(SubscribeToTaskRequest(id=short.id))]
        assert events[0].HasField("task") and events[0].task.id == short.id
        assert state_name(events[-1].status_update.status.state) == "TASK_STATE_COMPLETED"

    run(scenario)
    assert_v03(wire, ["message/send", "message/send", "tasks/cancel", "agent/getAuthenticatedExtendedCard",
                      "tasks/resubscribe"])


# --- the shapes of docs/scripted-agent.md, as the SDK hands them to its caller ---


def as_dict(message: Any) -> Any:
    return json_format.MessageToDict(message)


@pytest.mark.parametrize("binding", BINDINGS)
def test_the_sdk_reads_a_message_answer_artifact_parts_and_every_state(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire, streaming=False) as client:
            (answer,) = await send(client, "message")
            assert answer.HasField("message"), answer
            assert text_of(answer.message.parts) == "Direct message response"
            assert answer.message.context_id and not answer.message.task_id
            task = await send_for_task(client, "artifact parts")
            (artifact,) = task.artifacts
            assert (artifact.name, as_dict(artifact.metadata)) == ("report", {"version": 1})
            text, data, raw, url = artifact.parts
            assert text.text == "Every kind of part in one artifact"
            assert as_dict(data.data) == {"rows": 2, "columns": ["name", "size"]}
            assert (raw.raw, raw.filename, raw.media_type) == (b"tck", "output.txt", "text/plain")
            assert url.url == "https://example.com/output.txt"
            assert as_dict(url.metadata) == {"note": "not downloaded by the server"}
            rejected = await send_for_task(client, "reject")
            assert state_name(rejected.status.state) == "TASK_STATE_REJECTED"
            waiting = await send_for_task(client, "need auth")
            assert state_name(waiting.status.state) == "TASK_STATE_AUTH_REQUIRED"
            resumed = await send_for_task(client, "signed in", task_id=waiting.id)
            assert (resumed.id, state_name(resumed.status.state)) == (waiting.id, "TASK_STATE_COMPLETED")

    run(scenario)
    assert_binding(wire, binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_the_sdk_streams_a_message_answer_and_status_metadata(agent: Agent, binding: str) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with sdk_client(agent, binding, wire) as client:
            (answer,) = await send(client, "message")
            events = await send(client, "status metadata")
        assert answer.HasField("message") and text_of(answer.message.parts) == "Direct message response"
        updates = [event.status_update for event in events if event.HasField("status_update")]
        assert [as_dict(update.metadata) for update in updates] == [{}, {"progress": 50}, {"progress": 100}]

    run(scenario)
    assert_binding(wire, binding)


def test_v03_the_sdk_reads_a_message_answer_and_a_data_artifact(agent: Agent) -> None:
    wire = Wire()

    async def scenario() -> None:
        async with v03_client(agent, wire) as client:
            (answer,) = await send(client, "message")
            task = await send_for_task(client, "artifact data")
        assert answer.HasField("message") and text_of(answer.message.parts) == "Direct message response"
        (artifact,) = task.artifacts
        assert [as_dict(part.data) for part in artifact.parts] == [{"key": "value", "count": 42}]

    run(scenario)
    assert_v03(wire, ["message/send", "message/send"])
