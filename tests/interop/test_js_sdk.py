"""The official @a2a-js/sdk 1.3 client against a live server: both 1.0 bindings, and both 0.3 bindings through its
legacy mode (`legacyCompat`).

tests/interop/js/driver.mjs builds the client as REAL-CLIENTS.md §5 says (the card fetched by the SDK's resolver,
X-API-Key set by a fetch wrapper) and runs one SDK call per request line; these tests assert what the SDK hands back
to its caller, as proto-JSON, and what it put on the wire. The SDK is pinned by tests/interop/js/package-lock.json
and installed by `make js` (`make test` and so .ci/run do it; so does this module when node_modules is missing).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from interop.desk import CARD_NAME, interop_desk

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "tests" / "interop" / "js"
IN_CI = os.environ.get("CI") == "true"
MODES_1_0 = ["jsonrpc-1.0", "rest-1.0"]
MODES_0_3 = ["jsonrpc-0.3", "rest-0.3"]
MODES = MODES_1_0 + MODES_0_3
ANSWER_TIMEOUT = 30.0  # per driver request; the driver gives each SDK call 10 s, so a hung stream fails here too
WORKSPACE_CARD_NAME = CARD_NAME
ECHO_TEXT = "interop over the JS client"
HOOK = "https://push.test/notify"  # the test resolver's loopback name: nothing is ever sent off this machine

# What each SDK operation puts on the wire, per binding and version (REAL-CLIENTS §4 and §4.5): the JSON-RPC
# method, or the verb and path of HTTP+JSON. 0.3 HTTP+JSON is the 0.3 proto's routes under the /a2a interface.
WIRE: dict[str, dict[str, str]] = {
    "send": {"jsonrpc-1.0": "SendMessage", "jsonrpc-0.3": "message/send",
             "rest-1.0": "POST /a2a/v1/message:send", "rest-0.3": "POST /a2a/v1/message:send"},
    "stream": {"jsonrpc-1.0": "SendStreamingMessage", "jsonrpc-0.3": "message/stream",
               "rest-1.0": "POST /a2a/v1/message:stream", "rest-0.3": "POST /a2a/v1/message:stream"},
    "get": {"jsonrpc-1.0": "GetTask", "jsonrpc-0.3": "tasks/get",
            "rest-1.0": "GET /a2a/v1/tasks/{id}", "rest-0.3": "GET /a2a/v1/tasks/{id}"},
    "list": {"jsonrpc-1.0": "ListTasks", "rest-1.0": "GET /a2a/v1/tasks"},
    "cancel": {"jsonrpc-1.0": "CancelTask", "jsonrpc-0.3": "tasks/cancel",
               "rest-1.0": "POST /a2a/v1/tasks/{id}:cancel", "rest-0.3": "POST /a2a/v1/tasks/{id}:cancel"},
    "subscribe": {"jsonrpc-1.0": "SubscribeToTask", "jsonrpc-0.3": "tasks/resubscribe",
                  "rest-1.0": "POST /a2a/v1/tasks/{id}:subscribe", "rest-0.3": "GET /a2a/v1/tasks/{id}:subscribe"},
    "card": {"jsonrpc-1.0": "GetExtendedAgentCard", "jsonrpc-0.3": "agent/getAuthenticatedExtendedCard",
             "rest-1.0": "GET /a2a/v1/extendedAgentCard", "rest-0.3": "GET /a2a/v1/card"},
    "pushCreate": {"jsonrpc-1.0": "CreateTaskPushNotificationConfig", "jsonrpc-0.3": "tasks/pushNotificationConfig/set",
                   "rest-1.0": "POST /a2a/v1/tasks/{taskId}/pushNotificationConfigs",
                   "rest-0.3": "POST /a2a/v1/tasks/{taskId}/pushNotificationConfigs"},
    "pushGet": {"jsonrpc-1.0": "GetTaskPushNotificationConfig", "jsonrpc-0.3": "tasks/pushNotificationConfig/get",
                "rest-1.0": "GET /a2a/v1/tasks/{taskId}/pushNotificationConfigs/{id}",
                "rest-0.3": "GET /a2a/v1/tasks/{taskId}/pushNotificationConfigs/{id}"},
    # the SDK method is listTaskPushNotificationConfig, without the s of the wire method (REAL-CLIENTS §5)
    "pushList": {"jsonrpc-1.0": "ListTaskPushNotificationConfigs", "jsonrpc-0.3": "tasks/pushNotificationConfig/list",
                 "rest-1.0": "GET /a2a/v1/tasks/{taskId}/pushNotificationConfigs",
                 "rest-0.3": "GET /a2a/v1/tasks/{taskId}/pushNotificationConfigs"},
    "pushDelete": {"jsonrpc-1.0": "DeleteTaskPushNotificationConfig",
                   "jsonrpc-0.3": "tasks/pushNotificationConfig/delete",
                   "rest-1.0": "DELETE /a2a/v1/tasks/{taskId}/pushNotificationConfigs/{id}",
                   "rest-0.3": "DELETE /a2a/v1/tasks/{taskId}/pushNotificationConfigs/{id}"},
}


# --- the JS client: node, the pinned SDK, and the driver process ---


def unavailable(reason: str) -> None:
    """Skip on a developer's machine without node; in CI (CI=true) the interop run is required, so fail."""
    if IN_CI:
        pytest.fail(f"{reason}: CI installs the JS SDK client through make test (make js)")
    pytest.skip(reason)


