"""Hostile requests for the fuzz suite: valid A2A calls of every binding and version, then broken on purpose.

The calls are built from the operations' JSON Schema shapes (spec/schemas); the breakage comes from classes
of hostile values: depth, size, Unicode, numbers, wrong types, the other version's fields, odd paths and
odd headers. Texts that would make the scripted agent sleep are left out, so every call ends quickly.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

KEY = "k_fuzz-caller"
HOSTILE = "__hostile__"  # where raw, non-JSON-serialisable text goes into a body

UNKNOWN_TASK = "00000000-0000-4000-8000-000000000000"


@dataclass
class FuzzRequest:
    binding: str  # "jsonrpc" or "rest"
    verb: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes = b""
    notes: list[str] = field(default_factory=list)


# --- values ---

def _safe_text() -> st.SearchStrategy[str]:
    # the default script sleeps on "sleep <n>": such a text would only make the run slow
    return st.one_of(st.sampled_from(["hello", "help", "ask: which dates suit you?", "think", "crash", "fail: no"]),
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

def _message_v1(text: str, task_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    if task_id:
        message["taskId"] = task_id
    return message


def _message_v03(text: str) -> dict[str, Any]:
    return {"kind": "message", "messageId": str(uuid.uuid4()), "role": "user",
            "parts": [{"kind": "text", "text": text}]}


def _v1_calls(text: str, task: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("SendMessage", {"message": _message_v1(text), "configuration": {"returnImmediately": True}}),
        ("SendMessage", {"message": _message_v1(text)}),
        ("SendStreamingMessage", {"message": _message_v1(text)}),
        ("GetTask", {"id": task, "historyLength": 1}),
        ("ListTasks", {"pageSize": 5, "status": "TASK_STATE_COMPLETED"}),
        ("CancelTask", {"id": task}),
        ("SubscribeToTask", {"id": task}),
        ("GetExtendedAgentCard", {}),
        ("CreateTaskPushNotificationConfig", {"taskId": task, "url": "https://example.com/hook"}),
        ("GetTaskPushNotificationConfig", {"taskId": task, "id": "p1"}),
        ("ListTaskPushNotificationConfigs", {"taskId": task}),
        ("DeleteTaskPushNotificationConfig", {"taskId": task, "id": "p1"}),
    ]


def _v03_calls(text: str, task: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("message/send", {"message": _message_v03(text)}),
        ("message/stream", {"message": _message_v03(text)}),
        ("tasks/get", {"id": task, "historyLength": 1}),
        ("tasks/cancel", {"id": task}),
        ("tasks/resubscribe", {"id": task}),
        ("tasks/pushNotificationConfig/set", {"taskId": task, "pushNotificationConfig": {"url": "https://e.com"}}),
        ("agent/getAuthenticatedExtendedCard", {}),
    ]


# 1.0 and 0.3 REST share these routes (the 0.3 bodies are the 0.3 proto's, close enough to be broken the same)
REST_ROUTES = [
    ("POST", "/message:send", "SendMessage"), ("POST", "/message:stream", "SendStreamingMessage"),
    ("GET", "/tasks/{id}", "GetTask"), ("GET", "/tasks", "ListTasks"), ("POST", "/tasks/{id}:cancel", "CancelTask"),
    ("GET", "/tasks/{id}:subscribe", "SubscribeToTask"), ("POST", "/tasks/{id}:subscribe", "SubscribeToTask"),
    ("GET", "/extendedAgentCard", "GetExtendedAgentCard"), ("GET", "/card", "GetExtendedAgentCard"),
    ("POST", "/tasks/{id}/pushNotificationConfigs", "CreateTaskPushNotificationConfig"),
    ("GET", "/tasks/{id}/pushNotificationConfigs", "ListTaskPushNotificationConfigs"),
    ("DELETE", "/tasks/{id}/pushNotificationConfigs/p1", "DeleteTaskPushNotificationConfig"),
]
ODD_PATHS = ["/A2A/V1/TASKS", "/a2a/v1/tasks/..%2f..%2fcallers", "/a2a/v1/tasks/%00", "/a2a/v1//tasks",
             "/a2a/v1/tasks/" + "x" * 2_000, "/a2a/v1/message%3Asend", "/a2a/v1/tasks?pageSize=9999999999999999999999",
             "/a2a/v1/tasks?pageSize=-1&pageSize=2", "/a2a/v1/tasks?status=TASK_STATE_%F0%9F%A6%8A",
             "/a2a/v1/tasks?A2A-Version=0.3", "/a2a/v2/tasks", "/a2a/push/x", "/.well-known/agent-card.json?x=1",
             "/a2a/v1/tasks/" + UNKNOWN_TASK + ":cancel:cancel", "/%2e%2e/a2a"]


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


@st.composite
def broken(draw: st.DrawFn, params: dict[str, Any]) -> tuple[Any, str | None]:
    """params with one hostile change (or none); a raw text to put in place of HOSTILE, if any."""
    how = draw(st.sampled_from(["as is", "value", "value", "delete", "extra", "raw", "raw", "whole"]))
    path = draw(st.sampled_from(_paths(params)))
    if how == "value":
        return _set(params, path, draw(json_values)), None
    if how == "delete" and path:
        return _delete(params, path), None
    if how == "extra":
        return _set(params, (*path, draw(st.sampled_from(["kind", "final", "unknownField", "contextId"]))),
                    draw(json_values)) if path == () or isinstance(_get(params, path), dict) else params, None
    if how == "raw":
        return _set(params, path, HOSTILE), draw(st.sampled_from(RAW_HOSTILE))
    if how == "whole":
        return draw(json_values), None
    return params, None


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _body(value: Any, raw: str | None) -> bytes:
    text = json.dumps(value, ensure_ascii=False)
    if raw is not None:
        text = text.replace(json.dumps(HOSTILE), raw, 1)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def headers(draw: st.DrawFn, version: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    key = draw(st.sampled_from([KEY] * 8 + ["", "k_unknown", KEY + " ", "Bearer"]))
    where = draw(st.sampled_from(["X-API-Key"] * 4 + ["Authorization", "both", "twice"]))
    if where == "X-API-Key":
        found.append(("X-API-Key", key))
    elif where == "Authorization":
        found.append(("Authorization", f"Bearer {key}"))
    elif where == "both":
        found += [("X-API-Key", key), ("Authorization", f"Bearer {draw(st.sampled_from([key, 'k_other']))}")]
    else:
        found += [("X-API-Key", key), ("X-API-Key", key)]
    sent = draw(st.sampled_from([version] * 6 + ["", "9" * 50 + ".0", "1.0.7", "2.0", "0.2", "v1", "1,0", "0.3 "]))
    if sent:
        found.append(("A2A-Version", sent))
    content_type = draw(st.sampled_from(["application/json"] * 3 + ["application/a2a+json", "text/plain", ""]))
    if content_type:
        found.append(("Content-Type", content_type))
    return found


@st.composite
def requests(draw: st.DrawFn, known_task: str) -> FuzzRequest:
    """One hostile request, on a binding and a version of its own."""
    binding = draw(st.sampled_from(["jsonrpc", "rest"]))
    version = draw(st.sampled_from(["1.0", "1.0", "0.3"]))
    text = draw(_safe_text())
    task = draw(st.sampled_from([known_task, UNKNOWN_TASK, "not-a-uuid", "../callers", "x" * 300]))
    sent_headers = draw(headers(version))
    if binding == "jsonrpc":
        calls = _v1_calls(text, task) if version == "1.0" else _v03_calls(text, task)
        method, params = draw(st.sampled_from(calls))
        envelope: dict[str, Any] = {"jsonrpc": "2.0", "id": draw(st.one_of(st.integers(0, 10**6), st.text(max_size=8))),
                                    "method": draw(st.sampled_from([method] * 8 + ["tasks/teleport", ""])),
                                    "params": params}
        value, raw = draw(broken(envelope))
        return FuzzRequest(binding, "POST", draw(st.sampled_from(["/a2a"] * 9 + ["/a2a/", "/A2A"])), sent_headers,
                           _body(value, raw))
    if draw(st.integers(0, 9)) == 0:
        return FuzzRequest(binding, draw(st.sampled_from(["GET", "POST", "DELETE", "PUT"])),
                           draw(st.sampled_from(ODD_PATHS)), sent_headers, b"")
    verb, route, operation = draw(st.sampled_from(REST_ROUTES))
    target = "/a2a/v1" + route.replace("{id}", task)
    params = dict(_v1_calls(text, task)).get(operation, {})
    if verb == "GET":
        query = draw(st.dictionaries(st.sampled_from(["historyLength", "pageSize", "status", "contextId", "x"]),
                                     st.sampled_from(["1", "-1", "0", "abc", "9" * 40, "TASK_STATE_WORKING", ""]),
                                     max_size=2))
        target += ("?" + "&".join(f"{k}={v}" for k, v in query.items())) if query else ""
        return FuzzRequest(binding, verb, target, sent_headers, b"")
    value, raw = draw(broken({k: v for k, v in params.items() if k not in ("id", "taskId")}))
    return FuzzRequest(binding, verb, target, sent_headers, _body(value, raw))
