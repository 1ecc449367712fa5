"""One exchange as it went over the wire, and what it was: binding, A2A version, operation, parameters."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from reference_server.a2a import catalogue
from reference_server.a2a.catalogue import ROUTES, V0_3, V1_0, RestRoute
from reference_server.bindings.http import SUPPORTED_VERSIONS, major_minor, parse_json
from reference_server.bindings.rest import PREFIX
from reference_server.model.errors import ParseError
from reference_server.settings import Settings

JSONRPC = "jsonrpc"
REST = "rest"
CARD = "card"  # the public agent card: no binding, no version
JSONRPC_PATH = "/a2a"
CARD_PATH = "/.well-known/agent-card.json"
PUSH_RECEIVER_PREFIX = "/a2a/push/"  # pushes from other agents, not a client's calls: never recorded

# The operations by their A2A 1.0 names (a2a.proto), the rows of the coverage matrix, in the spec's order (§5.3).
OPERATIONS: tuple[str, ...] = catalogue.NAMES
# the 1.0 operation each 0.3 JSON-RPC method and each 0.3 proto rpc is (DIGEST §3)
V03_JSONRPC_NAMES: dict[str, str] = {method: op.name for method, op in catalogue.V03_METHODS.items()}
V03_REST_NAMES: dict[str, str] = {rpc: op.name for rpc, op in catalogue.V03_REST_NAMES.items()}
NOT_IN_V03 = catalogue.NOT_IN_V03  # 0.3 has no ListTasks on either binding (DIGEST §3)


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NO_BODY: Any = _Marker("NO_BODY")  # the request had an empty body
NOT_JSON: Any = _Marker("NOT_JSON")  # the body did not parse as JSON (or UTF-8)


@dataclass(frozen=True)
class Exchange:
    """One HTTP request and its answer, as captured at the ASGI boundary."""

    time: float  # when the request arrived (Unix seconds)
    method: str
    path: str
    query: str
    headers: tuple[tuple[str, str], ...]  # names in lower case, in the order sent
    body: bytes
    caller: str | None  # "owner/name", None when the request was not authenticated
    status: int | None = None  # None: no answer was sent (the client went away first)
    response_headers: tuple[tuple[str, str], ...] = ()
    response_body: bytes = b""
    fault: dict[str, Any] | None = None  # the fault the request's message asked for (bindings/faults.py)

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key == name), None)

    def response_header(self, name: str) -> str | None:
        return next((value for key, value in self.response_headers if key == name), None)


@dataclass
class Call:
    """What an exchange was, as the server read it."""

    binding: str | None  # jsonrpc, rest, card; None: not an A2A endpoint
    version: str | None  # the A2A version the server used; None when the given one is not served
    version_given: str | None  # the A2A-Version value as sent (header, else query); None when missing
    wire_name: str  # the JSON-RPC method or "VERB /path" of the route
    operation: str | None = None  # the A2A 1.0 operation name; None when the method or route is not one
    route: RestRoute | None = None
    path_values: dict[str, str] = field(default_factory=dict)
    query: dict[str, list[str]] = field(default_factory=dict)
    payload: Any = NO_BODY  # the parsed body, NO_BODY or NOT_JSON
    params: Any = None  # the operation's parameters: JSON-RPC params, REST body + path, or query + path

    @property
    def known_in_other_version(self) -> str | None:
        """The other version, when the method or route is one of its operations and not of this one."""
        if self.operation is not None or self.version is None:
            return None
        if self.binding == JSONRPC:
            if self.wire_name in catalogue.BY_NAME and self.version == V0_3:
                return V1_0
            if self.wire_name in catalogue.V03_METHODS and self.version == V1_0:
                return V0_3
        if self.route is not None:
            return V1_0 if self.route.v1 is not None else V0_3
        return None


def binding_of(path: str) -> str | None:
    lowered = path.lower().rstrip("/")  # BlackSheep matches routes ignoring case and a trailing slash
    if lowered == JSONRPC_PATH:
        return JSONRPC
    if lowered.startswith(PREFIX.lower() + "/"):
        return REST
    if lowered == CARD_PATH:
        return CARD
    return None


def is_recorded(path: str) -> bool:
    """Every A2A endpoint a client calls, and any other path it tries; not the push receiver."""
    return not path.lower().startswith(PUSH_RECEIVER_PREFIX)


def parse_body(body: bytes, max_depth: int) -> Any:
    """The body as the server's request reader reads it: a body the server refused as a parse error is NOT_JSON."""
    if not body.strip():
        return NO_BODY
    try:
        return parse_json(body, max_depth=max_depth)
    except ParseError:
        return NOT_JSON


