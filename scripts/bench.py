"""`make bench`: this server beside the official a2a-sdk (Python) and @a2a-js/sdk echo agents, under the same load."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from bench_kit import load, owners, servers

REPORT = servers.ROOT / "reports" / "bench.json"
LIST_PATH = "/a2a/v1/tasks?pageSize=50"
T = TypeVar("T")
Results = dict[str, float | None]
Phases = list[tuple[str, float, float]]


def rpc_body(method: str, params: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})


SEND = rpc_body("SendMessage", {"message": {"messageId": load.ID, "role": "ROLE_USER", "parts": [{"text": "hello"}]}})
STREAM = SEND.replace('"SendMessage"', '"SendStreamingMessage"')


def ms(seconds: list[float], q: float) -> float | None:
    value = load.percentile(seconds, q)
    return None if value is None else value * 1000


def show(label: str, value: str) -> None:
    print(f"  {label:<44} {value}", flush=True)


def shown_load(label: str, result: load.Load | None) -> None:
    if result is None:
        show(label, "no result")
    else:
        show(label, f"{result.rate:9.1f} /s  p50 {result.p50_ms or 0:7.2f} ms  p99 {result.p99_ms or 0:7.2f} ms  "
                    f"({result.requests} requests by {result.tool}, {result.failures} failed)")


class Run:
    """The measurements of one server, each one timed as a phase (our loop-lag report is cut into them)."""

    def __init__(self, server: servers.Server, args: argparse.Namespace) -> None:
        self.server, self.args = server, args
        self.results: Results = {}
        self.phases: Phases = []

    async def phase(self, name: str, work: Callable[[], Awaitable[T]]) -> T:
        started = time.monotonic()
        try:
            return await work()
        finally:
            self.phases.append((name, started, time.monotonic()))

    async def rpc(self, body: str) -> dict[str, Any] | None:
        status, data, _ = await load.call(self.server.port, "POST", self.server.rpc_path, self.server.headers, body)
        if load.failed(status, data):
            print(f"  {self.server.name}: HTTP {status}, not a success: {data[:600].decode(errors='replace')}")
            return None
        return dict(json.loads(data)["result"])

    async def loaded(self, key: str, label: str, path: str, body: str | None, headers: dict[str, str] | None = None
                     ) -> load.Load | None:
        result = await self.phase(key, lambda: load.load(self.server.port, path, headers or self.server.headers, body,
                                                         self.args.duration, self.args.connections))
        shown_load(label, result)
        if result is not None and result.requests > result.failures:
            self.results |= {f"{key}_rps": result.rate, f"{key}_p50": result.p50_ms, f"{key}_p99": result.p99_ms}
        return result

    async def card_and_send_only(self, log: str) -> None:
        """The public card and the blocking sends alone, warmed up as in run() (the request log's pairs of runs:
        log is "on" or "off")."""
        if await self.rpc(SEND) is None:
            return
        await self.loaded(f"card_log_{log}", f"public card GET, request log {log}", servers.CARD, None, {})
        await self.phase("warm_up", lambda: load.load(self.server.port, self.server.rpc_path, self.server.headers,
                                                      SEND, 3 * self.args.duration, self.args.connections))
        await self.loaded(f"send_log_{log}", f"blocking SendMessage, request log {log}", self.server.rpc_path, SEND)

    async def run(self, workspace: Path | None) -> None:
        first = await self.rpc(SEND)
        state = (first or {}).get("task", {}).get("status", {}).get("state")
        if first is None or state != "TASK_STATE_COMPLETED":
            print(f"  {self.server.name}: the first SendMessage did not complete ({first}); skipping this server")
            return
        task_id = first["task"]["id"]
        if workspace is not None and (difference := servers.same_shape(workspace, task_id)):
            print(f"  note: {difference}")
            self.server.notes.append(difference)
        if workspace is not None:
            await self.listing()
        await self.loaded("card", "public card GET", servers.CARD, None, {})
        # a fresh process sending for the first time ramps up over 10-15 s on this machine (ours: CPU time per
        # send falls while CPU use stays level; not the garbage collector): the same load, unmeasured, first,
        # for three times the measured time, so that every server is measured in its steady state
        await self.phase("warm_up", lambda: load.load(self.server.port, self.server.rpc_path, self.server.headers,
                                                      SEND, 3 * self.args.duration, self.args.connections))
        await self.loaded("send", "blocking SendMessage (JSON-RPC)", self.server.rpc_path, SEND)
        await self.stream_phases()
        if await self.rpc(rpc_body("GetTask", {"id": task_id})) is not None:
            await self.loaded("get", "GetTask (JSON-RPC)", self.server.rpc_path, rpc_body("GetTask", {"id": task_id}))
        await self.phase("rss", self.rss)
        if workspace is not None:  # the peers' echo agents have no "sleep": the fan-out is ours only
            await self.phase("fanout", self.fanout)

    async def fanout(self) -> None:
        """Many streams open at once (each a run that sleeps): their first events, and the card meanwhile."""
        port, path, headers = self.server.port, self.server.rpc_path, self.server.headers
        count, seconds = self.args.fanout, 5
        body = STREAM.replace('"hello"', f'"sleep {seconds}"')
        opened = asyncio.create_task(load.streams(port, path, headers, body, count, count, 4 * seconds + 60))
        await asyncio.sleep(1.0)  # the streams are being opened and served
        card = await load.load(port, servers.CARD, {}, None, max(2.0, seconds - 2.0), self.args.connections)
        many, elapsed, failed = await opened
        first = [s.first for s in many]
        self.results |= {"fanout_first_p50": ms(first, 50), "fanout_first_p99": ms(first, 99),
                         "fanout_card_p99": card.p99_ms if card else None}
        show(f"{count} streams at once (runs of {seconds} s), first event",
             f"p50 {ms(first, 50) or 0:7.2f} ms  p99 {ms(first, 99) or 0:7.2f} ms  ({len(many)} streams, "
             f"{failed} failed, all done in {elapsed:.1f} s)")
        shown_load(f"public card GET while {count} streams are open", card)

    async def stream_phases(self) -> None:
        port, path, headers = self.server.port, self.server.rpc_path, self.server.headers
        lone, _, failed = await self.phase("sse_lone", lambda: load.streams(
            port, path, headers, STREAM, self.args.lone_streams, 1, 4 * self.args.duration + 30))
        first = [s.first for s in lone]
        self.results |= {"sse_lone_p50": ms(first, 50), "sse_lone_p99": ms(first, 99)}
        show("first SSE event, lone", f"p50 {ms(first, 50) or 0:7.2f} ms  p99 {ms(first, 99) or 0:7.2f} ms  "
                                      f"({len(lone)} streams, {failed} failed)")
        many, elapsed, failed = await self.phase("sse_8", lambda: load.streams(
            port, path, headers, STREAM, self.args.streams, self.args.connections, 4 * self.args.duration + 30))
        first = [s.first for s in many]
        self.results |= {"sse8_p50": ms(first, 50), "sse8_p99": ms(first, 99),
                         "streams_rps": len(many) / elapsed if many else None}
        show(f"first SSE event, {self.args.connections} in flight",
             f"p50 {ms(first, 50) or 0:7.2f} ms  p99 {ms(first, 99) or 0:7.2f} ms  ({len(many)} streams, "
             f"{failed} failed)")
        show(f"whole streams, {self.args.connections} in flight", f"{self.results['streams_rps'] or 0:9.1f} /s")

    async def listing(self) -> None:
        """ListTasks over the generated task files, alone and while wrk loads the public card."""
        port, headers = self.server.port, self.server.headers
        status, data, _ = await load.call(port, "GET", LIST_PATH, headers)
        if status != 200:
            print(f"  ListTasks: HTTP {status}: {data[:600].decode(errors='replace')}")
            return
        total = json.loads(data).get("totalSize")
        show("ListTasks sees", f"{total} of the caller's tasks ({self.args.task_files} files, half of them its own)")

        async def sequential() -> list[float]:
            deadline, samples = time.monotonic() + 60, list[float]()
            while len(samples) < self.args.list_calls and time.monotonic() < deadline:
                samples.append((await load.call(port, "GET", LIST_PATH, headers))[2])
            return samples

        samples = await self.phase("list", sequential)
        self.results |= {"list_p50": ms(samples, 50), "list_p99": ms(samples, 99)}
        show("ListTasks, page of 50, sequential", f"p50 {ms(samples, 50) or 0:7.2f} ms  p99 "
                                                  f"{ms(samples, 99) or 0:7.2f} ms  ({len(samples)} calls)")
        stop, during = asyncio.Event(), list[float]()

        async def lister() -> None:
            while not stop.is_set() and len(during) < 10_000:
                during.append((await load.call(port, "GET", LIST_PATH, headers))[2])

        loops = [asyncio.create_task(lister()) for _ in range(2)]
        try:
            await self.loaded("card_listing", "public card GET while 2 ListTasks loops run", servers.CARD, None, {})
        finally:
            stop.set()
            await asyncio.gather(*loops, return_exceptions=True)
        self.results["list_loaded_p50"] = ms(during, 50)
        show("ListTasks during that card load", f"p50 {ms(during, 50) or 0:7.2f} ms  ({len(during)} calls)")

    async def rss(self) -> None:
        """RSS before and after `rss_tasks` blocking sends (a bounded loop: wrk 4.1 cannot stop at a count)."""
        pid = self.server.process.pid
        await asyncio.sleep(1)
        before = servers.rss_kb(pid)
        result = await load.python_load(self.server.port, self.server.rpc_path, self.server.headers, SEND,
                                        self.args.rss_seconds, self.args.connections, limit=self.args.rss_tasks)
        await asyncio.sleep(1)
        after, finished = servers.rss_kb(pid), result.requests - result.failures
        if before is None or after is None or finished <= 0:
            show("RSS growth", "no result")
            return
        per_task = (after - before) / finished
        self.results |= {"rss_before_kb": before, "rss_after_kb": after, "rss_tasks": finished,
                         "rss_kb_per_task": per_task}
        show(f"RSS over {finished} blocking sends", f"{before} KB -> {after} KB: {per_task:.2f} KB per finished task "
                                                    f"({result.rate:.0f} sends/s, {result.failures} failed)")


def lag(report: Path, phases: Phases) -> tuple[dict[str, Any], Results]:
    """The wrapper's lag report, cut into the bench's phases (both use CLOCK_MONOTONIC)."""
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError):
        print("  no loop-lag report from our server")
        return {}, {}
    series: list[list[float]] = data.pop("series", [])
    callbacks: list[list[float]] | None = data.pop("callbacks", [])  # None: not timed (uvloop's are not Python's)
    per_phase: dict[str, Any] = {}
    for name in dict.fromkeys(name for name, _, _ in phases):  # a phase run more than once counts all its runs
        spans = [(started, ended) for each, started, ended in phases if each == name]
        lags = [value for t, value in series if any(started <= t <= ended for started, ended in spans)]
        longest = None if callbacks is None else max(
            (took for t, took in callbacks if any(started <= t <= ended for started, ended in spans)), default=0.0)
        if lags:
            per_phase[name] = {"max_ms": max(lags), "p99_ms": load.percentile(lags, 99), "samples": len(lags),
                               "longest_callback_ms": longest}
    # the loop's figures over the ordinary phases; the fan-out is a stress test with targets of its own
    ordinary = [(started, ended) for name, started, ended in phases if name != "fanout"]
    measured = [value for t, value in series if any(started <= t <= ended for started, ended in ordinary)]
    print("  loop lag per phase (max / p99 ms): " + ", ".join(
        f"{name} {v['max_ms']:.1f}/{v['p99_ms']:.2f}" for name, v in per_phase.items()))
    print("  longest single loop callback per phase (ms): " + (", ".join(
        f"{name} {v['longest_callback_ms']:.1f}" for name, v in per_phase.items()) if callbacks is not None else
        "not timed (the server runs on uvloop, whose callbacks are not asyncio's Python handles)"))
    print(f"  loop lag over the whole run, startup included: max {data.get('max_ms', 0):.1f} ms, "
          f"p99 {data.get('p99_ms', 0):.2f} ms ({data.get('samples')} samples)")
    results: Results = {"lag_max": max(measured) if measured else None, "lag_p99": load.percentile(measured, 99),
                        "lag_run_max": data.get("max_ms"),
                        "callback_max": None if callbacks is None else max(
                            (v["longest_callback_ms"] for name, v in per_phase.items() if name != "fanout"),
                            default=None)}
    return {"whole_run": data, "phases": per_phase}, results


ROWS = [  # label, result key, unit
    ("public card GET", "card_rps", "req/s"), ("public card GET p99", "card_p99", "ms"),
    ("blocking SendMessage", "send_rps", "req/s"), ("blocking SendMessage p50", "send_p50", "ms"),
    ("blocking SendMessage p99", "send_p99", "ms"),
    ("public card GET, request log on (pairs)", "card_log_rps", "req/s"),
    ("public card GET, request log off (pairs)", "card_nolog_rps", "req/s"),
    ("blocking SendMessage, request log on (pairs)", "send_log_rps", "req/s"),
    ("blocking SendMessage, request log off (pairs)", "send_nolog_rps", "req/s"),
    ("first SSE event, lone, p50", "sse_lone_p50", "ms"), ("first SSE event, lone, p99", "sse_lone_p99", "ms"),
    ("first SSE event, 8 in flight, p50", "sse8_p50", "ms"), ("first SSE event, 8 in flight, p99", "sse8_p99", "ms"),
    ("whole streams, 8 in flight", "streams_rps", "streams/s"),
    ("GetTask", "get_rps", "req/s"), ("GetTask p99", "get_p99", "ms"),
    ("ListTasks (50 of 10,000 files) p50", "list_p50", "ms"), ("ListTasks p99", "list_p99", "ms"),
    ("card GET during 2 ListTasks loops", "card_listing_rps", "req/s"),
    ("card GET during ListTasks p99", "card_listing_p99", "ms"),
    ("ListTasks p50 during that card load", "list_loaded_p50", "ms"),
    ("loop lag max, phases but the fan-out", "lag_max", "ms"), ("loop lag p99, the same", "lag_p99", "ms"),
    ("longest loop callback, the same", "callback_max", "ms"),
    ("RSS growth per finished task", "rss_kb_per_task", "KB"),
    ("first SSE event, 1,000 streams at once, p99", "fanout_first_p99", "ms"),
    ("card GET p99 while they are open", "fanout_card_p99", "ms"),
    ("authenticated GET, 1 owner, p50", "owners_1_p50", "ms"), ("the same, p99", "owners_1_p99", "ms"),
    ("authenticated GET, 1,000 owners, p50", "owners_1000_p50", "ms"), ("the same, p99", "owners_1000_p99", "ms"),
    ("authenticated GET, 10,000 owners, p50", "owners_10000_p50", "ms"), ("the same, p99", "owners_10000_p99", "ms"),
    ("start-up to a first answer, 10,000 owners", "owners_10000_start_ms", "ms"),
    ("RSS after it, 10,000 owners", "owners_10000_rss_kb", "KB"),
    ("RSS per owner", "owners_rss_bytes_per_owner", "bytes"),
    ("ListTasks (50 of 10,000 files) p50, own run", "list_10000_p50", "ms"),
    ("ListTasks (50 of 100,000 files) p50", "list_100000_p50", "ms"),
    ("ListTasks over 100,000 files, first call", "list_100000_first_ms", "ms"),
    ("RSS per task summary", "list_100000_bytes_per_summary", "bytes"),
]


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b is not None and a >= 0 and b > 0 else None  # no ratio of RSS shrinking


def cell(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if unit in ("req/s", "streams/s") and value >= 100 else f"{value:.2f}"


@dataclass(frozen=True)
class PeerTarget:
    """An operation's figure against each peer's, from the same run: ours/theirs must be at least `sdk` and `js`
    (at most, for a latency: lower is better); js None: the ratio is shown without a target."""

    label: str
    key: str
    sdk: float
    js: float | None
    lower_is_better: bool = False

    def check(self, ours: Results, peer: Results, name: str) -> dict[str, Any]:
        bound = self.sdk if name == "a2a-sdk" else self.js
        value = ratio(ours.get(self.key), peer.get(self.key))
        sign = "<=" if self.lower_is_better else ">="
        met = None if value is None or bound is None else value <= bound if self.lower_is_better else value >= bound
        return {"target": f"{self.label} {sign} {bound:g}x {name}" if bound is not None else f"{self.label} vs {name}",
                "operation": self.label, "value": value, "unit": "x", "peer": name, "bound": bound,
                "status": "-" if bound is None else "n/a" if met is None else "MET" if met else "MISSED"}


# issue 29: ahead of the fastest peer; every operation at least twice the a2a-sdk's
PEER_TARGETS = [
    PeerTarget("public card GET req/s", "card_rps", sdk=2, js=2),
    PeerTarget("blocking SendMessage req/s", "send_rps", sdk=2, js=1),
    PeerTarget("whole streams/s, 8 in flight", "streams_rps", sdk=2, js=1),
    PeerTarget("GetTask req/s", "get_rps", sdk=2, js=1.2),
    PeerTarget("blocking SendMessage p99", "send_p99", sdk=0.5, js=None, lower_is_better=True),
    PeerTarget("first SSE event, 8 in flight, p50", "sse8_p50", sdk=0.5, js=None, lower_is_better=True),
]


def targets(results: dict[str, Results]) -> list[dict[str, Any]]:
    """Every target with its figure and MET, MISSED or n/a (no figure): each peer target twice, against the a2a-sdk
    and against the JS peer, both ratios from this run's results; then ours alone."""
    ours = results.get("ours", {})
    against = [target.check(ours, results.get(name, {}), name) for target in PEER_TARGETS
               for name in ("a2a-sdk", "js")]
    checks: list[tuple[str, float | None, Callable[[float], bool], str]] = [
        ("first SSE event, lone, p50 <= 2 ms", ours.get("sse_lone_p50"), lambda v: v <= 2, " ms"),
        ("ListTasks over 10,000 task files p50 <= 100 ms", ours.get("list_p50"), lambda v: v <= 100, " ms"),
        ("loop stall <= 5 ms (max lag, phases but the fan-out)", ours.get("lag_max"), lambda v: v <= 5, " ms"),
        ("  the same, as the longest single loop callback", ours.get("callback_max"), lambda v: v <= 5, " ms"),
        ("RSS growth <= 1 KB per finished task", ours.get("rss_kb_per_task"), lambda v: v <= 1, " KB"),
        ("1,000 streams at once: first event p99 <= 250 ms", ours.get("fanout_first_p99"), lambda v: v <= 250, " ms"),
        ("1,000 streams at once: card p99 <= 50 ms", ours.get("fanout_card_p99"), lambda v: v <= 50, " ms"),
        ("10,000 owners: authenticated p50 <= 1.2x of 1 owner's",
         ratio(ours.get("owners_10000_p50"), ours.get("owners_1_p50")), lambda v: v <= 1.2, "x"),
        ("ListTasks, 50 of 100,000 files, p50 <= 20 ms", ours.get("list_100000_p50"), lambda v: v <= 20, " ms"),
        ("ListTasks p50, 100,000 files <= 2x of 10,000",
         ratio(ours.get("list_100000_p50"), ours.get("list_10000_p50")), lambda v: v <= 2, "x"),
    ]
    return against + [{"target": name, "value": value, "unit": unit.strip(), "peer": None,
                       "status": "n/a" if value is None else "MET" if ok(value) else "MISSED"}
                      for name, value, ok, unit in checks]


