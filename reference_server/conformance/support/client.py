"""One binding-agnostic A2A test client: JSON-RPC or REST, A2A 1.0 or 0.3; validates everything it sees (how it reads
each answer is support/answers.py)."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Callable
from typing import Any

import httpx
from httpx_sse import connect_sse

from reference_server.conformance.support.answers import AnswerReader
from reference_server.conformance.support.exchanges import body_text
from reference_server.conformance.support.replies import ErrorView, NotServed, Reply, Seen, StreamReply, WireProblem
from reference_server.conformance.support.routes import (
    REST_ROUTES,
    V03_CORE,
    V03_METHODS,
    as_query,
    fill_path,
    params_v03,
)
from reference_server.conformance.support.v03_rest import ROUTES as V03_REST_ROUTES
from reference_server.conformance.support.v03_rest import to_proto_params

# the test clients' TLS context, made once: httpx otherwise loads the CA bundle for every client it makes (50 ms
# each), and every scenario makes one (the servers under test are on loopback over plain HTTP anyway)
CLIENT_TLS = ssl.create_default_context()

OnEvent = Callable[[dict[str, Any]], None]
STREAM_SECONDS = 60.0  # the longest a stream is read: one that only sends keep-alives would otherwise never end


class A2AClient(AnswerReader):
    """`version` is the dialect spoken (method names, shapes); `sent_version` what A2A-Version says ("" = none).

    `strict` holds the server to this server's conventions as well: its error bodies (only ErrorInfo and BadRequest
    details, each field as it writes them) and application/a2a+json. Another server's errors are read as far as A2A
    defines them; the scenarios about error bodies and content types check the rest at their own level.
    """

    def __init__(self, http: httpx.Client, *, binding: str, version: str, key: str | None,
                 sent_version: str | None = None, version_in_query: bool = False,
                 jsonrpc_path: str = "/a2a", rest_prefix: str = "/a2a/v1", strict: bool = True,
                 version_header: str = "A2A-Version", seen: Seen | None = None) -> None:
        self.http, self.binding, self.version, self.key = http, binding, version, key
        self.strict, self.version_header = strict, version_header
        self.seen = seen
        self.jsonrpc_path, self.rest_prefix = jsonrpc_path, rest_prefix
        self.sent_version = version if sent_version is None else sent_version
        self.version_in_query = version_in_query
        self._next_id = 0

    def headers(self) -> dict[str, str]:
        headers = {}
        if self.sent_version and not self.version_in_query:
            headers[self.version_header] = self.sent_version
        if self.key is not None:
            headers["X-API-Key"] = self.key
        return headers

    def url(self, path: str) -> str:
        if self.version_in_query and self.sent_version:
            return path + ("&" if "?" in path else "?") + "A2A-Version=" + self.sent_version
        return path

    def next_id(self) -> Any:
        self._next_id += 1
        return self._next_id if self._next_id % 2 else f"req-{self._next_id}"  # both id types

    # --- unary and streaming calls by 1.0 operation name, 1.0-shaped params ---

    def call(self, operation: str, params: dict[str, Any]) -> Reply:
        reply = self._rest(operation, params) if self.binding == "rest" else self._jsonrpc(operation, params)
        self._served(operation, reply.error)
        return reply

    def stream(self, operation: str, params: dict[str, Any], *, on_event: OnEvent | None = None,
               limit: int | None = None, max_seconds: float = STREAM_SECONDS) -> StreamReply:
        """A stream read to its end, or until `limit` events came (then the client closes it); on_event sees each
        event (1.0 shape) as it arrives."""
        verb, url, kwargs, request_id = self._stream_call(operation, params)
        reply = self.sse(verb, url, kwargs, request_id=request_id, on_event=on_event, limit=limit,
                         max_seconds=max_seconds)
        self._served(operation, reply.error)
        return reply

    def _served(self, operation: str, error: ErrorView | None) -> None:
        """Another server that does not have an operation at all (JSON-RPC MethodNotFound for a method of the version
        the call speaks): that is one finding, SPEC-OP-001's, and the scenario that needed the operation could not
        be checked (NotServed); it is not a failure of every requirement that uses the operation."""
        # a core operation that is not there (JSON-RPC MethodNotFound), or refused as a whole where nothing about
        # the call can make it unsupported (ListTasks: A2A §3.1.4 names no such refusal; a GetTask refused so may be
        # a wrong error for an unknown task, CORE-GET-002's)
        missing = self.binding == "jsonrpc" and error is not None and error.code == -32601
        refused = error is not None and operation == "ListTasks" and (
            error.code == -32004 or error.reason == "UNSUPPORTED_OPERATION")
        if self.strict or not (missing or refused):
            return
        if self.sent_version != self.version or self.version_in_query:
            return  # a call made in another version than it names: MethodNotFound may be what the scenario asks
        method = V03_METHODS[operation][0] if self.version == "0.3" else operation
        method = method if self.binding == "jsonrpc" else f"the route of {operation}"
        if self.version == "0.3" and operation not in V03_CORE:
            raise NotServed(f"the server does not serve {method} ({error}), which A2A 0.3 makes optional (§11.1.3)")
        self.noted(operation, "SPEC-OP-001", "method", f"{method} is not served: {error}")
        raise NotServed(f"the server does not serve {operation} ({method} answers {error}), which SPEC-OP-001 "
                        "reports")

    def stream_request(self, operation: str, params: dict[str, Any]) -> httpx.Request:
        """The request stream() would send, built but not sent: for a client that misbehaves on purpose."""
        verb, url, kwargs, _ = self._stream_call(operation, params)
        return self.http.build_request(verb, self.url(url), headers={**self.headers(), "Accept": "text/event-stream"},
                                       **kwargs)

    def _stream_call(self, operation: str, params: dict[str, Any]) -> tuple[str, str, dict[str, Any], Any]:
        """verb, path, httpx arguments and JSON-RPC id of a streaming call."""
        if self.binding == "rest":
            verb, path, placement, _ = self._route(operation)
            url, rest_params = fill_path(path, self._rest_params(operation, params))
            kwargs = {"json": rest_params} if placement == "body" else {"params": rest_params}
            return verb, self.rest_prefix + url, kwargs, None
        _, body, request_id = self._envelope(operation, params)
        return "POST", self.jsonrpc_path, {"json": body}, request_id

    # --- JSON-RPC ---

    def _envelope(self, operation: str, params: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        request_id = self.next_id()
        method = operation
        if self.version == "0.3":
            method = V03_METHODS[operation][0]
            params = params_v03(operation, params)
        return method, {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}, request_id

    def _jsonrpc(self, operation: str, params: dict[str, Any]) -> Reply:
        _, body, request_id = self._envelope(operation, params)
        response = self.http.post(self.url(self.jsonrpc_path), json=body, headers=self.headers())
        return self.jsonrpc_reply(response, operation, request_id)

    # --- REST: 1.0 routes and ProtoJSON, or the 0.3 proto's routes and ProtoJSON (converted to 1.0 shapes) ---

    def _route(self, operation: str) -> tuple[str, str, str, str | None]:
        if self.version != "0.3":
            return REST_ROUTES[operation]
        assert operation in V03_REST_ROUTES, f"0.3 HTTP+JSON has no {operation}: do not tag the scenario @v0_3"
        return V03_REST_ROUTES[operation]

    def _rest_params(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        return to_proto_params(operation, params) if self.version == "0.3" else params

    def _rest(self, operation: str, params: dict[str, Any]) -> Reply:
        verb, path, placement, schema = self._route(operation)
        url, rest_params = fill_path(path, self._rest_params(operation, params))
        if placement == "body":
            response = self.http.request(verb, self.url(self.rest_prefix + url), headers=self.headers(),
                                         json=rest_params)
        else:  # httpx replaces a URL's query with `params`, so the version joins them
            query = {**as_query(rest_params), **({"A2A-Version": self.sent_version} if self.version_in_query else {})}
            response = self.http.request(verb, self.rest_prefix + url, headers=self.headers(), params=query)
        return self.rest_reply(response, schema, operation)

    # --- SSE ---

    def sse(self, verb: str, url: str, kwargs: dict[str, Any], *, request_id: Any,
            on_event: OnEvent | None = None, limit: int | None = None,
            max_seconds: float = STREAM_SECONDS) -> StreamReply:
        """One SSE request as it is given, read to its end (every event validated), or for at most max_seconds:
        a stream that keeps sending keep-alives and never ends is closed then, and says so (`timed_out`).

        An error found before the first event is a plain answer, except in 0.3 over JSON-RPC, where it is a
        stream of that one error event (what the 0.3 clients read); either way it becomes the reply's `error`.
        """
        headers = {**self.headers(), "Accept": "text/event-stream"}
        with connect_sse(self.http, verb, self.url(url), headers=headers, **kwargs) as source:
            response = source.response
            content_type = response.headers.get("content-type", "")
            if not content_type.startswith("text/event-stream"):
                response.read()
                reply = (self.rest_reply(response, None) if self.binding == "rest"
                         else self.jsonrpc_reply(response, None, request_id))
                if reply.error is None:
                    raise WireProblem(f"the answer to a streaming request is not an event stream: HTTP "
                                      f"{response.status_code} {content_type or '(no content type)'} "
                                      f"{body_text(response.content, content_type, 300)}")
                return StreamReply(response.status_code, error=reply.error, content_type=content_type)
            stream = StreamReply(response.status_code, content_type=content_type)
            kinds = []
            watchdog = threading.Timer(max_seconds, _ended, (stream, response, max_seconds))
            watchdog.daemon = True
            watchdog.start()
            try:
                for sse in source.iter_sse():
                    if stream.error is not None:
                        raise WireProblem(f"the stream went on after its error: {body_text(sse.data.encode(), '')}")
                    try:
                        data = json.loads(sse.data)
                    except ValueError:
                        stream.garbled.append(sse.data)
                        if not self.strict:  # A2A §9.4.2, §11.7: each event's data is a JSON response
                            self.noted("a stream's event", "JSONRPC-SSE-001" if self.binding == "jsonrpc" else
                                       "HTTP_JSON-SSE-001", "data",
                                       f"an event's data is not JSON{_why_not_json(sse.data)}: "
                                       f"{body_text(sse.data.encode(), '', 160)}")
                        continue
                    kinds.append(sse.event)
                    seen = len(stream.events)
                    self._take_event(stream, sse.event, data, request_id)
                    if len(stream.events) > seen and on_event is not None:
                        on_event(stream.events[-1])
                    if limit is not None and len(stream.events) >= limit:
                        return stream  # leaving the `with` closes the connection: the client goes away
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.StreamClosed):  # closed before its end
                stream.broken = True
            finally:
                watchdog.cancel()
            if stream.error is not None and not stream.events:
                # A2A 1.0 and 0.3 HTTP+JSON answer such an error plainly (DIGEST §10); 0.3 JSON-RPC as one plain
                # `data:` event, the way the a2a-sdk server sends it and its 0.3 client reads it
                if (self.binding, self.version) != ("jsonrpc", "0.3") and self.strict:
                    raise WireProblem(f"a stream of only an error event, where an error found before the stream "
                                      f"is a plain answer: {stream.error}")
                assert (kinds == ["message"] and stream.http_status == 200) or not self.strict, str(stream)
            return stream


def _ended(stream: StreamReply, response: httpx.Response, seconds: float) -> None:
    """The stream's bound passed: the client closes it (from the watchdog's thread; the reader sees it closed)."""
    stream.timed_out = seconds
    response.close()


def _why_not_json(text: str) -> str:
    """Why a text that looks like JSON is not, when a character no one sees is the cause: its code point."""
    hidden = next(((i, c) for i, c in enumerate(text) if not c.isprintable() and c not in "\t\n\r "), None)
    if hidden is None:
        return ""
    index, char = hidden
    return f" (character {index + 1} is U+{ord(char):04X}, which does not show)"
