"""Reading an ACTS corpus (§2, §12.1): a manifest with `include`, or one document; the tests in order, each with
its document's variables. Also: which pass a test belongs to, and what a test writes that the grammar does not say
(the runner reads it one way and notes how)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from scripts.acts.assertions import is_operator

LEVELS = ("must", "should", "may")
PASSES = ("main", "reduced", "auth")
STEP_KINDS = ("operation", "raw", "client_response", "assertion")
STANDARD_BEHAVIORS = (  # acts-specification.md §11.2
    "tck-complete-task", "tck-input-required", "tck-reject-task", "tck-message-response", "tck-artifact-text",
    "tck-artifact-file", "tck-artifact-file-url", "tck-artifact-data", "tck-long-running", "tck-multi-turn",
    "tck-cancel", "tck-stream-basic", "tck-stream-chunked", "tck-task-failure",
)
# A2A 1.0 AgentCapabilities (a2a.proto)
CAPABILITIES = ("streaming", "pushNotifications", "extensions", "extendedAgentCard")
# the corpus's operation names that are not ACTS §4.1's
OPERATION_ALIASES = {
    "set_push_notification_config": "create_push_config",
    "create_push_notification_config": "create_push_config",
    "get_push_notification_config": "get_push_config",
    "list_push_notification_configs": "list_push_configs",
    "delete_push_notification_config": "delete_push_config",
}


class CorpusError(ValueError):
    """A corpus the runner cannot read or that is not ACTS."""


@dataclass
class Test:
    id: str
    name: str
    level: str
    suite_id: str
    suite_name: str
    source: str  # file name
    body: dict[str, Any]  # the test as written
    variables: dict[str, Any] = field(default_factory=dict)  # the manifest's, then its document's
    spec_version: str = "1.0"

    @property
    def steps(self) -> list[dict[str, Any]]:
        return list(self.body.get("steps") or [])

    @property
    def tags(self) -> list[str]:
        return list(self.body.get("tags") or [])

    @property
    def transport(self) -> list[str]:
        return list(self.body.get("transport") or [])

    @property
    def capabilities(self) -> dict[str, Any]:
        return dict((self.body.get("preconditions") or {}).get("capabilities") or {})

    @property
    def behaviors(self) -> list[str]:
        return list(self.body.get("requires_behaviors") or [])


def _read(path: Path) -> dict[str, Any]:
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise CorpusError(f"{path}: {error}") from error
    if not isinstance(document, dict):
        raise CorpusError(f"{path}: not an ACTS document (a map)")
    version = str(document.get("acts_version", ""))
    if version.split(".")[0] != "1":
        raise CorpusError(f"{path}: acts_version {version!r}; this runner reads 1.x (§17)")
    if "suites" not in document and "include" not in document:
        raise CorpusError(f"{path}: neither suites nor include (§2)")
    return document


def load(path: Path) -> list[Test]:
    """Every test of the document at path and of the documents it includes, in order."""
    document = _read(path)
    base_variables = dict(document.get("variables") or {})
    tests: list[Test] = []
    for include in document.get("include") or []:
        included = path.parent / include
        tests.extend(_tests(included, _read(included), base_variables))
    tests.extend(_tests(path, document, {}))
    seen: set[str] = set()
    for test in tests:
        if test.id in seen:
            raise CorpusError(f"{test.source}: test id {test.id} is not unique (§14)")
        seen.add(test.id)
    return tests


def _tests(path: Path, document: dict[str, Any], inherited: dict[str, Any]) -> list[Test]:
    variables = {**inherited, **(document.get("variables") or {})}
    tests = []
    for suite in document.get("suites") or []:
        for body in suite.get("tests") or []:
            _validate(path, body)
            tests.append(Test(
                id=body["id"], name=str(body.get("name", "")), level=body["level"], suite_id=str(suite.get("id")),
                suite_name=str(suite.get("name", "")), source=path.name, body=body, variables=variables,
                spec_version=str(document.get("spec_version", "1.0")),
            ))
    return tests


def _validate(path: Path, body: Any) -> None:
    where = f"{path.name}: test {body.get('id') if isinstance(body, dict) else body!r}"
    if not isinstance(body, dict) or not isinstance(body.get("id"), str):
        raise CorpusError(f"{where}: a test needs an id")
    if body.get("level") not in LEVELS:
        raise CorpusError(f"{where}: level must be one of {LEVELS}")
    steps = body.get("steps")
    if not isinstance(steps, list) or not steps:
        raise CorpusError(f"{where}: steps must be a non-empty list")
    for step in steps:
        kinds = [k for k in STEP_KINDS if isinstance(step, dict) and k in step]
        if not isinstance(step, dict) or "id" not in step or len(kinds) != 1:
            raise CorpusError(f"{where}: each step needs an id and exactly one of {STEP_KINDS}")


def pass_of(test: Test) -> str:
    """The pass a test runs in. ACTS itself has no passes; this runner's: `reduced` holds the tests that need a
    capability declared false (run against a server started with it off), `auth` those that need credentials
    withheld or a second caller (a capabilities.authentication precondition, the auth/security runner-special
    tests other than webhook ones), `main` the rest."""
    if any(value is False for value in test.capabilities.values()):
        return "reduced"
    tags = set(test.tags)
    if "authentication" in test.capabilities or "security" in tags:
        return "auth"
    if {"auth", "runner-special"} <= tags and "push" not in tags:
        return "auth"
    return "main"


def notes(test: Test) -> list[str]:
    """How the runner reads what this test writes outside the grammar, or against A2A 1.0 as written."""
    found: list[str] = []
    for capability in test.capabilities:
        if capability not in CAPABILITIES:
            found.append(f"precondition capabilities.{capability} is not an A2A 1.0 AgentCapabilities field "
                         "(authentication is declared by securitySchemes); read literally from the card")
    for behavior in test.behaviors:
        if behavior not in STANDARD_BEHAVIORS:
            found.append(f"requires behaviour {behavior}, which ACTS §11.2 does not define")
    for step in test.steps:
        found.extend(_step_notes(step))
        unprefixed = _unprefixed(step, test.behaviors)
        if unprefixed:
            found.append(unprefixed)
    if _uses_items(test.body):
        found.append("uses `items` (not in the grammar): a map applies to every element, an array by position")
    return list(dict.fromkeys(found))


def _step_notes(step: dict[str, Any]) -> list[str]:
    sid = step.get("id")
    params = step.get("params") or {}
    found = []
    operation = step.get("operation")
    if operation in OPERATION_ALIASES:
        found.append(f"operation {operation} is not in ACTS §4.1: run as {OPERATION_ALIASES[operation]}")
    if operation == "get_agent_card" and params.get("extended"):
        found.append("get_agent_card with extended: true is run as get_extended_agent_card")
    if isinstance(params.get("pushNotificationConfig"), dict):
        found.append(f"step {sid}: pushNotificationConfig (ACTS §4.3's abstract params) is sent in A2A 1.0's wire "
                     "form, flattened into the TaskPushNotificationConfig")
    if "message" in params and ({"taskId", "contextId"} & params.keys()):
        beside = "/".join(sorted({"taskId", "contextId"} & params.keys()))
        found.append(f"step {sid}: {beside} beside `message` in params (A2A 1.0 has them in Message): sent as "
                     "written, so a 1.0 server ignores them")
    raw_message = ((step.get("raw") or {}).get("body") or {})
    raw_message = (raw_message.get("params") or {}).get("message") if isinstance(raw_message, dict) else None
    if isinstance(raw_message, dict) and "messageId" not in raw_message:
        found.append(f"step {sid}: raw body with a message without messageId (REQUIRED in 1.0), sent as written")
    error = step.get("expect_error") or {}
    if "code" in error and "error_type" not in error:
        found.append(f"step {sid}: expect_error.code is read as the grammar's error_type")
    if "data" in error:
        found.append(f"step {sid}: expect_error.data is read as the error details (JSON-RPC error.data, "
                     "HTTP+JSON error.details)")
    expect = step.get("expect") or {}
    if set(expect) - {"status", "body"}:
        found.append(f"step {sid}: expect without body: {', '.join(sorted(set(expect) - {'status', 'body'}))} "
                     "read as body assertions")
    if expect.get("status") == "error":
        found.append(f"step {sid}: `status: error` is read as: the answer is an error")
    stream = step.get("expect_stream") or {}
    generic = {k for e in [stream.get("final_event") or {}, *(stream.get("events") or [])] for k in e} - {
        "description", "match", "index", "one_of", "any_of", "all_of", "not", "task", "message", "status_update",
        "artifact_update", "statusUpdate", "artifactUpdate"}
    if generic and "operation" in step:
        found.append(f"step {sid}: stream assertions on {', '.join(sorted(generic))}, which no StreamResponse has "
                     "at its top level: read on the event's payload")
    return found


def _unprefixed(step: dict[str, Any], behaviors: list[str]) -> str | None:
    """A send that starts a task in a test asking for behaviours, whose first part is no text with one of their
    prefixes (ACTS §11: the first part's text asks the behaviour). Follow-ups (with a taskId) carry none."""
    params = step.get("params") or {}
    message = params.get("message")
    if not behaviors or not isinstance(message, dict) or "taskId" in message or "taskId" in params:
        return None
    parts = message.get("parts") or [{}]
    text = parts[0].get("text") if isinstance(parts[0], dict) else None
    if isinstance(text, str) and text.startswith(tuple(behaviors)):
        return None
    return (f"step {step.get('id')}: the test requires {', '.join(behaviors)} but the message's first part is "
            f"{'text without the prefix' if isinstance(text, str) else 'not text'}: sent as written")


def _uses_items(value: Any) -> bool:
    if isinstance(value, dict):
        return any((k == "items" and is_operator(k, v)) or _uses_items(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_uses_items(v) for v in value)
    return False
