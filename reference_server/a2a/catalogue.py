"""The catalogue of A2A operations: one row per operation, with every name it has on the wire.

An operation's facts live here and nowhere else: its A2A 1.0 method (a2a.proto's rpc, the JSON-RPC method of 1.0),
its request message, whether it answers with a stream, its HTTP+JSON routes, and its names in A2A 0.3 (the JSON-RPC
method of the 0.3 JSON Schema, the 0.3 proto's rpc on HTTP+JSON, and their request definitions). The bindings route
and decode by it (bindings/operations.py holds each operation's handler under these names), the client bench names
what a client called by it, and the schema check finds each request's schema in it.

Adding an operation is one row here and its handlers in bindings/operations.py; tests/test_catalogue.py keeps the
handler tables and this one equal."""

from __future__ import annotations

from dataclasses import dataclass

V1_0, V0_3 = "1.0", "0.3"  # the A2A versions (major.minor) this server speaks


@dataclass(frozen=True)
class HttpRule:
    """One HTTP+JSON route of an operation (its proto's google.api.http rule), under the binding's prefix;
    `{seg:…}` is one path segment without ':'."""

    verb: str
    path: str
    params: str  # "body" (POST body, `body: "*"`), "query" (GET/DELETE query string)
    versions: tuple[str, ...] = (V1_0, V0_3)  # the A2A versions the route serves


@dataclass(frozen=True)
class Op:
    """One A2A operation and its names (A2A §5.3 and §9-§11; 0.3: DIGEST §3)."""

    name: str  # the A2A 1.0 method (a2a.proto rpc), also its JSON-RPC method
    request: str  # the a2a.proto request message of its parameters
    routes: tuple[HttpRule, ...]  # its HTTP+JSON routes, 1.0 and 0.3
    v03_method: str | None = None  # its A2A 0.3 JSON-RPC method; None: not in 0.3's JSON-RPC binding
    v03_request: str | None = None  # the 0.3 JSON Schema's JSON-RPC request definition of that method
    v03_rest: str | None = None  # the 0.3 proto's rpc name on HTTP+JSON; None: not in 0.3's HTTP+JSON binding
    v03_rest_body: str | None = None  # the 0.3 proto request message its HTTP+JSON body is (None: path ids only)
    streaming: bool = False  # it answers with an SSE stream
    sends: bool = False  # its parameters carry a message for the agent
    paged: bool = False  # its answer is one page of a list (pageToken, nextPageToken)


CATALOGUE: tuple[Op, ...] = (  # in the spec's order (§5.3)
    Op("SendMessage", "SendMessageRequest", (HttpRule("POST", "/message:send", "body"),),
       "message/send", "SendMessageRequest", "SendMessage", "SendMessageRequest", sends=True),
    Op("SendStreamingMessage", "SendMessageRequest", (HttpRule("POST", "/message:stream", "body"),),
       "message/stream", "SendStreamingMessageRequest", "SendStreamingMessage", "SendMessageRequest",
       streaming=True, sends=True),
    Op("GetTask", "GetTaskRequest", (HttpRule("GET", "/tasks/{seg:id}", "query"),),
       "tasks/get", "GetTaskRequest", "GetTask"),
    # 0.3 lists ListTasks in a table only, in neither its JSON Schema nor its proto
    Op("ListTasks", "ListTasksRequest", (HttpRule("GET", "/tasks", "query", (V1_0,)),), paged=True),
    Op("CancelTask", "CancelTaskRequest", (HttpRule("POST", "/tasks/{seg:id}:cancel", "body"),),
       "tasks/cancel", "CancelTaskRequest", "CancelTask"),
    # A2A DIGEST §3 A2: the proto says GET, the spec text POST; both are served (0.3: the Python SDK POSTs, JS GETs)
    Op("SubscribeToTask", "SubscribeToTaskRequest",
       (HttpRule("GET", "/tasks/{seg:id}:subscribe", "query"), HttpRule("POST", "/tasks/{seg:id}:subscribe", "body")),
       "tasks/resubscribe", "TaskResubscriptionRequest", "TaskSubscription", streaming=True),
    Op("CreateTaskPushNotificationConfig", "TaskPushNotificationConfig",
       (HttpRule("POST", "/tasks/{seg:taskId}/pushNotificationConfigs", "body"),),
       "tasks/pushNotificationConfig/set", "SetTaskPushNotificationConfigRequest",
       "CreateTaskPushNotificationConfig", "CreateTaskPushNotificationConfigRequest"),
    Op("GetTaskPushNotificationConfig", "GetTaskPushNotificationConfigRequest",
       (HttpRule("GET", "/tasks/{seg:taskId}/pushNotificationConfigs/{seg:id}", "query"),),
       "tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfigRequest", "GetTaskPushNotificationConfig"),
    Op("ListTaskPushNotificationConfigs", "ListTaskPushNotificationConfigsRequest",
       (HttpRule("GET", "/tasks/{seg:taskId}/pushNotificationConfigs", "query"),),
       "tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigRequest",
       "ListTaskPushNotificationConfig", paged=True),
    Op("DeleteTaskPushNotificationConfig", "DeleteTaskPushNotificationConfigRequest",
       (HttpRule("DELETE", "/tasks/{seg:taskId}/pushNotificationConfigs/{seg:id}", "query"),),
       "tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfigRequest",
       "DeleteTaskPushNotificationConfig"),
    # 0.3 serves the extended card at /card (its proto's GetAgentCard), 1.0 at /extendedAgentCard
    Op("GetExtendedAgentCard", "GetExtendedAgentCardRequest",
       (HttpRule("GET", "/extendedAgentCard", "query", (V1_0,)), HttpRule("GET", "/card", "query", (V0_3,))),
       "agent/getAuthenticatedExtendedCard", None, "GetAgentCard"),
)

BY_NAME: dict[str, Op] = {op.name: op for op in CATALOGUE}
NAMES: tuple[str, ...] = tuple(BY_NAME)  # the 1.0 names, in the spec's order
V03_METHODS: dict[str, Op] = {op.v03_method: op for op in CATALOGUE if op.v03_method}
V03_REST_NAMES: dict[str, Op] = {op.v03_rest: op for op in CATALOGUE if op.v03_rest}
SENDS = frozenset(op.name for op in CATALOGUE if op.sends)
PAGED = frozenset(op.name for op in CATALOGUE if op.paged)
STREAMING = frozenset(op.name for op in CATALOGUE if op.streaming)
NOT_IN_V03 = frozenset(op.name for op in CATALOGUE if op.v03_method is None and op.v03_rest is None)


@dataclass(frozen=True)
class RestRoute:
    """One HTTP+JSON route as the binding serves it: the operation it is in each version."""

    verb: str
    path: str
    params: str  # "body" or "query", as HttpRule.params
    v1: str | None  # the A2A 1.0 operation (a2a.proto), None on a 0.3-only route
    v03: str | None  # the A2A 0.3 operation (the 0.3 proto's rpc name), None on a 1.0-only route


ROUTES: tuple[RestRoute, ...] = tuple(
    RestRoute(rule.verb, rule.path, rule.params, op.name if V1_0 in rule.versions else None,
              op.v03_rest if V0_3 in rule.versions else None)
    for op in CATALOGUE for rule in op.routes)
