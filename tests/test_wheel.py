"""What a `pip install` user gets: the wheel built from this checkout, installed into a fresh virtualenv in a temporary
folder outside the checkout, serves, answers --version, and gives a client project's tests the pytest fixtures with
the schema check on (the schemas travel inside the wheel; setup.py copies them there)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]

CLIENT_TEST = '''
import httpx


def test_an_unknown_field_is_a_schema_violation(a2a_server):
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hello"}], "colour": "blue"}
    answer = httpx.post(a2a_server.url + "/a2a", json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                                                       "params": {"message": message}},
                        headers={"X-API-Key": a2a_server.key, "A2A-Version": "1.0"}, timeout=10)
    assert answer.status_code == 200
    report = a2a_server.report()
    assert report["summary"]["schemaChecked"] >= 1
    checks = [v["check"] for e in a2a_server.exchanges() for v in e["checks"]["violations"]]
    assert "schema" in checks, checks
'''


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel's virtualenv; its folder is outside the checkout, and nothing of the checkout is on its path."""
    folder = tmp_path_factory.mktemp("wheel")
    assert ROOT not in folder.parents
    # built from a copy of the sources: setuptools keeps a build/ folder in the tree it builds, which could carry
    # files of an earlier build into this wheel
    source = folder / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "reports", "node_modules", "__pycache__", ".*_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(folder / "dist")],
                   check=True, timeout=300, cwd=folder)
    [wheel] = (folder / "dist").glob("*.whl")
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    str(wheel), "pytest>=8.3,<10"], check=True, timeout=600, cwd=folder)
    return venv


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")
            and not k.lower().startswith("a2a__")}


def test_the_installed_command_names_its_version(installed: Path) -> None:
    result = subprocess.run([str(installed / "bin" / "reference-server"), "--version"], capture_output=True,
                            text=True, timeout=60, env=_clean_env(), cwd=installed.parent)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("reference-server ")


def test_the_installed_server_serves_a_workspace(installed: Path) -> None:
    workspace = installed.parent / "workspace"
    (workspace / ".volcanic" / "a2a").mkdir(parents=True)
    (workspace / ".volcanic" / "a2a" / "callers.json").write_text(json.dumps([{"name": "me", "key": "k_wheel_test"}]))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([str(installed / "bin" / "reference-server"), "--workspace", str(workspace), "--host",
                               "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=_clean_env(), cwd=installed.parent)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                card = httpx.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "the installed server did not start"
                time.sleep(0.1)  # polling for the port to open, not papering over a race
        assert card.status_code == 200 and card.json()["supportedInterfaces"]
    finally:
        server.terminate()
        server.wait(10)


def test_a_client_project_gets_the_fixtures_with_the_schema_check_on(installed: Path) -> None:
    project = installed.parent / "client-project"
    project.mkdir()
    (project / "test_client.py").write_text(CLIENT_TEST)
    result = subprocess.run([str(installed / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                            capture_output=True, text=True, timeout=300, env=_clean_env(), cwd=project)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "1 passed" in result.stdout
