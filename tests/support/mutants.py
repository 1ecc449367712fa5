"""Known defects, each put in front of the reference server by the rewriting proxy (support/proxy.py), to measure the
conformance suite itself: a mutant is caught when the requirement it breaks fails, and the catch is precise when
nothing else fails (`make conformance-mutants`, docs/conformance.md).

Each mutant breaks one requirement, the way servers in the field do (the wrong error code, the v1.0.0 status table, a
missing field, a dropped event, a header ignored). Where the catalogue states one rule twice (the TCK's DM-TASK-002 and
DM-SERIAL-002 are both "a state is its enum name"), `breaks` names both.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from support.proxy import Answer, Call, Mutant

ZULU = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$")
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


# --- reading and writing A2A payloads on either binding ---


def result_of(call: Call, payload: Any) -> Any:
    """The A2A object an answer or an event carries: JSON-RPC `result`, or the HTTP+JSON body."""
    if call.binding == "jsonrpc":
        return payload.get("result") if isinstance(payload, dict) else None
    return payload


def with_result(call: Call, payload: Any, value: Any) -> Any:
    return {**payload, "result": value} if call.binding == "jsonrpc" else value


def jsonrpc_error(payload: Any) -> dict[str, Any] | None:
    error = payload.get("error") if isinstance(payload, dict) else None
    return error if isinstance(error, dict) else None


def rest_reason(payload: Any) -> str | None:
    error = payload.get("error") if isinstance(payload, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    return next((d.get("reason") for d in details or [] if isinstance(d, dict) and d.get("@type") == ERROR_INFO),
                None)


def is_error(call: Call, answer: Answer, code: int, reason: str) -> bool:
    """Whether the answer is this A2A error (JSON-RPC code, or ErrorInfo reason)."""
    payload = answer.json()
    error = jsonrpc_error(payload) if call.binding == "jsonrpc" else None
    return (error is not None and error.get("code") == code) if call.binding == "jsonrpc" else (
        rest_reason(payload) == reason)


def walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object inside a value."""
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from walk(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from walk(inner)


def tasks_in(value: Any) -> Iterator[dict[str, Any]]:
    """The tasks of an answer: {"task": …}, a Task itself (GetTask, CancelTask), the tasks of a list."""
    if not isinstance(value, dict):
        return
    if isinstance(value.get("task"), dict):
        yield value["task"]
    elif "status" in value and "id" in value:
        yield value
    for task in value.get("tasks") or []:
        if isinstance(task, dict):
            yield task


def answers(operation: str, change: Callable[[Call, Any], Any], *, v1_only: bool = True) -> Callable[
        [Call, Answer], Answer | None]:
    """An answer rewrite for one operation's successful results (in A2A 1.0 unless told otherwise)."""

    def rewrite(call: Call, answer: Answer) -> Answer | None:
        if call.operation != operation or (v1_only and not call.version.startswith("1.")) or answer.status >= 300:
            return None
        payload = answer.json()
        if call.binding == "jsonrpc" and jsonrpc_error(payload) is not None:
            return None
        value = result_of(call, payload)
        if value is None:
            return None
        changed = change(call, copy.deepcopy(value))
        return answer.set_json(with_result(call, payload, changed))

    return rewrite


def events(operation: str, change: Callable[[Call, Any, int], list[Any]]) -> Callable[[Call, Any], list[Any]]:
    """An event rewrite for one operation's A2A 1.0 streams: change(call, result, index) -> the results to send."""

    def rewrite(call: Call, payload: Any) -> list[Any]:
        if payload is None:  # the end of the stream
            return []
        if call.operation != operation or not call.version.startswith("1.") or jsonrpc_error(payload):
            return [payload]
        index = call.memory.setdefault(("events", id(call)), 0)
        call.memory[("events", id(call))] = index + 1
        value = result_of(call, payload)
        if value is None:
            return [payload]
        return [with_result(call, payload, item) for item in change(call, value, index)]

    return rewrite


def error_answer(call: Call, code: int, status: int, reason: str, message: str) -> Answer:
    """An A2A error as the binding writes it (JSON-RPC error object, or google.rpc.Status)."""
    info = {"@type": ERROR_INFO, "reason": reason, "domain": "a2a-protocol.org"}
    if call.binding == "jsonrpc":
        body = call.json() or {}
        return Answer(200, [("content-type", "application/json")], json.dumps(
            {"jsonrpc": "2.0", "id": body.get("id"), "error": {"code": code, "message": message, "data": [info]}}
        ).encode())
    names = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 500: "INTERNAL"}
    return Answer(status, [("content-type", "application/a2a+json")], json.dumps(
        {"error": {"code": status, "status": names.get(status, "UNKNOWN"), "message": message, "details": [info]}}
    ).encode())


