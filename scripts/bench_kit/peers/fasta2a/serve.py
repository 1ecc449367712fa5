"""An echo agent on fasta2a (pydantic's A2A 1.0 server, which does not use the official a2a-sdk): a peer for
`make conformance-peers`, a plain agent that follows no TCK convention.

It runs in the fasta2a venv that scripts/bench_kit/independent.py installs into the user's cache, not in the
project's venv: `<venv>/bin/python serve.py --port N` serves JSON-RPC at / and the card at
/.well-known/agent-card.json on 127.0.0.1:N, with fasta2a's in-memory storage and broker. Each task is completed
with the user's text, as an agent message in its history and as an artifact.
"""

from __future__ import annotations

import argparse
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from fasta2a import FastA2A, Worker
from fasta2a.broker import InMemoryBroker
from fasta2a.schema import Artifact, Message, TaskIdParams, TaskSendParams
from fasta2a.storage import InMemoryStorage


class EchoWorker(Worker[Any]):
    """Working, then completed with the text of the user's message (its text parts, joined)."""

    async def run_task(self, params: TaskSendParams) -> None:
        await self.storage.update_task(params["id"], state="working")
        text = "".join(part.get("text", "") for part in params["message"].get("parts", []))
        reply = Message(role="agent", parts=[{"text": text}], message_id=str(uuid.uuid4()))
        artifact = Artifact(artifact_id=str(uuid.uuid4()), name="echo", parts=[{"text": text}])
        await self.storage.update_task(params["id"], state="completed", new_artifacts=[artifact],
                                       new_messages=[reply])

    async def cancel_task(self, params: TaskIdParams) -> None:
        # fasta2a queues a cancel before it looks the task up, so the worker also gets ids it answers TaskNotFound
        # for: an unknown or finished task is left alone (a KeyError here would end the worker and the app's lifespan)
        task = await self.storage.load_task(params["id"])
        if task is not None and task["status"]["state"] not in ("completed", "failed", "canceled", "rejected"):
            await self.storage.update_task(params["id"], state="canceled")

    def build_message_history(self, history: list[Message]) -> list[Any]:
        return list(history)

    def build_artifacts(self, result: Any) -> list[Artifact]:
        return []


def build_app(port: int) -> FastA2A:
    storage: InMemoryStorage[Any] = InMemoryStorage()
    broker = InMemoryBroker()
    worker = EchoWorker(broker=broker, storage=storage)

    @asynccontextmanager
    async def lifespan(app: FastA2A) -> AsyncIterator[None]:
        async with app.task_manager, worker.run():
            yield

    return FastA2A(storage=storage, broker=broker, name="fasta2a echo", url=f"http://127.0.0.1:{port}/",
                   description="Echoes the user's text (conformance peer).", default_input_modes=["text/plain"],
                   default_output_modes=["text/plain"], lifespan=lifespan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(build_app(args.port), host="127.0.0.1", port=args.port, workers=1, log_level="warning",
                access_log=False, timeout_graceful_shutdown=3)


if __name__ == "__main__":
    main()
