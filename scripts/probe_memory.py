"""`make probe-memory`: what hostile or careless clients cost the server in memory, measured on its process.

Each phase starts `reference-server` afresh (so its peak RSS, VmHWM, is the phase's own) on 127.0.0.1:
- bomb: 10 file parts at once given by the URL of a gzip bomb (256 MiB of zeros in about 255 KB) on a loopback
  file server: the RSS they add at peak and after, and how each task ended;
- readers: 20 streams of a 4 MB echo, read as fast as they come;
- non-readers: the same 20 streams by clients that never read: the RSS they add at peak, how long until the
  server closes each, and what is left once they are closed.
Targets (issue 16): the bomb adds less than 20 MB; non-readers cost at most 50 MB more at peak than readers;
readers peak at no more than 3x the request bytes in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import random
import socket
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from bench_kit import servers

KEY = "k_probe"
HEADERS = {"A2A-Version": "1.0", "X-API-Key": KEY, "Content-Type": "application/json"}
ECHO_BYTES = 4 * 1024 * 1024
STREAMS = 20
BOMBS = 10


def memory_kb(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (the peak since the process started), in KB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0])
    return values


def mb(kb: int) -> str:
    return f"{kb / 1024:7.1f} MB"


async def start(tmp: Path, *flags: str) -> servers.Server:
    workspace = tmp / "workspace"
    (workspace / ".volcanic" / "a2a").mkdir(parents=True, exist_ok=True)
    (workspace / ".volcanic" / "a2a" / "callers.json").write_text(json.dumps([{"name": "probe", "key": KEY}]))
    port = servers.free_port()
    argv = [sys.executable, "-m", "reference_server", "--workspace", str(workspace), "--host", "127.0.0.1",
            "--port", str(port), *flags]
    server = await servers.start("ours", argv, port, "/a2a", HEADERS, tmp / "server.log", None)
    if server is None:
        raise SystemExit("the server did not start")
    return server


def echo_text(size: int) -> str:
    """Words of random letters: the scripted echo cuts its answer at word boundaries into chunks."""
    rng = random.Random(16)
    words, total = [], 0
    while total < size:
        word = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 9)))
        words.append(word)
        total += len(word) + 1
    return " ".join(words)[:size]


def send_body(text: str, message_id: str, parts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"message": {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}, *(parts or [])]}}


async def warm_up(server: servers.Server) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", headers=HEADERS, timeout=30) as client:
        for n in range(3):
            (await client.post("/a2a/v1/message:send", json=send_body("warm up", f"warm-{n}"))).raise_for_status()


# --- the gzip bomb ---


def bomb_server() -> tuple[ThreadingHTTPServer, str]:
    bomb = gzip.compress(bytes(256 << 20), compresslevel=9)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(bomb)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the server stops reading at its cap
                self.wfile.write(bomb)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    return http, f"http://127.0.0.1:{http.server_address[1]}/notes.txt"


async def bomb_phase(tmp: Path) -> dict[str, Any]:
    http, url = bomb_server()
    server = await start(tmp, "--allow-private-push-urls", "true")
    try:
        await warm_up(server)
        before = memory_kb(server.process.pid)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", headers=HEADERS,
                                     timeout=120) as client:
            answers = await asyncio.gather(*(
                client.post("/a2a/v1/message:send", json=send_body("here", f"bomb-{n}", [{"url": url}]))
                for n in range(BOMBS)))
        peak = memory_kb(server.process.pid)
        await asyncio.sleep(5)
        after = memory_kb(server.process.pid)
    finally:
        servers.stop(server)
        http.shutdown()
    ends = sorted({(a.json()["task"]["status"]["state"], a.json()["task"]["status"]["message"]["parts"][0]["text"])
                   for a in answers})
    return {"baseline_kb": before["VmRSS"], "peak_added_kb": peak["VmHWM"] - before["VmRSS"],
            "after_added_kb": after["VmRSS"] - before["VmRSS"], "ends": ends}


# --- streams: readers and non-readers ---


def stream_request(port: int, body: bytes) -> bytes:
    head = (f"POST /a2a/v1/message:stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nA2A-Version: 1.0\r\n"
            f"X-API-Key: {KEY}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode() + body


async def readers_phase(tmp: Path, text: str) -> dict[str, Any]:
    server = await start(tmp)
    try:
        await warm_up(server)
        before = memory_kb(server.process.pid)
        started = time.monotonic()

        async def read_one(n: int) -> int:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(stream_request(server.port, json.dumps(send_body(text, f"reader-{n}")).encode()))
            total = 0
            while chunk := await reader.read(1 << 20):
                total += len(chunk)
                if chunk.endswith(b"\r\n0\r\n\r\n"):  # the chunked body's end: the stream is over
                    break
            writer.close()
            return total

        received = await asyncio.gather(*(read_one(n) for n in range(STREAMS)))
        took = time.monotonic() - started
        peak = memory_kb(server.process.pid)
        await asyncio.sleep(3)
        after = memory_kb(server.process.pid)
    finally:
        servers.stop(server)
    return {"baseline_kb": before["VmRSS"], "peak_added_kb": peak["VmHWM"] - before["VmRSS"],
            "after_added_kb": after["VmRSS"] - before["VmRSS"], "seconds": took,
            "received_mb_each": sum(received) / len(received) / 1e6}


def open_sockets(pid: int) -> int:
    """The sockets the server process has open (its listener, its connections)."""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            count += os.readlink(fd).startswith("socket:")
    return count


async def non_readers_phase(tmp: Path, text: str, wait_seconds: float, flags: list[str]) -> dict[str, Any]:
    server = await start(tmp, *flags)
    sockets: list[socket.socket] = []
    try:
        await warm_up(server)
        before = memory_kb(server.process.pid)
        started = time.monotonic()
        idle = open_sockets(server.process.pid)
        for n in range(STREAMS):
            # a small receive buffer: the kernel takes little of what the server sends, as for a client that
            # stopped reading long ago, so what waits is the server's to hold
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
            sock.connect(("127.0.0.1", server.port))
            sock.sendall(stream_request(server.port, json.dumps(send_body(text, f"non-reader-{n}")).encode()))
            sockets.append(sock)  # never read
        closed_after = None
        while time.monotonic() - started < wait_seconds:
            await asyncio.sleep(0.5)
            if open_sockets(server.process.pid) <= idle:  # every non-reader's connection closed by the server
                closed_after = time.monotonic() - started
                break
        open_left = open_sockets(server.process.pid) - idle
        peak = memory_kb(server.process.pid)
        for sock in sockets:
            sock.close()
        await asyncio.sleep(3)
        after = memory_kb(server.process.pid)
    finally:
        for sock in sockets:
            sock.close()
        servers.stop(server)
    return {"baseline_kb": before["VmRSS"], "peak_added_kb": peak["VmHWM"] - before["VmRSS"],
            "after_added_kb": after["VmRSS"] - before["VmRSS"], "closed": STREAMS - open_left,
            "closed_within_s": closed_after}


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wait", type=float, default=75.0, help="seconds to wait for the server to close the "
                        "non-readers (default 75: the default write timeout and some)")
    parser.add_argument("--server-flag", action="append", default=[], help="a flag for the server of the "
                        "non-readers phase, e.g. --server-flag=--stream-write-timeout=10 (repeat)")
    parser.add_argument("--phase", choices=["bomb", "readers", "non-readers"], action="append")
    args = parser.parse_args()
    phases = args.phase or ["bomb", "readers", "non-readers"]
    text = echo_text(ECHO_BYTES)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="probe-memory-") as folder:
        tmp = Path(folder)
        if "bomb" in phases:
            results["bomb"] = bomb = await bomb_phase(tmp / "bomb")
            print(f"bomb ({BOMBS} at once): peak +{mb(bomb['peak_added_kb'])}, after +{mb(bomb['after_added_kb'])}"
                  f" over {mb(bomb['baseline_kb'])}; tasks: {bomb['ends']}")
        if "readers" in phases:
            results["readers"] = readers = await readers_phase(tmp / "readers", text)
            print(f"readers ({STREAMS} x {ECHO_BYTES >> 20} MB echo): peak +{mb(readers['peak_added_kb'])} "
                  f"({readers['peak_added_kb'] * 1024 / (STREAMS * ECHO_BYTES):.1f}x the request bytes), after "
                  f"+{mb(readers['after_added_kb'])}; {readers['received_mb_each']:.1f} MB each in "
                  f"{readers['seconds']:.1f} s")
        if "non-readers" in phases:
            results["non_readers"] = quiet = await non_readers_phase(tmp / "non-readers", text, args.wait,
                                                                     args.server_flag)
            print(f"non-readers ({STREAMS}): peak +{mb(quiet['peak_added_kb'])}, after close "
                  f"+{mb(quiet['after_added_kb'])}; closed by the server: {quiet['closed']}/{STREAMS}"
                  + (f", the last after {quiet['closed_within_s']:.1f} s" if quiet["closed_within_s"] else ""))
    report = servers.ROOT / "reports" / "probe-memory.json"
    report.parent.mkdir(exist_ok=True)
    report.write_text(json.dumps(results, indent=2) + "\n")
    print(f"report: {report.relative_to(servers.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