def installed_sdk() -> None:
    """`make js` (npm ci, only when package-lock.json is newer than the last install)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        unavailable("node and npm are not installed")
    done = subprocess.run(["make", "--no-print-directory", "js"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0 or not (JS / "node_modules" / "@a2a-js" / "sdk").is_dir():
        unavailable(f"make js did not install @a2a-js/sdk: {done.stdout[-500:]} {done.stderr[-500:]}")


@dataclass
class Answer:
    """What the SDK returned (or raised) for one call, and the HTTP requests it sent for it."""

    mode: str
    ok: bool
    result: Any
    error: dict[str, Any]
    wire: list[dict[str, Any]]

    @property
    def calls(self) -> list[str]:
        """The requests as WIRE names them, after checking each went to the mode's binding and version."""
        binding, version = self.mode.split("-")
        names = []
        for sent in self.wire:
            assert sent["version"] == version, sent  # the SDK sends A2A-Version on every call (REAL-CLIENTS §3)
            if binding == "jsonrpc":
                assert (sent["method"], sent["path"], sent["rpcIdType"]) == ("POST", "/a2a", "number"), sent
                names.append(sent["rpcMethod"])
            else:
                assert sent["path"].startswith("/a2a/v1/"), sent
                names.append(f"{sent['method']} {sent['path']}")
        return names

    def raised(self, kind: str) -> str:
        """The message of the SDK error of that class (JsonRpcTaskNotFoundError and RestTaskNotFoundError are both
        TaskNotFoundError)."""
        assert not self.ok, self.result
        assert kind in self.error["kinds"], self.error
        return str(self.error["message"])

    def failed_with(self, status: int, reason: str) -> None:
        """The SDK's legacy (0.3) HTTP+JSON transport maps no error to a class: it throws a plain Error that quotes
        the HTTP status and the body, where the ErrorInfo reason is."""
        assert not self.ok, self.result
        assert (self.error["name"], self.error["kinds"]) == ("Error", []), self.error
        assert f"Status: {status}" in self.error["message"], self.error
        assert f'"reason":"{reason}"' in self.error["message"], self.error

    def refused(self, kind: str, status: int, reason: str) -> str:
        """Refused as the SDK reports it in this mode: an error of that class, or on 0.3 HTTP+JSON a plain Error."""
        if self.mode == "rest-0.3":
            self.failed_with(status, reason)
            return str(self.error["message"])
        return self.raised(kind)


class Driver:
    """tests/interop/js/driver.mjs: one JSON request line in, one JSON answer line out."""

    def __init__(self, url: str, key: str) -> None:
        node = shutil.which("node") or "node"
        self.process = subprocess.Popen([node, str(JS / "driver.mjs"), url, key], cwd=JS, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def call(self, mode: str, op: str, **params: Any) -> Answer:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({"mode": mode, "op": op, "params": params}) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], ANSWER_TIMEOUT)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            self.process.kill()
            self.process.wait()
            stderr = self.process.stderr.read() if self.process.stderr else ""
            pytest.fail(f"the JS driver gave no answer to {op} on {mode} within {ANSWER_TIMEOUT} s: {stderr[-2000:]}")
        answer = json.loads(line)
        return Answer(mode, answer["ok"], answer.get("result"), answer.get("error") or {}, answer["wire"])

    def close(self) -> None:
        """End of input ends the driver; kill it if it does not exit."""
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe:
                pipe.close()


