"""One binding-agnostic A2A test client: JSON-RPC or REST, A2A 1.0 or 0.3; validates everything it sees."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import connect_sse

from reference_server.conformance.support.exchanges import Exchange, body_text, shown
from reference_server.conformance.support.push import from_v03_config, to_v03_config
from reference_server.conformance.support.schemas import Violation, assert_valid, violations
from reference_server.conformance.support.v03 import from_v03, to_v03_message
from reference_server.conformance.support.v03_rest import ROUTES as V03_REST_ROUTES
from reference_server.conformance.support.v03_rest import V03_PROTO, from_proto, to_proto_params

# the test clients' TLS context, made once: httpx otherwise loads the CA bundle for every client it makes (50 ms
# each), and every scenario makes one (the servers under test are on loopback over plain HTTP anyway)
CLIENT_TLS = ssl.create_default_context()

V1 = "urn:a2a:v1#/$defs/"
V03 = "urn:a2a:v0.3#/definitions/"
WIRE = "urn:reference-server:wire-errors#/$defs/"

# A2A v1.0.1 §5.4 + JSON-RPC 2.0: the error names a client sees, by JSON-RPC code and by ErrorInfo reason
ERROR_CODES = {
    -32700: "ParseError", -32600: "InvalidRequest", -32601: "MethodNotFound", -32602: "InvalidParams",
    -32603: "InternalError", -32001: "TaskNotFound", -32002: "TaskNotCancelable",
    -32003: "PushNotificationNotSupported", -32004: "UnsupportedOperation", -32005: "ContentTypeNotSupported",
    -32006: "InvalidAgentResponse", -32007: "ExtendedAgentCardNotConfigured", -32008: "ExtensionSupportRequired",
    -32009: "VersionNotSupported", -32000: "Unauthenticated",
}
# HTTP+JSON errors are told apart by their ErrorInfo reason; those without one by their status
REASON_NAMES = {"JSON_PARSE": "ParseError", "INTERNAL_ERROR": "InternalError"}
REST_STATUS_NAMES = {"UNAUTHENTICATED": "Unauthenticated", "INVALID_ARGUMENT": "InvalidRequest"}

# A2A v1.0.1 §5.4: each A2A error's JSON-RPC code, HTTP status and ErrorInfo reason (§11.6), as the spec has them,
# apart from the server's own table. JSON-RPC 2.0's own errors have no HTTP+JSON mapping (DIGEST A19): there they
# get the status of their category in §3.3.2 (validation 400, not found 404, system 500) and no reason.
SPEC_ERRORS: dict[str, tuple[int, int, str | None]] = {
    "TaskNotFound": (-32001, 404, "TASK_NOT_FOUND"),
    "TaskNotCancelable": (-32002, 400, "TASK_NOT_CANCELABLE"),
    "PushNotificationNotSupported": (-32003, 400, "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    "UnsupportedOperation": (-32004, 400, "UNSUPPORTED_OPERATION"),
    "ContentTypeNotSupported": (-32005, 400, "CONTENT_TYPE_NOT_SUPPORTED"),
    "InvalidAgentResponse": (-32006, 500, "INVALID_AGENT_RESPONSE"),
    "ExtendedAgentCardNotConfigured": (-32007, 400, "EXTENDED_AGENT_CARD_NOT_CONFIGURED"),
    "ExtensionSupportRequired": (-32008, 400, "EXTENSION_SUPPORT_REQUIRED"),
    "VersionNotSupported": (-32009, 400, "VERSION_NOT_SUPPORTED"),
    "ParseError": (-32700, 400, None),
    "InvalidRequest": (-32600, 400, None),
    "MethodNotFound": (-32601, 404, None),
    "InvalidParams": (-32602, 400, None),
    "InternalError": (-32603, 500, None),
}

# 1.0 operation → (REST verb, path template, params placement, result schema)
REST_ROUTES = {
    "SendMessage": ("POST", "/message:send", "body", "SendMessageResponse"),
    "SendStreamingMessage": ("POST", "/message:stream", "body", "StreamResponse"),
    "GetTask": ("GET", "/tasks/{id}", "query", "Task"),
    "ListTasks": ("GET", "/tasks", "query", "ListTasksResponse"),
    "CancelTask": ("POST", "/tasks/{id}:cancel", "body", "Task"),
    "SubscribeToTask": ("POST", "/tasks/{id}:subscribe", "body", "StreamResponse"),
    "GetExtendedAgentCard": ("GET", "/extendedAgentCard", "query", "AgentCard"),
    "CreateTaskPushNotificationConfig": ("POST", "/tasks/{taskId}/pushNotificationConfigs", "body",
                                         "TaskPushNotificationConfig"),
    "GetTaskPushNotificationConfig": ("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}", "query",
                                      "TaskPushNotificationConfig"),
    "ListTaskPushNotificationConfigs": ("GET", "/tasks/{taskId}/pushNotificationConfigs", "query",
                                        "ListTaskPushNotificationConfigsResponse"),
    "DeleteTaskPushNotificationConfig": ("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}", "query",
                                         "google.protobuf.Empty"),
}
V03_METHODS = {
    "SendMessage": ("message/send", None), "SendStreamingMessage": ("message/stream", None),
    "GetTask": ("tasks/get", "Task"), "CancelTask": ("tasks/cancel", "Task"),
    "SubscribeToTask": ("tasks/resubscribe", None), "GetExtendedAgentCard": ("agent/getAuthenticatedExtendedCard",
                                                                            "AgentCard"),
    "CreateTaskPushNotificationConfig": ("tasks/pushNotificationConfig/set", "TaskPushNotificationConfig"),
    "GetTaskPushNotificationConfig": ("tasks/pushNotificationConfig/get", "TaskPushNotificationConfig"),
    "ListTaskPushNotificationConfigs": ("tasks/pushNotificationConfig/list", None),
    "DeleteTaskPushNotificationConfig": ("tasks/pushNotificationConfig/delete", None),
}


OnEvent = Callable[[dict[str, Any]], None]
STREAM_SECONDS = 60.0  # the longest a stream is read: one that only sends keep-alives would otherwise never end
MALFORMED = object()  # the request id of an envelope sent malformed on purpose: its answer's id may be null


class WireProblem(AssertionError):
    """An answer of a shape A2A does not allow, said in A2A terms: a body that is not JSON, a JSON-RPC answer that is
    neither a result nor an error, an answer that is not the stream asked for."""


# A2A 0.3 §11.1.2: the methods every 0.3 agent MUST implement; the others are optional there (§11.1.3)
V03_CORE = ("SendMessage", "GetTask", "CancelTask")


class NotServed(Exception):
    """Another server has no such method at all: the finding is SPEC-OP-001's, and the scenario could not be checked."""


