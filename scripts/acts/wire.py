"""The abstract operations (ACTS §4.1) on the wire, and answers back in A2A terms.

JSON-RPC: the A2A 1.0 method names (A2A §9.4; ACTS §4.1's push method names are 0.3-era, its own note says the
A2A specification prevails). HTTP+JSON: the routes of A2A §11.3 (subscribe is POST there). Errors are named by
A2A §5.4: by JSON-RPC code, or on HTTP+JSON by the google.rpc.ErrorInfo reason (A2A §11.6), whose HTTP status must
then be §5.4's."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
from httpx_sse import EventSource

from scripts.acts.paths import MISSING

JSONRPC_METHODS = {
    "send_message": "SendMessage", "send_streaming_message": "SendStreamingMessage", "get_task": "GetTask",
    "list_tasks": "ListTasks", "cancel_task": "CancelTask", "subscribe_to_task": "SubscribeToTask",
    "get_extended_agent_card": "GetExtendedAgentCard", "create_push_config": "CreateTaskPushNotificationConfig",
    "get_push_config": "GetTaskPushNotificationConfig", "list_push_configs": "ListTaskPushNotificationConfigs",
    "delete_push_config": "DeleteTaskPushNotificationConfig",
}
# operation → (verb, path, path parameters, where the other parameters go)
REST_ROUTES: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "send_message": ("POST", "/message:send", (), "body"),
    "send_streaming_message": ("POST", "/message:stream", (), "body"),
    "get_task": ("GET", "/tasks/{id}", ("id",), "query"),
    "list_tasks": ("GET", "/tasks", (), "query"),
    "cancel_task": ("POST", "/tasks/{id}:cancel", ("id",), "body"),
    "subscribe_to_task": ("POST", "/tasks/{id}:subscribe", ("id",), "body"),
    "create_push_config": ("POST", "/tasks/{taskId}/pushNotificationConfigs", ("taskId",), "body"),
    "get_push_config": ("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}", ("taskId", "id"), "query"),
    "list_push_configs": ("GET", "/tasks/{taskId}/pushNotificationConfigs", ("taskId",), "query"),
    "delete_push_config": ("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}", ("taskId", "id"), "query"),
    "get_extended_agent_card": ("GET", "/extendedAgentCard", (), "query"),
}
STREAMING = ("send_streaming_message", "subscribe_to_task")
JSONRPC_CODES = {  # A2A §9.5 and §5.4
    -32700: "JSONParseError", -32600: "InvalidRequestError", -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError", -32603: "InternalError", -32001: "TaskNotFoundError",
    -32002: "TaskNotCancelableError", -32003: "PushNotificationNotSupportedError",
    -32004: "UnsupportedOperationError", -32005: "ContentTypeNotSupportedError", -32006: "InvalidAgentResponseError",
    -32007: "ExtendedAgentCardNotConfiguredError", -32008: "ExtensionSupportRequiredError",
    -32009: "VersionNotSupportedError",
}
A2A_HTTP_STATUS = {"TaskNotFoundError": 404, "InvalidAgentResponseError": 500}  # every other A2A error: 400 (§5.4)
GOOGLE_STATUS = {"INVALID_ARGUMENT": "InvalidParamsError", "UNIMPLEMENTED": "MethodNotFoundError",
                 "INTERNAL": "InternalError", "UNAUTHENTICATED": "UnauthenticatedError",
                 "PERMISSION_DENIED": "PermissionDeniedError"}
# ACTS §6.2 names that A2A 1.0 does not have, and what 1.0 calls that situation (§3.3.4)
ERROR_ALIASES = {"ExtendedCardNotSupportedError": "ExtendedAgentCardNotConfiguredError",
                 "StreamingNotSupportedError": "UnsupportedOperationError"}


class OffLimits(RuntimeError):
    """A request to an origin other than the one the runner was given."""


class StepError(ValueError):
    """A step the runner cannot turn into a request (e.g. a path parameter missing)."""


@dataclass
class Request:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None = None
    streaming: bool = False
    label: str = ""
    plain: bool = False  # an HTTP GET outside the bindings (the card): its answer is read as plain JSON

    def show(self) -> str:
        body = self.body.decode("utf-8", "replace") if self.body else ""
        return f"{self.method} {self.url} {body}".strip()


@dataclass
class WireError:
    type: str  # the A2A error's name (TaskNotFoundError), or what the wire said when it names none
    code: Any
    message: Any
    details: Any  # JSON-RPC error.data / HTTP+JSON error.details, MISSING when absent
    problem: str | None = None  # the answer names an A2A error but not as §5.4 says (an HTTP status)

    def show(self) -> str:
        return f"{self.type} ({self.code}): {self.message}"


@dataclass
class Exchange:
    """One request and what came back: the assertion root (§4.2), the error, the events of a stream."""

    request: Request
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    text: str = ""
    body: Any = MISSING
    root: Any = MISSING
    error: WireError | None = None
    events: list[Any] | None = None
    problem: str | None = None  # no answer, no JSON, a stream cut short, a timeout

    def show_response(self) -> str:
        if self.status is None:
            return self.problem or "no answer"
        if self.events is not None:
            shown = [json.dumps(e, separators=(",", ":")) for e in self.events]
            return f"{self.status} stream of {len(self.events)}: " + " | ".join(shown)
        return f"{self.status} {self.text}"


def camel_error(reason: str) -> str:
    """TASK_NOT_FOUND → TaskNotFoundError (A2A §11.6: the reason is the type in UPPER_SNAKE_CASE, no "Error")."""
    return "".join(word.capitalize() for word in reason.split("_")) + "Error"


def jsonrpc_error(error: Any) -> WireError:
    if not isinstance(error, dict):
        return WireError("JSON-RPC error (not an object)", MISSING, MISSING, MISSING)
    code = error.get("code", MISSING)
    name = JSONRPC_CODES.get(code) if isinstance(code, int) and not isinstance(code, bool) else None
    return WireError(name or f"JSON-RPC error {code}", code, error.get("message", MISSING),
                     error.get("data", MISSING))


def rest_error(status: int | None, body: Any) -> WireError:
    """An HTTP+JSON error answer (google.rpc.Status, A2A §11.6); status None for an error event of a stream."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        message = body.get("title", body.get("detail", MISSING)) if isinstance(body, dict) else MISSING
        return WireError(f"HTTP {status}", status, message, MISSING)
    details = error.get("details", MISSING)
    infos = [d for d in details if isinstance(d, dict) and str(d.get("@type", "")).endswith("google.rpc.ErrorInfo")] \
        if isinstance(details, list) else []
    reason = infos[0].get("reason") if infos else None
    if isinstance(reason, str) and reason:
        name = camel_error(reason)
        wanted = A2A_HTTP_STATUS.get(name, 400)
        problem = None if status in (None, wanted) else f"HTTP {status} where A2A §5.4 maps {name} to {wanted}"
        return WireError(name, status or error.get("code"), error.get("message", MISSING), details, problem)
    name = GOOGLE_STATUS.get(str(error.get("status")), f"HTTP {status} {error.get('status', '')}".strip())
    return WireError(name, status, error.get("message", MISSING), details)