def _digits(item: dict[str, Any]) -> int:
    """Two decimals, or three where two would round a missed target onto its bound (0.997x shown as 1.00x)."""
    value, bound = item["value"], item.get("bound")
    return 3 if bound is not None and item["status"] == "MISSED" and round(value, 2) == bound else 2


def target_lines(met: list[dict[str, Any]]) -> list[str]:
    """The targets as printed: one line per peer target with its ratio against each peer, then ours alone."""
    lines = ["targets against the peers (ours / theirs, both from this run):",
             f"  {'':<38} {'vs a2a-sdk':>10} {'target':>8} {'':<7} {'vs js':>10} {'target':>8}"]
    by_peer = {(item["peer"], item["operation"]): item for item in met if item.get("peer")}
    for target in PEER_TARGETS:
        cells = []
        for name in ("a2a-sdk", "js"):
            item = by_peer[name, target.label]
            sign = "<=" if target.lower_is_better else ">="
            value = "-" if item["value"] is None else f"{item['value']:.{_digits(item)}f}x"
            bound = "" if item["bound"] is None else f"{sign} {item['bound']:g}x"
            cells.append(f"{value:>10} {bound:>8} {item['status']:<7}")
        lines.append(f"  {target.label:<38} " + " ".join(cells).rstrip())
    lines.append("targets of ours alone:")
    for item in met:
        if item.get("peer"):
            continue
        unit = item["unit"] if item["unit"] == "x" else " " + item["unit"]
        value = "-" if item["value"] is None else f"{item['value']:.2f}{unit}"
        lines.append(f"  {item['status']:<7} {item['target']:<56} {value}")
    return lines