class Unreadable(Exception):
    """An answer the suite cannot read in 1.0 shape because it breaks its schema: the violations, recorded apart
    (Seen), are the finding; a scenario stopped by it could not be checked."""


@dataclass
class Seen:
    """What a scenario's answers broke, as far as their schemas tell: recorded, not raised, against another server,
    so that one defect is one failure of its own requirement (conformance/support/schemas.py Violation.requirement) and
    the scenario goes on to its own assertions."""

    exchanges: list[Exchange] = field(default_factory=list)
    violations: list[dict[str, str]] = field(default_factory=list)
    answers: int = 0  # answers checked against a schema
    # the scenario sent input that breaks the rules on purpose: an answer that takes it may echo it, and what that
    # breaks is the taking's finding (CORE-ERR-002), not the answer's
    invalid_input: bool = False

    def record(self, operation: str, found: list[Violation], *, requirement: str | None = None) -> None:
        if self.invalid_input and requirement is None:
            return
        self.answers += 1
        exchange = self.exchanges[-1].describe() if self.exchanges else ""
        for violation in found:
            self.violations.append({
                "operation": operation, "requirement": requirement or violation.requirement,
                "schema": violation.schema, "path": violation.path, "rule": violation.rule,
                "says": violation.says, "value": violation.value, "exchange": exchange})

    def note(self, operation: str, requirement: str, rule: str, says: str) -> None:
        """A finding about an answer that is not a schema's: its content type, its JSON-RPC id."""
        self.record(operation, [Violation(operation, "$", rule, says, "")], requirement=requirement)
        self.answers -= 1


