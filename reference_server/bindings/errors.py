"""The error table, and each A2AError rendered from it for each binding (A2A §5.4; §9.5 JSON-RPC, §11.6 HTTP+JSON)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reference_server.a2a.catalogue import V0_3
from reference_server.bindings.requestlog import note_error
from reference_server.model.errors import (
    A2AError,
    BodyTimeout,
    ContentTypeNotSupported,
    ExtendedAgentCardNotConfigured,
    ExtensionSupportRequired,
    FieldViolation,
    InternalError,
    InvalidAgentResponse,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    ParseError,
    PayloadTooLarge,
    PushNotificationNotSupported,
    TaskNotCancelable,
    TaskNotFound,
    TooManyRequests,
    Unauthenticated,
    Unavailable,
    UnsupportedOperation,
    VersionNotSupported,
    WatchNotFound,
)

A2A_DOMAIN = "a2a-protocol.org"
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


@dataclass(frozen=True)
class WireError:
    """How one error class appears on each binding."""

    jsonrpc_code: int
    http_status: int
    grpc_status: str
    reason: str | None  # google.rpc.ErrorInfo reason; None for plain JSON-RPC errors


# The error table: A2A v1.0.1 §5.4 for A2A errors, JSON-RPC 2.0 + §3.3.2 for the generic ones.
# Reasons follow §10.6/§11.6 (the error type in UPPER_SNAKE_CASE without "Error"), so a REST client can
# tell errors that share HTTP 400 apart; InternalError uses INTERNAL_ERROR as the official SDKs do.
# -32000 (server error range) carries the errors A2A gives no code to: auth, the refusals a fault asks for and the
# push receiver's not-found (an HTTP-only endpoint); they have no A2A reason, so no ErrorInfo.
ERROR_TABLE: dict[type[A2AError], WireError] = {
    ParseError: WireError(-32700, 400, "INVALID_ARGUMENT", "JSON_PARSE"),
    InvalidRequest: WireError(-32600, 400, "INVALID_ARGUMENT", "INVALID_REQUEST"),
    MethodNotFound: WireError(-32601, 404, "NOT_FOUND", "METHOD_NOT_FOUND"),
    InvalidParams: WireError(-32602, 400, "INVALID_ARGUMENT", "INVALID_PARAMS"),
    InternalError: WireError(-32603, 500, "INTERNAL", "INTERNAL_ERROR"),
    TaskNotFound: WireError(-32001, 404, "NOT_FOUND", "TASK_NOT_FOUND"),
    TaskNotCancelable: WireError(-32002, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"),
    PushNotificationNotSupported: WireError(
        -32003, 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"
    ),
    UnsupportedOperation: WireError(-32004, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"),
    ContentTypeNotSupported: WireError(
        -32005, 400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"
    ),
    InvalidAgentResponse: WireError(-32006, 500, "INTERNAL", "INVALID_AGENT_RESPONSE"),
    ExtendedAgentCardNotConfigured: WireError(
        -32007, 400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
    ),
    ExtensionSupportRequired: WireError(
        -32008, 400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED"
    ),
    VersionNotSupported: WireError(-32009, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"),
    PayloadTooLarge: WireError(-32600, 413, "INVALID_ARGUMENT", None),
    BodyTimeout: WireError(-32600, 408, "DEADLINE_EXCEEDED", None),
    Unauthenticated: WireError(-32000, 401, "UNAUTHENTICATED", None),
    # HTTP-level refusals (bindings/faults.py): RFC 6585 §4 and RFC 9110 §15.6.4, with Retry-After
    TooManyRequests: WireError(-32000, 429, "RESOURCE_EXHAUSTED", None),
    Unavailable: WireError(-32000, 503, "UNAVAILABLE", None),
    WatchNotFound: WireError(-32000, 404, "NOT_FOUND", None),
}


def wire_error(error: A2AError) -> WireError:
    """The table row for an error (exact class first, then its bases)."""
    for cls in type(error).__mro__:
        if cls in ERROR_TABLE:
            return ERROR_TABLE[cls]
    return ERROR_TABLE[InternalError]


def error_details(error: A2AError) -> list[dict[str, Any]]:
    """google.rpc details: ErrorInfo for A2A errors, BadRequest for field violations."""
    row = wire_error(error)
    details: list[dict[str, Any]] = []
    if row.reason is not None:
        info: dict[str, Any] = {"@type": ERROR_INFO, "reason": row.reason, "domain": A2A_DOMAIN}
        if error.metadata:
            info["metadata"] = dict(error.metadata)
        details.append(info)
    if isinstance(error, InvalidParams) and error.violations:
        details.append({
            "@type": BAD_REQUEST,
            "fieldViolations": [{"field": v.field, "description": v.description} for v in error.violations],
        })
    return details


def jsonrpc_error(error: A2AError, request_id: Any = None) -> dict[str, Any]:
    """A JSON-RPC 2.0 error response; `data` is the array of google.rpc details (A2A §9.5)."""
    note_error(type(error).__name__)
    body: dict[str, Any] = {"code": wire_error(error).jsonrpc_code, "message": error.message}
    details = error_details(error)
    if details:
        body["data"] = details
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def rest_error(error: A2AError) -> tuple[int, dict[str, Any]]:
    """The HTTP status and google.rpc.Status body (AIP-193 form) for the HTTP+JSON binding."""
    note_error(type(error).__name__)
    row = wire_error(error)
    body: dict[str, Any] = {"code": row.http_status, "status": row.grpc_status, "message": error.message}
    details = error_details(error)
    if details:
        body["details"] = details
    return row.http_status, {"error": body}


def in_version(error: A2AError, version: str, rename: Callable[[str], str]) -> A2AError:
    """The domain names fields in 1.0 terms; a 0.3 caller gets the same InvalidParams in its version's names
    (rename: the 0.3 codec's field_path of the binding)."""
    if version != V0_3 or not isinstance(error, InvalidParams) or not error.violations:
        return error
    violations = [FieldViolation(rename(v.field), v.description) for v in error.violations]
    return InvalidParams(violations=violations, metadata=error.metadata)
