"""Shape checks of request parameters: names and enum spellings of the other A2A version or binding, snake_case.

Each finding is (check id, path, message); paths are inside the JSON-RPC params, the HTTP+JSON body or query.
The 0.3 -> 1.0 renames are those of A2A App. A.2 (DIGEST §7).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from reference_server.a2a.catalogue import SENDS, V0_3, V1_0

Finding = tuple[str, str, str, str | None]  # (check, path, message, the version the name belongs to)
FREE_FORM = frozenset({"metadata", "data"})  # values the client owns: never walked

# the proto enums in number order (a2a.proto; the 0.3 proto's Role is the same)
V1_ROLES = ("ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT")
V03_ROLES = ("user", "agent")
V1_STATES = ("TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED",
             "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED",
             "TASK_STATE_AUTH_REQUIRED")
V03_STATES = ("submitted", "working", "input-required", "completed", "canceled", "failed", "rejected",
              "auth-required", "unknown")
_V1_HINT = "for A2A 1.0, send A2A-Version: 1.0"


def at(path: str, name: str | int) -> str:
    if isinstance(name, int):
        return f"{path}[{name}]"
    return f"{path}.{name}" if path else name


def findings(binding: str, version: str, operation: str, params: Any) -> list[Finding]:
    """What is wrong with the shape of one request's parameters for its version and binding."""
    if not isinstance(params, Mapping):
        return []
    found: list[Finding] = []
    if version == V1_0:
        found += _v1(operation, params)
        found += _snake_case(params, "")
    elif binding == "jsonrpc":
        found += _v03_jsonrpc(operation, params)
        found += _snake_case(params, "")
    else:  # 0.3 HTTP+JSON is ProtoJSON, whose parsers take the proto's snake_case names too
        found += _v03_rest(operation, params)
    return found


def _other(path: str, message: str, belongs_to: str | None) -> Finding:
    return ("field-other-version", path, message, belongs_to)


# --- A2A 1.0 (both bindings)


def _v1(operation: str, params: Mapping[str, Any]) -> Iterator[Finding]:
    if operation in SENDS:
        if "request" in params:
            yield _other("request", "`request` is the 0.3 proto's name (0.3 HTTP+JSON); A2A 1.0 calls it `message`",
                         V0_3)
        if isinstance(message := params.get("message"), Mapping):
            yield from _v1_message(message, "message")
        if isinstance(configuration := params.get("configuration"), Mapping):
            yield from _v1_configuration(configuration, "configuration")
    elif operation == "CreateTaskPushNotificationConfig":
        yield from _v1_push_config(params, "")
    elif operation in ("GetTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig"):
        if "pushNotificationConfigId" in params:
            yield _other("pushNotificationConfigId",
                         "`pushNotificationConfigId` is the A2A 0.3 name; in 1.0 the config is `id`, its task `taskId`",
                         V0_3)
    elif operation == "ListTasks" and "status" in params:
        yield from _enum(params["status"], "status", V1_STATES, V03_STATES, "TaskState")


def _v1_message(message: Mapping[str, Any], path: str) -> Iterator[Finding]:
    if "kind" in message:
        yield _other(at(path, "kind"), "`kind` is the A2A 0.3 discriminator; 1.0 messages and parts have none", V0_3)
    if "content" in message:
        yield _other(at(path, "content"), "`content` is the A2A 0.3 HTTP+JSON name; A2A 1.0 calls it `parts`", V0_3)
    if "role" in message:
        yield from _enum(message["role"], at(path, "role"), V1_ROLES, V03_ROLES, "Role")
    parts = message.get("parts")
    for n, part in enumerate(parts if isinstance(parts, list) else []):
        if not isinstance(part, Mapping):
            continue
        if "kind" in part:
            yield _other(at(at(path, "parts"), n) + ".kind",
                         "`kind` is the A2A 0.3 part discriminator; a 1.0 part is told by its member "
                         "(text, raw, url or data)", V0_3)
        if "file" in part:
            yield _other(at(at(path, "parts"), n) + ".file",
                         "`file` is the A2A 0.3 file part; a 1.0 part carries `raw` or `url`, with `filename` and "
                         "`mediaType`", V0_3)


