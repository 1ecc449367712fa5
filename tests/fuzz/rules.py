"""The rules a hostile request's answer is held to, and the judgement of one answer.

Six rules, each a way a server fails its users on input it did not expect. Five are read from one answer (judge);
a crash is told apart from one bad answer by the health probe, so the run decides it (scripts/robustness_kit).
Only what A2A (or, where A2A says nothing, a well-known weakness) asks is judged: a path no A2A route has is held
to no error shape, and a 401 before the binding read the request may say so in any JSON.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from reference_server.conformance.support.exchanges import body_text
from reference_server.conformance.support.raw import RawAnswer

from .strategies import FuzzRequest
from .surface import Secrets


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    source: str  # where the rule comes from
    says: str


CRASH = Rule("crash", "crash", "CWE-248 (an uncaught exception)",
             "The server stops answering, or answers 5xx to the well-formed requests it answered at the start.")
SERVER_ERROR = Rule("server-error", "5xx on bad input", "A2A §3.3.2, §9.5, §11.6",
                    "A malformed request gets a client error (a parse error, InvalidRequest, MethodNotFound, "
                    "InvalidParams, or the binding's 4xx), and a well-formed one its answer or the A2A error that "
                    "says why: never a 5xx, nor no answer at all (a finding says how many of its requests were "
                    "well-formed).")
MALFORMED = Rule("malformed-answer", "not JSON, or no error shape",
                 "A2A §9.1 and JSON-RPC 2.0 §5; §9.4.2 and §11.7; §11.6",
                 "At an A2A endpoint every answer is JSON (every event of a stream too), a JSON-RPC answer is a "
                 "JSON-RPC 2.0 response, and an HTTP+JSON error is a google.rpc.Status.")
HANG = Rule("hang", "hang", "CWE-400 (uncontrolled resource consumption)",
            "Every request gets an answer within the bound (a stream: its first event).")
LEAK = Rule("leak", "leak", "CWE-209 (an error message with sensitive information)",
            "No error body and no header echoes a credential sent in the request.")
AMPLIFICATION = Rule("amplification", "amplification", "CWE-405 (asymmetric resource consumption)",
                     "No answer, and no task stored, is far larger than the request that made it.")
RULES = [CRASH, SERVER_ERROR, MALFORMED, HANG, LEAK, AMPLIFICATION]
BY_ID = {rule.id: rule for rule in RULES}
CREATES = {"SendMessage", "SendStreamingMessage", "CreateTaskPushNotificationConfig"}  # what may store something


@dataclass(frozen=True)
class Limits:
    timeout: float  # seconds for a whole answer (a stream: its first event)
    amplification: float  # an answer this many times the request's size is too large ...
    amplification_floor: int  # ... once it is at least this many bytes


@dataclass(frozen=True)
class Breach:
    rule: str  # a Rule id
    says: str  # what broke it, in one line
    kind: str = ""  # what tells one defect from another under the same rule: "HTTP 500 text/plain", "no answer"


def strict_json(text: bytes) -> Any:
    """The JSON value of a body; ValueError for what is not JSON (NaN and Infinity included, RFC 8259)."""
    def no_constants(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=no_constants)


def sse_data(body: bytes) -> list[str]:
    """The data of each event of an SSE body (the SSE spec's line ends only: CRLF, LF, CR; a JSON string holds
    U+0085 or U+2028 as it is, and str.splitlines() would cut the data line there)."""
    found, data = [], []
    for line in re.split(r"\r\n|\r|\n", body.decode("utf-8", errors="replace")):
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:
            found.append("\n".join(data))
            data = []
    return found + (["\n".join(data)] if data else [])


def shown(answer: RawAnswer, secrets: Secrets, limit: int = 200) -> str:
    """An answer as one line: its status, content type and body, credentials named instead of shown."""
    kind = answer.headers.get("content-type", "no content type")
    return secrets.redacted(f"HTTP {answer.status} {kind}, {body_text(answer.body, kind, limit)}")


def judge(request: FuzzRequest, answer: RawAnswer, secrets: Secrets, limits: Limits) -> list[Breach]:
    """Every rule the answer breaks, but a crash (which only the health probe can tell)."""
    breaches = _delivery(answer, secrets, limits)
    if not breaches and request.endpoint:
        breaches += _shape(request, answer, secrets)
    breaches += leaks(request, answer, secrets)
    if request.operation in CREATES and not answer.failure and answer.status < 300:
        size = len(answer.body)
        if amplified(request.size(), size, limits):
            breaches.append(Breach(AMPLIFICATION.id, f"a {request.size()}-byte request got a {size}-byte answer"
                                   + (" (and more: the client stopped reading there)" if answer.cut else ""),
                                   "the answer"))
    return breaches


def troubled(answer: RawAnswer) -> bool:
    """An answer after which the health probe must say whether the server still stands: a 5xx, or no answer."""
    return answer.failure is not None or answer.status >= 500


def amplified(request_size: int, answer_size: int, limits: Limits) -> bool:
    return answer_size >= limits.amplification_floor and answer_size > limits.amplification * request_size


def _delivery(answer: RawAnswer, secrets: Secrets, limits: Limits) -> list[Breach]:
    """No answer, half an answer, or a server error."""
    if answer.failure == "timeout":
        what = "no event" if answer.status else "no answer"
        return [Breach(HANG.id, f"{what} in {limits.timeout:g} s", what)]
    if answer.failure in ("refused", "closed") and not answer.status:
        how = "refused" if answer.failure == "refused" else "closed"
        return [Breach(SERVER_ERROR.id, f"no answer: the connection was {how}", f"connection {how}")]
    if answer.failure == "not http":
        return [Breach(MALFORMED.id, "the answer is not HTTP", "not HTTP")]
    if answer.failure == "closed":
        return [Breach(MALFORMED.id, f"the answer broke off before its end: {shown(answer, secrets)}", "broke off")]
    if answer.status >= 500:
        return [Breach(SERVER_ERROR.id, shown(answer, secrets), _kind(answer))]
    return []


def _shape(request: FuzzRequest, answer: RawAnswer, secrets: Secrets) -> list[Breach]:
    """JSON, and the binding's error shape, at an A2A endpoint."""
    if answer.stream:
        for data in sse_data(answer.body):
            problem = _jsonrpc_problem(data.encode(), 200) if request.binding == "jsonrpc" else _json_problem(
                data.encode())
            if problem:
                return [Breach(MALFORMED.id, f"an event of the stream {problem}: {secrets.redacted(data[:200])}",
                               f"an event {problem}")]
        return []
    if not answer.body and (200 <= answer.status < 300) and (request.binding == "rest" or _notification(request)):
        return []  # No Content: a delete's confirmation; the no answer a JSON-RPC notification gets
    if request.binding == "jsonrpc":
        problem = _jsonrpc_problem(answer.body, answer.status)
    elif answer.status >= 400 and request.interface.endswith("1.0"):
        problem = _status_problem(answer.body)
    else:  # 0.3 HTTP+JSON names no error body: JSON is all that is asked
        problem = _json_problem(answer.body)
    return [Breach(MALFORMED.id, f"{problem}: {shown(answer, secrets)}", f"{problem} ({_kind(answer)})")] if problem \
        else []


