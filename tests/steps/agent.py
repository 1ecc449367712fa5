"""Steps about what the agent receives: hops and the event bus, the prompt, the system prompt, the owner notifier.

Like the lifecycle steps, these read the scenario's workspace folder (the session JSONL).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_bdd import given, parsers, then, when
from support.design import DesignState
from support.live import live

from reference_server.agent.notifier import LoggingNotifier
from reference_server.conformance.steps.common import wait_until, workspace_of, write_json
from reference_server.conformance.steps.tasks import remember, response_text, send, text_message, the_task
from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.world import World
from steps.files import file_part
from steps.lifecycle import INBOX_STAMP, SYSTEM_PROMPT_SCRIPT, inbox_files, session_records, the_prompt

# --- hops and the event bus ---


HOPS = "volcanic.hops"  # design: the metadata key of the recursion guard


@when(parsers.parse('the caller sends "{text}" with {hops:d} hops'))
def _(world: World, text: str, hops: int) -> None:
    send(world, {**text_message(text), "metadata": {HOPS: hops}})


@when(parsers.parse('the caller sends "{text}" with the hop count {value}'))
def _(world: World, text: str, value: str) -> None:
    send(world, {**text_message(text), "metadata": {HOPS: json.loads(value)}})


@when(parsers.parse('the caller sends "{text}" with {hops:d} hops in the request metadata'))
def _(world: World, text: str, hops: int) -> None:
    world.stream = None
    world.reply = world.client().call("SendMessage", {"message": text_message(text), "metadata": {HOPS: hops}})
    if world.reply.error is None:
        remember(world, world.reply.body["task"])


def _inbound(world: World) -> list[dict[str, Any]]:
    scope = f"{workspace_of(world).scope_prefix}-a2a-{world.caller}_{world.context_id}"
    return [event for event in live(world.server).inbound if event["scope"] == scope]


@then(parsers.parse('the session\'s event bus carried a2a.inbound with {hops:d} hops from "{caller}"'))
def _(world: World, hops: int, caller: str) -> None:
    events = wait_until(lambda: _inbound(world), "a2a.inbound")
    assert [(e["hops"], e["caller"]) for e in events] == [(hops, caller)], \
        f'expected one a2a.inbound with {hops} hops from "{caller}", got {shown(events)}'
    # design step 4: emitted before the prompt, so the session had not recorded it yet
    assert events[0]["prompts_before"] == 0, \
        f"expected a2a.inbound before the prompt, got it after {events[0]['prompts_before']} prompts"
    prompts = [r for r in session_records(world, world.context_id) if r["role"] == "user"]
    assert len(prompts) == 1, f"expected one prompt in the session, got {len(prompts)}"


@then("the agent never saw the message")
def _(world: World) -> None:
    assert _inbound(world) == [], "expected no a2a.inbound for a refused message, but one was emitted"
    assert session_records(world, world.context_id) == [], "expected no prompt in the session, but it got one"


# --- the prompt ---


@when(parsers.parse('the caller sends a message with the text "{text}", the file "{name}" and the data {data}'))
def _(world: World, design: DesignState, text: str, name: str, data: str) -> None:
    message = text_message(text)
    message["parts"] += [file_part(design, name, f"the bytes of {name}".encode()), {"data": json.loads(data)}]
    send(world, message)


@then("the prompt the agent received starts with:")
def _(world: World, docstring: str) -> None:
    header = " ".join(docstring.split())  # the docstring wraps the header; the prompt has it on one line
    prompt = the_prompt(world)
    assert prompt.startswith(header + "\n\n"), \
        f"expected the prompt to start with:\n{header}\n(and a blank line), it starts:\n{prompt[:len(header) + 2]}"


@then(parsers.parse('the prompt the agent received does not mention "{word}"'))
def _(world: World, word: str) -> None:
    prompt = the_prompt(world)
    assert word not in prompt, f'expected the prompt not to mention "{word}", got:\n{prompt}'


@then("the prompt the agent received matches the snapshot")
def _(world: World, snapshot_json: Any) -> None:
    prompt = the_prompt(world)
    saved = inbox_files(world)
    assert len(saved) == 1, f"expected one file in the inbox, got {', '.join(p.name for p in saved) or 'none'}"
    assert f"Files: inbox/{saved[0].name}" in prompt.splitlines(), \
        f'expected the prompt to list "Files: inbox/{saved[0].name}", got:\n{prompt}'
    masked = re.sub(rf"a2a-{world.caller}-{INBOX_STAMP}-", f"a2a-{world.caller}-<yyyymmdd-hhmmss>-", prompt)
    assert masked.splitlines() == snapshot_json, \
        f"expected the prompt as in its snapshot (spec/snapshots/), got:\n{masked}"


# --- the system prompt (observed through a workspace script: the {system} placeholder) ---


@given("the workspace has the files:")
def _(world: World, datatable: list[list[str]]) -> None:
    for name, text in datatable[1:]:
        (workspace_of(world).path / name).write_text(text + "\n", encoding="utf-8")


@given("the workspace's script answers \"system prompt\" with the system prompt")
def _(world: World) -> None:
    write_json(workspace_of(world).a2a_dir / "script.json", SYSTEM_PROMPT_SCRIPT)


@when(parsers.parse('the owner writes "{text}" to {name}'))
def _(world: World, text: str, name: str) -> None:
    (workspace_of(world).path / name).write_text(text + "\n", encoding="utf-8")


@then(parsers.parse('the system prompt the agent used contains "{text}"'))
def _(world: World, text: str) -> None:
    system = response_text(the_task(world))  # the script answered with {system}
    assert system.startswith("You are the assistant of this workspace."), \
        f"expected the system prompt to start with the workspace's assistant, got:\n{system}"
    assert text in system, f'expected the system prompt to contain "{text}", got:\n{system}'


@then(parsers.parse('the system prompt the agent used does not contain "{text}"'))
def _(world: World, text: str) -> None:
    system = response_text(the_task(world))
    assert system.startswith("You are the assistant of this workspace."), \
        f"expected the system prompt to start with the workspace's assistant, got:\n{system}"
    assert text not in system, f'expected the system prompt not to contain "{text}", got:\n{system}'


# --- the owner notifier ---


@given("the server has an owner notifier")
def _(world: World, design: DesignState) -> None:
    notifier = live(world.server).notifier
    assert isinstance(notifier, LoggingNotifier), \
        "expected the server to have the log notifier, which keeps what it sent, it has " + (
            "none" if notifier is None else "another")
    design.notified_before = len(notifier.sent)  # the server is shared by scenarios


@then(parsers.parse('the owner notifier got "{text}" from the caller'))
def _(world: World, design: DesignState, text: str) -> None:
    notifier = live(world.server).notifier
    assert isinstance(notifier, LoggingNotifier), \
        "expected the server to have the log notifier, which keeps what it sent, it has " + (
            "none" if notifier is None else "another")
    sent = notifier.sent[design.notified_before:]
    owner = next(iter(world.workspaces))
    got = [(n.owner_id, n.caller, n.text) for n in sent]
    assert got == [(owner, world.caller, text)], \
        f'expected the owner notifier to get "{text}" from "{world.caller}" for "{owner}" only, got ' + (
            "; ".join(f'"{t}" from "{c}" for "{o}"' for o, c, t in got) or "nothing")
