"""`make client-check CLIENT='<command>'` hands the command to scripts/client_check.py exactly as written."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

# stands in for the venv's python: says what scripts/client_check.py would have been given, and does nothing else
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
        ["make", "-s", "-o", ".venv/.installed", "client-check", f"PY={sys.executable} {fake}", f"CLIENT={command}"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    argv = seen["argv"]
    assert argv[0] == "scripts/client_check.py"
    given = argv[argv.index("--command") + 1] if "--command" in argv else seen["CLIENT"]
    assert given == command
