"""The request log: one line per exchange (who, binding, version, operation, status, duration, error), never a key,
a token or a body (docs/configuration.md, A2A__RequestLog).

The layers that learn each fact note it on the request's Note as they go (the key guard the caller, http.py the
version, the bindings the operation, bindings/errors.py the error they render), and the middleware writes the line
when the answer has left: for a stream, when the stream ends. The Note travels in a context variable: uvicorn runs
each request in a task of its own, and a stream's pump task inherits it, so nothing is threaded through the calls.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from datetime import UTC, datetime

from blacksheep import Request, Response
from blacksheep.contents import StreamedContent
from blacksheep.exceptions import HTTPException

log = logging.getLogger("reference_server.requests")

TEXT = "text"
JSON = "json"
OFF = "off"
MODES = (TEXT, JSON, OFF)
NO_KEY = "(no key)"

# why a request has no caller, as the 401's line says it (never the key itself)
NO_KEY_GIVEN = "no key"
UNKNOWN_KEY = "unknown key"
AMBIGUOUS_KEY = "ambiguous key"
CONFLICTING_CREDENTIALS = "conflicting credentials"


class Note:
    """What the line of one request says; filled in by the layers as they learn it."""

    __slots__ = ("binding", "caller", "error", "operation", "owner", "reason", "started", "version")

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.binding: str | None = None
        self.version: str | None = None
        self.operation: str | None = None
        self.owner: str | None = None
        self.caller: str | None = None
        self.error: str | None = None
        self.reason: str | None = None


_NOTE: ContextVar[Note | None] = ContextVar("reference_server.request_note", default=None)


def noted() -> Note | None:
    """The Note of the request being served, None when the request log is off (or outside a request)."""
    return _NOTE.get()


def note_binding(binding: str) -> None:
    if (note := _NOTE.get()) is not None:
        note.binding = binding


def note_version(version: str) -> None:
    if (note := _NOTE.get()) is not None:
        note.version = version


def note_operation(operation: str) -> None:
    """The operation as the binding named it: a method or route of the table, never text the client made up."""
    if (note := _NOTE.get()) is not None:
        note.operation = operation


def note_caller(owner: str, caller: str) -> None:
    if (note := _NOTE.get()) is not None:
        note.owner, note.caller = owner, caller


def note_refusal(reason: str) -> None:
    """Why the key guard found no caller: one of NO_KEY_GIVEN, UNKNOWN_KEY, AMBIGUOUS_KEY, CONFLICTING_CREDENTIALS."""
    if (note := _NOTE.get()) is not None:
        note.reason = reason


def note_error(name: str) -> None:
    """The A2A error class the answer carries (the first one, for a stream that ends with an error event too)."""
    if (note := _NOTE.get()) is not None and note.error is None:
        note.error = name


def text_line(note: Note, status: int, elapsed_ms: float) -> str:
    who = f"owner={note.owner} caller={note.caller}" if note.caller is not None else f"caller={NO_KEY}"
    line = (f"{note.binding or '-'} {note.version or '-'} {note.operation or '-'} {who} status={status} "
            f"in {elapsed_ms:.1f} ms")
    if note.error is not None:
        line += f" error={note.error}"
    if note.reason is not None:
        line += f" ({note.reason})"
    return line


def json_line(note: Note, status: int, elapsed_ms: float) -> str:
    record = {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "owner": note.owner, "caller": note.caller, "binding": note.binding, "version": note.version,
        "operation": note.operation, "status": status, "ms": round(elapsed_ms, 1), "error": note.error,
        "reason": note.reason,
    }
    return json.dumps(record, separators=(",", ":"))


Handler = Callable[[Request], Awaitable[Response]]
Middleware = Callable[[Request, Handler], Awaitable[Response]]


def request_log(mode: str) -> Middleware:
    """The middleware that writes one line per exchange, as text or as a JSON object, at INFO on
    reference_server.requests. While that logger is below INFO (a test run), it costs one level check."""
    line = json_line if mode == JSON else text_line

    def write(note: Note, status: int) -> None:
        _written(line(note, status, (time.perf_counter() - note.started) * 1000))

    async def log_requests(request: Request, handler: Handler) -> Response:
        if not log.isEnabledFor(logging.INFO):
            return await handler(request)
        note = Note()
        _NOTE.set(note)  # not reset: the request's task ends with it, and a stream's pump must still see it
        try:
            response = await handler(request)
        except HTTPException as error:  # BlackSheep answers it with its status
            write(note, error.status)
            raise
        except Exception:
            write(note, 500)  # BlackSheep answers it with a 500
            raise
        content = response.content
        if isinstance(content, StreamedContent):  # a stream: the line when it ends, however it ends
            response.content = StreamedContent(content.type, _then(content.generator, write, note, response.status))
        else:
            write(note, response.status)
        return response

    return log_requests


def _then(generator: Callable[[], AsyncIterable[bytes]], write: Callable[[Note, int], None], note: Note,
          status: int) -> Callable[[], AsyncIterator[bytes]]:
    async def body() -> AsyncIterator[bytes]:
        try:
            async for chunk in generator():
                yield chunk
        finally:
            write(note, status)

    return body


def _to_the_log(line: str) -> None:
    log.info("%s", line)


_written: Callable[[str], None] = _to_the_log


def write_to(lines: Callable[[str], None]) -> None:
    """Hand the finished lines to `lines` instead of making log records of them (console.ConsoleLines: the server's
    own console, where a record cost ten times the line)."""
    global _written
    _written = lines


def configure(mode: str) -> None:
    """The lines as records of `reference_server.requests`; JSON lines are written bare, one object per line,
    without the text log's prefix."""
    if mode != JSON:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
