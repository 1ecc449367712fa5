"""The owner-host phase of `make bench`: an authenticated request at 1, 1,000 and 10,000 owners, start-up and RSS
at 10,000 owners, and ListTasks over 10,000 and 100,000 task files (issue 19)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench_kit import load, servers

CARD_PATH = "/a2a/v1/extendedAgentCard"  # the cheapest authenticated request: a key lookup and card.json
LIST_PATH = "/a2a/v1/tasks?pageSize=50"
Results = dict[str, float | None]
Show = Callable[[str, str], None]


def owner_key(n: int) -> str:
    return f"k_owner_{n:06d}_bench"


def prepare_owners(root: Path, count: int) -> Path:
    """`count` owners under root, each with one caller of its own key; the owners file listing them, one a line."""
    for n in range(count):
        a2a = root / f"owner-{n:06d}" / ".volcanic" / "a2a"
        a2a.mkdir(parents=True)
        (a2a / "callers.json").write_text(json.dumps([{"name": "bot", "key": owner_key(n)}]))
    owners = root.parent / f"{root.name}.owners"
    owners.write_text("".join(f"owner-{n:06d}\n" for n in range(count)))
    return owners


def prepare_tasks(workspace: Path, count: int) -> None:
    """A workspace with the bench's two callers and `count` task files, written quickly (no indentation)."""
    servers.prepare_workspace(workspace, 0)
    tasks = workspace / ".volcanic" / "a2a" / "tasks"
    start = datetime.now(UTC) - timedelta(seconds=count + 60)
    for i in range(count):
        task = servers.task_document(i, start)
        (tasks / f"{task['id']}.json").write_text(json.dumps(task))


async def first_answer(process: subprocess.Popen[bytes], port: int, path: str, headers: dict[str, str],
                       started: float) -> float | None:
    """Seconds from the process's start to the first 2xx answer to path, polled every 10 ms (None: never)."""
    deadline = started + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            status, _, _ = await load.call(port, "GET", path, headers)
            if 200 <= status < 300:
                return time.monotonic() - started
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError):
            pass
        await asyncio.sleep(0.01)
    return None


async def serve(folder: Path, argv: list[str], path: str, headers: dict[str, str], cpu: int | None
                ) -> tuple[servers.Server, float] | None:
    """`reference-server` with argv on a free port: the server and the seconds to its first answer to path."""
    port = free = servers.free_port()
    env = {name: value for name, value in os.environ.items()  # no A2A__ settings: the scripted echo, no real model
           if not name.replace(":", "__").lower().startswith("a2a__")}
    command = [sys.executable, "-m", "reference_server", *argv, "--host", load.HOST, "--port", str(free)]
    os.sync()  # the generated files reach the disk now, not as write-back during the measurement
    log = folder / f"server-{port}.log"
    with log.open("wb") as out:
        started = time.monotonic()
        process = subprocess.Popen(servers.pinned(command, cpu), cwd=servers.ROOT, stdout=out,
                                   stderr=subprocess.STDOUT, env=env)
    server = servers.Server("ours", process, port, "/a2a", headers, log)
    took = await first_answer(process, port, path, headers, started)
    if took is None:
        servers.stop(server)
        tail = log.read_text(errors="replace").strip().splitlines()[-10:]
        print("    the server gave no answer; its log ends with:\n      " + "\n      ".join(tail))
        return None
    return server, took


