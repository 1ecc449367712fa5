"""The JSON Schemas in spec/schemas/: fresh, well-formed, and right about the spec's own examples."""

from __future__ import annotations

import importlib.util
import json
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from jsonschema.validators import validator_for
from referencing.exceptions import Unresolvable

from reference_server.conformance.support.schemas import SCHEMA_DIR, assert_valid, errors, load_registry, validator

ROOT = SCHEMA_DIR.parents[1]
V1 = "urn:a2a:v1#/$defs/"
SCHEMA_FILES = sorted(SCHEMA_DIR.glob("*.json"))


@cache
def generator() -> ModuleType:
    """scripts/gen_schemas.py, imported from its path (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("gen_schemas", ROOT / "scripts" / "gen_schemas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def refs(schema: Any) -> list[str]:
    """Every $ref string in schema."""
    if isinstance(schema, dict):
        own = [schema["$ref"]] if isinstance(schema.get("$ref"), str) else []
        return own + [ref for value in schema.values() for ref in refs(value)]
    if isinstance(schema, list):
        return [ref for value in schema for ref in refs(value)]
    return []


# --- the generator -----------------------------------------------------------------------------------


def targets() -> list[Any]:
    return list(generator().TARGETS)


@pytest.mark.parametrize("target", targets(), ids=lambda target: Path(target.output).name)
def test_generated_schema_is_not_stale(target: Any) -> None:
    expected = generator().generate(target).encode("utf-8")
    stale = f"{target.output} is stale: run .venv/bin/python scripts/gen_schemas.py"
    assert (ROOT / target.output).read_bytes() == expected, stale


def test_check_flag_fails_on_stale_output_and_passes_after_regenerating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gen = generator()
    for target in gen.TARGETS:
        (tmp_path / target.proto).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / target.proto).write_bytes((ROOT / target.proto).read_bytes())
        (tmp_path / target.output).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / target.output).write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main(["--check"]) == 1
    assert "a2a-v1.json is stale" in capsys.readouterr().err
    assert gen.main([]) == 0
    (tmp_path / gen.V03_PROTO.output).write_text("{}\n", encoding="utf-8")
    assert gen.main(["--check"]) == 1  # --check covers every output, not only the first
    err = capsys.readouterr().err
    assert "a2a-v0.3-proto.json is stale" in err and "a2a-v1.json" not in err
    assert gen.main([]) == 0
    assert gen.main(["--check"]) == 0


def proto_names(target: Any, keyword: str) -> set[str]:
    """The top-level `message` or `enum` names the target's proto declares."""
    lines = (ROOT / target.proto).read_text(encoding="utf-8").splitlines()
    return {line.split()[1] for line in lines if line.startswith(keyword + " ")}


@pytest.mark.parametrize("target", targets(), ids=lambda target: Path(target.output).name)
def test_one_definition_per_proto_message_and_enum(target: Any) -> None:
    defined = {name for name in load(ROOT / target.output)["$defs"] if not name.startswith("google.")}
    assert defined == proto_names(target, "message") | proto_names(target, "enum")


@pytest.mark.parametrize("target", targets(), ids=lambda target: Path(target.output).name)
def test_every_message_rejects_unknown_fields(target: Any) -> None:
    # design choice: the schemas check what our server emits, so strictness catches our bugs
    defs = load(ROOT / target.output)["$defs"]
    messages = [schema for schema in defs.values() if "properties" in schema]
    assert len(messages) == len(proto_names(target, "message"))
    assert all(schema["additionalProperties"] is False for schema in messages)


# --- every schema file -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=[path.name for path in SCHEMA_FILES])
def test_schema_is_valid_against_its_metaschema(path: Path) -> None:
    schema = load(path)
    validator_for(schema).check_schema(schema)


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=[path.name for path in SCHEMA_FILES])
def test_every_ref_resolves_offline(path: Path) -> None:
    schema = load(path)
    base = schema.get("$id", "urn:a2a:v0.3")
    resolver = load_registry().resolver(base_uri=base)
    for ref in sorted(set(refs(schema))):
        resolver.lookup(ref)


