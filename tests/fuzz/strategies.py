"""Hostile requests: valid A2A calls of every binding and version a server offers, then broken on purpose.

The calls are built from the operations' shapes (a2a.proto, the 0.3 schema and the 0.3 proto); the breakage comes
from classes of hostile values: depth, size, Unicode, numbers, wrong types, the other version's fields and method
names, odd paths and odd headers. Each request says what was broken in it (`notes`; none: a well-formed request),
which interface and operation it aims at, and whether it went to an A2A endpoint at all. The simplest choice of
every draw comes first, so that hypothesis shrinks a request toward the well-formed call it was made from.

Texts that would make this server's scripted agent sleep are left out, so every call ends quickly.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from support.proxy import METHODS

from reference_server.conformance.support.v03 import to_v03_message
from reference_server.conformance.support.v03_rest import to_proto_params

from .surface import UNKNOWN_TASK, WEBHOOK, Interface, Secrets, Surface

HOSTILE = "__hostile__"  # where raw, non-JSON-serialisable text goes into a body
UNKNOWN_METHOD = "unknown method"  # the operation of a JSON-RPC call whose method the version does not have
NO_ENVELOPE = "no JSON-RPC request"  # the operation of a JSON-RPC body that is not a request object at all
ODD_PATH = "odd path"  # the operation of a request to no A2A route


@dataclass
class FuzzRequest:
    binding: str  # "jsonrpc" or "rest"
    verb: str
    target: str  # the path and query, sent byte for byte
    headers: list[tuple[str, str]]
    body: bytes = b""
    notes: list[str] = field(default_factory=list)  # what was broken on purpose; none: a well-formed request
    interface: str = ""  # "jsonrpc-1.0", ...; "" for an odd path
    operation: str = ODD_PATH  # the A2A 1.0 operation it aims at, UNKNOWN_METHOD or ODD_PATH
    endpoint: bool = False  # sent to an A2A endpoint: the JSON-RPC URL, or a route of its version
    origin: str = ""  # scheme://host:port it goes to

    @property
    def well_formed(self) -> bool:
        return not self.notes

    def size(self) -> int:
        """Its bytes on the wire, near enough: the request line, the headers and the body."""
        head = len(self.verb) + len(self.target.encode("utf-8", "surrogateescape")) + 11
        return head + sum(len(k) + len(v.encode("utf-8", "surrogateescape")) + 4 for k, v in self.headers) + len(
            self.body)


@dataclass(frozen=True)
class Focus:
    """Where a search for a smaller request stays: one interface ("" for odd paths), and one operation or any."""

    interface: str
    operation: str | None = None


# --- values ---

# this server's default script sleeps on "sleep <n>": such a text would only make the run slow
SAFE_TEXT = st.one_of(st.sampled_from(["hello", "help", "ask: which dates suit you?", "think", "crash", "fail: no"]),
                      st.text(max_size=40).filter(lambda t: "sleep" not in t.lower()))


WEIRD_STRINGS = ["", " ", "\u0000", "\u202e\u2066rtl", "🦊" * 50, "a" * 10_000, "../../etc/passwd", "%00",
                 "\r\nX-Injected: 1", "<script>", "ROLE_USER", "TASK_STATE_COMPLETED", "user", "completed",
                 UNKNOWN_TASK, str(uuid.uuid4()).upper(), "null", "NaN"]

# raw JSON text that json.dumps cannot produce: the reader must refuse each with a parse error
RAW_HOSTILE = ["NaN", "-Infinity", "1e400", '"\\ud800"', '{"\\udc00": 1}', "9" * 5_000, "[" * 5_000 + "]" * 5_000,
               "[" * 70 + "]" * 70, '"\\u0000"', "-0", "1E-400", "[1,]", "{,}", "tru", '"' + "a" * 100 + "\\"]

json_leaves = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(WEIRD_STRINGS), st.text(max_size=30),
)
json_values = st.recursive(json_leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)


# --- valid calls, by the operations' shapes (a2a.proto / the 0.3 schema) ---

def _message_v1(text: str) -> dict[str, Any]:
    return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}


def _push_config(task: str, secrets: Secrets) -> dict[str, Any]:
    return {"taskId": task, "url": WEBHOOK, "token": secrets.push_token,
            "authentication": {"scheme": "Bearer", "credentials": secrets.push_credentials}}


def v1_calls(text: str, task: str, secrets: Secrets) -> list[tuple[str, dict[str, Any]]]:
    """Each 1.0 operation with valid params (the order is the shrinking order: a plain send first)."""
    return [
        ("SendMessage", {"message": _message_v1(text), "configuration": {"returnImmediately": True}}),
        ("SendMessage", {"message": _message_v1(text)}),
        ("SendStreamingMessage", {"message": _message_v1(text)}),
        ("GetTask", {"id": task, "historyLength": 1}),
        ("ListTasks", {"pageSize": 5, "status": "TASK_STATE_COMPLETED"}),
        ("CancelTask", {"id": task}),
        ("SubscribeToTask", {"id": task}),
        ("GetExtendedAgentCard", {}),
        ("CreateTaskPushNotificationConfig", _push_config(task, secrets)),
        ("GetTaskPushNotificationConfig", {"taskId": task, "id": "p1"}),
        ("ListTaskPushNotificationConfigs", {"taskId": task}),
        ("DeleteTaskPushNotificationConfig", {"taskId": task, "id": "p1"}),
    ]


def v03_calls(text: str, task: str, secrets: Secrets) -> list[tuple[str, dict[str, Any]]]:
    """Each 0.3 JSON-RPC method with valid params."""
    config = {"url": WEBHOOK, "token": secrets.push_token,
              "authentication": {"schemes": ["Bearer"], "credentials": secrets.push_credentials}}
    return [
        ("message/send", {"message": to_v03_message(_message_v1(text))}),
        ("message/stream", {"message": to_v03_message(_message_v1(text))}),
        ("tasks/get", {"id": task, "historyLength": 1}),
        ("tasks/cancel", {"id": task}),
        ("tasks/resubscribe", {"id": task}),
        ("tasks/pushNotificationConfig/set", {"taskId": task, "pushNotificationConfig": config}),
        ("tasks/pushNotificationConfig/get", {"id": task, "pushNotificationConfigId": "p1"}),
        ("tasks/pushNotificationConfig/list", {"id": task}),
        ("tasks/pushNotificationConfig/delete", {"id": task, "pushNotificationConfigId": "p1"}),
        ("agent/getAuthenticatedExtendedCard", {}),
    ]


# the other version's name of each method: a 0.3 name in a 1.0 call, and the other way round
OTHER_NAMES = {**{v03: v1 for v03, v1 in METHODS.items() if v03 != v1 and "/" in v03},
               **{v1: v03 for v03, v1 in METHODS.items() if v03 != v1 and "/" in v03}}

# HTTP+JSON routes after the interface's prefix (a2a.proto's and the 0.3 proto's http options): verb, route, the
# operation, the versions that have it. A route no version has is sent too, as a wrong verb.
REST_ROUTES: list[tuple[str, str, str, frozenset[str]]] = [
    ("POST", "/message:send", "SendMessage", frozenset({"1.0", "0.3"})),
    ("POST", "/message:stream", "SendStreamingMessage", frozenset({"1.0", "0.3"})),
    ("GET", "/tasks/{id}", "GetTask", frozenset({"1.0", "0.3"})),
    ("GET", "/tasks", "ListTasks", frozenset({"1.0"})),
    ("POST", "/tasks/{id}:cancel", "CancelTask", frozenset({"1.0", "0.3"})),
    ("GET", "/tasks/{id}:subscribe", "SubscribeToTask", frozenset({"1.0", "0.3"})),
    ("POST", "/tasks/{id}:subscribe", "SubscribeToTask", frozenset({"0.3"})),  # what the 0.3 SDK clients send
    ("GET", "/extendedAgentCard", "GetExtendedAgentCard", frozenset({"1.0"})),
    ("GET", "/card", "GetExtendedAgentCard", frozenset({"0.3"})),
    ("POST", "/tasks/{id}/pushNotificationConfigs", "CreateTaskPushNotificationConfig", frozenset({"1.0", "0.3"})),
    ("GET", "/tasks/{id}/pushNotificationConfigs/p1", "GetTaskPushNotificationConfig", frozenset({"1.0", "0.3"})),
    ("GET", "/tasks/{id}/pushNotificationConfigs", "ListTaskPushNotificationConfigs", frozenset({"1.0", "0.3"})),
    ("DELETE", "/tasks/{id}/pushNotificationConfigs/p1", "DeleteTaskPushNotificationConfig",
     frozenset({"1.0", "0.3"})),
    ("PUT", "/message:send", "SendMessage", frozenset()),
]
VALID_QUERY = {("historyLength", "1"), ("pageSize", "1"), ("status", "TASK_STATE_WORKING")}


def odd_paths(base: str) -> list[str]:
    """Paths near an endpoint that no A2A route has: case, dot segments, encoded bytes, doubled separators, long
    segments, a query that breaks its own rules."""
    base = base.rstrip("/")
    return [base.upper() + "/TASKS", base + "/tasks/..%2f..%2fcallers", base + "/tasks/%00", base + "//tasks",
            base + "/tasks/" + "x" * 2_000, base + "/message%3Asend", base + "/tasks?pageSize=9999999999999999999999",
            base + "/tasks?pageSize=-1&pageSize=2", base + "/tasks?status=TASK_STATE_%F0%9F%A6%8A",
            base + "/tasks?A2A-Version=0.3", base + "/v2/tasks", "/.well-known/agent-card.json?x=1",
            base + "/tasks/" + UNKNOWN_TASK + ":cancel:cancel", "/%2e%2e" + (base or "/")]


# --- breaking a call ---

def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every JSON path in value (a tuple of keys and indexes), the root included."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _set(value.get(head), rest, new)}
    copy = list(value)
    copy[head] = _set(copy[head], rest, new)
    return copy


def _delete(value: Any, path: tuple[Any, ...]) -> Any:
    if len(path) == 1 and isinstance(value, dict):
        return {k: v for k, v in value.items() if k != path[0]}
    if len(path) == 1 and isinstance(value, list):
        return [v for i, v in enumerate(value) if i != path[0]]
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(value, dict) and head in value:
        return {**value, head: _delete(value[head], rest)}
    if isinstance(value, list):
        copy = list(value)
        copy[head] = _delete(copy[head], rest)
        return copy
    return value


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def where(path: tuple[Any, ...]) -> str:
    """A JSON path as a person reads it: params.message.parts[0].text; "the body" for the root."""
    text = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path).lstrip(".")
    return text or "the body"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return (text[:40] + "…") if len(text) > 40 else text


HOW = st.sampled_from(["as is", "value", "value", "delete", "extra", "raw", "raw", "whole"])
EXTRA_FIELDS = st.sampled_from(["kind", "final", "unknownField", "contextId"])
RAW_TEXTS = st.sampled_from(RAW_HOSTILE)
ODD_HEADER = st.sampled_from(["none"] * 6 + ["key", "place", "version", "type"])
KEYS = st.sampled_from(["wrong", "empty", "case", "scheme"])
PLACES = st.sampled_from(["other", "both", "twice"])
CONTENT_TYPES = st.sampled_from(["application/a2a+json", "text/plain", "", "application/json; charset=latin-1"])
VERSIONS = {version: st.sampled_from(["", "9" * 50 + ".0", "1.0.7", "2.0", "0.2", "v1", "1,0", "0,3", other])
            for version, other in (("1.0", "0.3"), ("0.3", "1.0"))}
QUERIES = st.dictionaries(st.sampled_from(["historyLength", "pageSize", "status", "contextId", "x"]),
                          st.sampled_from(["1", "-1", "0", "abc", "9" * 40, "TASK_STATE_WORKING", ""]), max_size=2)
IDS = st.one_of(st.integers(0, 10**6), st.text(max_size=8))
VERBS = st.sampled_from(["GET", "POST", "DELETE", "PUT"])


@st.composite
def broken(draw: st.DrawFn, params: Any) -> tuple[Any, str | None, list[str]]:
    """params with one hostile change (or none); a raw text to put in place of HOSTILE, if any; what was done."""
    how = draw(HOW)
    path = draw(st.sampled_from(_paths(params)))
    if how == "value":
        value = draw(json_values)
        return _set(params, path, value), None, [f"{where(path)} set to {_short(value)}"]
    if how == "delete" and path:
        return _delete(params, path), None, [f"{where(path)} left out"]
    if how == "extra" and isinstance(_get(params, path), dict):
        name = draw(EXTRA_FIELDS)
        value = draw(json_values)
        return _set(params, (*path, name), value), None, [f"{where((*path, name))} added: {_short(value)}"]
    if how == "raw":
        raw = draw(RAW_TEXTS)
        return _set(params, path, HOSTILE), raw, [f"{where(path)} replaced by the raw JSON text {_short(raw)}"]
    if how == "whole":
        value = draw(json_values)
        return value, None, [f"the whole body replaced by {_short(value)}"]
    return params, None, []


def _body(value: Any, raw: str | None) -> bytes:
    text = json.dumps(value, ensure_ascii=False)
    if raw is not None:
        text = text.replace(json.dumps(HOSTILE), raw, 1)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def headers(draw: st.DrawFn, surface: Surface, version: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The headers of a call (the key where the card says, its A2A-Version, a JSON content type), with one of them
    odd now and then: a request broken in its headers and its body at once would never reach the body's checks."""
    secrets, notes = surface.secrets, []
    odd = draw(ODD_HEADER)
    key = draw(KEYS) if odd == "key" else "key"
    key = {"key": secrets.key, "wrong": secrets.wrong_key, "empty": "", "case": secrets.key.swapcase(),
           "scheme": "Bearer"}[key]
    if key != secrets.key:
        notes.append("a key the server does not know" if key else "an empty key")
    bearer = surface.key_header == "Authorization"
    main, other = ("Authorization", "X-API-Key") if bearer else (surface.key_header, "Authorization")
    where_ = draw(PLACES) if odd == "place" else "main"

    def placed(name: str, value: str) -> tuple[str, str]:
        return (name, f"Bearer {value}") if name == "Authorization" else (name, value)

    found: list[tuple[str, str]] = []
    if where_ == "main":
        found.append(placed(main, key))
    elif where_ == "other":
        found.append(placed(other, key))
        notes.append(f"the key in {other}")
    elif where_ == "both":
        second = draw(st.sampled_from([key, secrets.bearer]))
        found += [placed(main, key), placed(other, second)]
        notes.append(f"{main} and {other} both sent")
    else:
        found += [placed(main, key), placed(main, key)]
        notes.append(f"{main} sent twice")
    sent = draw(VERSIONS[version]) if odd == "version" else version
    if sent:
        found.append(("A2A-Version", sent))
    if sent not in (version, "") or (sent == "" and version == "1.0"):
        notes.append(f"A2A-Version {sent!r}")
    content_type = draw(CONTENT_TYPES) if odd == "type" else "application/json"
    if content_type:
        found.append(("Content-Type", content_type))
    if content_type not in ("application/json", "application/a2a+json"):
        notes.append(f"Content-Type {content_type!r}")
    return found, notes