def print_table(results: dict[str, Results], met: list[dict[str, Any]]) -> None:
    ours, sdk, js = (results.get(name, {}) for name in ("ours", "a2a-sdk", "js"))
    head = ("operation", "unit", "ours", "a2a-sdk", "ours/a2a-sdk", "js", "ours/js")
    lines = [head] + [(label, unit, cell(ours.get(key), unit), cell(sdk.get(key), unit),
                       cell(ratio(ours.get(key), sdk.get(key))), cell(js.get(key), unit),
                       cell(ratio(ours.get(key), js.get(key)))) for label, key, unit in ROWS]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    print()
    for n, line in enumerate(lines):
        print("| " + " | ".join(text.ljust(w) if i < 2 else text.rjust(w)
                                for i, (text, w) in enumerate(zip(line, widths, strict=True))) + " |")
        if n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print()
    print("\n".join(target_lines(met)))


async def bench_one(name: str, tmp: Path, args: argparse.Namespace, cpu: int | None
                    ) -> tuple[Results, dict[str, Any], list[str]]:
    print(f"\n== {name}", flush=True)
    if name == "js" and (reason := servers.npm_ready()):
        print(f"  skipping the JS peer: {reason}")
        return {}, {}, [f"js skipped: {reason}"]
    results, _, notes, server = await measured(name, tmp / name, args, cpu, probed=False)
    lag_detail: dict[str, Any] = {}
    if name == "ours" and server is not None:
        results |= await request_log_pairs(tmp, args, cpu, notes)
        # the same phases again with the loop-lag probe and the callback timer, for the loop figures only
        print("\n== ours, probed (the same load again; only its event-loop figures are kept)", flush=True)
        _, phases, probed_notes, server = await measured(name, tmp / "ours-probed", args, cpu, probed=True)
        notes += probed_notes
        if server is not None and server.lag_report is not None:
            lag_detail, lag_results = lag(server.lag_report, phases)
            results |= lag_results
    return results, lag_detail, notes


