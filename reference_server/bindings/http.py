"""Small HTTP helpers shared by the bindings: JSON responses, bounded body reads, the A2A-Version."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar, cast

from blacksheep import Content, Request, Response
from blacksheep.exceptions import MessageAborted

from reference_server.a2a.catalogue import V0_3, V1_0
from reference_server.bindings.requestlog import note_version
from reference_server.model.errors import BodyTimeout, ParseError, PayloadTooLarge, VersionNotSupported
from reference_server.platform.disk import ON_GONE
from reference_server.settings import Settings

T = TypeVar("T")

A2A_JSON = b"application/a2a+json"
JSON = b"application/json"

log = logging.getLogger("reference_server.http")

SUPPORTED_VERSIONS = (V1_0, V0_3)  # the versions of the catalogue (a2a/catalogue.py)
_VERSION = re.compile(r"^(\d{1,9})\.(\d{1,9})(?:\.\d{1,9})?$")  # bounded: int() of 4,301 digits raises


# json.dumps with any argument but the defaults builds an encoder per call: one, made once, serves every answer
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(body: Any) -> bytes:
    return _ENCODER.encode(body).encode("utf-8")


def dumps_text(body: Any) -> str:
    """The JSON of dumps, before it is encoded."""
    return _ENCODER.encode(body)


# the ASGI scope key under which the server's HTTP protocol (serving.py) hands each request its Outlet
OUTLET = "reference_server.outlet"


class Outlet(Protocol):
    """What the HTTP protocol under a request tells of its connection (serving.HeadersWithBody is one)."""

    @property
    def gone(self) -> bool:
        """Whether the connection is lost."""
        ...

    def unsent(self) -> int:
        """Bytes written for this connection that its client has not taken yet."""
        ...

    def guard_stalls(self, seconds: float) -> None:
        """From now on, close the connection at once when bytes wait for the client and it takes none of them for
        `seconds` (after the stream's end too: the last bytes are not held forever by a client that never reads)."""
        ...

    def on_lost(self, callback: Callable[[], object]) -> None:
        """Call callback once when the connection is lost (its client left, or it was closed as stalled)."""
        ...

    def abort(self) -> None:
        """Reset the connection now, throwing away what waits for the client."""
        ...

    def cut(self) -> None:
        """Close the connection once what waits has been sent, leaving the response unfinished (a stream without its
        end): what the response writes after it is dropped."""
        ...


def outlet_of(request: Request) -> Outlet | None:
    """The request's Outlet; None when it is served by another HTTP protocol than the server's own."""
    return cast(dict[str, Any], request.scope).get(OUTLET)


class ClientGone(Exception):
    """The client left before its answer: what was being read for it was dropped, and nobody reads an answer."""


async def unless_gone(request: Request, work: Awaitable[T]) -> T:
    """The result of work, whose disk reads (disk.off_loop) stop when the request's client leaves: then ClientGone.
    Only for work whose one effect is its answer (GetTask, ListTasks): the server's protocol already knows of a
    lost connection, so a read costs one callback, and a request nothing more."""
    outlet = outlet_of(request)
    if outlet is None:
        return await work
    token = ON_GONE.set(outlet.on_lost)
    try:
        return await work
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if outlet.gone and task is not None and not task.cancelling():  # not a shutdown: the client's leaving
            raise ClientGone() from None
        raise
    finally:
        ON_GONE.reset(token)


MAX_INT_DIGITS = 100  # the digits of one JSON integer (Python refuses more than 4,300 digits; A2A needs ~20)


class _Refused(ValueError):
    """A JSON value the server does not take; the message says which and why."""


def _parse_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS + 1:  # + 1: the sign
        raise _Refused(f"an integer of more than {MAX_INT_DIGITS} digits")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text[:24]} is too large for a double")
    return value


def _parse_constant(name: str) -> Any:
    raise _Refused(f"{name} is not JSON (RFC 8259: numbers are finite)")


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # \uD800-\uDFFF as a JSON escape
_SURROGATE = re.compile("[\ud800-\udfff]")  # what is left of a \uD8xx escape with no partner: not UTF-8


async def read_json(request: Request, settings: Settings, *, limit: int | None = None, limit_name: str = "MaxBodyBytes",
                    blank: Any = None) -> Any:
    """The request's body as JSON: the one reader of both bindings, every version, the auth gate and the push
    receiver.

    limit: bytes, instead of A2A__MaxBodyBytes; limit_name: the setting a refusal names (A2A__<limit_name>);
    blank: what an empty body reads as (None: a parse error).
    """
    body = await read_body(request, settings.max_body_bytes if limit is None else limit,
                           settings.body_timeout.total_seconds(), limit_name)
    if blank is not None and not body.strip():
        return blank
    return parse_json(body, max_depth=settings.max_json_depth)