@pytest.fixture(scope="module")
def js() -> Iterator[Driver]:
    installed_sdk()
    with interop_desk("js-client", scope_prefix="interop-js") as desk:
        driver = Driver(desk.url, desk.key)
        try:
            yield driver
        finally:
            driver.close()


# --- helpers over what the SDK returns (proto-JSON: default values are left out) ---


def send_for_task(js: Driver, mode: str, text: str, **options: Any) -> dict[str, Any]:
    answer = js.call(mode, "send", text=text, **options)
    assert answer.ok, answer.error
    assert answer.calls == [WIRE["send"][mode]]
    assert list(answer.result) == ["task"], answer.result  # the SDK returned a Task, not a Message
    return answer.result["task"]  # type: ignore[no-any-return]


def text_of(parts: list[dict[str, Any]]) -> str:
    return "".join(part.get("text", "") for part in parts)


def response_text(task: dict[str, Any]) -> str:
    responses = [artifact for artifact in task.get("artifacts", []) if artifact.get("name") == "response"]
    assert len(responses) == 1, task.get("artifacts")
    return text_of(responses[0]["parts"])


def wait_for_state(js: Driver, mode: str, task_id: str, state: str, *, within: float = 15.0) -> dict[str, Any]:
    """GetTask until the task is in `state`, or fail at the deadline showing the last task seen."""
    deadline = time.monotonic() + within
    while True:
        answer = js.call(mode, "get", id=task_id)
        assert answer.ok, answer.error
        if answer.result["status"]["state"] == state or time.monotonic() > deadline:
            assert answer.result["status"]["state"] == state, answer.result
            return answer.result  # type: ignore[no-any-return]
        time.sleep(0.05)  # the polling interval, not a wait for the run


# --- every operation, on both bindings, in 1.0 and through the SDK's 0.3 mode ---


@pytest.mark.parametrize("mode", MODES)
def test_blocking_send_completes_with_the_echo(js: Driver, mode: str) -> None:
    task = send_for_task(js, mode, ECHO_TEXT)
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert task["id"] and task["contextId"]
    assert response_text(task) == ECHO_TEXT
    first = task["history"][0]
    assert (first["role"], text_of(first["parts"]), first["taskId"]) == ("ROLE_USER", ECHO_TEXT, task["id"])


@pytest.mark.parametrize("mode", MODES)
def test_streaming_send_yields_the_task_then_status_and_artifact_updates(js: Driver, mode: str) -> None:
    answer = js.call(mode, "stream", text=ECHO_TEXT)
    assert answer.ok, answer.error
    assert answer.calls == [WIRE["stream"][mode]]
    events = answer.result
    kinds = [next(iter(event)) for event in events]
    assert kinds[0] == "task" and kinds[-1] == "statusUpdate" and "artifactUpdate" in kinds, kinds
    task = events[0]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    updates = [event["statusUpdate"] for event in events if "statusUpdate" in event]
    chunks = [event["artifactUpdate"] for event in events if "artifactUpdate" in event]
    assert all((u["taskId"], u["contextId"]) == (task["id"], task["contextId"]) for u in [*updates, *chunks])
    states = [u["status"]["state"] for u in updates]
    assert (states[0], states[-1], states.count("TASK_STATE_COMPLETED")) == (
        "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", 1), states
    response = [chunk for chunk in chunks if chunk["artifact"]["name"] == "response"]
    assert len(response) >= 2 and response[-1].get("lastChunk") is True
    if mode != "rest-0.3":  # the legacy HTTP+JSON transport of @a2a-js/sdk 1.3.0 drops `append` when it converts
        # the 0.3 proto event (its FromProto.taskArtifactUpdateEvent); the server sends it, as the spec checks
        assert not response[0].get("append") and all(chunk.get("append") for chunk in response[1:])
    assert "".join(text_of(chunk["artifact"]["parts"]) for chunk in response) == ECHO_TEXT


