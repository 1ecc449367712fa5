"""A raw HTTP/1.1 request with its target sent byte for byte (httpx normalizes `..` and the like away)."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import h11


@dataclass
class RawAnswer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def raw_request(base_url: str, verb: str, target: str, headers: dict[str, str] | None = None,
                body: bytes = b"", timeout: float = 10.0, *, headers_list: list[tuple[str, str]] = ()) -> RawAnswer:
    """Send one request to base_url (loopback) with the target exactly as given, and read the whole answer;
    headers_list may repeat a header."""
    where = urlsplit(base_url)
    host, port = where.hostname or "127.0.0.1", where.port or 80
    conn = h11.Connection(h11.CLIENT)
    sent = [("Host", f"{host}:{port}"), ("Content-Length", str(len(body))), *(headers or {}).items(),
            *headers_list]
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(conn.send(h11.Request(method=verb, target=target.encode(), headers=sent)))
        sock.sendall(conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage()))
        status, answer_headers, chunks = 0, {}, []
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(sock.recv(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
                answer_headers = {k.decode(): v.decode("latin-1") for k, v in event.headers}
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                return RawAnswer(status, answer_headers, b"".join(chunks))
