"""A webhook and file server for tests: HTTPS on 127.0.0.1 (certificate from a test CA only the test process
trusts) that records every request and answers as told: a status per request, a redirect, or a file."""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import trustme

# one test CA for the whole run; the server under test trusts it through the Outbound it is given
CA = trustme.CA()
_CERT = CA.issue_cert("localhost", "127.0.0.1", "push.test", "files.test")
# names the test resolver answers (no DNS is asked for them)
TEST_HOSTS = {"push.test": ["127.0.0.1"], "files.test": ["127.0.0.1"]}


def client_ssl_context() -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    CA.configure_trust(context)
    return context


async def test_resolver(host: str, port: int) -> list[str]:
    """The outbound resolver of the test servers: TEST_HOSTS, else the system's answer (only for localhost and
    IP literals in practice: tests never name a public host)."""
    if host in TEST_HOSTS:
        return TEST_HOSTS[host]
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Webhook:
    """Started by start(); url is https://localhost:<port>/hook. answers: the statuses of the next requests
    (then 200); redirect_to: answer every request with a 302 to that URL."""

    received: list[Received] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    redirect_to: str | None = None
    files: dict[str, tuple[bytes, str]] = field(default_factory=dict)  # GET /files/<name> -> (bytes, media type)
    encodings: dict[str, str] = field(default_factory=dict)  # a served file's Content-Encoding, by name
    url: str = ""
    base: str = ""
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, host: str = "localhost", *, tls: bool = True) -> Webhook:
        """Listen on 127.0.0.1: over HTTPS with the test CA's certificate (only this process trusts it), or over
        plain HTTP for a server under test that runs as its own process."""
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with hook._lock:
                    hook.received.append(Received("POST", self.path, dict(self.headers.items()), body))
                    status = hook.answers.pop(0) if hook.answers else 200
                served = hook.files.get(self.path.removeprefix("/files/")) if self.command == "GET" else None
                if hook.redirect_to is not None:
                    self.send_response(302)
                    self.send_header("Location", hook.redirect_to)
                elif served is not None:
                    self.send_response(200)
                    self.send_header("Content-Type", served[1])
                    if encoding := hook.encodings.get(self.path.removeprefix("/files/")):
                        self.send_header("Content-Encoding", encoding)
                    self.send_header("Content-Length", str(len(served[0])))
                    self.end_headers()
                    self.wfile.write(served[0])
                    return
                else:
                    self.send_response(404 if self.command == "GET" else status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            _CERT.configure_cert(context)
            server.socket = context.wrap_socket(server.socket, server_side=True)
        self._server = server
        # a short poll: stop() waits for the loop to see it (0.5 s by default, every scenario with a webhook)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.base = f"{'https' if tls else 'http'}://{host}:{server.server_address[1]}"
        self.url = self.base + "/hook"
        return self

    def file_url(self, name: str) -> str:
        return f"{self.base}/files/{name}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """The first `count` requests, once they have arrived."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if len(self.received) >= count:
                    return list(self.received[:count])
            if time.monotonic() > deadline:
                raise AssertionError(f"the webhook received {len(self.received)} requests, not {count}")
            time.sleep(0.01)

    def requests(self) -> list[Received]:
        with self._lock:
            return list(self.received)


def until(condition: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)
    return value