def _json(text: str) -> Any:
    if not text.strip():
        return MISSING
    try:
        return json.loads(text)
    except ValueError:
        return MISSING


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


class Http:
    """Every request of a run goes through here, and only to the origins it was given."""

    def __init__(self, origins: set[str], timeout: float) -> None:
        self.origins = {o.lower() for o in origins}
        self.timeout = timeout
        self.client = httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False)

    def close(self) -> None:
        self.client.close()

    def _guard(self, url: str) -> None:
        if origin(url) not in self.origins:
            raise OffLimits(f"{url} is not on {', '.join(sorted(self.origins))}")

    def send(self, request: Request) -> Exchange:
        """A request whose whole answer is read at once."""
        self._guard(request.url)
        exchange = Exchange(request)
        try:
            response = self.client.request(request.method, request.url, headers=request.headers,
                                           content=request.body)
        except httpx.HTTPError as error:
            exchange.problem = f"no answer: {type(error).__name__}: {error}"
            return exchange
        exchange.status = response.status_code
        exchange.headers = {k.lower(): v for k, v in response.headers.items()}
        exchange.text = response.text
        exchange.body = _json(exchange.text)
        return exchange

    def stream(self, request: Request, timeout: float, on_event: Callable[[Any], bool] | None = None) -> Exchange:
        """A request whose answer may be SSE: its events' data, parsed, in exchange.events (None when the answer is
        no stream). on_event sees each one as it comes; returning False closes the stream there."""
        self._guard(request.url)
        exchange = Exchange(request)
        deadline = time.monotonic() + timeout
        limits = httpx.Timeout(self.timeout, read=timeout)
        try:
            with self.client.stream(request.method, request.url, headers=request.headers, content=request.body,
                                    timeout=limits) as response:
                exchange.status = response.status_code
                exchange.headers = {k.lower(): v for k, v in response.headers.items()}
                if not exchange.headers.get("content-type", "").startswith("text/event-stream"):
                    exchange.text = response.read().decode("utf-8", "replace")
                    exchange.body = _json(exchange.text)
                    return exchange
                exchange.events = []
                for sse in EventSource(response).iter_sse():
                    if not sse.data:
                        continue
                    data = _json(sse.data)
                    exchange.events.append(sse.data if data is MISSING else data)
                    if on_event is not None and on_event(exchange.events[-1]) is False:
                        break
                    if time.monotonic() > deadline:
                        exchange.problem = f"the stream did not end within {timeout:g} s"
                        break
        except httpx.HTTPError as error:
            exchange.problem = f"stream broken: {type(error).__name__}: {error}"
        return exchange


def new_id() -> str:
    return str(uuid.uuid4())


