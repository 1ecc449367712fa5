"""The composition root picks the provider the settings ask for."""

from __future__ import annotations

from pathlib import Path

from reference_server.agent.openai_compat import OpenAICompatibleProvider
from reference_server.agent.scripted import ScriptedProvider
from reference_server.app import default_provider_for
from reference_server.settings import Settings


def test_the_scripted_provider_is_the_default(tmp_path: Path) -> None:
    assert isinstance(default_provider_for(Settings())(tmp_path), ScriptedProvider)


def test_a_provider_base_url_selects_the_openai_compatible_provider(tmp_path: Path) -> None:
    settings = Settings(provider_base_url="http://127.0.0.1:9", provider_model="m", provider_api_key="sk-secret")
    provider = default_provider_for(settings)(tmp_path)
    assert isinstance(provider, OpenAICompatibleProvider)
    assert "sk-secret" not in repr(provider) and "sk-secret" not in repr(settings)
