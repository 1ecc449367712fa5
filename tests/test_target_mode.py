"""The portable scenarios run against a server given only by URL and key (A2A_TARGET_URL, A2A_TARGET_KEY).

Here the target is the reference server itself, started as a separate process, so that the mode is proven
without a second implementation: every portable scenario passes, on both bindings and in both versions, held only
to what its level requires, and nothing touches the workspace but the callers' own tasks.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from test_cli import serve

ROOT = Path(__file__).resolve().parents[1]


def test_the_portable_scenarios_pass_against_a_server_given_by_url_and_key(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    callers = workspace / ".volcanic" / "a2a" / "callers.json"
    callers.parent.mkdir(parents=True)
    callers.write_text(json.dumps([{"name": "conformance", "key": "k_target_mode"},
                                   {"name": "other", "key": "k_target_other"}]))
    # the delivery scenarios' webhooks listen on loopback over plain HTTP
    served = serve(tmp_path, "--workspace", str(workspace), "--allow-private-push-urls", "true")
    try:
        env = {**os.environ, "A2A_TARGET_URL": f"http://127.0.0.1:{served.port}", "A2A_TARGET_KEY": "k_target_mode",
               "A2A_TARGET_OTHER_KEY": "k_target_other"}
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "tests/features", "-m", "portable", "-q", "-p", "no:randomly",
             "--snapshot-warn-unused"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
        )
    finally:
        served.process.terminate()
        served.process.wait(10)
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-3000:]
    passed = int(re.search(r"(\d+) passed", summary).group(1))  # type: ignore[union-attr]
    assert passed >= 400, summary
    assert not re.search(r"\d+ (failed|errors?)\b", summary), summary
    assert not (workspace / ".volcanic" / "a2a" / "tasks").exists() or all(
        json.loads(p.read_text())["caller"] in ("conformance", "other")
        for p in (workspace / ".volcanic/a2a/tasks").glob("*.json")
    )
