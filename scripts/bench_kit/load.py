"""Load tools for the bench: wrk (or a bounded asyncio fallback), a raw-socket HTTP/1.1 and SSE client, percentiles."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

HOST = "127.0.0.1"
WRK = shutil.which("wrk")
WRK_SCRIPT = Path(__file__).with_name("wrk.lua")
ID = "{{ID}}"  # replaced by a fresh id in every request body (wrk.lua does the same)
CALL_TIMEOUT = 60.0


def percentile(samples: Sequence[float], q: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


@dataclass
class Load:
    """One load run: how many requests finished in how long, how many failed, latency percentiles in ms."""

    tool: str
    requests: int
    seconds: float
    failures: int
    p50_ms: float | None
    p99_ms: float | None

    @property
    def rate(self) -> float:
        return (self.requests - self.failures) / self.seconds if self.seconds else 0.0


def request_bytes(method: str, path: str, port: int, headers: Mapping[str, str], body: str | None,
                  keep_alive: bool = False) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: " + ("keep-alive" if keep_alive
                                                                                     else "close")]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    data = (body or "").encode()
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


async def body_chunks(reader: asyncio.StreamReader) -> AsyncIterator[tuple[int, bytes]]:
    """Read one response: yield (status, piece of body) as the pieces arrive (chunked, sized or until close)."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    fields = dict(line.split(b":", 1) for line in head.split(b"\r\n")[1:] if b":" in line)
    fields = {name.strip().lower(): value.strip().lower() for name, value in fields.items()}
    if fields.get(b"transfer-encoding") == b"chunked":
        while size := int((await reader.readline()).split(b";")[0], 16):
            yield status, await reader.readexactly(size)
            await reader.readexactly(2)
        await reader.readline()
    elif b"content-length" in fields:
        yield status, await reader.readexactly(int(fields[b"content-length"]))
    else:
        while piece := await reader.read(65536):
            yield status, piece


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    status, body = 0, b""
    async for code, piece in body_chunks(reader):
        status, body = code, body + piece
    return status, body


async def call(port: int, method: str, path: str, headers: Mapping[str, str], body: str | None = None
               ) -> tuple[int, bytes, float]:
    """One request on its own connection: (status, body, seconds from writing the request to the whole body)."""

    async def once() -> tuple[int, bytes, float]:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            started = time.perf_counter()
            writer.write(request_bytes(method, path, port, headers, body))
            status, data = await read_response(reader)
            return status, data, time.perf_counter() - started
        finally:
            writer.close()

    return await asyncio.wait_for(once(), CALL_TIMEOUT)


def failed(status: int, body: bytes) -> bool:
    return not 200 <= status < 300 or b'"error"' in body


async def wrk(port: int, path: str, headers: Mapping[str, str], body: str | None, seconds: float,
              connections: int) -> Load | None:
    """wrk, one thread, `connections` keep-alive connections for `seconds` (wrk.lua sends POSTs and checks them)."""
    assert WRK is not None
    argv = [WRK, "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s", "--latency",
            "-s", str(WRK_SCRIPT)]
    argv += [arg for name, value in headers.items() for arg in ("-H", f"{name}: {value}")]
    if body is not None:
        argv += ["-H", "Content-Type: application/json"]
    env = {**os.environ, "BENCH_RUN": uuid.uuid4().hex[:12]} | ({"BENCH_BODY": body} if body is not None else {})
    process = await asyncio.create_subprocess_exec(*argv, f"http://{HOST}:{port}{path}", env=env,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), seconds + 30)
    except TimeoutError:
        print(f"    wrk did not finish in {seconds + 30:.0f} s")
        return None
    finally:
        if process.returncode is None:  # timed out or cancelled: stop this wrk, by its PID
            process.kill()
            await process.wait()
    line = next((line for line in out.decode().splitlines() if line.startswith("BENCH_JSON ")), None)
    if process.returncode != 0 or line is None:
        print(f"    wrk failed (exit {process.returncode}): {err.decode().strip()[:300]}")
        return None
    result = json.loads(line.removeprefix("BENCH_JSON "))
    errors = result["socket_errors"] + result["status_errors"] + result["failures"]
    return Load("wrk", result["requests"], result["duration_us"] / 1e6, min(errors, result["requests"]),
                result["p50_us"] / 1000, result["p99_us"] / 1000)


