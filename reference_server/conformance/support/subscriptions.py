"""Subscriptions a scenario keeps open beside its own calls: one read on its own thread and connection, as a
separate client's would be (Subscriber), and one whose client stops reading after its first event (StoppedReader)."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from reference_server.conformance.support.reasons import failure_text
from reference_server.conformance.support.replies import StreamReply, described, event_kinds

FOLLOW_SECONDS = 20.0  # how long a step waits for a subscriber's next event or end before it fails


@dataclass
class Subscriber:
    """A subscription read on its own thread and connection, as a separate client's would be."""

    seen: list[dict[str, Any]] = field(default_factory=list)  # its events so far, in 1.0 shape
    reply: StreamReply | None = None
    failure: BaseException | None = None
    ended: bool = False
    left: bool = False  # its client closed the connection on purpose
    changed: threading.Condition = field(default_factory=threading.Condition)
    http: httpx.Client | None = None

    def take(self, event: dict[str, Any]) -> None:
        with self.changed:
            self.seen.append(event)
            self.changed.notify_all()

    def wait_until(self, what: str, test: Callable[[list[dict[str, Any]]], bool]) -> None:
        with self.changed:
            came = self.changed.wait_for(lambda: test(self.seen) or self.ended, timeout=FOLLOW_SECONDS)
        assert came, f"expected a subscriber to see the {what} within {FOLLOW_SECONDS:.0f} s, it saw " \
            f"{event_kinds(self.seen)}"
        assert test(self.seen), f"expected a subscriber to see the {what}, but its subscription ended first: " \
            f"{self.ending()}"

    def ending(self) -> str:
        """How the subscription ended, as a message says it."""
        if self.failure is not None:
            return failure_text(self.failure)
        return f"{described(self.reply)} (it saw {event_kinds(self.seen)})"

    def result(self) -> StreamReply:
        with self.changed:
            ended = self.changed.wait_for(lambda: self.ended, timeout=FOLLOW_SECONDS)
        assert ended, f"expected the subscription to end within {FOLLOW_SECONDS:.0f} s, it is still open after " \
            f"{event_kinds(self.seen)}"
        if self.failure is not None:
            raise self.failure
        assert self.reply is not None, \
            f"expected the subscription's stream, got no answer (it saw {event_kinds(self.seen)})"
        return self.reply

    def leave(self) -> None:
        """Close the subscription's connection, as a client that goes away does."""
        self.left = True
        if self.http is not None:
            self.http.close()



class StoppedReader:
    """A subscription whose client reads its first event and then nothing more, on a socket whose kernel buffer
    is small, as for a client that hung: whatever the server sends beyond that waits on the server's side."""

    def __init__(self, request: httpx.Request) -> None:
        host, port = request.url.host, request.url.port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(FOLLOW_SECONDS)
        self.sock.connect((host, port))
        head = f"{request.method} {request.url.raw_path.decode()} HTTP/1.1\r\n" + "".join(
            f"{name}: {value}\r\n" for name, value in request.headers.items())
        self.sock.sendall(head.encode() + b"\r\n" + request.read())
        received = b""
        while b"\r\n\r\n" not in received or b"\n\n" not in received.partition(b"\r\n\r\n")[2]:
            chunk = self.sock.recv(4096)
            assert chunk, "expected the subscription's first event, the connection closed after: " \
                f"{received[:300].decode(errors='replace') or '(nothing)'}"
            received += chunk
        assert received.startswith(b"HTTP/1.1 200"), \
            f"expected HTTP/1.1 200 and a stream, got: {received[:300].decode(errors='replace')}"

    def dropped(self) -> bool:
        """Whether the server has closed this connection (TCP_INFO's state is no longer ESTABLISHED)."""
        state = struct.unpack("B", self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1))[0]
        return bool(state != 1)

    def close(self) -> None:
        self.sock.close()