REQUEST_LOG_PAIRS = 2


async def request_log_pairs(tmp: Path, args: argparse.Namespace, cpu: int | None, notes: list[str]) -> Results:
    """What the request log costs (it is on by default, and writes its lines into the server's log file here as
    onto a console): the public card (the cheapest answer, where a line weighs most) and the send phase alone, on
    fresh servers alike but for the log, on then off, REQUEST_LOG_PAIRS times; the median rate of each. The
    machine's drift between two runs is as large as the cost, so one run of each, or a run of the whole bench
    against one of the send phase, would tell the drift."""
    rates: dict[str, list[float]] = {f"{phase}_log_{log}": [] for phase in ("card", "send") for log in ("on", "off")}
    for n in range(REQUEST_LOG_PAIRS):
        for log in ("on", "off"):
            print(f"\n== ours, request log {log} (the card and send phases alone, pair {n + 1} of "
                  f"{REQUEST_LOG_PAIRS})", flush=True)
            found, _, found_notes, _ = await measured("ours", tmp / f"ours-log-{log}-{n}", args, cpu, probed=False,
                                                      log_pair=log,
                                                      flags=("--request-log", "off") if log == "off" else ())
            notes += found_notes
            for key, values in rates.items():
                if found.get(f"{key}_rps"):
                    values.append(float(found[f"{key}_rps"]))  # type: ignore[arg-type]
    results: Results = {}
    for phase in ("card", "send"):
        on, off = rates[f"{phase}_log_on"], rates[f"{phase}_log_off"]
        if on and off:
            on_rate, off_rate = statistics.median(on), statistics.median(off)
            show(f"request log: {phase} rate on / off", f"{on_rate:.0f} / {off_rate:.0f} req/s, medians of "
                 f"{REQUEST_LOG_PAIRS}: the log costs {1 - on_rate / off_rate:.1%} of the rate")
            results |= {f"{phase}_log_rps": on_rate, f"{phase}_nolog_rps": off_rate}
    return results


