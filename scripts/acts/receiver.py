"""A webhook endpoint on 127.0.0.1 (ACTS runner requirement webhook_endpoint): every test gets its own path and
the runner reads what the server POSTed there. It only listens; it sends nothing."""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 1 << 20


@dataclass(frozen=True)
class Delivery:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes
    at: float


class Receiver:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self._lock = threading.Lock()
        self._deliveries: list[Delivery] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                receiver._record(Delivery(self.path, headers, body, time.monotonic()))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.host = host
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, name="acts-webhook", daemon=True)
        self.thread.start()

    def _record(self, delivery: Delivery) -> None:
        with self._lock:
            self._deliveries.append(delivery)

    def url_for(self, label: str) -> str:
        """A fresh webhook URL for one test on one binding."""
        return f"http://{self.host}:{self.port}/webhook/{label}/{uuid.uuid4()}"

    def received(self, url: str) -> list[Delivery]:
        path = url.split(f":{self.port}", 1)[-1]
        with self._lock:
            return [d for d in self._deliveries if d.path == path]

    def wait(self, url: str, seconds: float, enough: int = 1) -> list[Delivery]:
        """What arrived at url, waiting up to seconds for `enough` deliveries."""
        deadline = time.monotonic() + seconds
        while True:
            found = self.received(url)
            if len(found) >= enough or time.monotonic() >= deadline:
                return found
            time.sleep(0.1)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