@dataclass
class ErrorView:
    name: str
    message: str
    http_status: int
    code: int | None = None
    reason: str | None = None
    violations: list[dict[str, str]] = field(default_factory=list)
    raw: Any = None

    def __str__(self) -> str:
        """The error as A2A names it, with what identified it on the wire."""
        said = f': "{self.message}"' if self.message else ""
        if self.code is not None:
            return f"{self.name} (JSON-RPC code {self.code}, HTTP {self.http_status}){said}"
        reason = f", reason {self.reason}" if self.reason else ""
        return f"{self.name} (HTTP {self.http_status}{reason}){said}"


@dataclass
class Reply:
    """A unary answer: `body` is the result in 1.0 shape (0.3 results are converted), or `error`."""

    http_status: int
    body: Any = None
    error: ErrorView | None = None
    headers: httpx.Headers | None = None
    raw: Any = None

    def __str__(self) -> str:
        if self.error is not None:
            return f"the error {self.error}"
        # as the server sent it (a 0.3 answer in its own shape, not the 1.0 one the steps read)
        sent = self.raw.get("result", self.raw) if isinstance(self.raw, dict) else self.body
        return f"the answer {shown(sent, 300)}"


@dataclass
class StreamReply:
    """A stream: its events in 1.0 StreamResponse shape, or the error that came instead of (or in) it."""

    http_status: int
    events: list[dict[str, Any]] = field(default_factory=list)
    raw_events: list[Any] = field(default_factory=list)
    error: ErrorView | None = None
    content_type: str = ""
    # what only a fault the message asked for brings (docs/scripted-agent.md): the connection closed before the
    # stream's end, and the data of frames that are not JSON
    broken: bool = False
    garbled: list[str] = field(default_factory=list)
    timed_out: float = 0.0  # the bound after which the client closed it, not ended (A2AClient.sse); 0: it ended

    def __str__(self) -> str:
        if self.error is not None and not self.events:
            return f"the error {self.error} instead of a stream"
        kinds = ", ".join(next(iter(event), "?") for event in self.events) or "no event"
        ended = (f" (it had not ended after {self.timed_out:g} s, and the client closed it)" if self.timed_out
                 else " (the connection closed before its end)" if self.broken else "")
        error = f", then the error {self.error}" if self.error is not None else ""
        return f"a stream of {len(self.events)} event{'s' * (len(self.events) != 1)}: {kinds}{error}{ended}"


