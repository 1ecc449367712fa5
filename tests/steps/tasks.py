"""Steps about tasks: send, stream, get, list, cancel, subscribe."""

from __future__ import annotations

import json
from typing import Any

from pytest_bdd import parsers, when


@when(parsers.parse('the caller gets the task "{task_id}"'))
def _(world: Any, task_id: str) -> None:
    world.reply = world.client().call("GetTask", {"id": world.tasks.get(task_id, task_id)})


@when(parsers.parse("the caller sends the message {message}"))
def _(world: Any, message: str) -> None:
    world.reply = world.client().call("SendMessage", {"message": json.loads(message)})