def test_unknown_refs_fail_instead_of_fetching() -> None:
    with pytest.raises(Unresolvable):
        validator("https://json-schema.org/not-in-spec-schemas.json").validate({})


# --- A2A 1.0: the examples in shared/a2a-spec/DIGEST.md §4, §5, §10, §11 --------------------------------

CARD = {
    "name": "Echo Agent",
    "description": "Echoes text",
    "version": "1.0.0",
    "supportedInterfaces": [
        {"url": "https://h/a2a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "https://h/a2a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
    ],
    "capabilities": {"streaming": True, "pushNotifications": True, "extendedAgentCard": True},
    "securitySchemes": {"apiKey": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}}},
    "securityRequirements": [{"schemes": {"apiKey": {"list": []}}}],
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "Echo back", "tags": ["echo"]}],
}
TASK = {
    "id": "t1",
    "contextId": "c1",
    "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-10-28T10:30:00.000Z"},
    "artifacts": [{"artifactId": "a1", "parts": [{"text": "hello"}]}],
}
MESSAGE = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
AGENT_MESSAGE = {**MESSAGE, "role": "ROLE_AGENT"}
WORKING = {"state": "TASK_STATE_WORKING"}
SKILL_WITHOUT_TAGS = {"id": "e", "name": "E", "description": "E"}


def with_path(body: dict[str, Any], **path: str) -> dict[str, Any]:
    """A REST body plus its path variables: the request message the binding decodes (A2A §11.3)."""
    return {**path, **body}