async def python_load(port: int, path: str, headers: Mapping[str, str], body: str | None, seconds: float,
                      connections: int, limit: int | None = None) -> Load:
    """The fallback (and the request-count-bounded loop): `connections` keep-alive workers until time or limit."""
    method = "GET" if body is None else "POST"
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []
    counts = {"requests": 0, "failures": 0}

    def more() -> bool:
        return time.perf_counter() < deadline and (limit is None or counts["requests"] - counts["failures"] < limit)

    async def worker() -> None:
        while more():
            try:
                reader, writer = await asyncio.open_connection(HOST, port)
            except OSError:
                counts["requests"] += 1
                counts["failures"] += 1
                await asyncio.sleep(0.05)
                continue
            try:
                while more():
                    text = None if body is None else body.replace(ID, uuid.uuid4().hex)
                    started = time.perf_counter()
                    writer.write(request_bytes(method, path, port, headers, text, keep_alive=True))
                    status, data = await asyncio.wait_for(read_response(reader), CALL_TIMEOUT)
                    latencies.append((time.perf_counter() - started) * 1000)
                    counts["requests"] += 1
                    counts["failures"] += failed(status, data) if body is not None else not 200 <= status < 300
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError):
                counts["requests"] += 1
                counts["failures"] += 1
            finally:
                writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    return Load("python", counts["requests"], time.perf_counter() - started, counts["failures"],
                percentile(latencies, 50), percentile(latencies, 99))


async def load(port: int, path: str, headers: Mapping[str, str], body: str | None, seconds: float,
               connections: int) -> Load | None:
    if WRK is not None:
        return await wrk(port, path, headers, body, seconds, connections)
    return await python_load(port, path, headers, body, seconds, connections)


@dataclass
class Stream:
    """One SSE stream: seconds to its first `data:` line and to its end, how many events, whether it completed."""

    first: float
    total: float
    events: int
    completed: bool


async def stream(port: int, path: str, headers: Mapping[str, str], body: str) -> Stream:
    """POST a streaming request on a fresh connection and read the SSE stream to its end."""

    async def once() -> Stream:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            started = time.perf_counter()
            writer.write(request_bytes("POST", path, port, headers, body.replace(ID, uuid.uuid4().hex)))
            first, events, buffer, last = 0.0, 0, b"", b""
            async for _, piece in body_chunks(reader):
                *lines, buffer = (buffer + piece).split(b"\n")
                for line in lines:
                    if line.startswith(b"data:"):
                        first = first or time.perf_counter() - started
                        events, last = events + 1, line
            return Stream(first, time.perf_counter() - started, events, b"TASK_STATE_COMPLETED" in last)
        finally:
            writer.close()

    return await asyncio.wait_for(once(), CALL_TIMEOUT)


async def streams(port: int, path: str, headers: Mapping[str, str], body: str, count: int, in_flight: int,
                  seconds: float) -> tuple[list[Stream], float, int]:
    """`count` streams, `in_flight` at a time, until done or `seconds` pass: (good streams, elapsed, failures)."""
    deadline = time.perf_counter() + seconds
    done: list[Stream] = []
    failures = begun = 0

    async def worker() -> None:
        nonlocal failures, begun
        while begun < count and time.perf_counter() < deadline:
            begun += 1
            try:
                result = await stream(port, path, headers, body)
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError):
                failures += 1
                continue
            if result.completed and result.events:
                done.append(result)
            else:
                failures += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(in_flight)))
    return done, time.perf_counter() - started, failures
