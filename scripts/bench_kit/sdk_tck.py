"""A TCK-ready agent on the official a2a-sdk Python server: a peer for `make conformance-peers`.

It answers a message by its messageId prefix, the convention of the A2A TCK (a2a-tck 1.0-dev,
scenarios/core_operations.feature and streaming.feature), with the server's defaults everywhere else: JSON-RPC at
/ and HTTP+JSON at /rest in A2A 1.0, streaming, push notifications (the SDK's in-memory store and sender), no
extended card and no security scheme, as the TCK's own a2a-python SUT is configured (plus push).
"""

from __future__ import annotations

import asyncio

import httpx
from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part
from google.protobuf.json_format import ParseDict
from google.protobuf.struct_pb2 import Value
from sdk_echo import serve  # run as a script from scripts/bench_kit, like sdk_echo.py
from starlette.applications import Starlette

LONG_RUN_SECONDS = 4  # test-resubscribe-message-id: "wait for 2x streaming timeout" (the TCK's timeout is 2 s)


def text(value: str) -> Part:
    return Part(text=value)


async def artifact_then_complete(updater: TaskUpdater, parts: list[Part], *, working: bool) -> None:
    if working:
        await updater.start_work()
    await updater.add_artifact(parts)
    await updater.complete()


async def behave(prefix: str, updater: TaskUpdater) -> None:
    """What the TCK asks of a message with this messageId prefix (the longer prefix first where one starts another)."""
    file_part = Part(raw=b"tck", filename="output.txt", media_type="text/plain")
    if prefix.startswith("tck-stream-artifact-chunked"):
        await updater.start_work()
        # one artifact in two chunks: the second names the first's id (without it the SDK makes a new id each call)
        await updater.add_artifact([text("chunk-1 ")], artifact_id="chunked", last_chunk=False)
        await updater.add_artifact([text("chunk-2")], artifact_id="chunked", append=True, last_chunk=True)
        await updater.complete()
    elif prefix.startswith("tck-stream-artifact-text"):
        await artifact_then_complete(updater, [text("Streamed text content")], working=True)
    elif prefix.startswith("tck-stream-artifact-file"):
        await artifact_then_complete(updater, [file_part], working=True)
    elif prefix.startswith(("tck-stream-001", "tck-stream-003", "tck-stream-ordering-001")):
        said = {"tck-stream-001": "Stream hello from TCK", "tck-stream-003": "Stream task lifecycle"}
        await artifact_then_complete(updater, [text(said.get(prefix[:14], "Ordered output"))], working=True)
    elif prefix.startswith("tck-stream-002"):
        await updater.complete()
    elif prefix.startswith("test-resubscribe-message-id"):
        await updater.start_work()
        await asyncio.sleep(LONG_RUN_SECONDS)
        await updater.complete()
    elif prefix.startswith("tck-artifact-file-url"):
        part = Part(url="https://example.com/output.txt", filename="output.txt", media_type="text/plain")
        await artifact_then_complete(updater, [part], working=False)
    elif prefix.startswith("tck-artifact-file"):
        await artifact_then_complete(updater, [file_part], working=False)
    elif prefix.startswith("tck-artifact-text"):
        await artifact_then_complete(updater, [text("Generated text content")], working=False)
    elif prefix.startswith("tck-artifact-data"):
        data = Part(data=ParseDict({"key": "value", "count": 42}, Value()))
        await artifact_then_complete(updater, [data], working=False)
    elif prefix.startswith("tck-input-required"):
        await updater.requires_input()
    elif prefix.startswith("tck-reject-task"):
        await updater.reject(updater.new_agent_message([text("rejected")]))
    elif prefix.startswith("tck-complete-task"):
        await updater.complete(updater.new_agent_message([text("Hello from TCK")]))
    else:
        await updater.complete(updater.new_agent_message([text("Unhandled messageId prefix: " + prefix)]))


class TckExecutor(AgentExecutor):
    """Routes each message by its messageId prefix."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None and context.task_id and context.context_id
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if message.message_id.startswith("tck-message-response"):
            # a message answer names no task (none is made): not updater.new_agent_message, which stamps the id the
            # request context made up in advance (the TCK's own a2a-python SUT uses it, and so names a task that
            # never exists)
            await event_queue.enqueue_event(new_text_message("Direct message response", context_id=context.context_id))
            return
        if context.current_task is None:  # a new task: the Task first, as every stream starts with it
            task = new_task_from_user_message(message)
            task.id, task.context_id = context.task_id, context.context_id
            await event_queue.enqueue_event(task)
        await behave(message.message_id, updater)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id and context.context_id
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def build_app(port: int) -> Starlette:
    base = f"http://127.0.0.1:{port}"
    card = AgentCard(
        name="a2a-sdk TCK agent", description="Answers by the A2A TCK's messageId prefixes (conformance peer).",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=base + "/", protocol_binding="JSONRPC", protocol_version="1.0"),
                              AgentInterface(url=base + "/rest", protocol_binding="HTTP+JSON", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain"], default_output_modes=["text/plain"],
        skills=[AgentSkill(id="tck", name="TCK", description="Answers by messageId prefix", tags=["tck"])])
    push_store = InMemoryPushNotificationConfigStore()
    push_sender = BasePushNotificationSender(httpx.AsyncClient(timeout=10), push_store)
    handler = DefaultRequestHandler(agent_executor=TckExecutor(), task_store=InMemoryTaskStore(), agent_card=card,
                                    push_config_store=push_store, push_sender=push_sender)
    routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/"),
              *create_rest_routes(handler, path_prefix="/rest")]
    return Starlette(routes=routes)


if __name__ == "__main__":
    serve(build_app, __doc__)
