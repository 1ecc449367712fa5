"""Echo agent on the official a2a-sdk Python server (Starlette, in-memory task store): a peer for scripts/bench.py."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import uvicorn
from a2a.helpers.proto_helpers import get_message_text, new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part
from starlette.applications import Starlette


class EchoExecutor(AgentExecutor):
    """Answers a message with its own text: task submitted, working, one artifact, completed."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None and context.task_id and context.context_id
        task = new_task_from_user_message(context.message)
        task.id, task.context_id = context.task_id, context.context_id
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        await updater.add_artifact([Part(text=get_message_text(context.message))], name="response", last_chunk=True)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def build_app(port: int) -> Starlette:
    base = f"http://127.0.0.1:{port}"
    card = AgentCard(
        name="a2a-sdk echo", description="Echoes the user's text (benchmark peer).", version="1.0.0",
        supported_interfaces=[AgentInterface(url=base + "/", protocol_binding="JSONRPC", protocol_version="1.0"),
                              AgentInterface(url=base + "/rest", protocol_binding="HTTP+JSON", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain"], default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Echoes the text", tags=["echo"])])
    handler = DefaultRequestHandler(agent_executor=EchoExecutor(), task_store=InMemoryTaskStore(), agent_card=card)
    routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/"),
              *create_rest_routes(handler, path_prefix="/rest")]
    return Starlette(routes=routes)


def serve(build: Callable[[int], Starlette], description: str | None) -> None:
    """Serve build(port) on 127.0.0.1 at the port of `--port`: the peers of the bench and of the conformance runs."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(build(args.port), host="127.0.0.1", port=args.port, workers=1, log_level="warning",
                access_log=False, timeout_graceful_shutdown=3)


if __name__ == "__main__":
    serve(build_app, __doc__)
