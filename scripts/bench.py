"""`make bench`: latency and throughput of the main operations against a server on loopback.

Timing goals live here, never in tests. The server runs as its own process on 127.0.0.1 (a free
port, a temporary workspace) and is stopped at the end; every loop is bounded.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

KEY = "k_bench"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(workspace: Path) -> tuple[subprocess.Popen[bytes], str]:
    callers = workspace / ".volcanic" / "a2a" / "callers.json"
    callers.parent.mkdir(parents=True)
    callers.write_text(json.dumps([{"name": "bench", "key": KEY}]))
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "reference_server", "--workspace", str(workspace), "--host", "127.0.0.1",
         "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(url + "/.well-known/agent-card.json", timeout=1)
            return process, url
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("the server did not start")


def message(text: str) -> dict[str, object]:
    return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}


def measure(name: str, count: int, call: Callable[[], None]) -> None:
    samples = []
    started = time.perf_counter()
    for _ in range(count):
        t0 = time.perf_counter()
        call()
        samples.append((time.perf_counter() - t0) * 1000)
    total = time.perf_counter() - started
    samples.sort()
    p95 = samples[int(len(samples) * 0.95) - 1]
    print(f"{name:<44} n={count:<5} p50={statistics.median(samples):7.2f} ms  p95={p95:7.2f} ms  "
          f"{count / total:8.1f} /s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=200, help="requests per measurement")
    args = parser.parse_args()
    headers = {"X-API-Key": KEY, "A2A-Version": "1.0"}
    with tempfile.TemporaryDirectory() as tmp:
        process, url = start_server(Path(tmp))
        try:
            with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
                task_id = client.post("/a2a/v1/message:send",
                                      json={"message": message("warm up")}).json()["task"]["id"]

                def jsonrpc_send() -> None:
                    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                            "params": {"message": message("hello bench")}}
                    assert "result" in client.post("/a2a", json=body).json()

                def rest_send() -> None:
                    assert client.post("/a2a/v1/message:send", json={"message": message("hello")}).status_code == 200

                def rest_stream() -> None:
                    with client.stream("POST", "/a2a/v1/message:stream", json={"message": message("hi there")}) as r:
                        assert sum(1 for line in r.iter_lines() if line.startswith("data:")) >= 3

                def get_task() -> None:
                    assert client.get(f"/a2a/v1/tasks/{task_id}").status_code == 200

                def card() -> None:
                    assert client.get("/.well-known/agent-card.json").status_code == 200

                measure("public card", args.n, card)
                measure("GetTask (REST)", args.n, get_task)
                measure("SendMessage, blocking echo (JSON-RPC)", args.n, jsonrpc_send)
                measure("SendMessage, blocking echo (REST)", args.n, rest_send)
                measure("SendStreamingMessage, whole stream (REST)", args.n // 2, rest_stream)
                def list_tasks() -> None:
                    assert client.get("/a2a/v1/tasks?pageSize=100").status_code == 200

                total = client.get("/a2a/v1/tasks?pageSize=1").json()["totalSize"]
                measure(f"ListTasks, 100 of {total} task files", args.n // 4, list_tasks)
                with ThreadPoolExecutor(8) as pool:
                    started = time.perf_counter()
                    list(pool.map(lambda _: rest_send(), range(args.n)))
                    elapsed = time.perf_counter() - started
                print(f"{'SendMessage, 8 concurrent callers (REST)':<44} n={args.n:<5} "
                      f"{args.n / elapsed:8.1f} /s in total")
        finally:
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    main()