def _json_problem(body: bytes) -> str | None:
    try:
        strict_json(body)
    except ValueError:
        return "is not JSON"
    return None


def _jsonrpc_problem(body: bytes, status: int) -> str | None:
    """What keeps a body from being a JSON-RPC 2.0 response (or a batch of them)."""
    try:
        payload = strict_json(body)
    except ValueError:
        return "is not JSON"
    for item in payload if isinstance(payload, list) and payload else [payload]:
        if status >= 400 and not (isinstance(item, dict) and "jsonrpc" in item):
            continue  # refused before JSON-RPC was read (an auth layer, a proxy): the HTTP status says it
        if not isinstance(item, dict) or not {"jsonrpc", "result", "error"} & item.keys():
            return "is not a JSON-RPC response"
        if item.get("jsonrpc") != "2.0" or "id" not in item or ("result" in item) == ("error" in item):
            return "is not a JSON-RPC 2.0 response (jsonrpc \"2.0\", the id, a result or an error)"
        error = item.get("error")
        if "error" in item and not (isinstance(error, dict) and isinstance(error.get("code"), int)
                                    and not isinstance(error.get("code"), bool)
                                    and isinstance(error.get("message"), str)):
            return "is a JSON-RPC error without a numeric code and a message"
    return None


def _status_problem(body: bytes) -> str | None:
    """What keeps an HTTP+JSON error body from being a google.rpc.Status (A2A §11.6)."""
    try:
        payload = strict_json(body)
    except ValueError:
        return "is not JSON"
    error = payload.get("error") if isinstance(payload, dict) else None
    if not (isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("status"), str)
            and isinstance(error.get("message"), str)):
        return "is an error that is not a google.rpc.Status (error.code, error.status, error.message)"
    return None


def _notification(request: FuzzRequest) -> bool:
    """A JSON-RPC request without an id: JSON-RPC 2.0 §4.1 asks for no answer."""
    try:
        body = json.loads(request.body)
    except ValueError:
        return False
    return isinstance(body, dict) and "id" not in body


def leaks(request: FuzzRequest, answer: RawAnswer, secrets: Secrets) -> list[Breach]:
    """The credentials of the request that an error body or any header gives back, by name."""
    sent = request.body + "".join(v for _, v in request.headers).encode("utf-8", "surrogateescape")
    headers = "\n".join(f"{k}: {v}" for k, v in answer.headers.items())
    error_body = answer.body.decode("utf-8", errors="replace") if _error(answer) else ""
    found = []
    for name, value in secrets.named():
        if value.encode() not in sent:
            continue
        places = [where for where, text in (("a header", headers), ("the error body", error_body)) if value in text]
        if places:
            found.append(Breach(LEAK.id, f"{' and '.join(places)} echoes {name}, sent in the request",
                                f"{name} in {' and '.join(places)}"))
    return found


def _kind(answer: RawAnswer) -> str:
    """An answer's status and media type: what tells one server error (or error shape) from another."""
    return f"HTTP {answer.status} {answer.headers.get('content-type', 'no content type').split(';')[0].strip()}"


def _error(answer: RawAnswer) -> bool:
    """An answer that is an error, or holds one (a JSON-RPC error, an error event of a stream)."""
    return answer.status >= 400 or b'"error"' in answer.body