@st.composite
def requests(draw: st.DrawFn, surface: Surface, focus: Focus | None = None) -> FuzzRequest:
    """One hostile request, on an interface the surface offers (the focus's, when given)."""
    if (focus is not None and focus.operation == ODD_PATH) or (focus is None and draw(st.integers(0, 19)) == 0):
        return draw(_odd_path(surface))
    offered = [i for i in surface.interfaces if focus is None or i.name == focus.interface] or list(surface.interfaces)
    interface = draw(st.sampled_from(offered))
    text = draw(SAFE_TEXT)
    task = draw(st.sampled_from([surface.known_task, UNKNOWN_TASK, "not-a-uuid", "../callers", "x" * 300]))
    sent_headers, notes = draw(headers(surface, interface.version))
    if interface.binding == "jsonrpc":
        return draw(_jsonrpc(interface, text, task, surface, sent_headers, notes, focus))
    return draw(_rest(interface, text, task, surface, sent_headers, notes, focus))


@st.composite
def _jsonrpc(draw: st.DrawFn, interface: Interface, text: str, task: str, surface: Surface,
             sent_headers: list[tuple[str, str]], notes: list[str], focus: Focus | None) -> FuzzRequest:
    calls = (v1_calls if interface.version == "1.0" else v03_calls)(text, task, surface.secrets)
    if focus is not None and focus.operation not in (None, UNKNOWN_METHOD, NO_ENVELOPE):
        calls = [c for c in calls if METHODS.get(c[0]) == focus.operation] or calls
    method, params = draw(st.sampled_from(calls))
    if task != surface.known_task and task in json.dumps(params):
        notes.append(f"the task id {_short(task)}")
    if focus is not None and focus.operation == UNKNOWN_METHOD:
        sent = draw(st.sampled_from([OTHER_NAMES.get(method, "tasks/teleport"), "tasks/teleport", ""]))
    else:
        sent = draw(st.sampled_from([method] * 8 + [OTHER_NAMES.get(method, "tasks/teleport"), "tasks/teleport", ""]))
    operation = METHODS[method] if sent == method else UNKNOWN_METHOD
    if sent != method:
        notes.append(f"the method {sent!r}")
    envelope = {"jsonrpc": "2.0", "id": draw(IDS),
                "method": sent, "params": params}
    value, raw, how = draw(broken(envelope))
    if not isinstance(value, dict) or "method" not in value:
        operation = NO_ENVELOPE  # the whole body replaced, or its method left out: no operation is asked for
    elif value["method"] != sent:
        operation = UNKNOWN_METHOD
    path = interface.path
    variants = [path] * 9 + [p for p in (path.rstrip("/") + "/", path.upper()) if p != path]
    sent_path = draw(st.sampled_from(variants))
    if sent_path != path:
        notes.append(f"the path {sent_path}")
    return FuzzRequest("jsonrpc", "POST", sent_path, sent_headers, _body(value, raw), notes + how, interface.name,
                       operation, sent_path == path, interface.origin)


