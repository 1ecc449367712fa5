"""How the client reads an answer (AnswerReader, which A2AClient is): every answer checked against its schema (this
server fails at once, another server's violations are recorded), JSON-RPC envelopes and their ids, HTTP+JSON statuses
and content types, each SSE event, and 0.3 shapes converted to 1.0."""

from __future__ import annotations

from typing import Any

import httpx

from reference_server.conformance.support.error_views import (
    http_error,
    is_jsonrpc_error,
    jsonrpc_error,
    readable_jsonrpc_error,
    readable_rest_error,
    readable_rest_event,
    rest_error,
)
from reference_server.conformance.support.exchanges import body_text, shown
from reference_server.conformance.support.replies import Reply, Seen, StreamReply, Unreadable, WireProblem, json_of
from reference_server.conformance.support.routes import (
    REST_ROUTES,
    V03_KINDS,
    V03_METHODS,
    from_v03_push,
    kind_of,
    with_kind,
)
from reference_server.conformance.support.schemas import assert_valid, violations
from reference_server.conformance.support.v03 import from_v03
from reference_server.conformance.support.v03_rest import V03_PROTO, from_proto

V1 = "urn:a2a:v1#/$defs/"
V03 = "urn:a2a:v0.3#/definitions/"
WIRE = "urn:reference-server:wire-errors#/$defs/"
MALFORMED = object()  # the request id of an envelope sent malformed on purpose: its answer's id may be null


class AnswerReader:
    """Reads and checks the answers of one binding and A2A version: `strict` holds them to this server's own
    conventions too; otherwise what they break of A2A is recorded in `seen` and the scenario goes on."""

    binding: str
    version: str
    strict: bool
    seen: Seen | None

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

    def jsonrpc_reply(self, response: httpx.Response, operation: str | None, request_id: Any) -> Reply:
        what = operation or "the request"
        payload = json_of(response, what)
        if not self.strict and response.status_code >= 400 and not is_jsonrpc_error(payload):
            # refused before JSON-RPC was read (an auth layer, a proxy): the HTTP status says what it is
            return Reply(response.status_code, error=http_error(response, payload), headers=response.headers,
                         raw=payload)
        if not isinstance(payload, dict) or ("error" not in payload and "result" not in payload):
            raise WireProblem(f"the answer to {what} is not a JSON-RPC 2.0 response (a result or an error): "
                              f"HTTP {response.status_code} {body_text(response.content, 'application/json')}")
        if "error" in payload:
            if self.strict:
                assert_valid(payload, WIRE + "JsonRpcError")
            else:
                readable_jsonrpc_error(payload, what)
            # JSON-RPC 2.0 §5: the id is null only when it could not be read (bad JSON, a body never parsed, an
            # invalid request object); another server may take an envelope it refuses as one it could not read
            unreadable = payload["error"]["code"] in (-32700, -32600) or response.status_code == 413 or (
                not self.strict and request_id is MALFORMED)
            if not (unreadable and payload.get("id") is None):
                self._same_id(payload, request_id, what)
            return Reply(response.status_code, error=jsonrpc_error(payload, response.status_code),
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
        elif not same_id(payload["id"], request_id):
            self.noted(what, "JSONRPC-FMT-001", "id",
                       f"the JSON-RPC answer's id is {shown(payload['id'])}, not the request's {shown(request_id)}")

    def _checked_result(self, operation: str, result: Any) -> Any:
        if self.version == "0.3":
            self._validate_v03(operation, result)
            result = with_kind(result) if operation in ("SendMessage", "GetTask", "CancelTask") else result
            try:
                if "PushNotificationConfig" in operation:
                    return from_v03_push(operation, result)
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
            kind = kind_of(result)
            self.check(result, V03 + V03_KINDS.get(str(kind), "SendMessageSuccessResponse/properties/result"),
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

    def rest_reply(self, response: httpx.Response, schema: str | None, operation: str | None = None) -> Reply:
        what = operation or "the request"
        if not 200 <= response.status_code < 300:  # e.g. 201 Created for a push config: any 2xx is a success
            if self.strict:
                payload = json_of(response, what)
                assert_valid(payload, WIRE + "RestError")
                error = rest_error(payload, response.status_code)
            else:
                payload, error = readable_rest_error(response)
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

    def _take_event(self, stream: StreamReply, kind: str, data: Any, request_id: Any) -> None:
        stream.raw_events.append(data)
        what = "a stream's event"
        if self.binding == "rest":
            if kind == "error":
                stream.error = rest_error(data, 200) if self.strict else readable_rest_event(data)
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
                readable_jsonrpc_error(data, what)
            stream.error = jsonrpc_error(data, 200)
            return
        if self.strict:
            assert_valid(data, WIRE + "JsonRpcSuccess")
        result = data["result"]
        if self.version == "0.3":
            shape = V03_KINDS.get(str(kind_of(result)), "SendStreamingMessageSuccessResponse/properties/result")
            self.check(result, V03 + shape, what)
            try:
                stream.events.append(from_v03("event", with_kind(result)))
            except (KeyError, TypeError, AttributeError, AssertionError) as problem:
                raise Unreadable(f"an event could not be read as A2A 0.3: {shown(result, 300)}") from problem
        else:
            self.check(result, V1 + "StreamResponse", what)
            stream.events.append(result)


def same_id(got: Any, sent: Any) -> bool:
    """A JSON-RPC id as sent: the same value, of the same type (1 is not "1")."""
    return got == sent and type(got) is type(sent)