async def measured(name: str, folder: Path, args: argparse.Namespace, cpu: int | None, *, probed: bool,
                   log_pair: str | None = None, flags: tuple[str, ...] = ()
                   ) -> tuple[Results, Phases, list[str], servers.Server | None]:
    """Start the server (ours with flags), run every phase against it (send_only: (key, label) of the send phase
    alone, on a workspace without task files), stop it: its results, its phases, its notes."""
    folder.mkdir()
    if name == "ours":
        files = 0 if log_pair else args.task_files
        print(f"  writing {files} task files ...", flush=True)
        server = await servers.start_ours(folder, files, cpu, probed=probed, flags=flags)
    else:
        server = await (servers.start_sdk(folder, cpu) if name == "a2a-sdk" else servers.start_js(folder, cpu))
    if server is None:
        return {}, [], [f"{name} did not start"], None
    run = Run(server, args)
    try:
        await (run.card_and_send_only(log_pair) if log_pair else
               run.run(folder / "workspace" if name == "ours" else None))
    except Exception as error:  # one server's failure must not lose the others' results
        print(f"  {name}: the run stopped early: {error!r}")
        server.notes.append(f"run stopped early: {error!r}")
    finally:
        servers.stop(server)
    return run.results, run.phases, server.notes, server


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short runs, for a smoke test")
    parser.add_argument("--only", action="append", choices=["ours", "a2a-sdk", "js"], help="run only this server")
    parser.add_argument("--phase", choices=["all", "owners", "core"], default="all",
                        help="owners: only the owner-host phase (ours: 1 to 10,000 owners, ListTasks over 100,000 "
                        "files); core: every phase but that one; all: every phase (default)")
    parser.add_argument("--duration", type=float, help="seconds per wrk run (default 5, quick 2)")
    parser.add_argument("--connections", type=int, default=8, help="connections / streams in flight (default 8)")
    parser.add_argument("--lone-streams", type=int, help="sequential streams (default 200, quick 50)")
    parser.add_argument("--streams", type=int, help="streams at 8 in flight (default 400, quick 100)")
    parser.add_argument("--list-calls", type=int, help="sequential ListTasks calls (default 30, quick 10)")
    parser.add_argument("--task-files", type=int, default=10_000, help="task files in our workspace (default 10000)")
    parser.add_argument("--rss-tasks", type=int, help="blocking sends in the RSS phase (default 10000, quick 1000)")
    parser.add_argument("--rss-seconds", type=float, help="time bound of the RSS phase (default 300, quick 60)")
    parser.add_argument("--fanout", type=int, default=1000, help="streams opened at once (default 1000)")
    parser.add_argument("--no-pin", action="store_true", help="no CPU pinning (server on one CPU, load on the others)")
    parser.add_argument("--report", type=Path, default=REPORT, help=f"JSON results (default {REPORT})")
    args = parser.parse_args()
    defaults = {"duration": (5, 2), "lone_streams": (200, 50), "streams": (400, 100), "list_calls": (30, 10),
                "rss_tasks": (10_000, 1000), "rss_seconds": (300, 60)}
    for key, (full, quick) in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, quick if args.quick else full)
    return args


