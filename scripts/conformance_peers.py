"""`make conformance-peers`: the portable suite against six servers on loopback, one after the other; each run's
report is kept in reports/conformance-<server>.json (and its living page in reports/conformance-<server>.html), and
docs/conformance.md is written from them (scripts/conformance_doc.py).

The servers: this one; TCK-ready agents on the official a2a-sdk Python server and on the @a2a-js/sdk server
(scripts/bench_kit/sdk_tck.py, scripts/bench_kit/js/tck_agent.mjs); and plain echo agents, which follow no TCK
convention, on the official a2a-sdk (scripts/bench_kit/sdk_echo.py) and on two servers built on neither SDK:
fasta2a (A2A 1.0) and @voltagent/a2a-server (A2A 0.3 only), whose launchers and pins are in
scripts/bench_kit/peers/. The JS SDK packages are installed from their lock file on first use; the independent
servers, pinned, into the user's cache outside the checkout (scripts/bench_kit/independent.py). A peer that cannot
be installed (no npm, no registry) is left out with one line. `--render` writes the doc again from the kept reports
without running anything."""

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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the scripts package

from bench_kit import independent, servers  # noqa: E402

from scripts import conformance_doc  # noqa: E402

REPORTS = ROOT / "reports"
DOC = ROOT / "docs" / "conformance.md"
KEY, OTHER_KEY = "k_conformance", "k_conformance_other"


@dataclass(frozen=True)
class Peer:
    name: str  # reports/conformance-<name>.json
    label: str  # its column in docs/conformance.md


PEERS = [Peer("ours", "this server"), Peer("a2a-sdk", "a2a-sdk 1.3 (Python)"), Peer("a2a-js", "@a2a-js/sdk 1.3"),
         Peer("a2a-sdk-echo", "a2a-sdk 1.3 echo (Python)"), Peer("fasta2a", "fasta2a 2.1.1"),
         Peer("voltagent", "@voltagent/a2a-server 2.0.3")]
INDEPENDENT = {"fasta2a": independent.FASTA2A, "voltagent": independent.VOLTAGENT}


async def start(peer: Peer, tmp: Path) -> tuple[servers.Server | None, dict[str, str]]:
    """The server, on 127.0.0.1 and a free port, and the environment of a target-mode run against it."""
    port = servers.free_port()
    base = f"http://127.0.0.1:{port}"
    env = {"A2A_TARGET_URL": base, "A2A_TARGET_KEY": KEY}
    log = tmp / f"{peer.name}.log"
    if peer.name == "ours":
        workspace = tmp / "workspace" / ".volcanic" / "a2a"
        workspace.mkdir(parents=True)
        (workspace / "callers.json").write_text(json.dumps([{"name": "conformance", "key": KEY},
                                                             {"name": "conformance-other", "key": OTHER_KEY}]))
        clean = {k: v for k, v in os.environ.items() if not k.replace(":", "__").lower().startswith("a2a__")}
        # the delivery scenarios' webhooks listen on loopback over plain HTTP
        argv = [sys.executable, "-m", "reference_server", "--workspace", str(tmp / "workspace"), "--host",
                "127.0.0.1", "--port", str(port), "--allow-private-push-urls", "true"]
        server = await servers.start("ours", argv, port, "/a2a", {}, log, None, clean)
        return server, {**env, "A2A_TARGET_OTHER_KEY": OTHER_KEY}
    if peer.name in ("a2a-sdk", "a2a-sdk-echo"):
        script = "sdk_tck.py" if peer.name == "a2a-sdk" else "sdk_echo.py"
        argv = [sys.executable, str(servers.HERE / script), "--port", str(port)]
        return await servers.start(peer.name, argv, port, "/", {}, log, None), env
    if peer.name in INDEPENDENT:
        installed = INDEPENDENT[peer.name]
        missing = await asyncio.to_thread(installed.ready)
        if missing is not None:
            print(f"  {peer.label} is left out: {missing}")
            return None, env
        if installed.card_path != servers.CARD:
            env["A2A_TARGET_CARD_URL"] = base + installed.card_path
        server = await servers.start(peer.name, installed.argv(port), port, installed.rpc_path, {}, log, None,
                                     installed.env(), card=installed.card_path, cwd=installed.home)
        return server, env
    missing = servers.npm_ready()
    if missing is not None:
        print(f"  {peer.label} is left out: {missing}")
        return None, env
    argv = [shutil.which("node") or "node", str(servers.JS / "tck_agent.mjs"), str(port)]
    return await servers.start(peer.name, argv, port, "/a2a/jsonrpc", {}, log, None, servers.js_env()), env


def kept_reports(kind: str) -> list[dict[str, Any]]:
    """The kept reports/<kind>-<server>.json of every peer that has one, in PEERS' order; a run that could not start
    is said in its one sentence and left out (no column)."""
    found = []
    for peer in PEERS:
        path = REPORTS / f"{kind}-{peer.name}.json"
        report = json.loads(path.read_text()) if path.exists() else {}
        if "could_not_run" in report:
            print(f"{report.get('label', path.name)}: the run could not start: {report['could_not_run']}")
        elif report:
            found.append(report)
    return found


def run(peer: Peer, env: dict[str, str], tmp: Path) -> float:
    """`make conformance` against the peer, writing into a folder of its own (reports/conformance.json is left as
    it was); its report kept as reports/conformance-<name>.json, its page as .html. The run's seconds."""
    out = tmp / f"reports-{peer.name}"
    out.mkdir()
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "reference_server", "conformance"], cwd=ROOT,
                          env={**os.environ, **env, "A2A_CONFORMANCE_REPORTS": str(out)}, capture_output=True,
                          text=True)
    seconds = time.monotonic() - started
    report = out / "conformance.json"
    if not report.exists():
        raise RuntimeError(f"the run against {peer.label} wrote no report:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    data = json.loads(report.read_text())
    data["label"], data["wall_seconds"] = peer.label, round(seconds, 1)
    REPORTS.mkdir(exist_ok=True)
    (REPORTS / f"conformance-{peer.name}.json").write_text(json.dumps(data, indent=2))
    if (out / "conformance.html").exists():  # its living page (none when the run could not start)
        shutil.copyfile(out / "conformance.html", REPORTS / f"conformance-{peer.name}.html")
    last = done.stdout.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
    print(f"  {peer.label}: {seconds:.0f} s, " + last[0])
    return seconds


async def run_all(tmp: Path, only: list[str] | None = None) -> None:
    for peer in PEERS:
        if only and peer.name not in only:
            continue
        print(f"{peer.label} ...", flush=True)
        server, env = await start(peer, tmp)
        if server is None:
            continue
        try:
            run(peer, env, tmp)
        finally:
            servers.stop(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--render", action="store_true", help="only write docs/conformance.md from the kept reports")
    parser.add_argument("--only", nargs="+", choices=[peer.name for peer in PEERS],
                        help="run these peers only; the page is written from every kept report")
    args = parser.parse_args()
    if not args.render:
        with tempfile.TemporaryDirectory(prefix="a2a-conformance-") as tmp:
            asyncio.run(run_all(Path(tmp), args.only))
    found = kept_reports("conformance")
    if args.only:
        print("(the page is not written for a run of some peers: run them all, or --render)")
        return 0
    DOC.write_text(conformance_doc.render(found), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)} ({len(found)} servers)")
    ours = next((r for r in found if r.get("label") == PEERS[0].label), None)
    failed_must = ours is not None and any(q["result"] == "fail" and q["level"] == "must" for q in ours["requirements"])
    return 1 if failed_must else 0


if __name__ == "__main__":
    sys.exit(main())