async def owners_at(count: int, tmp: Path, args: argparse.Namespace, cpu: int | None, show: Show) -> Results:
    """An owner host of `count` owners: start-up, RSS, and an authenticated request's latency under load."""
    root = tmp / f"owners-{count}"
    owners_file = prepare_owners(root, count)
    key = owner_key(count // 2)  # an owner in the middle of the list
    headers = {**servers.V1, "X-API-Key": key}
    started = await serve(tmp, ["--workspace-root", str(root), "--owners-file", str(owners_file)], CARD_PATH,
                          headers, cpu)
    if started is None:
        return {}
    server, took = started
    try:
        rss_first = servers.rss_kb(server.process.pid)
        # a fresh process answers slower for its first seconds (see bench.py's warm-up): the same load, unmeasured
        await load.load(server.port, CARD_PATH, headers, None, args.duration, args.connections)
        result = await load.load(server.port, CARD_PATH, headers, None, args.duration, args.connections)
        rss_loaded = servers.rss_kb(server.process.pid)
    finally:
        servers.stop(server)
    label = f"{count:,} owner{'s' if count > 1 else ''}"
    show(f"{label}: start-up to the first authenticated answer", f"{took * 1000:9.0f} ms  (RSS {rss_first} KB)")
    if result is None or result.requests <= result.failures:
        show(f"{label}: authenticated GET extendedAgentCard", "no result")
        return {f"owners_{count}_start_ms": took * 1000, f"owners_{count}_rss_kb": rss_first}
    show(f"{label}: authenticated GET extendedAgentCard",
         f"{result.rate:9.1f} /s  p50 {result.p50_ms or 0:7.2f} ms  p99 {result.p99_ms or 0:7.2f} ms  "
         f"({result.requests} requests by {result.tool}, {result.failures} failed; RSS after {rss_loaded} KB)")
    return {f"owners_{count}_p50": result.p50_ms, f"owners_{count}_p99": result.p99_ms,
            f"owners_{count}_rps": result.rate, f"owners_{count}_start_ms": took * 1000,
            f"owners_{count}_rss_kb": rss_first}


async def listing_over(count: int, tmp: Path, calls: int, cpu: int | None, show: Show) -> Results:
    """ListTasks, page of 50, over `count` task files (half the caller's): the first call, then `calls` more."""
    workspace = tmp / f"tasks-{count}"
    prepare_tasks(workspace, count)
    headers = {**servers.V1, "X-API-Key": servers.KEYS["bench"]}
    started = await serve(tmp, ["--workspace", str(workspace)], servers.CARD, {}, cpu)
    if started is None:
        return {}
    server, _ = started
    try:
        before = servers.rss_kb(server.process.pid)
        status, data, first = await load.call(server.port, "GET", LIST_PATH, headers)
        after = servers.rss_kb(server.process.pid)
        if status != 200:
            print(f"    ListTasks: HTTP {status}: {data[:300].decode(errors='replace')}")
            return {}
        samples = [(await load.call(server.port, "GET", LIST_PATH, headers))[2] for _ in range(calls)]
    finally:
        servers.stop(server)
    p50, p99 = load.percentile(samples, 50), load.percentile(samples, 99)
    per_summary = (after - before) * 1024 / count if before is not None and after is not None else None
    show(f"ListTasks over {count:,} files, first call", f"{first * 1000:9.0f} ms  (RSS +{(after or 0) - (before or 0)} "
         f"KB: {per_summary or 0:.0f} bytes per file)")
    show(f"ListTasks over {count:,} files, page of 50", f"p50 {(p50 or 0) * 1000:7.2f} ms  p99 {(p99 or 0) * 1000:7.2f}"
         f" ms  ({len(samples)} calls, total {json.loads(data).get('totalSize')})")
    return {f"list_{count}_first_ms": first * 1000, f"list_{count}_p50": (p50 or 0) * 1000,
            f"list_{count}_p99": (p99 or 0) * 1000, f"list_{count}_bytes_per_summary": per_summary}


async def run(tmp: Path, args: argparse.Namespace, cpu: int | None, show: Show) -> Results:
    """The whole phase, ours only; the figures go into the bench's results of our server."""
    results: Results = {}
    for count in (1, 1_000, 10_000):
        results |= await owners_at(count, tmp, args, cpu, show)
    one, many = results.get("owners_1_rss_kb"), results.get("owners_10000_rss_kb")
    if one is not None and many is not None:
        results["owners_rss_bytes_per_owner"] = (many - one) * 1024 / 9_999
        show("RSS per owner (10,000 owners vs 1, after one request)", f"{results['owners_rss_bytes_per_owner']:9.0f}"
             " bytes")
    for count in (10_000, 100_000):
        results |= await listing_over(count, tmp, args.list_calls, cpu, show)
    return results
