"""What the rest of the server may ask a workspace's provider besides its runs, in one object found once per provider:
the fault a message asks for (FaultScript: the HTTP edge carries it out) and whether a run will answer with one
message and nothing else (Foresight: the domain then creates no task). Only the scripted provider has either; any
other answers "no fault" and "cannot tell"."""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reference_server.a2a.ports import Foreseer
from reference_server.agent.provider import Provider
from reference_server.model.types import AskedFault

ProviderFor = Callable[[Path], Provider]


@dataclass(frozen=True)
class _Extras:
    fault_for: Callable[[str, str | None, Path], AskedFault | None] | None
    answers_with_message: Callable[[str, str | None, Path], bool] | None


_NONE = _Extras(None, None)


class ProviderHooks:
    """The hooks of the providers that provider_for gives; each provider is looked at once (its methods, not an
    isinstance of the protocols: a runtime protocol check costs microseconds per request)."""

    def __init__(self, provider_for: ProviderFor) -> None:
        self._provider_for = provider_for
        self._found: weakref.WeakKeyDictionary[Provider, _Extras] = weakref.WeakKeyDictionary()

    def fault_for(self, workspace: Path, prompt: str, message_id: str | None) -> AskedFault | None:
        """The fault the workspace's script asks for, for a message of this prompt text and id; None: none."""
        ask = self._extras(workspace).fault_for
        return ask(prompt, message_id, workspace) if ask is not None else None

    def foresight(self, workspace: Path) -> Foreseer | None:
        """How to ask, before a run, whether the run of a prompt (and message id) in workspace will answer with one
        message and nothing else; None when its provider cannot tell."""
        seer = self._extras(workspace).answers_with_message
        if seer is None:
            return None
        # the provider sees a user message's content (the prompt's text; its preamble beside it)
        return lambda prompt, message_id: seer(prompt.text, message_id, workspace)

    def _extras(self, workspace: Path) -> _Extras:
        try:
            provider = self._provider_for(workspace)
        except Exception:
            return _NONE  # no session can be opened either: the run fails then, and says why in the log
        try:
            return self._found[provider]
        except (KeyError, TypeError):  # TypeError: a provider that cannot be weakly referenced is looked at each time
            pass
        extras = _Extras(getattr(provider, "fault_for", None), getattr(provider, "answers_with_message", None))
        with contextlib.suppress(TypeError):
            self._found[provider] = extras
        return extras