def rewrite_error(operation: str, code: int, reason: str, to: tuple[int, int, str]) -> Callable[
        [Call, Answer], Answer | None]:
    """Change one A2A error of one operation into another: (code, status, reason)."""

    def rewrite(call: Call, answer: Answer) -> Answer | None:
        if call.operation != operation or not call.version.startswith("1.") or not is_error(call, answer, code,
                                                                                             reason):
            return None
        return error_answer(call, *to, "Rewritten by the mutant")

    return rewrite


def headers_only(change: Callable[[Call, Answer], None]) -> Callable[[Call, Answer], Answer | None]:
    def rewrite(call: Call, answer: Answer) -> Answer | None:
        change(call, answer)
        return answer

    return rewrite


# --- the mutants ---


def _without_zone(call: Call, answer: Answer) -> Answer | None:
    payload = answer.json()
    if payload is None or call.binding not in ("jsonrpc", "rest"):
        return None
    return answer.set_json(_unzoned(payload))


def _unzoned(value: Any) -> Any:
    if isinstance(value, str):
        match = ZULU.match(value)
        return match.group(1) if match else value
    if isinstance(value, dict):
        return {k: _unzoned(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unzoned(v) for v in value]
    return value


def _message_as_task(call: Call, value: Any) -> Any:
    message = value.get("message") if isinstance(value, dict) else None
    if message is None:
        return value
    context = message.get("contextId", "ctx-of-the-mutant")
    return {"task": {"id": f"task-of-{message.get('messageId', 'a-message')}", "contextId": context,
                     "status": {"state": "TASK_STATE_COMPLETED", "message": message,
                                "timestamp": "2026-01-01T00:00:00.000Z"}}}


def _reverse_history(call: Call, value: Any) -> Any:
    for task in tasks_in(value):
        if isinstance(task.get("history"), list):
            task["history"].reverse()
    return value


def _no_last_token(call: Call, value: Any) -> Any:
    if isinstance(value, dict) and value.get("nextPageToken") == "":
        del value["nextPageToken"]
    return value


def _drop_terminal(call: Call, value: Any, index: int) -> list[Any]:
    update = value.get("statusUpdate") if isinstance(value, dict) else None
    terminal = ("TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED")
    if isinstance(update, dict) and (update.get("status") or {}).get("state") in terminal:
        return []
    return [value]


def _version_ignored(call: Call) -> Call | None:
    version = call.headers.get("a2a-version", "")
    if version and not version.startswith(("1.0", "0.3")):
        call.headers["a2a-version"] = "1.0"  # served as 1.0, whatever it asked for
        return call
    return None


def _patch_refused(call: Call) -> Call | Answer | None:
    version = call.headers.get("a2a-version", "")
    if re.fullmatch(r"\d+\.\d+\.\d+", version) and call.binding in ("jsonrpc", "rest"):
        return error_answer(call, -32009, 400, "VERSION_NOT_SUPPORTED", f"A2A-Version {version} is not supported")
    return None


def _missing_version_as_10(call: Call) -> Call | None:
    if call.binding in ("jsonrpc", "rest") and not call.headers.get("a2a-version") and "A2A-Version" not in call.query:
        call.headers["a2a-version"] = "1.0"
        return call
    return None


def _drop_credentials(call: Call) -> Call | None:
    params = call.params()
    if not isinstance(params, dict) or call.operation not in ("SendMessage", "CreateTaskPushNotificationConfig"):
        return None
    found = False
    for value in walk(params):
        if "authentication" in value and "url" in value:
            del value["authentication"]
            found = True
    return call.with_params(params) if found else None


def _key_added(call: Call) -> Call | None:
    # every operation but the extended card forgets to check the caller (CARD-EXT-001 is its own defect)
    if call.binding in ("jsonrpc", "rest") and call.operation not in (None, "GetExtendedAgentCard") and \
            "x-api-key" not in call.headers and "authorization" not in call.headers:
        call.headers["x-api-key"] = call.memory["key"]
        return call
    return None


def _rest_key_added(call: Call) -> Call | None:
    # the REST binding alone forgets to check the caller
    return _key_added(call) if call.binding == "rest" else None


def _unknown_method(call: Call, answer: Answer) -> Answer | None:
    error = jsonrpc_error(answer.json())
    if call.binding == "jsonrpc" and error is not None and error.get("code") == -32601:
        payload = answer.json()
        payload["error"]["code"] = -32600
        return answer.set_json(payload)
    return None


def _snake_media_type(call: Call, value: Any) -> Any:
    for task in tasks_in(value):
        for artifact in task.get("artifacts") or []:
            for part in artifact.get("parts") or []:
                if "mediaType" in part:
                    part["media_type"] = part.pop("mediaType")
    return value


def _lower_states(call: Call, value: Any) -> Any:
    for task in tasks_in(value):
        status = task.get("status") or {}
        if isinstance(status.get("state"), str):
            status["state"] = status["state"].removeprefix("TASK_STATE_").lower().replace("_", "-")
    return value


def _not_canceled(call: Call, value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("status"), dict):
        value["status"]["state"] = "TASK_STATE_WORKING"
    return value


def _artifacts_listed(call: Call, value: Any) -> Any:
    if "includeArtifacts=true" not in call.query and isinstance(value, dict):
        for task in value.get("tasks") or []:
            task.setdefault("artifacts", [])
    return value


def _history_unlimited(call: Call) -> Call | None:
    """historyLength > 0 is dropped from GetTask: the whole history comes back."""
    if call.operation != "GetTask" or not call.version.startswith("1."):
        return None
    if call.binding == "rest":
        kept = [p for p in call.query.split("&") if not re.fullmatch(r"historyLength=[1-9]\d*", p)]
        if kept == call.query.split("&"):
            return None
        call.query = "&".join(kept)
        return call
    params = call.params()
    if isinstance(params, dict) and isinstance(params.get("historyLength"), int) and params["historyLength"] > 0:
        del params["historyLength"]
        return call.with_params(params)
    return None


def _jsonrpc_text_plain(call: Call, answer: Answer) -> None:
    if call.binding == "jsonrpc" and answer.header("content-type").startswith("application/json"):
        answer.set_header("content-type", "text/plain")


def _string_ids(call: Call, answer: Answer) -> Answer | None:
    payload = answer.json()
    if call.binding == "jsonrpc" and isinstance(payload, dict) and isinstance(payload.get("id"), int) \
            and "result" in payload:
        payload["id"] = str(payload["id"])
        return answer.set_json(payload)
    return None


def _no_error_info(call: Call, answer: Answer) -> Answer | None:
    payload = answer.json()
    error = payload.get("error") if call.binding == "rest" and isinstance(payload, dict) else None
    if isinstance(error, dict) and isinstance(error.get("details"), list):
        error["details"] = [d for d in error["details"] if not (isinstance(d, dict) and d.get("@type") == ERROR_INFO)]
        return answer.set_json(payload)
    return None


def _data_object(call: Call, answer: Answer) -> Answer | None:
    payload = answer.json()
    error = jsonrpc_error(payload) if call.binding == "jsonrpc" else None
    if error is not None and isinstance(error.get("data"), list) and len(error["data"]) == 1:
        error["data"] = error["data"][0]  # nothing lost: the one object stands where the list of it should
        return answer.set_json(payload)
    return None


def _first_event_dropped(call: Call, value: Any, index: int) -> list[Any]:
    return [] if index == 0 else [value]


def _delete_twice_fails(call: Call) -> Call | Answer | None:
    if call.operation != "DeleteTaskPushNotificationConfig" or not call.version.startswith("1."):
        return None
    params = call.params() if call.binding == "jsonrpc" else None
    key = json.dumps(params, sort_keys=True) if params is not None else call.path
    deleted = call.memory.setdefault("deleted", set())
    if key in deleted:
        return error_answer(call, -32001, 404, "TASK_NOT_FOUND", "Push config not found")
    deleted.add(key)
    return None


def _return_immediately_ignored(call: Call) -> Call | None:
    params = call.params()
    configuration = params.get("configuration") if isinstance(params, dict) else None
    if call.operation == "SendMessage" and isinstance(configuration, dict) and configuration.get("returnImmediately"):
        del configuration["returnImmediately"]
        return call.with_params(params)
    return None


def _context_of_task_taken(call: Call) -> Call | None:
    params = call.params()
    message = params.get("message") if isinstance(params, dict) else None
    if call.operation in ("SendMessage", "SendStreamingMessage") and isinstance(message, dict) and \
            message.get("taskId") and message.get("contextId"):
        del message["contextId"]  # the server goes on in the task's own context, whatever the message said
        return call.with_params(params)
    return None


def _config_id_is_task_id(call: Call) -> Call | None:
    params = call.params()
    if call.operation == "CreateTaskPushNotificationConfig" and call.version.startswith("1.") and \
            isinstance(params, dict) and not params.get("id"):
        task = params.get("taskId") or call.path.split("/tasks/")[-1].split("/")[0]
        params["id"] = task  # one config per task: the second replaces the first
        return call.with_params(params)
    return None


def _rest_json(call: Call, answer: Answer) -> None:
    if call.binding == "rest" and answer.header("content-type").startswith("application/a2a+json"):
        answer.set_header("content-type", "application/json")


def _unknown_field_refused(call: Call) -> Call | Answer | None:
    params = call.params()
    message = params.get("message") if isinstance(params, dict) else None
    known = {"messageId", "role", "parts", "contextId", "taskId", "metadata", "extensions", "referenceTaskIds"}
    if call.operation == "SendMessage" and call.version.startswith("1.") and isinstance(message, dict) and \
            set(message) - known:  # (0.3's message has other fields: kind, content)
        return error_answer(call, -32602, 400, "INVALID_PARAMS", "Unknown field in message")
    return None


def _empty_part_filled(call: Call) -> Call | None:
    params = call.params()
    message = params.get("message") if isinstance(params, dict) else None
    if isinstance(message, dict) and isinstance(message.get("parts"), list) and {} in message["parts"]:
        message["parts"] = [part or {"text": ""} for part in message["parts"]]
        return call.with_params(params)
    return None


def _no_bad_request(call: Call, answer: Answer) -> Answer | None:
    payload = answer.json()
    details = None
    if call.binding == "jsonrpc" and jsonrpc_error(payload):
        details = payload["error"].get("data")
    elif call.binding == "rest" and isinstance(payload, dict) and isinstance(payload.get("error"), dict):
        details = payload["error"].get("details")
    if isinstance(details, list) and any(isinstance(d, dict) and d.get("@type") == BAD_REQUEST for d in details):
        details[:] = [d for d in details if not (isinstance(d, dict) and d.get("@type") == BAD_REQUEST)]
        return answer.set_json(payload)
    return None


def _message_stream_goes_on(call: Call, value: Any, index: int) -> list[Any]:
    if isinstance(value, dict) and "message" in value:
        return [value, copy.deepcopy(value)]
    return [value]


def _state_goes_back(call: Call, value: Any, index: int) -> list[Any]:
    update = value.get("statusUpdate") if isinstance(value, dict) else None
    if isinstance(update, dict) and (update.get("status") or {}).get("state") == "TASK_STATE_WORKING":
        again = copy.deepcopy(value)
        again["statusUpdate"]["status"] = {**update["status"], "state": "TASK_STATE_SUBMITTED"}
        return [value, again]
    return [value]


def _card_header(name: str) -> Callable[[Call, Answer], None]:
    def change(call: Call, answer: Answer) -> None:
        if call.binding == "card":
            answer.set_header(name, None)

    return change


def _missing_config_found(call: Call, answer: Answer) -> Answer | None:
    if call.operation == "GetTaskPushNotificationConfig" and call.version.startswith("1.") and \
            is_error(call, answer, -32001, "TASK_NOT_FOUND"):
        params = call.params() if call.binding == "jsonrpc" else {}
        config = {"taskId": (params or {}).get("taskId", "a-task"), "id": (params or {}).get("id", "a-config"),
                  "url": "https://webhook.conformance.invalid/made-up"}
        if call.binding == "jsonrpc":
            return Answer(200, [("content-type", "application/json")], json.dumps(
                {"jsonrpc": "2.0", "id": (call.json() or {}).get("id"), "result": config}).encode())
        return Answer(200, [("content-type", "application/a2a+json")], json.dumps(config).encode())
    return None


def _agent_roles_dropped(call: Call, value: Any) -> Any:
    for task in tasks_in(value):
        for message in task.get("history") or []:
            if message.get("role") == "ROLE_AGENT":
                del message["role"]
    return value


def _stream_artifact_without_id(call: Call, value: Any, index: int) -> list[Any]:
    update = value.get("artifactUpdate") if isinstance(value, dict) else None
    if isinstance(update, dict) and isinstance(update.get("artifact"), dict):
        update["artifact"].pop("artifactId", None)
    return [value]


def _conflict_status(call: Call, answer: Answer) -> Answer | None:
    if call.binding == "rest" and call.version.startswith("1.") and rest_reason(answer.json()) == "TASK_NOT_CANCELABLE":
        answer.status = 409
        return answer
    return None


MUTANTS: list[Mutant] = [
    Mutant("get-unknown-wrong-code", ("CORE-GET-002",),
           "GetTask of an unknown task is UnsupportedOperationError, not TaskNotFoundError",
           answer=rewrite_error("GetTask", -32001, "TASK_NOT_FOUND", (-32004, 400, "UNSUPPORTED_OPERATION"))),
    Mutant("cancel-unknown-wrong-code", ("CORE-CANCEL-003",),
           "CancelTask of an unknown task is TaskNotCancelableError, not TaskNotFoundError",
           answer=rewrite_error("CancelTask", -32001, "TASK_NOT_FOUND", (-32002, 400, "TASK_NOT_CANCELABLE"))),
    Mutant("subscribe-terminal-wrong-code", ("STREAM-SUB-003",),
           "SubscribeToTask of a terminal task is TaskNotFoundError, not UnsupportedOperationError",
           answer=rewrite_error("SubscribeToTask", -32004, "UNSUPPORTED_OPERATION", (-32001, 404, "TASK_NOT_FOUND"))),
    Mutant("send-terminal-wrong-code", ("CORE-SEND-002",),
           "A message to a terminal task is InvalidParams, not UnsupportedOperationError",
           answer=rewrite_error("SendMessage", -32004, "UNSUPPORTED_OPERATION", (-32602, 400, "INVALID_PARAMS"))),
    Mutant("status-from-v1.0.0", ("HTTP_JSON-STATUS-001",),
           "HTTP+JSON answers TaskNotCancelableError with 409, as the v1.0.0 table had it (v1.0.1: 400)",
           answer=_conflict_status),
    Mutant("agent-role-missing", ("DM-MSG-001",),
           "GetTask leaves the role out of the agent's messages in the history",
           answer=answers("GetTask", _agent_roles_dropped)),
    Mutant("stream-artifact-without-id", ("DM-ART-001",),
           "A stream's artifact updates carry artifacts without their artifactId",
           event=events("SendStreamingMessage", _stream_artifact_without_id)),
    Mutant("history-reversed", ("CORE-HIST-005",), "GetTask gives the history newest first",
           answer=answers("GetTask", _reverse_history)),
    Mutant("history-length-ignored", ("CORE-HIST-002",), "GetTask ignores a historyLength above 0",
           request=_history_unlimited),
    Mutant("last-page-without-token", ("CORE-LIST-004",), "ListTasks leaves nextPageToken out of the last page",
           answer=answers("ListTasks", _no_last_token)),
    Mutant("listed-with-artifacts", ("CORE-LIST-005",),
           "ListTasks gives each task an artifacts key though includeArtifacts was not asked",
           answer=answers("ListTasks", _artifacts_listed)),
    Mutant("stream-without-end", ("CORE-STREAM-003",),
           "A send stream closes without the task's terminal status update",
           event=events("SendStreamingMessage", _drop_terminal)),
    Mutant("message-stream-goes-on", ("CORE-STREAM-002",), "A message answer's stream carries the message twice",
           event=events("SendStreamingMessage", _message_stream_goes_on)),
    Mutant("state-goes-back", ("STREAM-ORDER-001",),
           "A send stream says submitted again after working",
           event=events("SendStreamingMessage", _state_goes_back)),
    Mutant("subscription-without-task", ("STREAM-SUB-001",),
           "SubscribeToTask leaves out the task it should start with",
           event=events("SubscribeToTask", _first_event_dropped)),
    Mutant("version-ignored", ("VER-SERVER-002",),
           "A2A-Version is ignored: 2.0, 1.1 or 'one' are served as 1.0", request=_version_ignored),
    Mutant("patch-refused", ("VER-CLIENT-002",), "A2A-Version 1.0.3 is refused: the patch number is compared",
           request=_patch_refused),
    Mutant("no-version-as-1.0", ("VER-SERVER-003",), "A request without A2A-Version is read as 1.0, not 0.3",
           request=_missing_version_as_10),
    Mutant("push-credentials-dropped", ("PUSH-DELIVER-001",),
           "A push config's authentication is dropped: pushes carry no Authorization header",
           request=_drop_credentials),
    Mutant("push-config-replaced", ("PUSH-CREATE-002",),
           "A push config created without an id gets the task's id, so a second one replaces the first",
           request=_config_id_is_task_id),
    Mutant("delete-twice-fails", ("PUSH-DEL-002",), "Deleting a push config a second time is TaskNotFoundError",
           request=_delete_twice_fails),
    Mutant("missing-config-found", ("PUSH-GET-002",),
           "Getting a push config that does not exist answers with a made-up config",
           answer=_missing_config_found),
    Mutant("timestamps-without-zone", ("DM-SERIAL-003",), "Timestamps come without their Z (local time)",
           answer=_without_zone),
    Mutant("snake-case-field", ("DM-SERIAL-001",), "GetTask names a part's mediaType media_type",
           answer=answers("GetTask", _snake_media_type)),
    Mutant("lower-case-states", ("DM-SERIAL-002",), "ListTasks writes states in lower case (completed)",
           answer=answers("ListTasks", _lower_states)),
    Mutant("task-for-a-message", ("CORE-SEND-001",),
           "SendMessage wraps a message answer in a completed task", answer=answers("SendMessage", _message_as_task)),
    Mutant("return-immediately-ignored", ("CORE-EXECUTION-MODE-002",),
           "returnImmediately is ignored: the send waits for the task's end", request=_return_immediately_ignored),
    Mutant("context-mismatch-taken", ("CORE-MULTI-006",),
           "A message whose contextId is not its task's goes on in the task's context", request=_context_of_task_taken),
    Mutant("cancel-not-canceled", ("CORE-CANCEL-001",), "CancelTask answers with the task still working",
           answer=answers("CancelTask", _not_canceled)),
    Mutant("no-key-no-refusal", ("AUTH-SERVER-002",), "A request without a key is served as the first caller's",
           request=_key_added),
    Mutant("rest-without-auth", ("BIND-EQUIV-004", "AUTH-SERVER-002"),
           "The REST binding alone serves a request without a key as the first caller's", request=_rest_key_added),
    Mutant("unknown-method-is-invalid-request", ("SPEC-JSONRPC-001",), "An unknown JSON-RPC method is -32600",
           answer=_unknown_method),
    Mutant("jsonrpc-as-text", ("JSONRPC-FMT-002",), "JSON-RPC answers come as text/plain",
           answer=headers_only(_jsonrpc_text_plain)),
    Mutant("id-as-string", ("JSONRPC-FMT-001",), "A JSON-RPC result carries a numeric id as a string",
           answer=_string_ids),
    Mutant("error-data-object", ("JSONRPC-ERR-001",), "A JSON-RPC error's one data object is not in a list",
           answer=_data_object),
    Mutant("rest-error-without-reason", ("HTTP_JSON-ERR-002",), "HTTP+JSON errors carry no google.rpc.ErrorInfo",
           answer=_no_error_info),
    Mutant("rest-as-json", ("HTTP_JSON-SVC-001",), "HTTP+JSON answers come as application/json",
           answer=headers_only(_rest_json)),
    Mutant("card-without-cache-control", ("CARD-CACHE-001",), "The card comes without Cache-Control",
           answer=headers_only(_card_header("Cache-Control"))),
    Mutant("card-without-etag", ("CARD-CACHE-002",), "The card comes without an ETag",
           answer=headers_only(_card_header("ETag"))),
    Mutant("unknown-field-refused", ("DM-SERIAL-005",), "A message with a field A2A does not define is refused",
           request=_unknown_field_refused),
    Mutant("empty-part-taken", ("CORE-ERR-002",), "A part with no content is taken (filled in as empty text)",
           request=_empty_part_filled),
    Mutant("no-field-violations", ("SPEC-ERR-001",), "A validation error names no field (no google.rpc.BadRequest)",
           answer=_no_bad_request),
]
