"""A2A__Record: every exchange appended as one JSONL line per caller, with its checks, credentials masked.

The capture sits at the ASGI boundary (RecordingApplication), so the bindings and the domain are untouched and
what is recorded is what went over the wire. The event loop only collects the bytes: classifying, checking and
serialising run on one recorder thread (in arrival order, which the messageId check needs), and the line goes to
the disk writer thread (disk.WRITER.append, as the session journals do). Without A2A__Record the app is a plain
Application and nothing of this runs.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode

from blacksheep import Application

from reference_server.bindings.auth import CALLER_KEY
from reference_server.bindings.faults import FAULT_KEY
from reference_server.clientcheck import checks, schemas
from reference_server.clientcheck.exchange import NO_BODY, NOT_JSON, REST, Call, Exchange, classify, is_recorded
from reference_server.model.caller import Caller
from reference_server.platform.disk import WRITER
from reference_server.settings import Settings

log = logging.getLogger("reference_server.record")

UNAUTHENTICATED = "_unauthenticated"  # the file of requests without a valid key (no caller has a leading _)
MASK = "***"
CLOSE_TIMEOUT_SECONDS = 10.0
# the request headers a record keeps: what says how the client spoke; the credentials are masked
KEPT_HEADERS = ("content-type", "accept", "a2a-version", "a2a-extensions", "x-a2a-extensions", "user-agent",
                "x-api-key", "authorization", "x-a2a-notification-token")
SECRET_HEADERS = frozenset({"x-api-key", "authorization", "x-a2a-notification-token"})
SECRET_FIELDS = frozenset({"token", "credentials"})  # push config token and authentication credentials

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class Recorder:
    """Turns captured exchanges into checked, masked JSONL lines, one file per caller, in arrival order."""

    def __init__(self, folder: Path, max_json_depth: int = Settings.max_json_depth) -> None:
        self.folder = folder
        self._max_json_depth = max_json_depth  # the server's: a body it refused is reported as not JSON
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recorder")
        self._callers: dict[str | None, checks.CallerState] = {}  # only the recorder thread touches it
        self._last: Future[None] | None = None

    def submit(self, exchange: Exchange | Callable[[], Exchange]) -> None:
        """Record an exchange, or the exchange a function makes (on the recorder thread, off the event loop)."""
        try:
            self._thread.submit(self._record, exchange)
        except RuntimeError:  # closed: the server is stopping and its last exchanges are already on disk
            log.warning("an exchange ended after the recorder closed; it is not recorded")

    def close(self) -> None:
        """Wait until every exchange submitted so far is on disk (called when the server stops)."""
        self._thread.shutdown(wait=True)
        if self._last is not None:
            try:
                self._last.result(CLOSE_TIMEOUT_SECONDS)
            except Exception:
                log.exception("the last record could not be written")

    def flush(self) -> None:
        """Wait until every exchange answered so far is on disk, and keep recording."""
        self._thread.submit(lambda: None).result()
        if self._last is not None:
            self._last.result(CLOSE_TIMEOUT_SECONDS)

    def _record(self, exchange: Exchange | Callable[[], Exchange]) -> None:
        try:
            exchange = exchange if isinstance(exchange, Exchange) else exchange()
            line = self.line(exchange)
        except Exception:  # a record must never take the recorder down
            log.exception("could not record an exchange")
            return
        self._last = WRITER.append(self.folder / file_name(exchange.caller), line + "\n")

    def line(self, exchange: Exchange) -> str:
        call = classify(exchange, self._max_json_depth)
        outcome = checks.check(call, exchange, self._callers.setdefault(exchange.caller, checks.CallerState()))
        record = {
            "time": datetime.fromtimestamp(exchange.time, UTC).isoformat(timespec="milliseconds").replace(
                "+00:00", "Z"),
            "caller": exchange.caller,
            "binding": call.binding,
            "version": call.version,
            "operation": call.operation,
            "method": call.wire_name,
            "request": request_record(exchange, call),
            "response": response_record(exchange),
            **({"fault": exchange.fault} if exchange.fault is not None else {}),
            "checks": {"violations": [v.as_json() for v in outcome.violations], "uses": outcome.uses,
                       "schemaChecked": outcome.schema_checked},
        }
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def file_name(caller: str | None) -> str:
    if caller is None:
        return UNAUTHENTICATED + ".jsonl"
    owner, _, name = caller.partition("/")  # every caller file has "--": none is _unauthenticated.jsonl
    return "--".join(re.sub(r"[^A-Za-z0-9._-]", "_", part) for part in (owner, name)) + ".jsonl"


def request_record(exchange: Exchange, call: Call) -> dict[str, Any]:
    headers = {}
    for name in KEPT_HEADERS:
        value = exchange.header(name)
        if value is not None:
            headers[name] = mask_header(name, value)
    record: dict[str, Any] = {"method": exchange.method, "path": exchange.path, "headers": headers}
    if exchange.query:
        record["query"] = masked_query(exchange.query, query_parameters(call))
    if call.payload is NOT_JSON:
        # a body that is not JSON cannot be searched for its secrets: only its size is kept
        record["bodyBytes"] = len(exchange.body)
    elif call.payload is not NO_BODY:
        record["body"] = mask(call.payload)
    return record


def response_record(exchange: Exchange) -> dict[str, Any]:
    if exchange.status is None:
        return {"status": None}
    content_type = exchange.response_header("content-type") or ""
    record: dict[str, Any] = {"status": exchange.status, "contentType": content_type}
    retry_after = exchange.response_header("retry-after")
    if retry_after is not None:
        record["retryAfter"] = retry_after
    if content_type.startswith("text/event-stream"):
        record["events"] = [mask(event) for event in sse_events(exchange.response_body)]
    elif exchange.response_body:
        try:
            record["body"] = mask(json.loads(exchange.response_body))
        except ValueError:
            record["bodyBytes"] = len(exchange.response_body)
    return record


def query_parameters(call: Call) -> frozenset[str]:
    """The query parameters whose values a record keeps, in lower case: A2A-Version, and the fields of the
    operation's request when its HTTP+JSON route reads them from the query (A2A §11.5); every other value may be
    a credential a client put in the URL (?key=, ?api_key=, ?token=)."""
    names = {"a2a-version"}
    if call.route is not None and call.route.params == "query" and call.version is not None and schemas.available():
        ref = schemas.request_ref(REST, call.version, call.operation or "", call.wire_name)
        if ref is not None:
            names |= {name.lower() for name in schemas.definition(ref).get("properties", {})}
    return frozenset(names)


def masked_query(query: str, kept: frozenset[str]) -> str:
    """The query string with the value of every parameter not in kept (lower case names) masked."""
    pairs = parse_qsl(query, keep_blank_values=True)
    return urlencode([(name, value if name.lower() in kept else MASK) for name, value in pairs], safe="*:,")


def sse_events(body: bytes) -> list[dict[str, Any]]:
    """The events of an SSE body: {"data": <JSON>} or, for `event: error`, {"event": "error", "data": ...}."""
    events = []
    for block in re.split(r"\r?\n\r?\n", body.decode("utf-8", "replace")):
        name, data = None, []
        for line in block.splitlines():
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif line.startswith("event:"):
                name = line[6:].strip()
        if not data:
            continue  # a comment (keep-alive) or an empty block
        text = "\n".join(data)
        try:
            event: dict[str, Any] = {"data": json.loads(text)}
        except ValueError:
            event = {"dataBytes": len(text.encode("utf-8"))}
        if name is not None:
            event["event"] = name
        events.append(event)
    return events


def mask_header(name: str, value: str) -> str:
    if name not in SECRET_HEADERS:
        return value
    scheme, _, token = value.partition(" ")
    return f"{scheme} {MASK}" if name == "authorization" and token else MASK


def mask(value: Any) -> Any:
    """A copy with every push `token` and `credentials` value masked, wherever it is."""
    if isinstance(value, dict):
        return {k: MASK if k in SECRET_FIELDS and isinstance(v, str) and v else mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(item) for item in value]
    return value


def caller_name(scope: Scope) -> str | None:
    caller = scope.get(CALLER_KEY)
    return f"{caller.owner_id}/{caller.name}" if isinstance(caller, Caller) else None


class RecordingApplication(Application):
    """The app, with every HTTP exchange but the push receiver's captured and handed to the recorder."""

    def __init__(self, recorder: Recorder, **options: Any) -> None:
        super().__init__(**options)
        self.recorder = recorder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_recorded(scope["path"]):
            return await super().__call__(scope, receive, send)  # type: ignore[no-untyped-call,no-any-return]
        capture = _Capture()

        async def receiving() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                capture.body.append(message.get("body", b""))
            return message

        def submit() -> None:
            capture.submitted = True
            # the bodies are joined and decoded on the recorder thread; the caller and the fault are read now
            self.recorder.submit(functools.partial(capture.exchange, scope, caller_name(scope), scope.get(FAULT_KEY)))

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                capture.status = message["status"]
                capture.headers = message.get("headers", [])
            elif message["type"] == "http.response.body":
                capture.response.append(message.get("body", b""))
                if not message.get("more_body", False) and not capture.submitted:
                    submit()  # before the client can have the answer's end: a flush it asks for then finds it
            await send(message)

        try:
            await super().__call__(scope, receiving, sending)  # type: ignore[no-untyped-call]
        finally:
            if not capture.submitted:  # an answer that never ended (a cut stream, a client gone)
                submit()


class _Capture:
    def __init__(self) -> None:
        self.time = time.time()
        self.body: list[bytes] = []
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.response: list[bytes] = []
        self.submitted = False  # handed to the recorder (with the answer's last bytes, or once the answer was over)

    def exchange(self, scope: Scope, caller: str | None, fault: dict[str, Any] | None) -> Exchange:
        def decoded(pairs: Any) -> tuple[tuple[str, str], ...]:
            return tuple((bytes(k).decode("latin-1").lower(), bytes(v).decode("latin-1")) for k, v in pairs)

        return Exchange(
            time=self.time, method=scope["method"], path=scope["path"],
            query=cast(bytes, scope.get("query_string", b"")).decode("latin-1"),
            headers=decoded(scope.get("headers", [])), body=b"".join(self.body), caller=caller,
            status=self.status, response_headers=decoded(self.headers), response_body=b"".join(self.response),
            fault=fault,
        )