@st.composite
def _rest(draw: st.DrawFn, interface: Interface, text: str, task: str, surface: Surface,
          sent_headers: list[tuple[str, str]], notes: list[str], focus: Focus | None) -> FuzzRequest:
    routes = REST_ROUTES
    if focus is not None and focus.operation is not None:
        routes = [r for r in REST_ROUTES if r[2] == focus.operation and interface.version in r[3]] or REST_ROUTES
    verb, route, operation, versions = draw(st.sampled_from(routes))
    endpoint = interface.version in versions
    if task != surface.known_task and "{id}" in route:
        notes.append(f"the task id {_short(task)}")
        endpoint = endpoint and "/" not in task  # sent as it is, a slash makes it another path: no route of A2A
    if not endpoint:
        notes.append(f"{verb} {route}, a route A2A {interface.version} does not have")
    target = interface.path + route.replace("{id}", task)
    params: Any = dict(v1_calls(text, task, surface.secrets)).get(operation, {})
    if interface.version == "0.3":
        params = to_proto_params(operation, params)
    params = {k: v for k, v in params.items() if k not in ("id", "taskId")}  # in the path instead
    if verb in ("GET", "DELETE"):
        query = draw(QUERIES)
        notes += [f"the query {k}={_short(v)}" for k, v in query.items() if (k, v) not in VALID_QUERY]
        target += ("?" + "&".join(f"{k}={v}" for k, v in query.items())) if query else ""
        return FuzzRequest("rest", verb, target, sent_headers, b"", notes, interface.name, operation, endpoint,
                           interface.origin)
    value, raw, how = draw(broken(params))
    return FuzzRequest("rest", verb, target, sent_headers, _body(value, raw), notes + how, interface.name, operation,
                       endpoint, interface.origin)


@st.composite
def _odd_path(draw: st.DrawFn, surface: Surface) -> FuzzRequest:
    interface = draw(st.sampled_from(surface.interfaces))
    sent_headers, notes = draw(headers(surface, interface.version))
    path = draw(st.sampled_from(odd_paths(interface.path)))
    verb = draw(VERBS)
    return FuzzRequest(interface.binding, verb, path, sent_headers, b"", [*notes, f"the path {_short(path)}"], "",
                       ODD_PATH, False, interface.origin)
