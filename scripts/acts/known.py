"""Where a test, as written, contradicts A2A v1.0.1 or is stricter or looser than it (from the review of the corpus
against the spec: docs/conformance-acts.toml, /tmp/acts-work/acts-mapping.md (c)). Shown beside a verdict so
that a failure of the corpus is not read as a failure of the server. The runner still runs the test as written."""

from __future__ import annotations

_PUSH_ERROR = "expects UnsupportedOperationError; A2A §3.3.4 says PushNotificationNotSupportedError"
_BESIDE = "taskId/contextId beside message: a 1.0 server ignores them and starts a new task"
_RAW_NO_ID = "its raw message has no messageId (REQUIRED in 1.0; §5.7 SHOULD reject) yet expects a result"
_PARTS_03 = "wants the 0.3 part shape (file/fileUrl with name); 1.0 Part is raw/url + filename/mediaType"
_FINAL = "final_event asserts status at the event's top level, which no StreamResponse has (runner reads payload)"

CONFLICTS: dict[str, str] = {
    "CORE-CAP-001": _PUSH_ERROR,
    "PUSH-CFG-004": _PUSH_ERROR,
    "CORE-ERR-007": "expects error data as an object; A2A §9.5 makes it an array of @type objects",
    "REST-PD-001": "expects RFC 9457 problem details; A2A §11.6 uses google.rpc.Status",
    "STREAM-SSE-004": "accepts a statusUpdate as the first event; A2A §3.1.6 requires a Task first (looser)",
    "VER-NEG-002": "wants success without A2A-Version; A2A §3.6.2 reads an empty version as 0.3",
    "CORE-CTX-001": "expects every client contextId refused (and sends it beside message); A2A §3.4.1: agents MAY "
                    "accept client contextIds",
    "DM-FMT-003": "requires contextId absent on a Message answer; a2a.proto Message: server messages carry it",
    "CORE-LIST-002": "accepts artifacts: null; A2A §3.1.4 wants the field omitted (looser)",
    "DM-ART-003": _PARTS_03,
    "DM-ART-004": _PARTS_03,
    "CARD-DISC-002": "allows protocolBinding JSONRPC|GRPC|REST only; 1.0 names HTTP+JSON",
    "CARD-DISC-006": "wants the first interface to be 1.x; A2A §8.3.1 only makes it the preferred one (stricter)",
    "CARD-DISC-007": "accepts a 0.3 top-level url instead of supportedInterfaces (looser)",
    "CORE-SEND-004": "declares the content type in part metadata.contentType; 1.0 uses Part.mediaType",
    "CORE-SEND-002": _BESIDE,
    "CORE-HIST-002": _BESIDE,
    "CORE-HIST-005": _BESIDE + "; and wants history[2] to be the user's 'done' (stricter than §3.7)",
    "CORE-HIST-006": _BESIDE,
    "CORE-MULTI-001": _BESIDE,
    "CORE-MULTI-005": _BESIDE,
    "CORE-MULTI-006": _BESIDE,
    "CORE-MULTI-003": _BESIDE + "; and pairs it with a completed task, so any terminal-task error passes",
    "CORE-ERR-008": "raw body with params.taskId (ignored in 1.0): the error it gets is for the missing messageId; "
                    "and requires non-empty error data (§3.3.2: optional)",
    "JSONRPC-ERR-003": "must-level ErrorInfo in data; v1.0.1 §9.5 says SHOULD",
    "DM-FMT-001": _RAW_NO_ID,
    "DM-EXTRA-001": _RAW_NO_ID,
    "JSONRPC-ENV-001": _RAW_NO_ID,
    "JSONRPC-CT-001": _RAW_NO_ID,
    "JSONRPC-SSE-001": _RAW_NO_ID,
    "STREAM-SSE-001": _FINAL,
    "STREAM-SSE-002": _FINAL + "; `artifact` likewise",
    "STREAM-SUB-001": _FINAL,
    "STREAM-SUB-002": _FINAL,
    "SEC-AUTH-001": "precondition capabilities.authentication is not a 1.0 field; accepts 403 for no credentials",
    "SEC-AUTH-002": "precondition capabilities.authentication is not a 1.0 field",
    "SEC-AUTH-003": "precondition capabilities.authentication is not a 1.0 field",
    "SEC-AUTH-004": "precondition capabilities.authentication is not a 1.0 field; accepts 403 for no credentials",
    "SEC-AUTH-006": "precondition capabilities.authentication is not a 1.0 field; its step GETs the public card "
                    "(served without credentials) and accepts 200, yet wants an error body (title or error)",
    "SEC-EXTCARD-002": "requires a refusal; A2A §13.3 lets the agent answer a lower-privileged caller differently",
    "CORE-ERR-002": "accepts TaskNotCancelableError for an unknown task; A2A §3.1.5 says TaskNotFoundError (looser)",
    "CORE-ERR-006": "accepts -32602 for a request without method; A2A §9.5 says -32600 (looser)",
    "CLIENT-PARSE-003": "golden history messages without messageId (REQUIRED)",
    "CLIENT-PARSE-004": "golden error data is an object; A2A §9.5 makes it an array",
    "CLIENT-PARSE-006": _PARTS_03,
}
