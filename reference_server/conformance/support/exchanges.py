"""What the suite sent and what came back, for failure messages a person can act on.

Every HTTP exchange of a scenario is recorded below the A2A client, at httpx's transport: the request line, the
A2A-Version it said, its body; the status, the content type and the body or the events that came back, capped.
A failure then shows the exchange it is about in A2A terms, never as the exception it caused. JSON is shown as
compact JSON with long strings shortened, so a trimmed body keeps its shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

BODY_CAP = 64 * 1024  # bytes of a body kept for a message: enough for any answer the suite reads
LONG_STRING = 80  # a string longer than this is shown as its start and "…"
SHOWN = 600  # characters of a body in a message


def shortened(value: Any) -> Any:
    """The JSON value with every long string cut to its start, so that a body shown in a message keeps its
    shape (the base64 of a file part does not hide the fields after it)."""
    if isinstance(value, str) and len(value) > LONG_STRING:
        return value[: LONG_STRING - 20] + "…"
    if isinstance(value, dict):
        return {key: shortened(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [shortened(inner) for inner in value]
    return value


def shown(value: Any, limit: int = SHOWN) -> str:
    """A JSON value as a person reads it on the wire: compact JSON, long strings shortened, at most `limit`
    characters (cut with "…")."""
    try:
        text = json.dumps(shortened(value), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def body_text(raw: bytes, content_type: str, limit: int = SHOWN) -> str:
    """A body as a person reads it: JSON shown as JSON, an HTML page as its title, anything else as text."""
    if not raw:
        return "(no body)"
    text = raw.decode("utf-8", errors="replace")
    try:
        return shown(json.loads(text), limit)
    except ValueError:
        pass
    if "html" in content_type or text.lstrip().lower().startswith(("<!doctype html", "<html")):
        title = text.partition("<title>")[2].partition("</title>")[0].strip()
        return f"an HTML page{f' titled {title!r}' if title else ''}"
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def sse_data(raw: bytes) -> list[str]:
    """The data of each event of an SSE body, by the SSE line rules (CRLF, LF or CR end a line)."""
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    found = []
    for block in text.split("\n\n"):
        data = [line[5:].removeprefix(" ") for line in block.split("\n") if line.startswith("data:")]
        if data:
            found.append("\n".join(data))
    return found


@dataclass
class Exchange:
    """One request and what came back, as far as it came."""

    method: str
    target: str  # the path and query, or the whole URL when it is not the server's
    version: str | None  # the A2A-Version header it sent, if any
    request_body: bytes
    status: int | None = None
    content_type: str = ""
    body: bytearray = field(default_factory=bytearray)
    failure: str | None = None  # what happened instead of an answer: the connection closed, no answer in time

    def request_line(self) -> str:
        said = f"  A2A-Version: {self.version}" if self.version is not None else "  (no A2A-Version)"
        return f"{self.method} {self.target}{said}"

    def describe(self, limit: int = SHOWN) -> str:
        """The exchange in a few lines: request line and body, status and content type, the body or the events."""
        lines = [self.request_line()]
        if self.request_body:
            lines.append("  " + body_text(self.request_body, "application/json", limit))
        if self.status is None:
            lines.append(f"  {self.failure or 'no answer'}")
            return "\n".join(lines)
        head = f"HTTP {self.status} {self.content_type or '(no content type)'}"
        if self.content_type.startswith("text/event-stream"):
            events = sse_data(bytes(self.body))
            lines.append(f"{head}: {len(events)} event{'s' * (len(events) != 1)}")
            lines += [f"  data: {body_text(data.encode(), 'application/json', 240)}" for data in events[:6]]
            if len(events) > 6:
                lines.append(f"  … and {len(events) - 6} more")
            if self.failure:
                lines.append(f"  {self.failure}")
            return "\n".join(lines)
        lines.append(head)
        lines.append("  " + body_text(bytes(self.body), self.content_type, limit))
        return "\n".join(lines)


class _Tee(httpx.SyncByteStream):
    """A response body passed on as it is read, its first BODY_CAP bytes kept in the exchange."""

    def __init__(self, inner: httpx.SyncByteStream, exchange: Exchange) -> None:
        self.inner, self.exchange = inner, exchange

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self.inner:
                room = BODY_CAP - len(self.exchange.body)
                if room > 0:
                    self.exchange.body += chunk[:room]
                yield chunk
        except httpx.TransportError as error:
            self.exchange.failure = closed(error)
            raise

    def close(self) -> None:
        self.inner.close()


def closed(error: Exception) -> str:
    """What a transport error means to a person."""
    if isinstance(error, httpx.TimeoutException):
        return "no answer in time (the client gave up waiting)"
    if isinstance(error, httpx.ConnectError):
        return "the connection was refused: nothing listens there"
    if isinstance(error, httpx.RemoteProtocolError):
        return "the connection closed before the answer ended"
    return "the connection failed before an answer came"


class Recording(httpx.BaseTransport):
    """httpx's transport, with every exchange appended to `exchanges` as it happens."""

    def __init__(self, exchanges: list[Exchange], inner: httpx.BaseTransport) -> None:
        self.exchanges, self.inner = exchanges, inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        exchange = Exchange(request.method, request.url.raw_path.decode("ascii", errors="replace"),
                            request.headers.get("A2A-Version"), body[:BODY_CAP])
        self.exchanges.append(exchange)
        try:
            response = self.inner.handle_request(request)
        except httpx.TransportError as error:
            exchange.failure = closed(error)
            raise
        exchange.status = response.status_code
        exchange.content_type = response.headers.get("content-type", "")
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=_Tee(response.stream, exchange), extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()


def recording_client(base_url: str, exchanges: list[Exchange], *, verify: Any, timeout: float = 30) -> httpx.Client:
    """An httpx client whose exchanges are recorded."""
    transport = Recording(exchanges, httpx.HTTPTransport(verify=verify))
    return httpx.Client(base_url=base_url, timeout=timeout, transport=transport)