class A2AClient:
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

    # --- what every answer is checked against ---

    def check(self, payload: Any, ref: str, operation: str) -> None:
        """The payload against its schema: this server fails at once; another server's violations are recorded
        (Seen) and the scenario goes on."""
        if self.strict:
            assert_valid(payload, ref)
        elif self.seen is not None:
            self.seen.record(operation, violations(payload, ref))

    def noted(self, operation: str, requirement: str, rule: str, says: str) -> None:
        """A finding about another server's answer beside its schema (this server fails at once)."""
        if self.strict:
            raise WireProblem(f"the answer to {operation}: {says}")
        if self.seen is not None:
            self.seen.note(operation, requirement, rule, says)

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
            url, rest_params = _fill(path, self._rest_params(operation, params))
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
            params = _params_v03(operation, params)
        return method, {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}, request_id

    def _jsonrpc(self, operation: str, params: dict[str, Any]) -> Reply:
        _, body, request_id = self._envelope(operation, params)
        response = self.http.post(self.url(self.jsonrpc_path), json=body, headers=self.headers())
        return self.jsonrpc_reply(response, operation, request_id)

    def jsonrpc_reply(self, response: httpx.Response, operation: str | None, request_id: Any) -> Reply:
        what = operation or "the request"
        payload = json_of(response, what)
        if not self.strict and response.status_code >= 400 and not _is_jsonrpc_error(payload):
            # refused before JSON-RPC was read (an auth layer, a proxy): the HTTP status says what it is
            return Reply(response.status_code, error=_http_error(response, payload), headers=response.headers,
                         raw=payload)
        if not isinstance(payload, dict) or ("error" not in payload and "result" not in payload):
            raise WireProblem(f"the answer to {what} is not a JSON-RPC 2.0 response (a result or an error): "
                              f"HTTP {response.status_code} {body_text(response.content, 'application/json')}")
        if "error" in payload:
            if self.strict:
                assert_valid(payload, WIRE + "JsonRpcError")
            else:
                _readable_jsonrpc_error(payload, what)
            # JSON-RPC 2.0 §5: the id is null only when it could not be read (bad JSON, a body never parsed, an
            # invalid request object); another server may take an envelope it refuses as one it could not read
            unreadable = payload["error"]["code"] in (-32700, -32600) or response.status_code == 413 or (
                not self.strict and request_id is MALFORMED)
            if not (unreadable and payload.get("id") is None):
                self._same_id(payload, request_id, what)
            return Reply(response.status_code, error=_jsonrpc_error(payload, response.status_code),
                         headers=response.headers, raw=payload)
        if self.strict:
            assert_valid(payload, WIRE + "JsonRpcSuccess")
        if payload.get("jsonrpc") != "2.0":
            self.noted(what, "JSONRPC-FMT-001", "jsonrpc", f'"jsonrpc" is {shown(payload.get("jsonrpc"))}, not "2.0"')
        self._same_id(payload, request_id, what)
        if response.status_code != 200:
            self.noted(what, "JSONRPC-FMT-001", "status", f"a JSON-RPC result came with HTTP {response.status_code}")
        result = payload["result"]
        if operation is not None:
            result = self._checked_result(operation, result)
        return Reply(200, body=result, headers=response.headers, raw=payload)

    def _same_id(self, payload: dict[str, Any], request_id: Any, what: str) -> None:
        """JSON-RPC 2.0 §5: an answer carries the request's id, of the same type."""
        if request_id is MALFORMED:
            return
        if "id" not in payload:
            self.noted(what, "JSONRPC-FMT-001", "id",
                       f"the JSON-RPC answer has no id (the request's was {shown(request_id)})")
        elif not _same_id(payload["id"], request_id):
            self.noted(what, "JSONRPC-FMT-001", "id",
                       f"the JSON-RPC answer's id is {shown(payload['id'])}, not the request's {shown(request_id)}")

    def _checked_result(self, operation: str, result: Any) -> Any:
        if self.version == "0.3":
            self._validate_v03(operation, result)
            result = _with_kind(result) if operation in ("SendMessage", "GetTask", "CancelTask") else result
            try:
                if "PushNotificationConfig" in operation:
                    return _from_v03_push(operation, result)
                return from_v03(operation, result)
            except (KeyError, TypeError, AttributeError, AssertionError) as problem:
                raise Unreadable(f"the answer to {operation} could not be read as A2A 0.3: "
                                 f"{shown(result, 300)}") from problem
        schema = REST_ROUTES[operation][3] if operation in REST_ROUTES else None
        if operation == "DeleteTaskPushNotificationConfig" and not self.strict and result is None:
            return {}  # A2A §3.1.10: the confirmation is implementation-specific (a2a.proto: Empty, `{}`)
        if schema:
            self.check(result, V1 + schema, operation)
        return result

    def _validate_v03(self, operation: str, result: Any) -> None:
        if operation == "SendMessage":
            kind = _kind_of(result)
            self.check(result, V03 + _V03_KINDS.get(str(kind), "SendMessageSuccessResponse/properties/result"),
                       operation)
            return
        if operation == "ListTaskPushNotificationConfigs":
            if not isinstance(result, list):
                raise WireProblem(f"tasks/pushNotificationConfig/list answers an array, not {shown(result, 200)}")
            for config in result:
                self.check(config, V03 + "TaskPushNotificationConfig", operation)
            return
        if operation == "DeleteTaskPushNotificationConfig":
            if result is not None:
                raise WireProblem(f"tasks/pushNotificationConfig/delete answers null, not {shown(result, 200)}")
            return
        schema = V03_METHODS[operation][1]
        if schema:
            self.check(result, V03 + schema, operation)

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
        url, rest_params = _fill(path, self._rest_params(operation, params))
        if placement == "body":
            response = self.http.request(verb, self.url(self.rest_prefix + url), headers=self.headers(),
                                         json=rest_params)
        else:  # httpx replaces a URL's query with `params`, so the version joins them
            query = {**_query(rest_params), **({"A2A-Version": self.sent_version} if self.version_in_query else {})}
            response = self.http.request(verb, self.rest_prefix + url, headers=self.headers(), params=query)
        return self.rest_reply(response, schema, operation)

    def rest_reply(self, response: httpx.Response, schema: str | None, operation: str | None = None) -> Reply:
        what = operation or "the request"
        if not 200 <= response.status_code < 300:  # e.g. 201 Created for a push config: any 2xx is a success
            if self.strict:
                payload = json_of(response, what)
                assert_valid(payload, WIRE + "RestError")
                error = _rest_error(payload, response.status_code)
            else:
                payload, error = _readable_rest_error(response)
            return Reply(response.status_code, error=error, headers=response.headers, raw=payload)
        if response.status_code == 204 and not self.strict:  # No Content: a delete's confirmation (A2A §3.1.10)
            return Reply(204, body={}, headers=response.headers, raw=None)
        payload = json_of(response, what)
        # A2A §11.1: application/a2a+json in 1.0 (a SHOULD; another server may answer application/json); 0.3
        # HTTP+JSON answers application/json (protocol.md A23)
        content_type = "application/json" if self.version == "0.3" or not self.strict else "application/a2a+json"
        got = response.headers.get("content-type", "")
        if not got.startswith(("application/a2a+json", content_type)):
            self.noted(what, "HTTP_JSON-SVC-001", "content-type",
                       f"the content type is {got or 'missing'}, not application/a2a+json")
        body = payload
        if schema and self.version == "0.3":
            self.check(payload, V03_PROTO + schema, what)
            try:
                body = from_proto(schema, payload, validate=False)
            except (KeyError, TypeError, AttributeError) as problem:
                raise Unreadable(f"the answer to {what} could not be read as A2A 0.3 ProtoJSON: "
                                 f"{shown(payload, 300)}") from problem
        elif schema:
            self.check(payload, V1 + schema, what)
        return Reply(response.status_code, body=body, headers=response.headers, raw=payload)

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

    def _take_event(self, stream: StreamReply, kind: str, data: Any, request_id: Any) -> None:
        stream.raw_events.append(data)
        what = "a stream's event"
        if self.binding == "rest":
            if kind == "error":
                stream.error = _rest_error(data, 200) if self.strict else _readable_rest_event(data)
            elif self.version == "0.3":
                self.check(data, V03_PROTO + "StreamResponse", what)
                try:
                    stream.events.append(from_proto("StreamResponse", data, validate=False))
                except (KeyError, TypeError, AttributeError) as problem:
                    raise Unreadable(f"an event could not be read as A2A 0.3 ProtoJSON: {shown(data, 300)}") \
                        from problem
            else:
                self.check(data, V1 + "StreamResponse", what)
                stream.events.append(data)
            return
        if not isinstance(data, dict) or ("error" not in data and "result" not in data):
            raise WireProblem(f"an event's data is not a JSON-RPC 2.0 response (a result or an error): "
                              f"{shown(data, 300)}")
        self._same_id(data, request_id, what)
        if "error" in data:
            if self.strict:
                assert_valid(data, WIRE + "JsonRpcError")
            else:
                _readable_jsonrpc_error(data, what)
            stream.error = _jsonrpc_error(data, 200)
            return
        if self.strict:
            assert_valid(data, WIRE + "JsonRpcSuccess")
        result = data["result"]
        if self.version == "0.3":
            shape = _V03_KINDS.get(str(_kind_of(result)), "SendStreamingMessageSuccessResponse/properties/result")
            self.check(result, V03 + shape, what)
            try:
                stream.events.append(from_v03("event", _with_kind(result)))
            except (KeyError, TypeError, AttributeError, AssertionError) as problem:
                raise Unreadable(f"an event could not be read as A2A 0.3: {shown(result, 300)}") from problem
        else:
            self.check(result, V1 + "StreamResponse", what)
            stream.events.append(result)


