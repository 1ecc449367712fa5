"""Where the server's time goes, layer by layer: py-spy profiles of the bench's slow phases (`record`), and the split of
a collapsed profile into the server's layers (`split`), each sample given to a layer by matching its frames to LAYERS.

    python scripts/profile_split.py record [--phase send] [--seconds 20] [--out docs/profiles]
    python scripts/profile_split.py split docs/profiles/*.txt

py-spy is not a dependency: install it apart (`python -m pip install --target /tmp/tools py-spy`) and pass its path
with --py-spy when it is not on PATH. A recording starts the server as `make bench` does (scripts/bench_kit: pinned
to one core, the load and py-spy on the other), warms it up with blocking sends, then samples each phase under the
bench's load: every thread, the process paused for each sample (it then serves GetTask 5-15 % slower, but unpaused,
py-spy --nonblocking, half the loop's stacks came torn, without their outer frames), waiting threads left out, line
numbers kept only on a stack's last frame in the server's own code (the C call such a frame is in, such as an
fdatasync, is known by its line), each thread's CPU time noted.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench_kit.servers import Server

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "docs" / "profiles"
RATE = 100  # py-spy's samples per second and thread

# --- the layers ---

HTTP, ROUTING, DECODING, DOMAIN, AGENT, JOURNAL = ("HTTP parsing", "routing and middleware", "decoding",
                                                  "domain", "agent session", "journal")
ENCODE, WRITE, FSYNC, READ = ("task file: encoding", "task file: write", "task file: fsync", "task file: read")
LOG, LOOP, GC, RESPONSE, OTHER = ("log lines", "event loop", "garbage collection", "response", "other")
ORDER = [HTTP, ROUTING, DECODING, DOMAIN, AGENT, JOURNAL, ENCODE, WRITE, FSYNC, READ, LOG, LOOP, GC, RESPONSE, OTHER]


@dataclass(frozen=True)
class Rule:
    """Frames of a file (a path prefix, as py-spy shortens it) and, optionally, of functions matching a pattern, and
    of a source line holding a call matching another (for a stack's last frame, stopped in that C call). A shared
    frame (JSON, asyncio, the wire's encoders) belongs to whichever layer called it: its own layer is a fallback."""

    layer: str
    file: str
    function: str | None = None
    line: str | None = None
    shared: bool = False

    def matches(self, frame: Frame, source: Callable[[str, int], str]) -> bool:
        if not frame.file.startswith(self.file):
            return False
        if self.function is not None and not re.fullmatch(self.function, frame.function):
            return False
        return self.line is None or (frame.line is not None and re.search(self.line, source(frame.file, frame.line))
                                     is not None)


RS = "reference_server/"
# the tree before and after the redesign by concept (issue 27): the kept profiles were recorded on the one before
CODECS = ("wire/", "codecs/")
STORE = ("domain/task_store.py", "workspace/task_store.py")
ENCODERS = r"(.*\.)?(encode.*|_recent|_status_update|_artifact_update|format_timestamp|put)"  # shared by every answer
# The first rule that matches a frame gives the frame its layer; the innermost frame of a layer gives the sample its
# layer, and a sample without one goes to its innermost shared frame's. A frame that matches no rule (the platform's
# disk helpers, the standard library, uvicorn's server loop) belongs to the layer of whoever called it.
LAYERS = [
    Rule(JOURNAL, RS + "agent/journal.py"), Rule(JOURNAL, RS + "platform/disk.py", "_append"),
    Rule(FSYNC, RS + "platform/disk.py", "_replace", line=r"sync\("), Rule(FSYNC, RS + "platform/disk.py", "_fsync"),
    Rule(WRITE, RS + "platform/disk.py", r"_replace|_write_all|_in_folder|Writer\._write|Writer\._serve"),
    *(Rule(ENCODE, RS + codecs + "task_file.py", r"(TaskFileCodec\.)?encode.*|_encode_config") for codecs in CODECS),
    *(Rule(ENCODE, RS + store, r"TaskStore\.(_encoding|_now).*") for store in STORE),
    *(Rule(READ, RS + codecs + "task_file.py") for codecs in CODECS),
    *(Rule(READ, RS + store, r"TaskStore\.(load|read|_read.*)") for store in STORE),
    *(Rule(WRITE, RS + store, r"TaskStore\.(save.*|update|_write_lock|_remember)|_log_failure") for store in STORE),
    *(Rule(READ, RS + store) for store in STORE), Rule(READ, RS + "workspace/written.py"),
    Rule(LOG, RS + "bindings/requestlog.py"), *(Rule(LOG, RS + where + "console.py") for where in ("", "process/")),
    Rule(LOG, "logging/"),
    Rule(DECODING, RS + "bindings/http.py", r"read_json|parse_json|_may_have_problem|_problem|_too_deep|_parse_.*"),
    Rule(RESPONSE, RS + "bindings/http.py", r"json_response|dumps|dumps_text"),
    Rule(HTTP, RS + "bindings/http.py", r"read_body"),
    *(Rule(RESPONSE, RS + codecs, ENCODERS, shared=True) for codecs in CODECS),  # the task file's encoding too
    *(Rule(DECODING, RS + codecs) for codecs in CODECS),
    Rule(RESPONSE, RS + "bindings/sse.py"),
    Rule(RESPONSE, RS + "bindings/jsonrpc.py", r"_result|error_response|.*respond"),
    Rule(RESPONSE, RS + "bindings/operations.py", r"_of.*|_as_is"),
    *(Rule(RESPONSE, RS + where + "serving.py", r"HeadersWithBody\..*|_StallGuard\..*") for where in ("", "process/")),
    *(Rule(HTTP, RS + where + "serving.py") for where in ("", "process/")),
    Rule(ROUTING, RS + "bindings/"), Rule(ROUTING, RS + "app.py"), Rule(ROUTING, RS + "process/app.py"),
    Rule(ROUTING, RS + "discovery/"),
    Rule(AGENT, RS + "agent/"),
    *(Rule(DOMAIN, RS + folder) for folder in ("domain/", "a2a/", "model/", "workspace/", "hosting/")),
    Rule(GC, RS + "platform/collector.py"),
    Rule(LOOP, RS + "platform/lane.py"),
    Rule(RESPONSE, "uvicorn/protocols/http/", r"RequestResponseCycle\.send|.*flow.*|FlowControl\..*"),
    Rule(HTTP, "uvicorn/protocols/"), Rule(HTTP, "httptools/"), Rule(HTTP, "h11/"),
    Rule(RESPONSE, "blacksheep/", r".*send_asgi_response.*|.*get_response.*|.*write_.*|.*Response.*"),
    Rule(ROUTING, "blacksheep/"),
    Rule(RESPONSE, "asyncio/selector_events.py", r"_SelectorSocketTransport\.(write|_write_ready|writelines)"),
    Rule(HTTP, "asyncio/selector_events.py", r"_SelectorSocketTransport\._read_ready.*"),
    Rule(LOOP, "asyncio/", r".*call_soon_threadsafe|.*_write_to_self|.*_read_from_self|.*_process_self_data"),
    Rule(DECODING, "json/decoder.py", shared=True), Rule(DECODING, "json/", "loads", shared=True),
    Rule(RESPONSE, "json/", shared=True),
    *(Rule(LOOP, file, shared=True) for file in ("asyncio/", "selectors.py", "contextvars", "heapq")),
]
# A stack whose last frame is one of these is a thread waiting (for work, a lock, the selector): not counted.
WAITS = [Rule("", "threading.py", r".*\.wait|.*acquire"), Rule("", "concurrent/futures/thread.py", "_worker"),
         Rule("", "selectors.py", r".*\.select"), Rule("", "queue.py", r".*\.get")]


@dataclass(frozen=True)
class Frame:
    function: str
    file: str
    line: int | None = None

    @classmethod
    def parse(cls, text: str) -> Frame:
        """py-spy's `function (file:line)` or `function (file)`."""
        found = re.fullmatch(r"(.*) \((.*?)(?::(\d+))?\)", text)
        if found is None:
            return cls(text, "")
        return cls(found[1], found[2], int(found[3]) if found[3] else None)


@functools.lru_cache(maxsize=4096)
def source_line(file: str, line: int) -> str:
    """The text of a line of a file of this tree (the server's, as py-spy shortens its paths), or ""."""
    try:
        return (ROOT / file).read_text().splitlines()[line - 1]
    except (OSError, IndexError):
        return ""


def decide(frames: list[Frame], source: Callable[[str, int], str] = source_line) -> tuple[str | None, int]:
    """The layer of a sample whose stack is frames (outermost first), and the index of the frame that decides it;
    (None, -1) for a waiting thread."""
    if frames and any(rule.matches(frames[-1], source) for rule in WAITS):
        return None, -1
    shared: tuple[str, int] | None = None
    for index in range(len(frames) - 1, -1, -1):
        rule = next((rule for rule in LAYERS if rule.matches(frames[index], source)), None)
        if rule is not None and not rule.shared:
            return rule.layer, index
        if rule is not None and shared is None:
            shared = (rule.layer, index)
    return shared or (OTHER, len(frames) - 1)


def layer_of(frames: list[Frame], source: Callable[[str, int], str] = source_line) -> str | None:
    """The layer of a sample whose stack is frames (outermost first), or None for a waiting thread."""
    return decide(frames, source)[0]


def thread_role(name: str) -> str:
    """The event loop's thread, or the others (the disk writer, the disk readers, the heap trimmer)."""
    return "loop" if name == "MainThread" else "off-loop"


# --- a profile ---

Stacks = Counter[tuple[str, tuple[str, ...]]]  # (thread, frames outermost first) -> samples


@dataclass
class Profile:
    """A collapsed profile: its stacks, each under its thread's name, with their sample counts, and what the recording
    says about itself in its `# key: value` lines (the phase, how many operations were served while it sampled, each
    thread's CPU), none of which ends in a number: flame graph tools take such a line for a stack and skip others."""

    stacks: Stacks = field(default_factory=Counter)
    notes: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, lines: Iterable[str]) -> Profile:
        profile = cls()
        for line in lines:
            line = line.rstrip("\n")
            if line.startswith("# ") and ": " in line:
                key, value = line[2:].split(": ", 1)
                profile.notes[key] = value
            elif line and not line.startswith("#"):
                stack, count = line.rsplit(" ", 1)
                thread, *frames = stack.split(";")
                profile.stacks[thread, tuple(frames)] += int(count)
        return profile

    def write(self) -> str:
        notes = [f"# {key}: {value}" for key, value in self.notes.items()]
        return "\n".join(notes + [f"{';'.join((thread, *frames))} {count}"
                                  for (thread, frames), count in self.stacks.most_common()]) + "\n"

    def operations(self) -> float | None:
        found = re.match(r"([\d.]+)", self.notes.get("operations", ""))
        return float(found[1]) if found else None

    def split(self, source: Callable[[str, int], str] = source_line) -> dict[str, Counter[str]]:
        """Samples per layer, for each role of thread ("loop", "off-loop"); waiting threads are left out."""
        by_role: dict[str, Counter[str]] = defaultdict(Counter)
        for (thread, frames), count in self.stacks.items():
            layer = layer_of([Frame.parse(text) for text in frames], source)
            if layer is not None:
                by_role[thread_role(thread.split(": ", 1)[-1])][layer] += count
        return by_role


BUDGET = 250_000  # bytes: a kept profile stays small


def compact(raw: str, budget: int = BUDGET) -> Profile:
    """py-spy's raw output (`--threads`) made small enough to keep, with the same split: each thread named by its
    name alone; waiting threads left out (they are counted nowhere); line numbers only on a last frame of the server's
    own code (where a rule needs it); then, while the text is over budget, the rarest stacks cut down to the frame that
    decides their layer and a few callers."""
    seen: Stacks = Counter()
    decided: dict[tuple[str, tuple[str, ...]], int] = {}
    waiting = 0
    for line in raw.splitlines():
        if not line.strip():
            continue
        stack, count = line.rsplit(" ", 1)
        thread, *frames = stack.split(";")
        layer, index = decide([Frame.parse(text) for text in frames])
        if layer is None or not frames:  # a thread caught between two Python frames has none
            waiting += int(count)
            continue
        leaf = frames[-1] if frames[-1].split(" (")[-1].startswith(RS) else _unnumbered(frames[-1])
        key = (thread.split(": ", 1)[-1], (*map(_unnumbered, frames[:-1]), leaf))
        seen[key] += int(count)
        decided[key] = index
    profile = Profile(seen, {"left out": f"{waiting} samples of waiting threads, or without frames"})
    for rare in range(1, max(seen.values(), default=0) + 1):
        if len(profile.write()) <= budget:
            break
        profile.stacks = _cut(profile.stacks, decided, rare)
        seen_at_most = "once" if rare == 1 else f"{rare} times"
        profile.notes["cut"] = (f"stacks seen at most {seen_at_most} are only the frame that decides their layer and "
                                f"the {CONTEXT} that called it")
    return profile


CONTEXT = 3  # frames kept above the one that decides a cut stack's layer


def _cut(stacks: Stacks, decided: dict[tuple[str, tuple[str, ...]], int], rare: int) -> Stacks:
    """The stacks seen at most `rare` times cut down to the frame that decides their layer and the CONTEXT frames that
    called it (where that keeps the layer: nothing above the deciding frame changes it, nothing below is needed)."""
    cut: Stacks = Counter()
    for (thread, frames), count in stacks.items():
        index = decided.get((thread, frames), len(frames) - 1)
        short = frames[max(0, index - CONTEXT):index + 1]
        same = layer_of([Frame.parse(text) for text in short]) == layer_of([Frame.parse(text) for text in frames])
        key = (thread, short) if count <= rare and same else (thread, frames)
        cut[key] += count
        decided.setdefault(key, len(key[1]) - 1)
    return cut


def _unnumbered(frame: str) -> str:
    return re.sub(r":\d+\)$", ")", frame)


def table(profiles: dict[str, Profile], rate: int = RATE) -> str:
    """A markdown table: for each phase, each layer's share of the loop thread's busy samples and its time per
    operation on the loop and on the other threads (µs of thread time, busy or in a system call)."""
    head = ["layer"] + [f"{name}: {column}" for name in profiles
                        for column in ("loop %", "loop µs/op", "off-loop µs/op")]
    splits = {name: profile.split() for name, profile in profiles.items()}
    rows = [head, ["---"] * len(head)]
    for layer in [*ORDER, "total"]:
        row = [layer]
        for name, profile in profiles.items():
            loop, off = splits[name].get("loop", Counter()), splits[name].get("off-loop", Counter())
            ops = profile.operations()
            share = loop[layer] if layer != "total" else loop.total()
            spent = off[layer] if layer != "total" else off.total()
            row.append(f"{100 * share / loop.total():.1f}" if loop.total() else "-")
            row += [f"{1e6 * samples / rate / ops:.0f}" if ops else "-" for samples in (share, spent)]
        rows.append(row)
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


# --- recording ---

def cpu_times(pid: int) -> dict[str, tuple[int, int]]:
    """Each thread's user and system time in clock ticks, by thread id."""
    times: dict[str, tuple[int, int]] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        times[tid] = (int(fields[11]), int(fields[12]))
    return times


async def phase_rate(server: Server, phase: str, seconds: float, task_id: str) -> float:
    """The phase's load, as the bench makes it, for `seconds`: operations per second."""
    import bench
    from bench_kit import load

    port, path, headers = server.port, server.rpc_path, server.headers
    if phase == "streams":
        done, elapsed, _ = await load.streams(port, path, headers, bench.STREAM, 10**9, 8, seconds)
        return len(done) / elapsed
    body = bench.SEND if phase == "send" else bench.rpc_body("GetTask", {"id": task_id})
    result = await load.load(port, path, headers, body, seconds, 8)
    return result.rate if result is not None else 0.0


async def record_phase(spy: str, server: Server, phase: str, seconds: float, task_id: str) -> Profile:
    """py-spy on the server for `seconds` while the phase's load runs (from a little before to a little after)."""
    with tempfile.NamedTemporaryFile(suffix=".txt") as out:
        work = asyncio.create_task(phase_rate(server, phase, seconds + 2, task_id))
        await asyncio.sleep(0.5)
        before, started = cpu_times(server.process.pid), time.monotonic()
        spy_process = await asyncio.create_subprocess_exec(
            spy, "record", "--pid", str(server.process.pid), "--duration", str(round(seconds)), "--rate", str(RATE),
            "--format", "raw", "--threads", "--output", out.name,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        _, err = await spy_process.communicate()
        after, elapsed = cpu_times(server.process.pid), time.monotonic() - started
        rate = await work
        if spy_process.returncode != 0:
            raise SystemExit(f"py-spy failed: {err.decode(errors='replace')[-500:]}")
        raw = Path(out.name).read_text()
    profile = compact(raw)
    names = dict(re.findall(r"^thread \((\d+)\): ([^;]*);", raw, re.MULTILINE))
    percent = 100 / os.sysconf("SC_CLK_TCK") / elapsed
    profile.notes = {"phase": PHASES[phase], "operations": f"{rate * seconds:.0f} in {seconds:g} s ({rate:.0f}/s)",
                     **{f"cpu of {names.get(tid, 'thread ' + tid)}": f"user {(after[tid][0] - t[0]) * percent:.0f} % "
                        f"sys {(after[tid][1] - t[1]) * percent:.0f} % of a core" for tid, t in before.items()
                        if tid in after and after[tid] != t},
                     **profile.notes}
    return profile


PHASES = {"send": "blocking SendMessage, 8 connections (wrk)", "streams": "whole streams, 8 in flight",
          "get": "GetTask, 8 connections (wrk)"}


async def record(args: argparse.Namespace) -> dict[str, Profile]:
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench
    from bench_kit import load, servers

    spy = args.py_spy or shutil.which("py-spy")
    if spy is None:
        raise SystemExit("py-spy is not on PATH: install it apart and name it with --py-spy")
    available = os.sched_getaffinity(0)
    cpu = max(available) if len(available) > 1 else None
    if cpu is not None:
        os.sched_setaffinity(0, available - {cpu})  # the load and py-spy on the other cores
    profiles: dict[str, Profile] = {}
    with tempfile.TemporaryDirectory(prefix="a2a-profile-") as tmp:
        server = await servers.start_ours(Path(tmp), args.task_files, cpu, probed=False)
        if server is None:
            raise SystemExit("the server did not start")
        try:
            status, data, _ = await load.call(server.port, "POST", server.rpc_path, server.headers,
                                              bench.SEND.replace(load.ID, "first"))
            task_id = re.search(rb'"id":\s*"([0-9a-f-]{36})"', data)
            if status != 200 or task_id is None:
                raise SystemExit(f"the first SendMessage failed: {status} {data[:300]!r}")
            print(f"warming up: blocking sends for {args.warm_up:g} s", flush=True)
            await load.load(server.port, server.rpc_path, server.headers, bench.SEND, args.warm_up, 8)
            for phase in args.phase or list(PHASES):
                print(f"recording {phase} for {args.seconds:g} s", flush=True)
                profiles[phase] = await record_phase(spy, server, phase, args.seconds, task_id[1].decode())
                (args.out / f"{phase}.txt").write_text(profiles[phase].write())
        finally:
            servers.stop(server)
    return profiles


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record", help="profile the server under the bench's load, phase by phase")
    rec.add_argument("--phase", action="append", choices=list(PHASES), help="this phase only (default: every one)")
    rec.add_argument("--seconds", type=float, default=20, help="seconds of sampling per phase (default 20)")
    rec.add_argument("--warm-up", type=float, default=15, help="seconds of blocking sends first (default 15)")
    rec.add_argument("--task-files", type=int, default=10_000, help="task files in the workspace, as the bench's")
    rec.add_argument("--py-spy", help="the py-spy command (default: py-spy on PATH)")
    rec.add_argument("--out", type=Path, default=PROFILES, help=f"where the profiles go (default {PROFILES})")
    split = commands.add_parser("split", help="the layer table of collapsed profiles")
    split.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    if args.command == "record":
        args.out.mkdir(parents=True, exist_ok=True)
        profiles = asyncio.run(record(args))
    else:
        profiles = {path.stem: Profile.read(path.read_text().splitlines()) for path in args.files}
    for name, profile in profiles.items():
        print(f"{name}: {profile.notes.get('phase', '')}; {profile.notes.get('operations', 'operations unknown')}")
    print(table(profiles))
    return 0


if __name__ == "__main__":
    sys.exit(main())
