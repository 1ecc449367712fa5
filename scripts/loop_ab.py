"""uvicorn on uvloop against the standard asyncio loop: our server started alike on each (as `make bench` starts it:
pinned to one core, the same workspace, warmed up alike), both running at once on that core, and measured in turn
by the bench's own phases (the public card, blocking SendMessage, SSE streams, GetTask) in interleaved rounds (A B,
then B A, ...), so that the machine's drift falls on both alike. uvloop must be importable by the server.

    python scripts/loop_ab.py [--rounds 4] [--duration 5] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

import bench
from bench_kit import load, servers

LOOPS = ("asyncio", "uvloop")
KEYS = [("public card GET", "card_rps", "req/s"), ("blocking SendMessage", "send_rps", "req/s"),
        ("blocking SendMessage p99", "send_p99", "ms"), ("first SSE event, lone, p50", "sse_lone_p50", "ms"),
        ("first SSE event, 8 in flight, p50", "sse8_p50", "ms"),
        ("whole streams, 8 in flight", "streams_rps", "streams/s"),
        ("GetTask", "get_rps", "req/s"), ("GetTask p99", "get_p99", "ms"),
        ("1,000 streams at once, first event p99", "fanout_first_p99", "ms"),
        ("card GET p99 while they are open", "fanout_card_p99", "ms")]


async def started(loop: str, folder: Path, args: argparse.Namespace, cpu: int | None) -> tuple[servers.Server, str]:
    """Our server on `loop`, warmed up with blocking sends as the bench warms it up, and a task id for GetTask."""
    folder.mkdir()
    server = await servers.start_ours(folder, args.task_files, cpu, probed=args.probed, flags=("--event-loop", loop))
    if server is None:
        raise SystemExit(f"the server on {loop} did not start")
    first = await bench.Run(server, args).rpc(bench.SEND)
    if first is None:
        raise SystemExit(f"the server on {loop} did not answer a SendMessage")
    await load.load(server.port, server.rpc_path, server.headers, bench.SEND, 3 * args.duration, args.connections)
    return server, str(first["task"]["id"])


async def measure(server: servers.Server, task_id: str, args: argparse.Namespace) -> bench.Run:
    """One round on one server: the card, blocking sends, streams, GetTask, each as the bench measures it."""
    run = bench.Run(server, args)
    await run.loaded("card", "public card GET", servers.CARD, None, {})
    await run.loaded("send", "blocking SendMessage (JSON-RPC)", server.rpc_path, bench.SEND)
    await run.stream_phases()
    await run.loaded("get", "GetTask (JSON-RPC)", server.rpc_path, bench.rpc_body("GetTask", {"id": task_id}))
    return run


def summary(rounds: list[dict[str, bench.Results]]) -> str:
    """A markdown table: each loop's median, and the median of the rounds' uvloop/asyncio ratios (each ratio of one
    round, its two servers measured one after the other)."""
    lines = ["| operation | unit | asyncio (median) | uvloop (median) | uvloop / asyncio, per round | median ratio |",
             "| --- | --- | --- | --- | --- | --- |"]
    for label, key, unit in KEYS:
        values = {loop: [value for r in rounds if (value := r[loop].get(key)) is not None] for loop in LOOPS}
        ratios = [bench.ratio(r["uvloop"].get(key), r["asyncio"].get(key)) for r in rounds]
        shown = [value for value in ratios if value is not None]
        medians = [bench.cell(statistics.median(values[loop]), unit) if values[loop] else "-" for loop in LOOPS]
        lines.append(f"| {label} | {unit} | {medians[0]} | {medians[1]} | "
                     f"{', '.join(f'{value:.2f}' for value in shown) or '-'} | "
                     f"{statistics.median(shown) if shown else 0:.2f} |")
    return "\n".join(lines)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=4, help="rounds of one server per loop (default 4)")
    parser.add_argument("--duration", type=float, default=5, help="seconds per wrk run (default 5)")
    parser.add_argument("--fanout-rounds", type=int, default=2,
                        help="rounds of 1,000 streams opened at once, after the others (default 2)")
    parser.add_argument("--probed", action="store_true",
                        help="probe each server's event loop too (its lag per phase; costs throughput alike)")
    parser.add_argument("--quick", action="store_true", help="short runs, for a smoke test")
    parser.add_argument("--task-files", type=int, default=10_000, help="task files in the workspace (default 10000)")
    parser.add_argument("--report", type=Path, help="also write every round's results here, as JSON")
    args = parser.parse_args()
    args.connections, args.no_pin, args.fanout = 8, False, 1000
    args.fanout_rounds = min(args.fanout_rounds, args.rounds)
    args.lone_streams, args.streams = (50, 100) if args.quick else (200, 400)
    if args.quick:
        args.duration, args.rounds, args.task_files = 2, 1, 0
    cpu = bench.pinning(args)
    rounds: list[dict[str, bench.Results]] = []
    with tempfile.TemporaryDirectory(prefix="a2a-loop-ab-") as tmp:
        running: dict[str, tuple[servers.Server, str]] = {}
        phases: dict[str, bench.Phases] = {loop: [] for loop in LOOPS}
        try:
            for loop in LOOPS:  # both at once, on the same core: the one not measured is idle
                print(f"starting and warming up the server on {loop}", flush=True)
                running[loop] = await started(loop, Path(tmp) / loop, args, cpu)
            for n in range(args.rounds):
                found: dict[str, bench.Results] = {}
                for loop in LOOPS if n % 2 == 0 else LOOPS[::-1]:
                    print(f"\n== round {n + 1} of {args.rounds}: {loop}", flush=True)
                    run = await measure(*running[loop], args)
                    found[loop], phases[loop] = run.results, phases[loop] + run.phases
                rounds.append(found)
            for n in range(args.fanout_rounds):  # last: each leaves a thousand idle sessions behind
                for loop in LOOPS if n % 2 == 0 else LOOPS[::-1]:
                    print(f"\n== fan-out {n + 1} of {args.fanout_rounds}: {loop}", flush=True)
                    run = bench.Run(running[loop][0], args)
                    await run.phase("fanout", run.fanout)
                    rounds[n][loop] |= run.results
                    phases[loop] += run.phases
        finally:
            for server, _ in running.values():
                servers.stop(server)
        for loop, (server, _) in running.items():  # the probe's report is written as the server stops
            if server.lag_report is not None:
                print(f"\n== the event loop's lag on {loop}, over every round")
                _, lags = bench.lag(server.lag_report, phases[loop])
                print(f"  max {lags['lag_max'] or 0:.1f} ms, p99 {lags['lag_p99'] or 0:.2f} ms "
                      "(phases but the fan-out)")
    print()
    print(summary(rounds))
    if args.report:
        args.report.write_text(json.dumps(rounds, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