def version_given(exchange: Exchange, query: dict[str, list[str]]) -> str | None:
    """A2A §3.6.1: the A2A-Version header, else the query parameter; None when both are missing or empty."""
    text = (exchange.header("a2a-version") or "").strip()
    if not text:
        values = query.get("A2A-Version") or query.get("a2a-version") or [""]
        text = values[0].strip()
    return text or None


def classify(exchange: Exchange, max_json_depth: int = Settings.max_json_depth) -> Call:
    query = parse_qs(exchange.query, keep_blank_values=True)
    given = version_given(exchange, query)
    served = major_minor(given) if given is not None else V0_3  # A2A §3.6.2: missing means 0.3
    version = served if served in SUPPORTED_VERSIONS else None
    binding = binding_of(exchange.path)
    call = Call(binding, version, given, f"{exchange.method} {exchange.path}", query=query,
                payload=parse_body(exchange.body, max_json_depth))
    if binding == JSONRPC:
        _jsonrpc(call)
    elif binding == REST:
        _rest(call, exchange)
    elif binding == CARD:
        call.version = None
    return call


def _jsonrpc(call: Call) -> None:
    payload = call.payload
    if not isinstance(payload, dict) or not isinstance(payload.get("method"), str):
        return
    call.wire_name = method = payload["method"]
    call.params = payload.get("params", {})
    if call.version == V1_0 and method in catalogue.BY_NAME:
        call.operation = method
    elif call.version == V0_3 and method in V03_JSONRPC_NAMES:
        call.operation = V03_JSONRPC_NAMES[method]


_SEGMENT = re.compile(r"\{seg:(\w+)\}")


def _pattern(route: RestRoute) -> re.Pattern[str]:
    """The route as BlackSheep matches it: `{seg:name}` takes no ':' or '/', case ignored, trailing '/' allowed."""
    pieces = _SEGMENT.split(PREFIX + route.path)  # literal, name, literal, name, ..., literal
    regex = "".join(re.escape(piece) if n % 2 == 0 else f"(?P<{piece}>[^:/]+)" for n, piece in enumerate(pieces))
    return re.compile(f"^{regex}/?$", re.IGNORECASE)


_ROUTES = [(route, _pattern(route)) for route in ROUTES]


def match_route(method: str, path: str) -> tuple[RestRoute, dict[str, str]] | None:
    for route, pattern in _ROUTES:
        if route.verb == method.upper() and (found := pattern.match(path)):
            return route, found.groupdict()
    return None


def named_operation(binding: str | None, method: str, path: str, wire_name: str) -> tuple[str, str] | None:
    """The operation and A2A version a request names by its JSON-RPC method or HTTP+JSON route alone, whatever
    version it declared: what it asked for even when the server could not read it so (no A2A-Version on a 1.0
    method, a method of the other version). A route both versions have is taken as 1.0's; None: no operation."""
    if binding == JSONRPC:
        if wire_name in catalogue.BY_NAME:
            return wire_name, V1_0
        return (V03_JSONRPC_NAMES[wire_name], V0_3) if wire_name in V03_JSONRPC_NAMES else None
    matched = match_route(method, path) if binding == REST else None
    if matched is None:
        return None
    route = matched[0]
    if route.v1 is not None:
        return route.v1, V1_0
    return (V03_REST_NAMES[route.v03], V0_3) if route.v03 is not None else None


def _rest(call: Call, exchange: Exchange) -> None:
    matched = match_route(exchange.method, exchange.path)
    if matched is None:
        return
    call.route, call.path_values = matched
    name = call.route.v1 if call.version == V1_0 else call.route.v03 if call.version == V0_3 else None
    if name is not None:
        call.operation = V03_REST_NAMES[name] if call.version == V0_3 else name
    if call.route.params == "query":
        values = {k: v[0] if len(v) == 1 else v for k, v in call.query.items() if k.lower() != "a2a-version"}
        call.params = {**values, **call.path_values}
    elif isinstance(call.payload, dict):
        call.params = {**call.payload, **call.path_values}
    elif call.payload is NO_BODY:
        call.params = dict(call.path_values)
    elif call.payload is not NOT_JSON:
        call.params = call.payload  # not an object: the schema check says so
