"""The provider's hooks, found once per provider (agent/hooks.py): the scripted provider asks for faults and foresees
a message answer; any other provider asks for no fault and cannot tell."""

from __future__ import annotations

from pathlib import Path

from reference_server.a2a.ports import Prompt
from reference_server.agent.hooks import ProviderHooks
from reference_server.agent.provider import Provider
from reference_server.agent.scripted import ScriptedProvider

from .helpers import Recording, write_script


def test_the_scripted_provider_asks_for_the_fault_its_script_names(tmp_path: Path) -> None:
    hooks = ProviderHooks(lambda _: ScriptedProvider())
    fault = hooks.fault_for(tmp_path, "cut after 2 events", "m1")
    assert fault is not None and fault.settings == {"cutAfter": "2"}, fault  # the placeholder filled, as text
    assert hooks.fault_for(tmp_path, "hello", "m2") is None


def test_foresight_follows_the_script(tmp_path: Path) -> None:
    write_script(tmp_path, {"rules": [{"match": "^reply$", "turns": [[{"reply": "hi"}]]},
                                      {"match": "", "turns": [[{"say": "a task"}]]}]})
    foresight = ProviderHooks(lambda _: ScriptedProvider()).foresight(tmp_path)
    assert foresight is not None
    assert foresight(Prompt("reply"), None) and not foresight(Prompt("other"), None)


def test_another_provider_asks_for_nothing_and_foresees_nothing(tmp_path: Path) -> None:
    hooks = ProviderHooks(lambda _: Recording())
    assert hooks.fault_for(tmp_path, "cut after 2 events", "m1") is None
    assert hooks.foresight(tmp_path) is None


def test_a_provider_that_cannot_be_had_asks_for_nothing(tmp_path: Path) -> None:
    def broken(_: Path) -> Provider:
        raise RuntimeError("no provider")

    hooks = ProviderHooks(broken)
    assert hooks.fault_for(tmp_path, "cut after 2 events", "m1") is None and hooks.foresight(tmp_path) is None


def test_each_provider_is_looked_at_once(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    hooks = ProviderHooks(lambda _: provider)
    hooks.fault_for(tmp_path, "hello", None)
    provider.fault_for = lambda *args: None  # type: ignore[method-assign]  # changed after the first look
    assert hooks.fault_for(tmp_path, "cut after 2 events", "m1") is not None  # the hook found first is kept