def _query(params: dict[str, Any]) -> str:
    pairs: list[str] = []
    for name, value in params.items():
        for item in value if isinstance(value, list) else [value]:
            text = ("true" if item else "false") if isinstance(item, bool) else \
                json.dumps(item) if isinstance(item, dict) else str(item)
            pairs.append(f"{quote(name, safe='')}={quote(text, safe='')}")
    return ("?" + "&".join(pairs)) if pairs else ""


def wire_params(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """ACTS §4.3's abstract params in A2A 1.0's request shape: a push config's `pushNotificationConfig` is the
    TaskPushNotificationConfig itself in 1.0 (flattened next to taskId); `extended` only chose the operation."""
    params = {k: v for k, v in params.items() if not (operation == "get_extended_agent_card" and k == "extended")}
    nested = params.get("pushNotificationConfig")
    if operation == "create_push_config" and isinstance(nested, dict):
        params = {**{k: v for k, v in params.items() if k != "pushNotificationConfig"}, **nested}
    return params


def jsonrpc_request(url: str, operation: str, params: dict[str, Any], headers: dict[str, str]) -> Request:
    method = JSONRPC_METHODS[operation]
    envelope = {"jsonrpc": "2.0", "id": new_id(), "method": method, "params": wire_params(operation, params)}
    streaming = operation in STREAMING
    wire_headers = {**headers, "Content-Type": "application/json",
                    "Accept": "text/event-stream" if streaming else "application/json"}
    return Request("POST", url, wire_headers, json.dumps(envelope).encode(), streaming, method)


def rest_request(base: str, operation: str, params: dict[str, Any], headers: dict[str, str]) -> Request:
    verb, template, path_names, rest = REST_ROUTES[operation]
    params = wire_params(operation, params)
    path = template
    for name in path_names:
        if not isinstance(params.get(name), str | int):
            raise StepError(f"{operation} needs params.{name} for the path {template}")
        path = path.replace("{" + name + "}", quote(str(params[name]), safe=""))
    streaming = operation in STREAMING
    wire_headers = {**headers, "Accept": "text/event-stream" if streaming else "application/a2a+json"}
    if rest == "body":
        wire_headers["Content-Type"] = "application/a2a+json"
        return Request(verb, base.rstrip("/") + path, wire_headers, json.dumps(params).encode(), streaming,
                       f"{verb} {template}")
    others = {k: v for k, v in params.items() if k not in path_names}
    return Request(verb, base.rstrip("/") + path + _query(others), wire_headers, None, streaming, f"{verb} {template}")


def read_answer(exchange: Exchange, binding: str, raw: bool) -> None:
    """Fill exchange.root and exchange.error from what came back. A raw step's root is the body as it is."""
    body = exchange.body
    if exchange.request.plain:
        binding = "rest"
    if exchange.events is not None:
        _read_events(exchange, binding, raw)
        return
    if exchange.status is None:
        return
    if raw:
        exchange.root = body
        if binding == "jsonrpc" and isinstance(body, dict) and "error" in body:
            exchange.error = jsonrpc_error(body["error"])
        elif exchange.status >= 400:
            exchange.error = rest_error(exchange.status, body)
        return
    if binding == "jsonrpc":
        if isinstance(body, dict) and "error" in body:
            exchange.error = jsonrpc_error(body["error"])
            exchange.root = {"error": body["error"]}
        elif isinstance(body, dict) and "result" in body:
            exchange.root = body["result"]
        else:
            exchange.root = body
            if exchange.status >= 400:
                exchange.error = rest_error(exchange.status, body)
            else:
                exchange.problem = "the answer is not a JSON-RPC response"
        return
    if 200 <= exchange.status < 300:
        exchange.root = {} if body is MISSING else body
        return
    exchange.error = rest_error(exchange.status, body)
    exchange.root = body if isinstance(body, dict) and "error" in body else {
        "error": {"code": exchange.status, "message": exchange.text}}


def _read_events(exchange: Exchange, binding: str, raw: bool) -> None:
    """An abstract stream's events are StreamResponses: JSON-RPC envelopes are opened; an error as the first event
    makes the exchange an error, a later one cuts the stream."""
    events = exchange.events or []
    if raw:
        exchange.root = events[0] if events else MISSING
        return
    opened: list[Any] = []
    for data in events:
        error: WireError | None = None
        payload: Any
        if binding == "jsonrpc" and isinstance(data, dict) and "error" in data:
            error, payload = jsonrpc_error(data["error"]), {"error": data["error"]}
        elif binding == "jsonrpc":
            payload = data.get("result", MISSING) if isinstance(data, dict) else MISSING
            if payload is MISSING:
                exchange.problem = f"event {len(opened)} is not a JSON-RPC response: {data!r}"[:300]
                break
        elif isinstance(data, dict) and set(data) == {"error"}:
            error, payload = rest_error(None, data), data
        else:
            payload = data
        if error is not None:
            if not opened:
                exchange.error, exchange.root, exchange.events = error, payload, []
                return
            exchange.problem = f"error event after {len(opened)} events: {error.show()}"
            break
        opened.append(payload)
    exchange.events = opened
    exchange.root = opened[0] if opened else MISSING
