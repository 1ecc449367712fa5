"""Renders an A2AError for each binding from the one error table (A2A §9.5 JSON-RPC, §11.6 HTTP+JSON)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_server.bindings.requestlog import note_error
from reference_server.domain.errors import A2AError, FieldViolation, InvalidParams, wire_error
from reference_server.wire.catalogue import V0_3

A2A_DOMAIN = "a2a-protocol.org"
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


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