def _v1_configuration(configuration: Mapping[str, Any], path: str) -> Iterator[Finding]:
    renames = {
        "blocking": "`blocking` is the A2A 0.3 name; 1.0 has `returnImmediately` (the opposite sense, default false)",
        "pushNotificationConfig": "`pushNotificationConfig` is the A2A 0.3 name; 1.0 calls it "
                                  "`taskPushNotificationConfig`",
        "pushNotification": "`pushNotification` is the A2A 0.3 HTTP+JSON name; 1.0 calls it "
                            "`taskPushNotificationConfig`",
    }
    for name, message in renames.items():
        if name in configuration:
            yield _other(at(path, name), message, V0_3)
    if isinstance(push := configuration.get("taskPushNotificationConfig"), Mapping):
        yield from _v1_push_config(push, at(path, "taskPushNotificationConfig"))


def _v1_push_config(config: Mapping[str, Any], path: str) -> Iterator[Finding]:
    if "pushNotificationConfig" in config:
        yield _other(at(path, "pushNotificationConfig"),
                     "a nested `pushNotificationConfig` is the A2A 0.3 shape; the 1.0 TaskPushNotificationConfig is "
                     "flat: url, token, authentication beside taskId", V0_3)
    for name in ("config", "parent", "configId"):
        if name in config:
            yield _other(at(path, name), f"`{name}` is a 0.3 HTTP+JSON (0.3 proto) name; the 1.0 "
                         "TaskPushNotificationConfig is flat: url, token, authentication beside taskId", V0_3)
    if isinstance(auth := config.get("authentication"), Mapping) and "schemes" in auth:
        yield _other(at(at(path, "authentication"), "schemes"),
                     "`schemes` (a list) is the A2A 0.3 name; 1.0 AuthenticationInfo has one `scheme`", V0_3)


def _enum(value: Any, path: str, names: tuple[str, ...], other: tuple[str, ...], enum: str) -> Iterator[Finding]:
    """A2A §5.5: an enum is sent as its name; a number or the other version's spelling is reported.
    names: this version's spellings (proto enums in number order, so a number can be named)."""
    if isinstance(value, bool) or (isinstance(value, str) and value in names):
        return
    number = value if isinstance(value, (int, float)) else None
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        number = int(value)
    if number is not None:
        proto = names[0].endswith("_UNSPECIFIED")
        named = names[int(number)] if proto and number == int(number) and 0 <= number < len(names) else None
        hint = f" ({named})" if named else ""
        yield ("enum-spelling", path, f"{enum} is the number {value}; enums are sent by name{hint}, "
               f"one of {', '.join(names)}", None)
    elif isinstance(value, str) and value in other:
        yield ("enum-spelling", path, f"{value!r} is the other A2A version's spelling; this version spells "
               f"{enum} as one of {', '.join(names)}", None)


# --- A2A 0.3 JSON-RPC (the 0.3 JSON Schema's shapes)


def _v03_jsonrpc(operation: str, params: Mapping[str, Any]) -> Iterator[Finding]:
    if operation in SENDS:
        if isinstance(message := params.get("message"), Mapping):
            if "role" in message:
                yield from _enum(message["role"], "message.role", V03_ROLES, V1_ROLES, "Role")
            yield from _v03_parts(message.get("parts"), "message.parts", kinds=True)
        if isinstance(configuration := params.get("configuration"), Mapping):
            yield from _v1_names_in_configuration(configuration, "configuration")
    elif operation == "CreateTaskPushNotificationConfig" and "url" in params:
        yield _other("url", "a top-level `url` is the flat A2A 1.0 push config; 0.3 nests it in "
                     f"`pushNotificationConfig` ({_V1_HINT})", V1_0)
    elif operation in ("GetTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig") and "taskId" in params:
        yield _other("taskId", "`taskId` with `id` is the A2A 1.0 form; 0.3 takes the task as `id` and the config as "
                     f"`pushNotificationConfigId` ({_V1_HINT})", V1_0)