@pytest.mark.parametrize("mode", MODES)
def test_get_task_after_a_question_and_its_answer_honours_history_length(js: Driver, mode: str) -> None:
    asked = send_for_task(js, mode, "ask: Window or aisle?")
    assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert asked["status"]["message"]["role"] == "ROLE_AGENT"
    assert text_of(asked["status"]["message"]["parts"]) == "Window or aisle?"
    answered = send_for_task(js, mode, "Window, please", taskId=asked["id"], contextId=asked["contextId"])
    assert (answered["id"], answered["status"]["state"]) == (asked["id"], "TASK_STATE_COMPLETED")
    full = js.call(mode, "get", id=asked["id"])
    last = js.call(mode, "get", id=asked["id"], historyLength=1)
    assert full.ok and last.ok, (full.error, last.error)
    assert full.calls == last.calls == [WIRE["get"][mode].format(id=asked["id"])]
    assert response_text(full.result) == "Window, please"
    user_texts = [text_of(m["parts"]) for m in full.result["history"] if m["role"] == "ROLE_USER"]
    assert user_texts == ["ask: Window or aisle?", "Window, please"]
    assert last.result["history"] == full.result["history"][-1:]
    if mode.startswith("rest"):
        assert last.wire[0]["query"] == "?historyLength=1"


@pytest.mark.parametrize("mode", MODES_1_0)
def test_list_tasks_pages_through_the_callers_tasks(js: Driver, mode: str) -> None:
    first = send_for_task(js, mode, "first of two")
    second = send_for_task(js, mode, "second of two", contextId=first["contextId"])
    assert second["contextId"] == first["contextId"]
    everything = js.call(mode, "list", pageSize=100)
    page1 = js.call(mode, "list", contextId=first["contextId"], pageSize=1)
    assert page1.ok, page1.error
    page2 = js.call(mode, "list", contextId=first["contextId"], pageSize=1, pageToken=page1.result["nextPageToken"])
    assert everything.ok and page2.ok, (everything.error, page2.error)
    assert everything.calls == page1.calls == page2.calls == [WIRE["list"][mode]]
    assert {first["id"], second["id"]} <= {task["id"] for task in everything.result["tasks"]}
    assert len(page1.result["tasks"]) == 1 and page1.result["nextPageToken"]
    assert len(page2.result["tasks"]) == 1 and not page2.result.get("nextPageToken")
    assert {page1.result["tasks"][0]["id"], page2.result["tasks"][0]["id"]} == {first["id"], second["id"]}
    assert (page1.result["totalSize"], page1.result["pageSize"]) == (2, 1)


@pytest.mark.parametrize("mode", MODES_0_3)
def test_list_tasks_is_refused_by_the_client_itself_in_0_3(js: Driver, mode: str) -> None:
    """0.3 has no tasks/list; the SDK refuses before sending anything (REAL-CLIENTS §4.5)."""
    answer = js.call(mode, "list", pageSize=10)
    assert not answer.ok and answer.wire == []
    if mode == "jsonrpc-0.3":
        assert answer.raised("JsonRpcTransportError") == "Method not found: tasks/list"
    else:
        assert "no equivalent in v0.3" in answer.raised("UnsupportedOperationError")


@pytest.mark.parametrize("mode", MODES)
def test_cancel_task_cancels_a_sleeping_task(js: Driver, mode: str) -> None:
    task = send_for_task(js, mode, "sleep 30", returnImmediately=True)
    assert task["status"]["state"] == "TASK_STATE_WORKING"
    canceled = js.call(mode, "cancel", id=task["id"])
    assert canceled.ok, canceled.error
    assert canceled.calls == [WIRE["cancel"][mode].format(id=task["id"])]
    assert (canceled.result["id"], canceled.result["status"]["state"]) == (task["id"], "TASK_STATE_CANCELED")
    assert wait_for_state(js, mode, task["id"], "TASK_STATE_CANCELED")["id"] == task["id"]
    if mode.startswith("rest"):
        assert "body" not in canceled.wire[0]  # JS cancels with an empty body (REAL-CLIENTS §7.3)


@pytest.mark.parametrize("mode", MODES)
def test_subscribe_starts_with_the_task_and_ends_completed(js: Driver, mode: str) -> None:
    task = send_for_task(js, mode, "sleep 2", returnImmediately=True)
    answer = js.call(mode, "subscribe", id=task["id"])
    assert answer.ok, answer.error
    assert answer.calls == [WIRE["subscribe"][mode].format(id=task["id"])]
    events = answer.result
    assert events[0]["task"]["id"] == task["id"]
    assert events[0]["task"]["status"]["state"] == "TASK_STATE_WORKING"
    last = events[-1]["statusUpdate"]
    assert (last["taskId"], last["status"]["state"]) == (task["id"], "TASK_STATE_COMPLETED")


