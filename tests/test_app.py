"""The composition root picks the provider the settings ask for."""

from __future__ import annotations

from pathlib import Path

from support.live import LiveServer, settings_for

from reference_server.agent.openai_compat import OpenAICompatibleProvider
from reference_server.agent.scripted import ScriptedProvider
from reference_server.app import default_provider_for
from reference_server.domain.callers import Workspace
from reference_server.settings import Settings


def test_the_scripted_provider_is_the_default(tmp_path: Path) -> None:
    assert isinstance(default_provider_for(Settings())(tmp_path), ScriptedProvider)


def test_a_provider_base_url_selects_the_openai_compatible_provider(tmp_path: Path) -> None:
    settings = Settings(provider_base_url="http://127.0.0.1:9", provider_model="m", provider_api_key="sk-secret")
    provider = default_provider_for(settings)(tmp_path)
    assert isinstance(provider, OpenAICompatibleProvider)
    assert "sk-secret" not in repr(provider) and "sk-secret" not in repr(settings)


def test_a_start_removes_the_temp_files_of_interrupted_writes(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    tasks = workspace.tasks_dir
    tasks.mkdir(parents=True)
    task_id = "3f1c9a52-8d7e-4b6a-9c0d-1e2f3a4b5c6d"
    (tasks / f"{task_id}.json").write_text("{}")
    (tasks / f".{task_id}.abc123.tmp").write_text('{"half": ')  # a kill -9 between write and rename
    (tasks / "notes.tmp").write_text("not ours")
    server = LiveServer(settings_for())
    server.workspaces.add(workspace)
    server.start()
    try:
        assert sorted(p.name for p in tasks.iterdir()) == sorted(["notes.tmp", f"{task_id}.json"])
    finally:
        server.stop()
