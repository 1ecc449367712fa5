"""`make conformance-peers`: the portable suite against three servers on loopback (this one, an agent on the official
a2a-sdk Python server, one on the @a2a-js/sdk server), one after the other; each run's report is kept in
reports/conformance-<server>.json, and docs/conformance.md is written from them (scripts/conformance_doc.py).

The peers are scripts/bench_kit/sdk_tck.py and scripts/bench_kit/js/tck_agent.mjs; the JS packages are installed from
their lock file on first use. `--render` writes the doc again from the kept reports without running anything."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the scripts package, as scripts/conformance.py imports it

from bench_kit import servers  # noqa: E402

from scripts import conformance_doc  # noqa: E402

REPORTS = ROOT / "reports"
DOC = ROOT / "docs" / "conformance.md"
KEY, OTHER_KEY = "k_conformance", "k_conformance_other"


@dataclass(frozen=True)
class Peer:
    name: str  # reports/conformance-<name>.json
    label: str  # its column in docs/conformance.md


PEERS = [Peer("ours", "this server"), Peer("a2a-sdk", "a2a-sdk 1.3 (Python)"), Peer("a2a-js", "@a2a-js/sdk 1.3")]


async def start(peer: Peer, tmp: Path) -> tuple[servers.Server | None, dict[str, str]]:
    """The server, on 127.0.0.1 and a free port, and the environment of a target-mode run against it."""
    port = servers.free_port()
    env = {"A2A_TARGET_URL": f"http://127.0.0.1:{port}", "A2A_TARGET_KEY": KEY}
    if peer.name == "ours":
        workspace = tmp / "workspace" / ".volcanic" / "a2a"
        workspace.mkdir(parents=True)
        (workspace / "callers.json").write_text(json.dumps([{"name": "conformance", "key": KEY},
                                                             {"name": "conformance-other", "key": OTHER_KEY}]))
        clean = {k: v for k, v in os.environ.items() if not k.replace(":", "__").lower().startswith("a2a__")}
        # the delivery scenarios' webhooks listen on loopback over plain HTTP
        argv = [sys.executable, "-m", "reference_server", "--workspace", str(tmp / "workspace"), "--host",
                "127.0.0.1", "--port", str(port), "--allow-private-push-urls", "true"]
        server = await servers.start("ours", argv, port, "/a2a", {}, tmp / "ours.log", None, clean)
        return server, {**env, "A2A_TARGET_OTHER_KEY": OTHER_KEY}
    if peer.name == "a2a-sdk":
        argv = [sys.executable, str(servers.HERE / "sdk_tck.py"), "--port", str(port)]
        return await servers.start(peer.name, argv, port, "/", {}, tmp / "sdk.log", None), env
    missing = servers.npm_ready()
    if missing is not None:
        print(f"  {peer.label} is left out: {missing}")
        return None, env
    argv = [shutil.which("node") or "node", str(servers.JS / "tck_agent.mjs"), str(port)]
    return await servers.start(peer.name, argv, port, "/a2a/jsonrpc", {}, tmp / "js.log", None), env


def run(peer: Peer, env: dict[str, str]) -> float:
    """`make conformance` against the peer; its report kept as reports/conformance-<name>.json. The run's seconds."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "conformance.py")], cwd=ROOT,
                          env={**os.environ, **env}, capture_output=True, text=True)
    seconds = time.monotonic() - started
    report = REPORTS / "conformance.json"
    if not report.exists():
        raise RuntimeError(f"the run against {peer.label} wrote no report:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    data = json.loads(report.read_text())
    data["label"], data["wall_seconds"] = peer.label, round(seconds, 1)
    (REPORTS / f"conformance-{peer.name}.json").write_text(json.dumps(data, indent=2))
    shutil.copyfile(REPORTS / "conformance.html", REPORTS / f"conformance-{peer.name}.html")  # its living page
    print(f"  {peer.label}: {seconds:.0f} s, " + done.stdout.strip().splitlines()[-1])
    return seconds


async def run_all(tmp: Path) -> None:
    for peer in PEERS:
        print(f"{peer.label} ...")
        server, env = await start(peer, tmp)
        if server is None:
            continue
        try:
            run(peer, env)
        finally:
            servers.stop(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--render", action="store_true", help="only write docs/conformance.md from the kept reports")
    args = parser.parse_args()
    if not args.render:
        with tempfile.TemporaryDirectory(prefix="a2a-conformance-") as tmp:
            asyncio.run(run_all(Path(tmp)))
    reports = [REPORTS / f"conformance-{peer.name}.json" for peer in PEERS]
    found = [json.loads(path.read_text()) for path in reports if path.exists()]
    DOC.write_text(conformance_doc.render(found), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)} ({len(found)} servers)")
    ours = next((r for r in found if r.get("label") == PEERS[0].label), None)
    failed_must = ours is not None and any(q["result"] == "fail" and q["level"] == "must" for q in ours["requirements"])
    return 1 if failed_must else 0


if __name__ == "__main__":
    sys.exit(main())