def parse_json(body: bytes, *, max_depth: int) -> Any:
    """The body as JSON, within the server's limits, or a ParseError naming what is wrong (the front door of
    both bindings, every version): UTF-8 only (A2A §14.1.1), nesting at most max_depth, integers of at most
    MAX_INT_DIGITS digits, finite numbers only, strings without lone surrogates."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"Invalid JSON payload: the body is not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except _Refused as refused:
        raise ParseError(f"Invalid JSON payload: {refused}") from None
    except RecursionError:
        raise ParseError(_too_deep(max_depth)) from None
    except ValueError as exc:  # json.JSONDecodeError is one
        raise ParseError(f"Invalid JSON payload: {exc}") from None
    if _may_have_problem(text, max_depth) and _problem(value, max_depth, named=False) is not None:
        raise ParseError(str(_problem(value, max_depth, named=True)))  # the walk again, naming where
    return value


def _may_have_problem(text: str, max_depth: int) -> bool:
    """Whether the parsed value needs the walk at all, told from the text in C-speed scans: it cannot nest deeper
    than its count of brackets, and in text that decoded as UTF-8 a lone surrogate can only come from an escape."""
    return text.count("[") + text.count("{") > max_depth or _ESCAPED_SURROGATE.search(text) is not None


def _too_deep(max_depth: int) -> str:
    return f"Invalid JSON payload: nested deeper than {max_depth} levels (A2A__MaxJsonDepth)"


def _problem(value: Any, max_depth: int, *, named: bool) -> str | None:
    """What makes a parsed value unacceptable: too deep, or a string that cannot be UTF-8; None if nothing.
    named: say where (a JSON path), which costs a string per value, so only once something was found."""
    stack: list[tuple[Any, int, str]] = [(value, 0, "$")]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return f"Invalid JSON payload: {path} holds a lone UTF-16 surrogate, which is not valid UTF-8"
        elif isinstance(node, dict):
            if depth >= max_depth:
                return _too_deep(max_depth)
            for key, item in node.items():
                if _SURROGATE.search(key):
                    return f"Invalid JSON payload: a key in {path} holds a lone UTF-16 surrogate"
                stack.append((item, depth + 1, f"{path}.{key}" if named else path))
        elif isinstance(node, list):
            if depth >= max_depth:
                return _too_deep(max_depth)
            stack.extend((item, depth + 1, f"{path}[{index}]" if named else path) for index, item in enumerate(node))
    return None


def json_response(body: Any, status: int = 200, content_type: bytes = JSON) -> Response:
    return Response(status, [(b"Cache-Control", b"no-store")], Content(content_type, dumps(body)))


async def read_body(request: Request, limit: int, timeout: float, limit_name: str = "MaxBodyBytes") -> bytes:
    """The whole body, refused before parsing when it is larger than `limit` bytes (the setting A2A__<limit_name>)
    or slower than `timeout` seconds to arrive (a client that dribbles its body holds nothing for long)."""
    declared = request.get_first_header(b"Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(int(declared), limit, limit_name)
    # one growing buffer, not a list of the pieces as they came: 20 bodies of 4 MB arriving at once were 1,280
    # pieces of 64 KiB, too small to be given back to the kernel once freed (glibc keeps them in its heap)
    body = bytearray()
    try:
        async with asyncio.timeout(timeout):
            # blacksheep's stub types stream() as a coroutine; it is an async generator
            async for chunk in request.stream():  # type: ignore[attr-defined]
                if len(body) + len(chunk) > limit:
                    raise _too_large(len(body) + len(chunk), limit, limit_name)
                body += chunk
    except TimeoutError:
        raise BodyTimeout(f"Request body too slow: not all there after {timeout:g} s (A2A__BodyTimeout)") from None
    except MessageAborted:
        raise BodyAborted(len(body), declared.decode("latin-1") if declared is not None else None) from None
    return bytes(body)


class BodyAborted(Exception):
    """The client closed the connection before its whole body arrived: nobody is left to answer, and nothing was
    started (every binding reads the body before it does anything)."""

    def __init__(self, received: int, declared: str | None) -> None:
        super().__init__(received, declared)
        self.received = received
        self.declared = declared


async def end_when_client_gone(request: Request, handler: Callable[[Request], Awaitable[Response]]) -> Response:
    """The middleware of every binding, the auth gate and the push receiver: a client that leaves is an ordinary
    end, one line without a traceback (BlackSheep would log an ERROR with one, or, for an exception handler of
    ours, a line of its own with the whole URL), and an answer nobody reads. A body the client aborted is said
    at INFO; a read dropped because its client left (unless_gone), at DEBUG."""
    try:
        return await handler(request)
    except BodyAborted as aborted:
        of = f" of {aborted.declared}" if aborted.declared else ""
        said = f"after {aborted.received}{of} bytes of its body"
    except MessageAborted:  # BlackSheep's own, from a read that is not read_body's
        said = "before its whole body arrived"
    except ClientGone:
        log.debug("%s %s: the client closed the connection before its answer; its reads were dropped",
                  request.method, request.path)
        return Response(499, None, None)
    log.info("%s %s: the client closed the connection %s; nothing was done", request.method, request.path, said)
    return Response(400, None, None)


def _too_large(size: int, limit: int, limit_name: str) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"Request body too large: {size} bytes or more; the limit is {limit} bytes (A2A__{limit_name})"
    )


def major_minor(text: str) -> str | None:
    """The Major.Minor of an A2A-Version value ("1.0", "01.0", "1.0.3" give "1.0"), or None if it is not one.
    A2A §3.6: Major.Minor decides; a patch number is ignored."""
    match = _VERSION.match(text)
    return f"{int(match.group(1))}.{int(match.group(2))}" if match else None


def requested_version(request: Request) -> str:
    """A2A §3.6: the A2A-Version header, else the query parameter; missing or empty means 0.3."""
    raw = request.get_first_header(b"A2A-Version")
    text = raw.decode("latin-1").strip() if raw is not None else ""
    if not text:
        values = request.query.get("A2A-Version") or request.query.get("a2a-version") or [""]
        text = values[0].strip()
    if not text:
        note_version(V0_3)
        return V0_3
    version = major_minor(text)
    if version not in SUPPORTED_VERSIONS:
        raise VersionNotSupported(
            f"A2A version {text!r} is not supported; send the header A2A-Version: 1.0 "
            "(or A2A-Version: 0.3 for the 0.3 JSON-RPC methods)",
            metadata={"requestedVersion": text, "supportedVersions": "1.0,0.3"},
        )
    note_version(version)
    return version