VALID_V1: list[tuple[str, Any]] = [
    # DIGEST §5 Part examples ("iVBORw0K..." completed to the base64 of the 8-byte PNG signature)
    ("Part", {"text": "Hello"}),
    ("Part", {"raw": "iVBORw0KGgo=", "filename": "a.png", "mediaType": "image/png"}),
    ("Part", {"url": "https://x/doc.pdf", "mediaType": "application/pdf"}),
    ("Part", {"data": {"k": "v"}, "mediaType": "application/json"}),
    ("Part", {"data": None}),  # data is any JSON value, null included
    # DIGEST §5 card example, and the same with the empty scope list as ProtoJSON serializers emit it
    ("AgentCard", CARD),
    ("AgentCard", {**CARD, "securityRequirements": [{"schemes": {"apiKey": {}}}]}),
    # DIGEST §4 JSON-RPC params and results
    (
        "SendMessageRequest",
        {"message": MESSAGE, "configuration": {"returnImmediately": False, "historyLength": 0}},
    ),
    ("SendMessageResponse", {"task": TASK}),
    (
        "ListTasksRequest",
        {"contextId": "c1", "status": "TASK_STATE_WORKING", "pageSize": 50, "pageToken": "cursor"},
    ),
    ("GetExtendedAgentCardRequest", {}),
    ("google.protobuf.Empty", {}),  # DeleteTaskPushNotificationConfig result
    # DIGEST §4 REST bodies ("{...}" filled in); body "*" carries all but the path variables
    ("SendMessageRequest", {"message": MESSAGE, "configuration": {"acceptedOutputModes": ["text/plain"]}}),
    (
        "SendMessageResponse",
        {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}},
    ),
    ("CancelTaskRequest", with_path({}, id="t1")),
    ("CancelTaskRequest", with_path({"metadata": {"reason": "user"}}, id="t1")),
    # DIGEST §10 SSE StreamResponse payloads
    ("StreamResponse", {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}),
    (
        "StreamResponse",
        {
            "artifactUpdate": {
                "taskId": "t1",
                "contextId": "c1",
                "artifact": {"artifactId": "a1", "parts": [{"text": "# Report"}]},
            }
        },
    ),
    (
        "StreamResponse",
        {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}},
    ),
    # DIGEST §11 push payload ("..." filled in)
    (
        "StreamResponse",
        {
            "statusUpdate": {
                "taskId": "t1",
                "contextId": "c1",
                "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-10-28T10:30:00Z"},
            }
        },
    ),
    # A18: REQUIRED lists that may be empty
    ("AgentCard", {**CARD, "skills": []}),
    ("ListTasksResponse", {"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}),
    ("TaskStatus", {"state": "TASK_STATE_UNSPECIFIED"}),
]

INVALID_V1: list[tuple[str, str, Any, str]] = [
    # (case, $defs name, instance, a fragment of the error it must raise)
    ("task without id", "Task", {"status": {"state": "TASK_STATE_WORKING"}}, "'id' is a required property"),
    ("part with two contents", "Part", {"text": "a", "url": "https://x"}, "is valid under each of"),
    ("part with no content", "Part", {"mediaType": "text/plain"}, "is not valid under any of"),
    ("empty part", "Part", {}, "is not valid under any of"),
    ("message with no parts", "Message", {**MESSAGE, "parts": []}, "$.parts: [] should be non-empty"),
    ("timestamp without Z", "TaskStatus", {**WORKING, "timestamp": "2025-10-28T10:30:00"}, "does not match"),
    (
        "timestamp with an offset",
        "TaskStatus",
        {**WORKING, "timestamp": "2025-10-28T10:30:00+00:00"},
        "does not match",
    ),
    (
        "impossible date",
        "TaskStatus",
        {**WORKING, "timestamp": "2025-13-45T10:30:00Z"},
        "is not a 'date-time'",
    ),
    ("0.3 role", "Message", {**MESSAGE, "role": "user"}, "$.role: 'user' is not one of"),
    ("numeric enum", "TaskStatus", {"state": 3}, "$.state: 3 is not of type 'string'"),
    ("0.3 kind on a task", "Task", {**TASK, "kind": "task"}, "('kind' was unexpected)"),
    ("raw that is not base64", "Part", {"raw": "not base64!"}, "$.raw: 'not base64!' does not match"),
    ("empty supportedInterfaces", "AgentCard", {**CARD, "supportedInterfaces": []}, "should be non-empty"),
    (
        "skill without tags",
        "AgentCard",
        {**CARD, "skills": [SKILL_WITHOUT_TAGS]},
        "'tags' is a required property",
    ),
    (
        "two stream payloads",
        "StreamResponse",
        {"task": TASK, "message": AGENT_MESSAGE},
        "is valid under each of",
    ),
    ("empty stream response", "StreamResponse", {}, "is not valid under any of"),
    (
        "two send results",
        "SendMessageResponse",
        {"task": TASK, "message": AGENT_MESSAGE},
        "is valid under each of",
    ),
    (
        "two security schemes",
        "SecurityScheme",
        {"httpAuthSecurityScheme": {"scheme": "Bearer"}, "mtlsSecurityScheme": {}},
        "is valid under each of",
    ),
    ("snake_case field name", "Task", {**TASK, "context_id": "c1"}, "('context_id' was unexpected)"),
    (
        "list without nextPageToken",
        "ListTasksResponse",
        {"tasks": [], "pageSize": 50, "totalSize": 0},
        "'nextPageToken' is a required property",
    ),
]


@pytest.mark.parametrize(
    ("name", "instance"), VALID_V1, ids=[f"{name}-{i}" for i, (name, _) in enumerate(VALID_V1)]
)
def test_v1_accepts_spec_example(name: str, instance: Any) -> None:
    assert_valid(instance, V1 + name)


@pytest.mark.parametrize(
    ("name", "instance", "expected"), [case[1:] for case in INVALID_V1], ids=[case[0] for case in INVALID_V1]
)
def test_v1_rejects(name: str, instance: Any, expected: str) -> None:
    found = errors(instance, V1 + name)
    assert any(expected in error for error in found), found


def test_assert_valid_lists_every_error_with_its_path() -> None:
    bad = {"id": "t1", "status": {"state": "working"}, "history": [{**MESSAGE, "parts": []}]}
    with pytest.raises(AssertionError) as raised:
        assert_valid(bad, V1 + "Task")
    assert "$.history[0].parts: [] should be non-empty" in str(raised.value)
    assert "$.status.state: 'working' is not one of" in str(raised.value)


# --- A2A 0.3 -----------------------------------------------------------------------------------------

TASK_V03 = {
    "kind": "task",
    "id": "t1",
    "contextId": "c1",
    "status": {"state": "completed", "timestamp": "2025-10-28T10:30:00.000Z"},
    "history": [
        {"kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]},
    ],
    "artifacts": [{"artifactId": "a1", "parts": [{"kind": "text", "text": "hello"}]}],
}


def test_v03_accepts_a_task_with_kind() -> None:
    assert_valid(TASK_V03, "urn:a2a:v0.3#/definitions/Task")


def test_v03_rejects_a_v1_task() -> None:
    assert errors(TASK, "urn:a2a:v0.3#/definitions/Task")


# --- A2A 0.3 over HTTP+JSON: ProtoJSON of the 0.3 proto (generated) ------------------------------------

V03_PROTO = "urn:a2a:v0.3-proto#/$defs/"
TASK_V03_PROTO = {
    "id": "t1",
    "contextId": "c1",
    "status": {"state": "TASK_STATE_CANCELLED", "timestamp": "2025-10-28T10:30:00.000Z"},
    "history": [{"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "hi"}]}],
    "artifacts": [{"artifactId": "a1", "parts": [
        {"file": {"fileWithBytes": "iVBORw0KGgo=", "mimeType": "image/png", "name": "a.png"}},  # name: SDK proto
        {"data": {"data": {"k": "v"}}, "metadata": {"m": 1}},  # metadata: SDK proto
    ]}],
}


def test_v03_proto_accepts_a_task_in_0_3_proto_json() -> None:
    assert_valid(TASK_V03_PROTO, V03_PROTO + "Task")
    assert_valid({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"},
                                   "final": False}}, V03_PROTO + "StreamResponse")


@pytest.mark.parametrize(("instance", "expected"), [
    (TASK_V03, "('kind' was unexpected)"),
    ({**TASK_V03_PROTO, "status": {"state": "TASK_STATE_CANCELED"}}, "'TASK_STATE_CANCELED' is not one of"),
    ({**TASK_V03_PROTO, "history": [MESSAGE]}, "('parts' was unexpected)"),
    ({**TASK_V03_PROTO, "artifacts": [{"artifactId": "a1", "parts": [{"raw": "AA=="}]}]}, "('raw' was unexpected)"),
], ids=["JSON-RPC 0.3 task", "1.0 spelling of canceled", "1.0 message", "1.0 part"])
def test_v03_proto_rejects(instance: Any, expected: str) -> None:
    found = errors(instance, V03_PROTO + "Task")
    assert any(expected in error for error in found), found


# --- our own files -----------------------------------------------------------------------------------

TASK_FILE = {
    **TASK,
    "caller": "travel-bot",
    "pushConfigs": [{"id": "p1", "taskId": "t1", "url": "https://hooks.example/a2a", "token": "tok"}],
}

GOOD_OWN_FILES: list[tuple[str, Any]] = [
    (
        "callers",
        [
            {"name": "travel-bot", "key": "k_3f9c", "mode": "isolated", "note": "Alice's trip planner"},
            {"name": "x", "key": "k", "extra": "ignored"},  # design: extra fields are ignored
        ],
    ),
    (
        "card",
        {
            "name": "Eugene's assistant",
            "description": "Schedules meetings and answers for Eugene.",
            "skills": [
                {
                    "id": "scheduling",
                    "name": "Scheduling",
                    "description": "Books meetings",
                    "tags": ["calendar"],
                    "examples": ["Book lunch"],
                }
            ],
            "extra": "ignored",
        },
    ),
    ("card", {}),  # every member is optional: the server falls back (design: Fallbacks)
    ("task-file", TASK_FILE),
    ("watches", [{"id": "build-status", "token": "t_7f3a", "description": "CI"}, {"id": "open", "extra": 1}]),
    ("watches", []),
    ("push-log", {"receivedAt": "2026-11-30T02:06:33.726Z", "watch": "build-status", "body": {"task": TASK}}),
    ("push-log", {"receivedAt": "2026-11-30T02:06:33.726Z", "watch": "w", "body": None}),  # any JSON value
]

BAD_OWN_FILES: list[tuple[str, str, Any, str]] = [
    # (case, schema name, instance, a fragment of the error it must raise)
    ("caller name with capitals", "callers", [{"name": "Travel Bot", "key": "k"}], "does not match"),
    ("empty key", "callers", [{"name": "x", "key": ""}], "should be non-empty"),
    ("unknown mode", "callers", [{"name": "x", "key": "k", "mode": "owner"}], "is not one of"),
    ("skill with empty tags", "card", {"skills": [{**SKILL_WITHOUT_TAGS, "tags": []}]}, "non-empty"),
    (
        "skill missing description",
        "card",
        {"skills": [{"id": "s", "name": "S", "tags": ["t"]}]},
        "'description' is a required property",
    ),
    ("task file without caller", "task-file", TASK, "'caller' is a required property"),
    ("task file with kind", "task-file", {**TASK_FILE, "kind": "task"}, "('kind' was unexpected)"),
    ("bad caller name", "task-file", {**TASK_FILE, "caller": "Not A Name"}, "does not match"),
    (
        "push config without url",
        "task-file",
        {**TASK_FILE, "pushConfigs": [{"id": "p1"}]},
        "$.pushConfigs[0]: 'url' is a required property",
    ),
    ("watch id with a dot", "watches", [{"id": "build.status"}], "does not match"),
    ("watch id of 101 characters", "watches", [{"id": "w" * 101}], "does not match"),
    ("watch without id", "watches", [{"token": "t"}], "'id' is a required property"),
    ("empty watch token", "watches", [{"id": "w", "token": ""}], "should be non-empty"),
    ("watches as an object", "watches", {"w": {"token": "t"}}, "is not of type 'array'"),
    (
        "push log time with an offset",
        "push-log",
        {"receivedAt": "2026-11-30T02:06:33.726+00:00", "watch": "w", "body": {}},
        "does not match",
    ),
    ("push log without body", "push-log", {"receivedAt": "2026-11-30T02:06:33.726Z", "watch": "w"},
     "'body' is a required property"),
    ("push log with the token", "push-log",
     {"receivedAt": "2026-11-30T02:06:33.726Z", "watch": "w", "body": {}, "token": "t"}, "('token' was unexpected)"),
    (
        "task file without status",
        "task-file",
        {key: value for key, value in TASK_FILE.items() if key != "status"},
        "'status' is a required property",
    ),
]


@pytest.mark.parametrize(
    ("name", "instance"), GOOD_OWN_FILES, ids=[f"{name}-{i}" for i, (name, _) in enumerate(GOOD_OWN_FILES)]
)
def test_own_file_schema_accepts(name: str, instance: Any) -> None:
    assert_valid(instance, f"urn:reference-server:{name}")


@pytest.mark.parametrize(
    ("name", "instance", "expected"), [case[1:] for case in BAD_OWN_FILES], ids=[c[0] for c in BAD_OWN_FILES]
)
def test_own_file_schema_rejects(name: str, instance: Any, expected: str) -> None:
    found = errors(instance, f"urn:reference-server:{name}")
    assert any(expected in error for error in found), found


def test_task_file_covers_every_task_field() -> None:
    # task-file cannot $ref the whole Task (additionalProperties: false), so it lists Task's fields itself
    task = load(SCHEMA_DIR / "a2a-v1.json")["$defs"]["Task"]
    listed = load(SCHEMA_DIR / "task-file.json")["$defs"]["task"]
    assert set(listed["properties"]) == set(task["properties"])
    assert listed["required"] == task["required"]


def documented_json(doc: str, heading: str) -> list[Any]:
    """The ```json blocks of one section of a doc, parsed."""
    section = (ROOT / "docs" / doc).read_text(encoding="utf-8").split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [json.loads(block.split("```", 1)[0]) for block in section.split("```json\n")[1:]]


def test_the_documented_watches_file_and_push_log_line_are_valid() -> None:
    watches, line = documented_json("workspace.md", "watches.json and the push logs")
    assert_valid(watches, "urn:reference-server:watches")
    assert_valid(line, "urn:reference-server:push-log")