_V03_KINDS = {"task": "Task", "message": "Message", "status-update": "TaskStatusUpdateEvent",
              "artifact-update": "TaskArtifactUpdateEvent"}


def _kind_of(result: Any) -> str | None:
    """An A2A 0.3 object's kind: its `kind`, or, when it has none (its schema check reports that once), what its
    fields make it, so that the scenarios can still read it."""
    if not isinstance(result, dict):
        return None
    if isinstance(result.get("kind"), str):
        return str(result["kind"])
    if "taskId" in result and "status" in result:
        return "status-update"
    if "taskId" in result and "artifact" in result:
        return "artifact-update"
    if "id" in result and "status" in result:
        return "task"
    if "messageId" in result and "parts" in result:
        return "message"
    return None


def _with_kind(result: Any) -> Any:
    kind = _kind_of(result)
    return {**result, "kind": kind} if kind is not None and isinstance(result, dict) and "kind" not in result \
        else result


def _from_v03_push(operation: str, result: Any) -> Any:
    if operation == "ListTaskPushNotificationConfigs":
        return {"configs": [from_v03_config(c["taskId"], c["pushNotificationConfig"]) for c in result]}
    if operation == "DeleteTaskPushNotificationConfig":
        return {}
    return from_v03_config(result["taskId"], result["pushNotificationConfig"])


