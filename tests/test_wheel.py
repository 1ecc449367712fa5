"""What a `pip install` user gets: the wheel built from this checkout, installed with its [conformance] extra into a
fresh virtualenv in a temporary folder outside the checkout, serves, answers --version, runs the portable conformance
suite against a server by its URL, runs a client under client-check, and gives a client project's tests the pytest
fixtures with the schema check on (the schemas and the portable features travel inside the wheel; setup.py copies
them there)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
KEY = "k_wheel_test_0123456789"

SMALL_CLIENT = """
import os, httpx
message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hello"}], "colour": "blue"}
httpx.post(os.environ["A2A_URL"] + "/a2a", json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                                                 "params": {"message": message}},
           headers={"X-API-Key": os.environ["A2A_KEY"], "A2A-Version": "1.0"}, timeout=30)
"""

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
                    f"{wheel}[conformance]"], check=True, timeout=600, cwd=folder)
    return venv


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")
            and not k.lower().startswith("a2a__")}


def test_the_installed_command_names_its_version(installed: Path) -> None:
    result = subprocess.run([str(installed / "bin" / "reference-server"), "--version"], capture_output=True,
                            text=True, timeout=60, env=_clean_env(), cwd=installed.parent)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("reference-server ")


@pytest.fixture(scope="module")
def served(installed: Path) -> Iterator[str]:
    """The installed server on a free loopback port, serving a workspace with the caller KEY; its URL."""
    workspace = installed.parent / "workspace"
    (workspace / ".volcanic" / "a2a").mkdir(parents=True)
    (workspace / ".volcanic" / "a2a" / "callers.json").write_text(json.dumps([{"name": "me", "key": KEY}]))
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
                httpx.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "the installed server did not start"
                time.sleep(0.1)  # polling for the port to open, not papering over a race
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)


def test_the_installed_server_serves_a_workspace(served: str) -> None:
    card = httpx.get(f"{served}/.well-known/agent-card.json", timeout=10)
    assert card.status_code == 200 and card.json()["supportedInterfaces"]


def test_the_installed_conformance_suite_runs_against_a_url(installed: Path, served: str) -> None:
    """The portable suite from the wheel (no checkout, no make) against the installed server by its URL: every MUST
    holds, and the report and the living page are written where --reports says."""
    reports = installed.parent / "conformance-reports"
    result = subprocess.run([str(installed / "bin" / "reference-server"), "conformance", served, "--key", KEY,
                             "--reports", str(reports)], capture_output=True, text=True, timeout=900,
                            env=_clean_env(), cwd=installed.parent)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    report = json.loads((reports / "conformance.json").read_text())
    assert report["exit_status"] == 0 and report["summary"]["must"]["all"]["fail"] == 0
    assert report["summary"]["must"]["all"]["pass"] > 50, report["summary"]
    assert "<html" in (reports / "conformance.html").read_text()


def test_the_installed_client_check_reports_a_clients_schema_violation(installed: Path) -> None:
    """client-check from the wheel runs a small client (an httpx script) against a recording server: the unknown
    field it sends is a schema violation, so the exit status is 1 and the report names it."""
    out = installed.parent / "client-check"
    client = f"{installed / 'bin' / 'python'} -c {shlex.quote(SMALL_CLIENT)}"
    result = subprocess.run([str(installed / "bin" / "reference-server"), "client-check", client, "--out", str(out),
                             "--timeout", "120"], capture_output=True, text=True, timeout=300, env=_clean_env(),
                            cwd=installed.parent)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-2000:]
    built = json.loads((out / "client-report.json").read_text())
    assert built["summary"]["exchanges"] == 1 and built["summary"]["schemaChecked"] >= 1
    assert "schema" in {v["check"] for v in built["violations"]}, built["violations"]


def test_a_client_project_gets_the_fixtures_with_the_schema_check_on(installed: Path) -> None:
    project = installed.parent / "client-project"
    project.mkdir()
    (project / "test_client.py").write_text(CLIENT_TEST)
    result = subprocess.run([str(installed / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                            capture_output=True, text=True, timeout=300, env=_clean_env(), cwd=project)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "1 passed" in result.stdout
