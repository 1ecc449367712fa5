"""Steps about the behaviours a conformance suite asks an agent for by name, ACTS's way (the first word of the text)
beside the TCK's (the start of the messageId): spec/features/design/behaviours.feature; the rest of that feature
speaks the shared task and stream vocabulary."""

from __future__ import annotations

from pytest_bdd import parsers, when
from support.design import DesignState

from reference_server.conformance.steps.tasks import send, task_id, text_message
from reference_server.conformance.world import World


@when(parsers.parse('the caller sends "{text}" with a fresh message id'))
def _(world: World, design: DesignState, text: str) -> None:
    # ACTS: the runner makes every messageId a new UUID, and the text says what the agent is to do
    design.answer_before = world.reply
    send(world, text_message(text))


@when(parsers.re(r'the caller answers "(?P<text>[^"]*)" naming only the task$'))
def _(world: World, text: str) -> None:
    # A2A §3.4.3 (ACTS CORE-MULTI-005): a message that names only the task goes on in the task's context
    send(world, text_message(text, task_id=task_id(world)))
