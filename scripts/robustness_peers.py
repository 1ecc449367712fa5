"""`make fuzz-peers`: the robustness run (scripts/robustness.py) against the servers of `make conformance-peers`, one
after the other, each started on 127.0.0.1 by that command's own start function (scripts/conformance_peers.py): this
server, the TCK agents on the official a2a-sdk and @a2a-js/sdk servers, the a2a-sdk echo agent, fasta2a and
@voltagent/a2a-server. Each run's report is kept as reports/robustness-<server>.json, its section goes into the
server's living page (reports/conformance-<server>.html) when there is one, and docs/robustness.md is written from
the reports and the findings verified by hand (docs/robustness-findings.toml; scripts/robustness_doc.py).

A supervisor stands by each server, as one would in production: when the server stops answering its card and a
GetTask it answered at the start (conformance/support/health.py), it is stopped by its PID and started again on
the same port.
The run waits for that (--wait-for-restart), so a crash is traced to the request that causes it and shrunk like any
other finding, and the run goes on after it. `--render` writes the doc again from the kept reports.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the scripts package, as scripts/conformance_peers.py imports it
sys.path.insert(1, str(ROOT / "tests"))  # and the health probe from the suite's own support

import conformance_peers  # noqa: E402
from bench_kit import servers  # noqa: E402

from reference_server.conformance import living_page  # noqa: E402
from reference_server.conformance.support.conventions import Unusable  # noqa: E402
from reference_server.conformance.support.health import Health, baseline  # noqa: E402
from reference_server.conformance.support.target import PREFERRED, discover  # noqa: E402
from scripts import robustness_doc  # noqa: E402

REPORTS = ROOT / "reports"
DOC = ROOT / "docs" / "robustness.md"
# each server once: a peer that is another run of a server already listed (with scenarios left out) is that server
PEERS = [peer for peer in conformance_peers.PEERS if not getattr(peer, "server", "")]
SEED = 2026
REQUESTS = 10000  # per server, as many as `make fuzz` sends: each run takes one to five minutes
# seconds the run waits for a crashed server to be started again: the supervisor's three tries, each of which waits at
# most 60 s for the card (bench_kit.servers.start), and fails when the run takes the server down before it looked
RESTART_WAIT = 200


async def start_on(peer: conformance_peers.Peer, tmp: Path, port: int | None) -> tuple[servers.Server | None,
                                                                                      dict[str, str]]:
    """The peer started by `make conformance-peers`'s own start function; on `port` when given (a restart), by
    handing that function this port as the free one it asks for."""
    if port is None:
        return await conformance_peers.start(peer, tmp)
    free_port = servers.free_port
    servers.free_port = lambda: port
    try:
        return await conformance_peers.start(peer, tmp)
    finally:
        servers.free_port = free_port


class Supervisor:
    """Starts the server again, on its port, when its health probe fails twice in a row; by its PID only."""

    def __init__(self, peer: conformance_peers.Peer, tmp: Path, server: servers.Server, health: Health) -> None:
        self.peer, self.tmp, self.server, self.health = peer, tmp, server, health
        self.restarts = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> Supervisor:
        self.thread.start()
        return self

    def stop(self) -> servers.Server:
        self.done.set()
        self.thread.join(60)
        return self.server

    def _watch(self) -> None:
        failed = 0
        while not self.done.wait(0.5):  # the supervisor's polling period
            failed = failed + 1 if self.health.check(5) is not None else 0
            if failed < 2:
                continue
            servers.stop(self.server)
            started = None
            for attempt in range(3):  # a start can fail when the run takes it down again before it is seen up
                folder = self.tmp / f"restart-{self.restarts + 1}-{attempt}"
                folder.mkdir()
                started, _ = asyncio.run(start_on(self.peer, folder, self.server.port))
                if started is not None:
                    break
            if started is None:
                return  # it does not start again: the run's wait ends, and the run says so
            self.server, self.restarts, failed = started, self.restarts + 1, 0


def run(peer: conformance_peers.Peer, env: dict[str, str], tmp: Path, args: list[str]) -> float:
    """scripts/robustness.py against the peer, writing into a folder of its own; its report kept as
    reports/robustness-<name>.json and its section put into reports/conformance-<name>.html. The run's seconds."""
    out = tmp / f"reports-{peer.name}"
    out.mkdir()
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "robustness.py"), *args],
                          cwd=ROOT, env={**os.environ, **env, "A2A_ROBUSTNESS_REPORTS": str(out)},
                          capture_output=True, text=True)
    seconds = time.monotonic() - started
    report_file = out / "robustness.json"
    if not report_file.exists():
        raise RuntimeError(f"the run against {peer.label} wrote no report:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    report = json.loads(report_file.read_text())
    report["label"], report["wall_seconds"] = peer.label, round(seconds, 1)
    REPORTS.mkdir(exist_ok=True)
    (REPORTS / f"robustness-{peer.name}.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
    (out / "console.txt").write_text(done.stdout)
    shutil.copyfile(out / "console.txt", REPORTS / f"robustness-{peer.name}.txt")
    if "could_not_run" not in report:
        living_page.add_robustness(REPORTS / f"conformance-{peer.name}.html", report, any_target=True)
    last = done.stdout.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
    print(f"  {peer.label}: {seconds:.0f} s, {len(report.get('findings', []))} findings; {last[0]}", flush=True)
    return seconds


def supervised(peer: conformance_peers.Peer, tmp: Path, args: list[str]) -> None:
    server, env = asyncio.run(start_on(peer, tmp, None))
    if server is None:
        return
    supervisor = None
    try:
        target = discover(env["A2A_TARGET_URL"], key=env["A2A_TARGET_KEY"],
                          card_url=env.get("A2A_TARGET_CARD_URL", ""), conventions=False)
        protocol = next(p for p in PREFERRED if p in target.interfaces)
        supervisor = Supervisor(peer, tmp, server, baseline(target, env["A2A_TARGET_KEY"], protocol)).start()
        run(peer, env, tmp, [*args, "--wait-for-restart", str(RESTART_WAIT)])
        if supervisor.restarts:
            print(f"    (its supervisor started it again {supervisor.restarts} times)")
    except Unusable as unusable:
        print(f"  {peer.label}: {unusable}")
    finally:
        servers.stop(supervisor.stop() if supervisor else server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--render", action="store_true", help="only write docs/robustness.md from the kept reports")
    parser.add_argument("--only", nargs="+", choices=[peer.name for peer in PEERS],
                        help="run these servers only; the doc is written from every kept report")
    parser.add_argument("--requests", type=int, default=REQUESTS, help=f"per server (default {REQUESTS})")
    parser.add_argument("--seed", type=int, default=SEED,
                        help=f"the same hypothesis seed for every server (default {SEED}, so that the doc's run can be "
                             "run again request for request)")
    args = parser.parse_args()
    if not args.render:
        run_args = ["--requests", str(args.requests), "--rate", "0", *(["--seed", str(args.seed)] if args.seed
                                                                        is not None else [])]
        with tempfile.TemporaryDirectory(prefix="a2a-robustness-") as tmp:
            for peer in PEERS:
                if args.only and peer.name not in args.only:
                    continue
                print(f"{peer.label} ...", flush=True)
                folder = Path(tmp) / peer.name
                folder.mkdir()
                supervised(peer, folder, run_args)
    found = conformance_peers.kept_reports("robustness")
    if args.only:
        print("(the doc is not written for a run of some servers: run them all, or --render)")
        return 0
    DOC.write_text(robustness_doc.render(found), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)} ({len(found)} servers)")
    ours = next((r for r in found if r.get("label") == PEERS[0].label), None)
    return 1 if ours is None or ours["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
