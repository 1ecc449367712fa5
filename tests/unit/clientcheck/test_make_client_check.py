"""`make client-check CLIENT='<command>'` hands the command to `reference-server client-check` exactly as written,
and the report it makes holds the client's requests only."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reference_server.clientcheck import run as client_check

ROOT = Path(__file__).resolve().parents[3]

# stands in for the venv's reference-server: says what it would have been given, and does nothing else
RECORD_ARGS = """
import json, os, sys
print(json.dumps({"argv": sys.argv[1:], "CLIENT": os.environ.get("CLIENT")}))
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("command", [
    'my-client --url "$A2A_URL" --key "$A2A_KEY"',
    "node client.mjs --name 'it'\\''s mine' $A2A_URL",
    "echo ${A2A_URL}/a2a; echo $$ done",
], ids=["dollar-variables", "single-quotes", "braces-and-pid"])
def test_make_passes_the_client_command_as_written(tmp_path: Path, command: str) -> None:
    fake = tmp_path / "fake_python.py"
    fake.write_text(RECORD_ARGS)
    done = subprocess.run(
        ["make", "-s", "-o", ".venv/.installed", "client-check", f"COMMAND={sys.executable} {fake}",
         f"CLIENT={command}"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    argv = seen["argv"]
    assert argv[0] == "client-check"
    given = argv[argv.index("--command") + 1] if "--command" in argv else seen["CLIENT"]
    assert given == command


def test_the_harness_probe_is_not_counted_as_the_clients(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A client that sends one request and never fetches the card: the report shows that request and no card fetch
    (the readiness probe of the harness is no request of the client's)."""
    client = (f"{shlex.quote(sys.executable)} -c 'import os, httpx; httpx.post(os.environ[\"A2A_URL\"] + \"/a2a\", "
              "headers={\"X-API-Key\": os.environ[\"A2A_KEY\"], \"A2A-Version\": \"1.0\"}, "
              "json={\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"GetTask\", \"params\": {\"id\": \"t-1\"}})'")
    assert client_check.main(["--command", client, "--out", str(tmp_path), "--timeout", "60"]) == 0
    built = json.loads((tmp_path / "client-report.json").read_text())
    assert (built["summary"]["exchanges"], built["summary"]["cardFetches"]) == (1, 0)
    assert "the public agent card was fetched 0 time(s)" in capsys.readouterr().out