def _params_v03(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    if operation == "CreateTaskPushNotificationConfig":
        config = {k: v for k, v in params.items() if k != "taskId"}
        return {"taskId": params["taskId"], "pushNotificationConfig": to_v03_config(config)}
    if operation in ("GetTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig"):
        return {"id": params["taskId"], "pushNotificationConfigId": params["id"]}
    if operation == "ListTaskPushNotificationConfigs":
        return {"id": params["taskId"]}
    if operation in ("SendMessage", "SendStreamingMessage"):
        converted: dict[str, Any] = {"message": to_v03_message(params["message"])}
        configuration = dict(params.get("configuration") or {})
        if "taskPushNotificationConfig" in configuration:
            configuration["pushNotificationConfig"] = to_v03_config(configuration.pop("taskPushNotificationConfig"))
        if "returnImmediately" in configuration:
            configuration["blocking"] = not configuration.pop("returnImmediately")
        if configuration:
            converted["configuration"] = configuration
        if "metadata" in params:
            converted["metadata"] = params["metadata"]
        return converted
    return params


def _same_id(got: Any, sent: Any) -> bool:
    return got == sent and type(got) is type(sent)


def _fill(path: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    rest = dict(params)
    for name in ("taskId", "id"):
        marker = "{" + name + "}"
        if marker in path:
            path = path.replace(marker, str(rest.pop(name)))
    return path, rest


def _query(params: dict[str, Any]) -> dict[str, str]:
    return {k: (json.dumps(v) if isinstance(v, bool) else str(v)) for k, v in params.items()}


def _ended(stream: StreamReply, response: httpx.Response, seconds: float) -> None:
    """The stream's bound passed: the client closes it (from the watchdog's thread; the reader sees it closed)."""
    stream.timed_out = seconds
    response.close()


def json_of(response: httpx.Response, what: str) -> Any:
    """The answer's JSON, or a WireProblem saying what came instead."""
    try:
        return response.json()
    except ValueError:
        content_type = response.headers.get("content-type", "(no content type)")
        raise WireProblem(f"the answer to {what} is not JSON: HTTP {response.status_code} {content_type}, "
                          f"{body_text(response.content, content_type, 300)}") from None


def _is_jsonrpc_error(payload: Any) -> bool:
    return isinstance(payload, dict) and isinstance(payload.get("error"), dict) and "code" in payload["error"]


HTTP_ERROR_NAMES = {401: "Unauthenticated", 403: "PermissionDenied", 404: "NotFound"}


def _http_error(response: httpx.Response, payload: Any) -> ErrorView:
    """A refusal that only HTTP describes: its name by status, its body shown as it came."""
    status = response.status_code
    return ErrorView(name=HTTP_ERROR_NAMES.get(status, f"HTTP {status}"), message=shown(payload, 300),
                     http_status=status, raw=payload)


def _why_not_json(text: str) -> str:
    """Why a text that looks like JSON is not, when a character no one sees is the cause: its code point."""
    hidden = next(((i, c) for i, c in enumerate(text) if not c.isprintable() and c not in "\t\n\r "), None)
    if hidden is None:
        return ""
    index, char = hidden
    return f" (character {index + 1} is U+{ord(char):04X}, which does not show)"


def _as_details(value: Any) -> list[Any]:
    """An error's details as a list: one object where the list should be is read as the list of it (that it is not
    a list is JSONRPC-ERR-001's finding, not a missing reason's)."""
    if isinstance(value, dict):
        return [value]
    return value if isinstance(value, list) else []


def _jsonrpc_error(payload: dict[str, Any], status: int) -> ErrorView:
    error = payload["error"]
    details = _as_details(error.get("data"))
    return ErrorView(
        name=ERROR_CODES.get(error["code"], f"code {error['code']}"), message=error["message"],
        http_status=status, code=error["code"], reason=_reason(details), violations=_violations(details),
        raw=payload,
    )


def _rest_error(payload: dict[str, Any], status: int) -> ErrorView:
    error = payload["error"]
    details = _as_details(error.get("details"))
    reason = _reason(details)
    if reason:
        name = REASON_NAMES.get(reason) or "".join(w.capitalize() for w in reason.split("_"))
    else:
        name = REST_STATUS_NAMES.get(error["status"], error["status"])
    return ErrorView(name=name, message=str(error.get("message", "")), http_status=status, reason=reason,
                     violations=_violations(details), raw=payload)


def _reason(details: list[dict[str, Any]]) -> str | None:
    return next((d.get("reason") for d in _typed(details) if d["@type"].endswith("google.rpc.ErrorInfo")), None)


def _violations(details: list[dict[str, Any]]) -> list[dict[str, str]]:
    return next((d.get("fieldViolations") or [] for d in _typed(details)
                 if d["@type"].endswith("google.rpc.BadRequest")), [])


def _typed(details: Any) -> list[dict[str, Any]]:
    """The detail objects that say their @type (another server's details may hold anything)."""
    if not isinstance(details, list):
        return []
    return [d for d in details if isinstance(d, dict) and isinstance(d.get("@type"), str)]


def _readable_jsonrpc_error(payload: Any, what: str) -> None:
    """What any JSON-RPC 2.0 error must have for the suite to read it (JSON-RPC 2.0 §5.1): a numeric code and a
    message. The rest of its shape is for the scenarios about error bodies."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if not (isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str)):
        raise WireProblem(f"the error answered to {what} is not a JSON-RPC 2.0 error object (a numeric code and a "
                          f"message): {shown(payload, 300)}")


def _readable_rest_event(data: Any) -> ErrorView:
    """An error event of another server's HTTP+JSON stream, as far as it is a google.rpc.Status."""
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("status"), str):
        return _rest_error(data, 200)
    return ErrorView(name="an error event", message=shown(data, 300), http_status=200, raw=data)


def _readable_rest_error(response: httpx.Response) -> tuple[Any, ErrorView]:
    """Another server's HTTP+JSON error: its status, and what a google.rpc.Status body says when it is one."""
    try:
        payload = response.json()
    except ValueError:
        payload = response.text
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict) and isinstance(error.get("status"), str):
        return payload, _rest_error(payload, response.status_code)
    return payload, _http_error(response, payload)