@pytest.mark.parametrize("mode", MODES)
def test_extended_card_is_the_workspace_card(js: Driver, mode: str) -> None:
    answer = js.call(mode, "card")
    assert answer.ok, answer.error
    assert answer.calls == [WIRE["card"][mode]]
    card = answer.result
    assert (card["name"], card["description"]) == (WORKSPACE_CARD_NAME, "The interop desk.")
    assert card["capabilities"]["streaming"] is True and card["capabilities"]["pushNotifications"] is True


@pytest.mark.parametrize("mode", MODES)
def test_push_config_create_get_list_delete(js: Driver, mode: str) -> None:
    """On a task that waits for input, so no push is ever due: the configs are only stored."""
    task = send_for_task(js, mode, "ask: Which city?")
    created = js.call(mode, "pushCreate", taskId=task["id"], url=HOOK, token="tok-js")
    assert created.ok, created.error
    assert created.calls == [WIRE["pushCreate"][mode].format(taskId=task["id"])]
    config = created.result
    assert config["id"] and (config["taskId"], config["url"], config["token"]) == (task["id"], HOOK, "tok-js")
    ref = {"taskId": task["id"], "id": config["id"]}
    got = js.call(mode, "pushGet", **ref)
    assert got.ok and got.result == config, (got.error, got.result)
    assert got.calls == [WIRE["pushGet"][mode].format(**ref)]
    listed = js.call(mode, "pushList", taskId=task["id"])
    assert listed.ok and listed.result == {"configs": [config]}, (listed.error, listed.result)
    assert listed.calls == [WIRE["pushList"][mode].format(taskId=task["id"])]
    deleted = js.call(mode, "pushDelete", **ref)
    assert deleted.ok and deleted.result is None, deleted.error
    assert deleted.calls == [WIRE["pushDelete"][mode].format(**ref)]
    assert js.call(mode, "pushList", taskId=task["id"]).result == {}  # proto-JSON leaves out an empty list
    js.call(mode, "pushGet", **ref).refused("TaskNotFoundError", 404, "TASK_NOT_FOUND")


@pytest.mark.parametrize("mode", MODES)
def test_unknown_task_is_task_not_found(js: Driver, mode: str) -> None:
    unknown = str(uuid.uuid4())
    for op in ("get", "cancel"):
        answer = js.call(mode, op, id=unknown)
        assert answer.calls == [WIRE[op][mode].format(id=unknown)]
        assert unknown in answer.refused("TaskNotFoundError", 404, "TASK_NOT_FOUND")


@pytest.mark.parametrize("mode", MODES)
def test_canceling_a_completed_task_is_refused(js: Driver, mode: str) -> None:
    done = send_for_task(js, mode, ECHO_TEXT)
    answer = js.call(mode, "cancel", id=done["id"])
    assert done["id"] in answer.refused("TaskNotCancelableError", 400, "TASK_NOT_CANCELABLE")  # A2A §3.1.5


@pytest.mark.parametrize("mode", MODES_1_0)
def test_subscribing_to_a_completed_task_is_refused(js: Driver, mode: str) -> None:
    done = send_for_task(js, mode, ECHO_TEXT)
    answer = js.call(mode, "subscribe", id=done["id"])
    assert done["id"] in answer.raised("UnsupportedOperationError")  # A2A §3.1.6


@pytest.mark.parametrize("mode", MODES_0_3)
def test_subscribing_to_a_completed_task_is_refused_in_0_3(js: Driver, mode: str) -> None:
    """The JS client in its 0.3 mode raises plain Errors; over JSON-RPC it reads the refusal from the one-event SSE
    stream a 0.3 stream error now is (it says "SSE event contained an error"), over HTTP+JSON from the 400."""
    done = send_for_task(js, mode, ECHO_TEXT)
    answer = js.call(mode, "subscribe", id=done["id"])
    assert not answer.ok and answer.error is not None, answer
    message = answer.error["message"]
    assert done["id"] in message and "terminal task" in message, message
    if mode == "jsonrpc-0.3":
        assert "SSE event contained an error" in message and "-32004" in message, message
    else:
        assert "400" in message and "FAILED_PRECONDITION" in message, message
