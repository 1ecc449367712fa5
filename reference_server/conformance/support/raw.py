"""A raw HTTP/1.1 request with its target sent byte for byte (httpx normalizes `..` and the like away)."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import h11


@dataclass
class RawAnswer:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float = 0.0  # from the first byte sent to the last one read
    failure: str | None = None  # why no whole answer came (timed_request): "refused", "closed", "timeout", "not http"
    cut: bool = False  # the client stopped reading: a stream still open at the bound, or the answer past its cap

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def stream(self) -> bool:
        return self.headers.get("content-type", "").startswith("text/event-stream")

    def events(self) -> int:
        """How many whole SSE events the body holds (the SSE spec's line ends: CRLF, LF or CR)."""
        text = self.body.decode("utf-8", errors="replace")
        return len(re.findall(r"(?:\r\n|\r|\n)(?:\r\n|\r|\n)", text))


def raw_request(base_url: str, verb: str, target: str, headers: dict[str, str] | None = None,
                body: bytes = b"", timeout: float = 10.0, *, headers_list: Sequence[tuple[str, str]] = ()) -> RawAnswer:
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


def timed_request(origin: str, verb: str, target: str, headers_list: list[tuple[str, str]], body: bytes, *,
                  timeout: float, max_answer: int) -> RawAnswer:
    """One request, the whole exchange bounded by `timeout` seconds and the answer's body by `max_answer` bytes.

    Never raises for what the server does: a refused or dropped connection, no answer in time, or an answer that is
    not HTTP comes back as `failure`. A stream (text/event-stream) still open when the bound passes is cut, and is
    a failure only if not one whole event came; an answer past the cap is cut where the cap is.
    """
    where = urlsplit(origin)
    host, port = where.hostname or "127.0.0.1", where.port or 80
    conn = h11.Connection(h11.CLIENT)
    length = [("Content-Length", str(len(body)))] if body or verb in ("POST", "PUT", "PATCH") else []
    sent = [("Host", f"{host}:{port}"), *headers_list, *length]  # in curl's order: a reproducer sends the same
    request = conn.send(h11.Request(method=verb, target=target.encode("utf-8", "surrogateescape"), headers=sent))
    request += conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage())
    started = time.monotonic()
    answer = RawAnswer(0, {}, b"")
    chunks: list[bytes] = []
    received, heard = 0, False
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(request)
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    left = timeout - (time.monotonic() - started)
                    if left <= 0:
                        raise TimeoutError
                    sock.settimeout(left)
                    data = sock.recv(65536)
                    heard = heard or bool(data)
                    conn.receive_data(data)
                elif isinstance(event, h11.Response):
                    answer.status = event.status_code
                    answer.headers = {k.decode().lower(): v.decode("latin-1") for k, v in event.headers}
                elif isinstance(event, h11.Data):
                    chunks.append(bytes(event.data))
                    received += len(event.data)
                    if received > max_answer:
                        answer.cut = True
                        break
                elif isinstance(event, h11.EndOfMessage):
                    break
                elif isinstance(event, h11.ConnectionClosed):
                    answer.failure = None if answer.status else "closed"
                    break
    except TimeoutError:  # socket.timeout is TimeoutError
        answer.body = b"".join(chunks)
        answer.cut = True
        if not (answer.status and answer.stream and answer.events()):
            answer.failure = "timeout"
    except ConnectionRefusedError:
        answer.failure = "refused"
    except h11.RemoteProtocolError:
        answer.failure = "not http" if heard and not answer.status else "closed"
    except OSError:
        answer.failure = "closed"
    answer.body = b"".join(chunks)
    answer.seconds = time.monotonic() - started
    return answer