def _v03_parts(parts: Any, path: str, *, kinds: bool) -> Iterator[Finding]:
    for n, part in enumerate(parts if isinstance(parts, list) else []):
        if not isinstance(part, Mapping):
            continue
        where = at(path, n)
        for member in ("raw", "url"):
            if member in part:
                yield _other(at(where, member), f"`{member}` is an A2A 1.0 part member; 0.3 puts files in `file` "
                             f"({_V1_HINT})", V1_0)
        if kinds and "kind" not in part and any(m in part for m in ("text", "raw", "url", "data")):
            yield _other(where, f"a part without `kind` is the A2A 1.0 part shape; 0.3 JSON-RPC parts need `kind` "
                         f"({_V1_HINT})", V1_0)
        if not kinds and "kind" in part:
            yield _other(at(where, "kind"), "`kind` is the 0.3 JSON-RPC part shape; 0.3 HTTP+JSON parts are the 0.3 "
                         "proto's ProtoJSON (text, file, data)", V0_3)


def _v1_names_in_configuration(configuration: Mapping[str, Any], path: str) -> Iterator[Finding]:
    if "returnImmediately" in configuration:
        yield _other(at(path, "returnImmediately"), "`returnImmediately` is the A2A 1.0 name; 0.3 has `blocking` "
                     f"(the opposite sense) ({_V1_HINT})", V1_0)
    if "taskPushNotificationConfig" in configuration:
        yield _other(at(path, "taskPushNotificationConfig"), "`taskPushNotificationConfig` is the A2A 1.0 name; "
                     f"0.3 calls it `pushNotificationConfig` ({_V1_HINT})", V1_0)


# --- A2A 0.3 HTTP+JSON (ProtoJSON of the 0.3 proto, DIGEST §16 A23)


def _v03_rest(operation: str, params: Mapping[str, Any]) -> Iterator[Finding]:
    if operation not in SENDS:
        return
    message = params.get("message", params.get("request"))
    if isinstance(message, Mapping):
        where = "message" if "message" in params else "request"
        if "parts" in message:
            yield _other(at(where, "parts"), f"`parts` is the A2A 1.0 name; 0.3 HTTP+JSON calls it `content` "
                         f"({_V1_HINT})", V1_0)
        if "kind" in message:
            yield _other(at(where, "kind"), "`kind` is the 0.3 JSON-RPC shape; 0.3 HTTP+JSON messages have none",
                         V0_3)
        if "role" in message:
            yield from _enum(message["role"], at(where, "role"), V1_ROLES, V03_ROLES, "Role")
        for name in ("content", "parts"):
            yield from _v03_parts(message.get(name), at(where, name), kinds=False)
    if isinstance(configuration := params.get("configuration"), Mapping):
        yield from _v1_names_in_configuration(configuration, "configuration")


# --- field names: A2A §5.5 camelCase


def _snake_case(value: Any, path: str) -> Iterator[Finding]:
    if isinstance(value, Mapping):
        for name, item in value.items():
            if not isinstance(name, str) or name in FREE_FORM:
                continue
            if "_" in name.strip("_"):
                camel = name.split("_")[0] + "".join(w[:1].upper() + w[1:] for w in name.split("_")[1:])
                yield ("field-case", at(path, name), f"`{name}` is the proto's field name; A2A §5.5: JSON names are "
                       f"camelCase (`{camel}`)", None)
            yield from _snake_case(item, at(path, name))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _snake_case(item, at(path, n))
