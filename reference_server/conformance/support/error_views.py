"""The errors a client sees, named as A2A names them: the JSON-RPC codes, HTTP statuses and ErrorInfo reasons of
A2A §5.4, and an error answer read into an ErrorView (this server's own error shape, or another server's as far as it
follows A2A)."""

from __future__ import annotations

from typing import Any

import httpx

from reference_server.conformance.support.exchanges import shown
from reference_server.conformance.support.replies import ErrorView, WireProblem

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


def is_jsonrpc_error(payload: Any) -> bool:
    """A JSON-RPC error object: an `error` with its code."""
    return isinstance(payload, dict) and isinstance(payload.get("error"), dict) and "code" in payload["error"]


HTTP_ERROR_NAMES = {401: "Unauthenticated", 403: "PermissionDenied", 404: "NotFound"}


def http_error(response: httpx.Response, payload: Any) -> ErrorView:
    """A refusal that only HTTP describes: its name by status, its body shown as it came."""
    status = response.status_code
    return ErrorView(name=HTTP_ERROR_NAMES.get(status, f"HTTP {status}"), message=shown(payload, 300),
                     http_status=status, raw=payload)


def _as_details(value: Any) -> list[Any]:
    """An error's details as a list: one object where the list should be is read as the list of it (that it is not
    a list is JSONRPC-ERR-001's finding, not a missing reason's)."""
    if isinstance(value, dict):
        return [value]
    return value if isinstance(value, list) else []


def jsonrpc_error(payload: dict[str, Any], status: int) -> ErrorView:
    """A JSON-RPC error object as the error it names: by its code, with the ErrorInfo reason of its data."""
    error = payload["error"]
    details = _as_details(error.get("data"))
    return ErrorView(
        name=ERROR_CODES.get(error["code"], f"code {error['code']}"), message=error["message"],
        http_status=status, code=error["code"], reason=_reason(details), violations=_violations(details),
        raw=payload,
    )


def rest_error(payload: dict[str, Any], status: int) -> ErrorView:
    """A google.rpc.Status as the error it names: by its ErrorInfo reason, else by its status."""
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


def readable_jsonrpc_error(payload: Any, what: str) -> None:
    """What any JSON-RPC 2.0 error must have for the suite to read it (JSON-RPC 2.0 §5.1): a numeric code and a
    message. The rest of its shape is for the scenarios about error bodies."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if not (isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str)):
        raise WireProblem(f"the error answered to {what} is not a JSON-RPC 2.0 error object (a numeric code and a "
                          f"message): {shown(payload, 300)}")


def readable_rest_event(data: Any) -> ErrorView:
    """An error event of another server's HTTP+JSON stream, as far as it is a google.rpc.Status."""
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("status"), str):
        return rest_error(data, 200)
    return ErrorView(name="an error event", message=shown(data, 300), http_status=200, raw=data)


def readable_rest_error(response: httpx.Response) -> tuple[Any, ErrorView]:
    """Another server's HTTP+JSON error: its status, and what a google.rpc.Status body says when it is one."""
    try:
        payload = response.json()
    except ValueError:
        payload = response.text
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict) and isinstance(error.get("status"), str):
        return payload, rest_error(payload, response.status_code)
    return payload, http_error(response, payload)
