"""The client checks: one table of what a request must do (with the spec section), and the run over one exchange.

A violation never changes the server's answer: the server answers every request as it always does (an error
for what it cannot read); the checks are a report for the client's developer. The conventions are the MAY and
SHOULD features a client can use; the report says which it did.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reference_server.a2a.catalogue import PAGED, SENDS, V0_3, V1_0
from reference_server.bindings.http import SUPPORTED_VERSIONS, major_minor
from reference_server.clientcheck import schemas, shapes
from reference_server.clientcheck.exchange import (
    CARD,
    JSONRPC,
    NO_BODY,
    NOT_JSON,
    OPERATIONS,
    REST,
    Call,
    Exchange,
)

if TYPE_CHECKING:
    from jsonschema import ValidationError


@dataclass(frozen=True)
class Check:
    id: str
    section: str
    title: str  # what a conforming client does, in one plain sentence


CHECKS: dict[str, Check] = {check.id: check for check in (
    Check("json-body", "A2A §9.1, §14.1.1", "A request body is JSON, in UTF-8."),
    Check("content-type", "A2A §9.1 (JSON-RPC), §11.1 and §14.1.1 (HTTP+JSON)",
          "A request with a body says it is JSON: Content-Type application/json for JSON-RPC, "
          "application/a2a+json (or application/json) for HTTP+JSON."),
    Check("version-header", "A2A §3.6.1, §3.6.2",
          "An A2A 1.0 request carries A2A-Version: 1.0; a missing header means 0.3."),
    Check("version-value", "A2A §3.6, §14.2.1",
          "A2A-Version is Major.Minor (no patch number) and a version the agent's card lists."),
    Check("jsonrpc-envelope", "A2A §9.1; JSON-RPC 2.0 §4",
          'A JSON-RPC call is one POSTed request object with "jsonrpc": "2.0", a method and params as an object.'),
    Check("jsonrpc-id", "A2A §9.1; JSON-RPC 2.0 §4",
          "The JSON-RPC id is a string or an integer: not missing, null or a number with a fraction."),
    Check("method-unknown", "A2A §5.3, §9.3 (JSON-RPC), §11.3 (HTTP+JSON)",
          "The JSON-RPC method or the HTTP+JSON route is an A2A operation."),
    Check("method-version", "A2A §3.6.2, §5.3",
          "The method or route is one of the A2A version the request declares."),
    Check("enum-spelling", "A2A §5.5",
          "Enums are sent by name in the version's spelling: ROLE_USER and TASK_STATE_* in 1.0 (and the 0.3 "
          "HTTP+JSON proto), user and working in 0.3 JSON-RPC; never numbers."),
    Check("field-other-version", "A2A App. A.2",
          "No field names or shapes of the other A2A version (such as kind or pushNotificationConfig in 1.0, "
          "parts in 0.3 HTTP+JSON)."),
    Check("field-case", "A2A §5.5", "JSON field names are camelCase (messageId), not the proto's snake_case."),
    Check("message-id-unique", "a2a.proto Message.message_id; A2A §3.3.1",
          "Every new message has its own messageId (re-sending the same message may keep it)."),
    Check("schema", "A2A §5.7; a2a.proto (1.0), the 0.3 JSON Schema and the 0.3 proto",
          "The parameters are valid against the schema of the request's version and binding."),
)}


@dataclass(frozen=True)
class Convention:
    id: str
    section: str
    title: str


CONVENTIONS: tuple[Convention, ...] = (
    Convention("historyLength", "A2A §3.2.4", "asks for a bounded history (historyLength)"),
    Convention("returnImmediately", "A2A §3.2.2",
               "sends without waiting for the task (returnImmediately; 0.3: blocking false)"),
    Convention("cursorPaging", "A2A §3.1.4", "follows cursor pages (pageToken from nextPageToken)"),
    Convention("subscribe", "A2A §3.1.6", "subscribes to a task (SubscribeToTask; 0.3: tasks/resubscribe)"),
    Convention("pushConfig", "A2A §3.1.7-§3.1.10, §4.3",
               "sets up push notifications (push config operations, or a config in a send)"),
)


@dataclass(frozen=True)
class Violation:
    check: str
    message: str
    path: str | None = None  # inside the JSON-RPC params, the HTTP+JSON body or query

    def as_json(self) -> dict[str, Any]:
        check = CHECKS[self.check]
        found: dict[str, Any] = {"check": self.check, "section": check.section, "message": self.message}
        if self.path:
            found["path"] = self.path
        return found


@dataclass
class CallerState:
    """What the checks remember of one caller across the run: the messageIds it used, with their message."""

    message_ids: dict[str, str] = field(default_factory=dict)  # messageId -> digest of the message


@dataclass
class Outcome:
    violations: list[Violation]
    uses: list[str]
    schema_checked: bool


def check(call: Call, exchange: Exchange, state: CallerState) -> Outcome:
    """Every check over one exchange, in the order a server reads a request."""
    if call.binding in (None, CARD):
        found = [] if call.binding == CARD else [
            Violation("method-unknown", f"{exchange.method} {exchange.path} is not an A2A endpoint: JSON-RPC is "
                      "POST /a2a, HTTP+JSON is under /a2a/v1, the card is /.well-known/agent-card.json")]
        return Outcome(found, [], False)
    found = [*_version(call), *_body(call, exchange)]
    if call.binding == JSONRPC:
        found += _envelope(call, exchange)
    found += _operation(call, exchange)
    schema_checked = False
    if call.operation is not None and call.version is not None:
        shape = shapes.findings(call.binding, call.version, call.operation, call.params)
        specific = [Violation(check_id, message, path) for check_id, path, message, _ in shape]
        found += specific
        if call.version_given is None and any(belongs == V1_0 for *_, belongs in shape):
            found.append(Violation("version-header", "the request has A2A 1.0 names but no A2A-Version header, "
                                   "so it is read as A2A 0.3 (A2A §3.6.2); send A2A-Version: 1.0"))
        schema_found, schema_checked = _schema(call, specific)
        found += schema_found
        found += _message_id(call, exchange, state)
    return Outcome(found, sorted(uses(call)), schema_checked)


# --- A2A-Version


def _version(call: Call) -> list[Violation]:
    given = call.version_given
    if given is None:
        one_zero_only = (call.binding == JSONRPC and call.wire_name in OPERATIONS) or (
            call.route is not None and call.route.v03 is None)
        if one_zero_only:
            return [Violation("version-header", f"{call.wire_name} is an A2A 1.0 operation but the request has no "
                              "A2A-Version header, which means 0.3 (A2A §3.6.2); send A2A-Version: 1.0")]
        return []
    version = major_minor(given)
    if version is None:
        return [Violation("version-value", f"A2A-Version {given!r} is not Major.Minor (such as 1.0)")]
    if version not in SUPPORTED_VERSIONS:
        return [Violation("version-value", f"A2A-Version {given!r} is not a version this agent serves: its card "
                          f"lists {' and '.join(SUPPORTED_VERSIONS)}")]
    if given != version:
        return [Violation("version-value", f"A2A-Version {given!r} is not Major.Minor: send {version!r} "
                          "(A2A §3.6: patch numbers are not sent)")]
    return []


# --- the body and its content type


def _media_type(value: str | None) -> str | None:
    return value.split(";")[0].strip().lower() if value else None


def _body(call: Call, exchange: Exchange) -> list[Violation]:
    if call.payload is NO_BODY:
        return []
    found = []
    media = _media_type(exchange.header("content-type"))
    allowed = ("application/json",) if call.binding == JSONRPC else ("application/a2a+json", "application/json")
    if media not in allowed:
        said = f"Content-Type {exchange.header('content-type')!r}" if media else "no Content-Type"
        found.append(Violation("content-type", f"a JSON body sent with {said}; send Content-Type: {allowed[0]}"))
    if call.payload is NOT_JSON:
        found.append(Violation("json-body", "the body is not JSON (or not UTF-8)"))
    return found


# --- the JSON-RPC envelope


def _envelope(call: Call, exchange: Exchange) -> list[Violation]:
    if exchange.method.upper() != "POST":
        return [Violation("jsonrpc-envelope", f"JSON-RPC calls are POSTed, not sent with {exchange.method}")]
    payload = call.payload
    if payload is NO_BODY:
        return [Violation("json-body", "the JSON-RPC request has no body")]
    if payload is NOT_JSON:
        return []
    if isinstance(payload, list):
        return [Violation("jsonrpc-envelope", "a batch: A2A methods are called one request object per HTTP request")]
    if not isinstance(payload, dict):
        return [Violation("jsonrpc-envelope", "the body is not a JSON-RPC request object")]
    found = []
    if payload.get("jsonrpc") != "2.0":
        found.append(Violation("jsonrpc-envelope", f'"jsonrpc" is {payload.get("jsonrpc")!r}, not "2.0"', "jsonrpc"))
    if not isinstance(payload.get("method"), str) or not payload["method"]:
        found.append(Violation("jsonrpc-envelope", '"method" is missing or not a string', "method"))
    if "params" in payload and not isinstance(payload["params"], dict):
        found.append(Violation("jsonrpc-envelope", '"params" is not an object: A2A methods take named parameters',
                               "params"))
    found += _id(payload)
    return found


def _id(payload: Mapping[str, Any]) -> list[Violation]:
    if "id" not in payload:
        return [Violation("jsonrpc-id", "no id: a JSON-RPC notification, but every A2A method answers", "id")]
    value = payload["id"]
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return []
    kind = "null" if value is None else f"the number {value}" if isinstance(value, float) else json.dumps(value)
    return [Violation("jsonrpc-id", f"the id is {kind}; send a string or an integer (clients match the answer by "
                      "an id of the same type)", "id")]


# --- the operation


def _operation(call: Call, exchange: Exchange) -> list[Violation]:
    if call.operation is not None or call.version is None:
        return []
    if call.binding == JSONRPC:
        if not isinstance(call.payload, dict) or not isinstance(call.payload.get("method"), str):
            return []
        other = call.known_in_other_version
        if other == V1_0 and call.version_given is None:
            return []  # reported as version-header: the header is what is missing
        if other is not None:
            return [Violation("method-version", f"{call.wire_name} is an A2A {other} method but the request is A2A "
                              f"{call.version}; send A2A-Version: {other}")]
        return [Violation("method-unknown", f"{call.wire_name} is not an A2A {call.version} method")]
    if call.route is None:
        return [Violation("method-unknown", f"{exchange.method} {exchange.path} is not an A2A HTTP+JSON route "
                          "(A2A §11.3)")]
    other = call.known_in_other_version
    if other == V1_0 and call.version_given is None:
        return []  # reported as version-header
    return [Violation("method-version", f"{exchange.method} {exchange.path} is an A2A {other} route but the request "
                      f"is A2A {call.version}; send A2A-Version: {other}")]


# --- the schema of the version and binding


def _schema(call: Call, specific: list[Violation]) -> tuple[list[Violation], bool]:
    """The schema's errors, less those at an object a more specific check already explained."""
    assert call.operation is not None and call.version is not None and call.binding is not None
    ref = schemas.request_ref(call.binding, call.version, call.operation, call.wire_name, call.payload)
    if ref is None or call.payload is NOT_JSON or not schemas.available():
        return [], False
    if call.params is not None and not isinstance(call.params, dict):
        if call.binding == REST:  # JSON-RPC: the envelope check said it
            return [Violation("schema", "the body is not a JSON object: an HTTP+JSON body is the request message "
                              "(A2A §11.4)")], True
        return [], False
    if call.binding == REST and call.version == V0_3:
        params: Any = _proto_names(call.payload if isinstance(call.payload, dict) else {})
    elif call.binding == REST and call.route is not None and call.route.params == "query":
        params = _typed_query(call.params, ref)
    else:
        params = call.params if call.params is not None else {}
    reported = {v.path for v in specific if v.path is not None}
    explained = {*reported, *map(_parent, reported)}  # the reported fields and the objects holding them
    found = []
    for error in sorted(schemas.validator(ref).iter_errors(params), key=lambda e: list(map(str, e.absolute_path))):
        where = _path(error)
        if error.validator == "additionalProperties":
            # one error names every unknown field of an object: each is its own violation, unless a more specific
            # check named that field already (a snake_case name beside an unknown one is two mistakes, not one)
            found += [Violation("schema", f"{where or 'the parameters'}: `{name}` is not a field of this version's "
                                "schema (A2A §5.7)", shapes.at(where, name))
                      for name in _unknown_fields(error) if shapes.at(where, name) not in reported
                      and where not in reported]
        elif where not in explained:
            found.append(Violation("schema", f"{where or 'the parameters'}: {error.message}", where or None))
    return found, True