def pinning(args: argparse.Namespace) -> int | None:
    """One CPU for the server under test, the others for wrk and this process (so each server gets the same core)."""
    available = os.sched_getaffinity(0)
    if args.no_pin or len(available) < 2:
        return None
    server_cpu = max(available)
    os.sched_setaffinity(0, available - {server_cpu})
    return server_cpu


async def main() -> int:
    args = parse_args()
    names = [] if args.phase == "owners" else args.only or ["ours", "a2a-sdk", "js"]
    cpu = pinning(args)
    shown = ", ".join(names) or "ours, the owner-host phase only"
    print(f"bench: {shown}; load by " + (f"wrk ({load.WRK}), 1 thread" if load.WRK else
          "the bounded Python load loop, because wrk is not installed (apt-get install wrk for comparable numbers)")
          + f", {args.connections} connections, {args.duration:g} s per run; "
          + (f"servers pinned to CPU {cpu}" if cpu is not None else "no CPU pinning"))
    results: dict[str, Results] = {}
    lag_detail: dict[str, Any] = {}
    notes: list[str] = [] if load.WRK else ["wrk not installed: Python load loop used"]
    with tempfile.TemporaryDirectory(prefix="a2a-bench-") as tmp:
        for name in names:
            results[name], detail, server_notes = await bench_one(name, Path(tmp), args, cpu)
            lag_detail |= detail
            notes += [f"{name}: {note}" for note in server_notes]
        if args.phase == "owners" or ("ours" in names and args.phase == "all"):
            print("\n== ours, owner host (issue 19): owners, start-up, RSS, ListTasks at scale", flush=True)
            folder = Path(tmp) / "owner-host"
            folder.mkdir()
            results["ours"] = results.get("ours", {}) | await owners.run(folder, args, cpu, show)
    met = targets(results)
    print_table(results, met)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps({
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "platform": platform.platform(),
                    "load_tool": "wrk" if load.WRK else "python", "server_cpu": cpu},
        "args": {key: str(value) if isinstance(value, Path) else value for key, value in vars(args).items()},
        "results": results, "loop_lag": lag_detail, "targets": met, "notes": notes}, indent=2) + "\n")
    print(f"\nwritten: {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