def _unknown_fields(error: ValidationError) -> list[str]:
    """The fields an additionalProperties error is about: those its schema neither names nor matches with a
    pattern."""
    instance = error.instance if isinstance(error.instance, dict) else {}
    named = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    patterns = error.schema.get("patternProperties", {}) if isinstance(error.schema, dict) else {}
    return [name for name in instance if name not in named and not any(re.search(p, name) for p in patterns)]


def _path(error: ValidationError) -> str:
    path = ""
    for item in error.absolute_path:
        path = shapes.at(path, item)
    return path


def _parent(path: str) -> str:
    """The object holding the field at path ("message.parts[0].kind" -> "message.parts[0]")."""
    cut = max(path.rfind("."), path.rfind("["))
    return path[:cut] if cut > 0 else ""


def _proto_names(value: Any) -> Any:
    """0.3 HTTP+JSON is ProtoJSON, whose parsers take a field's proto name as well as its JSON name: the names the
    0.3 proto gives as `request` and `message_id` read as `message` and `messageId` (REAL-CLIENTS §4.5)."""
    if isinstance(value, list):
        return [_proto_names(item) for item in value]
    if not isinstance(value, dict):
        return value
    renamed = {}
    for name, item in value.items():
        key = "message" if name == "request" else name.split("_")[0] + "".join(
            w[:1].upper() + w[1:] for w in name.split("_")[1:])
        renamed[key] = item if name in shapes.FREE_FORM else _proto_names(item)
    return renamed


def _typed_query(params: Any, ref: str) -> Any:
    """A query string's values are text: read integers and booleans as the schema types them (A2A §11.5)."""
    if not isinstance(params, dict):
        return params
    properties = schemas.definition(ref).get("properties", {})
    typed: dict[str, Any] = {}
    for name, value in params.items():
        kind = properties.get(name, {}).get("type")
        if kind == "integer" and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            typed[name] = int(value)
        elif kind == "boolean" and value in ("true", "false"):
            typed[name] = value == "true"
        else:
            typed[name] = value
    return typed


# --- messageId: one per message, per caller, across the run


def _message_id(call: Call, exchange: Exchange, state: CallerState) -> list[Violation]:
    if call.operation not in SENDS or not isinstance(call.params, dict):
        return []
    message = call.params.get("message", call.params.get("request"))
    if not isinstance(message, dict):
        return []
    message_id = message.get("messageId", message.get("message_id"))
    if not isinstance(message_id, str):
        return []
    digest = hashlib.sha256(json.dumps(message, sort_keys=True).encode()).hexdigest()
    first = state.message_ids.setdefault(message_id, digest)
    if first == digest:
        return []
    return [Violation("message-id-unique", f"messageId {message_id!r} was already used by this caller for another "
                      "message; give every new message its own id (a UUID)", "message.messageId")]


# --- the conventions a request uses


def uses(call: Call) -> Iterable[str]:
    params = call.params if isinstance(call.params, dict) else {}
    configuration = params.get("configuration")
    configuration = configuration if isinstance(configuration, dict) else {}
    operation = call.operation
    if "historyLength" in params or "history_length" in params or "historyLength" in configuration:
        yield "historyLength"
    # as the codecs read it: 0.3 JSON-RPC blocks unless `blocking` is false; the 0.3 proto's `bool blocking` is
    # false when absent, so a 0.3 HTTP+JSON configuration without it does not block
    proto_03 = call.binding == REST and call.version == V0_3 and "configuration" in params
    if configuration.get("returnImmediately") is True or configuration.get("blocking") is False or (
            proto_03 and not configuration.get("blocking")):
        yield "returnImmediately"
    if operation in PAGED and params.get("pageToken"):
        yield "cursorPaging"
    if operation == "SubscribeToTask":
        yield "subscribe"
    if (operation or "").endswith(("PushNotificationConfig", "PushNotificationConfigs")) or any(
            name in configuration for name in ("taskPushNotificationConfig", "pushNotificationConfig",
                                               "pushNotification")):
        yield "pushConfig"
