"""reference_server/pytest_plugin.py: the fixtures a client project gets by installing the package.

The complete example of docs/client-testing.md runs as a client project would run it: its own folder, a pytest of its
own, no conftest of ours, the plugin found through its entry point; the failure text it shows is what an assertion
says. The rest: the plugin costs a session that does not use it nothing, a failed start names its cause, a server
stops with its fixture, a script is checked as it is set, the assertions name what went wrong, and each test of the
shared server has its own script and its own share of the exchanges.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from reference_server.pytest_plugin import ReferenceServer, ReferenceServerError

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "client-testing.md"
EXAMPLE = re.compile(r"<!-- pytest example: (?P<name>\S+) -->\n```python\n(?P<code>.*?)```", re.S)


def test_the_plugin_is_found_through_its_entry_point(pytestconfig: pytest.Config) -> None:
    plugin = pytestconfig.pluginmanager.get_plugin("a2a_reference_server")
    assert plugin is not None and plugin.__name__ == "reference_server.pytest_plugin"


def test_loading_the_plugin_imports_nothing_of_the_server() -> None:
    code = ("import sys, reference_server.pytest_plugin; print(sorted(m for m in sys.modules if m.startswith("
            "('reference_server', 'blacksheep', 'uvicorn', 'httpx', 'jsonschema', 'a2a'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "['reference_server', 'reference_server.pytest_plugin']"


def run_as_a_client_project(project: Path, test_file: str, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in a folder of its own, as a client project runs it: no conftest of ours, the plugin found through its
    entry point, and this checkout's code (not another one the environment may have installed)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error", *args,
                           test_file], cwd=project, env=env, capture_output=True, text=True, timeout=240, check=False)


def test_the_documented_example_passes_as_a_client_project_runs_it(tmp_path: Path) -> None:
    [example] = EXAMPLE.finditer(DOC.read_text(encoding="utf-8"))
    project = tmp_path / "my-client"
    project.mkdir()
    (project / example["name"]).write_text(example["code"], encoding="utf-8")
    basetemp = tmp_path / "basetemp"
    done = run_as_a_client_project(project, example["name"], f"--basetemp={basetemp}")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "4 passed" in done.stdout, done.stdout
    # each fixture wrote its report: the test's own server, each test's share of the session's, and the session's
    reports = {path.parent.name.rstrip("0123456789"): json.loads(path.read_text())["summary"]
               for path in basetemp.glob("*/client-report.json") if not path.parent.is_symlink()}
    assert {name: (summary["exchanges"], summary["behavioursBroken"]) for name, summary in reports.items()} == {
        "a2a-server": (1, 0), "a2a-test_a_cut_stream_is_recovered": (2, 0), "a2a-test_my_own_script": (1, 0),
        "a2a-test_a_script_with_a_mistake_i": (0, 0), "a2a-server-session": (3, 0)}, list(basetemp.iterdir())


FAILURE = re.compile(r"<!-- assertion failure: [^>]*-->\n```text\n(?P<text>.*?)```", re.S)


def test_the_documented_failure_is_what_the_assertion_says(tmp_path: Path) -> None:
    [shown] = FAILURE.finditer(DOC.read_text(encoding="utf-8"))
    server = ReferenceServer(tmp_path).start()
    try:
        httpx.post(server.url + "/a2a", headers={"X-API-Key": server.key, "A2A-Version": "1.0"}, timeout=10,
                   json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
                       "message_id": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}], "colour": "red"}}})
        with pytest.raises(AssertionError) as raised:
            server.assert_no_violations()
    finally:
        server.stop()
    said = f"AssertionError: {raised.value}\n".replace(str(tmp_path), "<folder>")
    assert said == shown["text"]


def test_a_failed_start_names_the_cause(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ReferenceServerError, match=r"did not start: .*address already in use"):
            ReferenceServer(tmp_path, port=port).start()


def test_an_unknown_setting_is_named(tmp_path: Path) -> None:
    with pytest.raises(ReferenceServerError, match=r"did not start: a setting it does not have .*max_hopz"):
        ReferenceServer(tmp_path, max_hopz=1).start()


def test_a_server_stops_with_its_fixture_and_its_records_stay(tmp_path: Path) -> None:
    server = ReferenceServer(tmp_path, max_hops=1).start()
    with httpx.Client(base_url=server.url, headers={"X-API-Key": server.key, "A2A-Version": "1.0"}) as http:
        assert http.get("/a2a/v1/tasks").status_code == 200
        assert httpx.get(server.card_url).status_code == 200
    assert [record["operation"] for record in server.exchanges()] == ["ListTasks", None]
    server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.card_url, timeout=2)
    assert server.report()["summary"]["exchanges"] == 1  # the records outlive the server
    assert (tmp_path / "client-report.html").is_file()


def test_the_marker_switches_a_capability_off_for_the_tests_server(tmp_path: Path) -> None:
    project = tmp_path / "my-client"
    project.mkdir()
    (project / "test_no_streaming.py").write_text('''
import httpx
import pytest


@pytest.mark.a2a_server(capabilities_streaming=False)
def test_the_card_has_no_streaming(a2a_server):
    card = httpx.get(a2a_server.card_url).json()
    assert card["capabilities"]["streaming"] is False
    answer = httpx.post(a2a_server.url + "/a2a/v1/message:stream", headers={"X-API-Key": a2a_server.key,
                        "A2A-Version": "1.0"}, json={"message": {"messageId": "m1", "role": "ROLE_USER",
                                                                "parts": [{"text": "hi"}]}})
    assert answer.status_code == 400 and "UNSUPPORTED_OPERATION" in answer.text


def test_without_the_marker_it_streams(a2a_server):
    assert httpx.get(a2a_server.card_url).json()["capabilities"]["streaming"] is True
''', encoding="utf-8")
    done = run_as_a_client_project(project, "test_no_streaming.py", f"--basetemp={tmp_path / 'basetemp'}")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout, done.stdout


def test_a_cut_stream_is_pending_while_the_server_runs_and_broken_once_it_stopped(tmp_path: Path) -> None:
    server = ReferenceServer(tmp_path).start()
    message = {"messageId": "m-cut", "role": "ROLE_USER", "parts": [{"text": "cut after 2 events"}]}
    try:
        with httpx.Client(base_url=server.url, headers={"X-API-Key": server.key, "A2A-Version": "1.0"}) as http, \
                pytest.raises(httpx.RemoteProtocolError), \
                http.stream("POST", "/a2a/v1/message:stream", json={"message": message}) as answer:
            for _line in answer.iter_lines():
                pass
        server.assert_behaviour("stream-recovered", "pending")  # the client has 30 s to come back: no failure yet
        server.assert_no_violations()
    finally:
        server.stop()
    server.assert_behaviour("stream-recovered", "broken")  # the run is over and the client never came back
    with pytest.raises(AssertionError, match=r"(?s)broke 0 rule\(s\) and 1 behaviour\(s\).*- stream-recovered broken "
                       r"\[A2A §3\.5\.2, §3\.1\.6, §3\.1\.3\]: the stream of task \S+ broke after 2 events.*"
                       r"POST /a2a/v1/message:stream -> 200"):
        server.assert_no_violations()


@pytest.mark.parametrize(("script", "said"), [
    ({"rules": [{"match": 3}]}, r"^\$\.rules\[0\]\.match: must be a string$"),
    ('{"rules": [}', r"^\$: not valid JSON"),
    ({"rules": [{"match": "", "turns": [[{"sey": "hi"}]]}]}, r"^\$\.rules\[0\]\.turns\[0\]\[0\]: unknown step 'sey'"),
    ({"rules": [{"match": "(", "turns": [[{"say": "hi"}]]}]}, r"^\$\.rules\[0\]\.match: bad regular expression"),
    ({"rules": [{"match": "", "turns": [[{"say": "a"}]]}, {"match": "x", "fault": {"cutAftr": 2}}]},
     r"^\$\.rules\[1\]\.fault: unknown fault setting 'cutAftr'; the settings are cutAfter, "),
    ({"rules": [{"match": "x", "fault": {"cutAfter": 0}}]},
     r"^\$\.rules\[0\]\.fault: cutAfter 0: must be a whole number of events from 1 to 1000$"),
])
def test_a_script_the_agent_cannot_play_is_refused_when_it_is_set(tmp_path: Path, script: object, said: str) -> None:
    server = ReferenceServer(tmp_path)
    with pytest.raises(ValueError, match=said):
        server.set_script(script)  # type: ignore[arg-type]
    assert not (tmp_path / "workspace" / ".volcanic" / "a2a" / "script.json").exists()


def test_a_refused_script_leaves_the_one_in_place(tmp_path: Path) -> None:
    server = ReferenceServer(tmp_path).start()
    try:
        # a placeholder is filled by the message: its value is checked then, not now
        server.set_script({"rules": [{"match": r"cut after (?P<n>\d+)", "fault": {"cutAfter": "{n}"}},
                                     {"match": "", "turns": [[{"say": "kept"}]]}]})
        with pytest.raises(ValueError, match=r"\$\.rules\[0\]\.match: must be a string"):
            server.set_script({"rules": [{"match": 3, "turns": [[{"say": "never"}]]}]})
        answer = httpx.post(server.url + "/a2a/v1/message:send", headers={"X-API-Key": server.key,
                            "A2A-Version": "1.0"}, json={"message": {"messageId": "m-1", "role": "ROLE_USER",
                                                                     "parts": [{"text": "hello"}]}}, timeout=10)
        assert answer.json()["task"]["artifacts"][0]["parts"][0]["text"] == "kept"
    finally:
        server.stop()


def send(server: ReferenceServer, message: dict[str, object], query: str = "") -> httpx.Response:
    return httpx.post(server.url + "/a2a/v1/message:send" + query, json={"message": message}, timeout=10,
                      headers={"X-API-Key": server.key, "A2A-Version": "1.0"})


def test_a_failed_assertion_names_the_rule_the_section_the_exchange_and_the_report(tmp_path: Path) -> None:
    server = ReferenceServer(tmp_path).start()
    try:
        send(server, {"message_id": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}], "colour": "red"},
             query=f"?key={server.key}")
        push = {"taskId": "t-1", "url": "https://hooks.example.com/n", "token": "tok-secret", "extra": 1}
        httpx.post(server.url + "/a2a/v1/tasks/t-1/pushNotificationConfigs", json=push, timeout=10,
                   headers={"X-API-Key": server.key, "A2A-Version": "1.0"})
        with pytest.raises(AssertionError) as raised:
            server.assert_no_violations()
        text = str(raised.value)
        assert text.startswith(f"the client broke 3 rule(s) and 0 behaviour(s); report: {tmp_path}/client-report.html")
        assert "- field-case [A2A §5.5] at message.message_id: `message_id` is the proto's field name" in text
        assert "- schema [A2A §5.7; a2a.proto (1.0), the 0.3 JSON Schema and the 0.3 proto] at message.colour" in text
        assert "    POST /a2a/v1/message:send?key=*** (HTTP+JSON 1.0) -> 200\n" in text
        assert '    body: {"message":{"message_id":"m-1","role":"ROLE_USER"' in text
        assert "    POST /a2a/v1/tasks/t-1/pushNotificationConfigs (HTTP+JSON 1.0)" in text
        assert server.key not in text and "tok-secret" not in text
        assert (tmp_path / "client-report.html").is_file()

        with pytest.raises(AssertionError, match=r"^the client never called CancelTask; report: .*\n"
                           r"what it called: SendMessage HTTP\+JSON 1\.0 1/1; CreateTaskPushNotificationConfig "
                           r"HTTP\+JSON 1\.0 0/1$"):
            server.assert_called("CancelTask")
        with pytest.raises(AssertionError, match=r"(?s)^the client called CreateTaskPushNotificationConfig 1 time\(s\) "
                           r"and no answer was without an error.*\n    POST /a2a/v1/tasks/t-1/pushNotificationConfigs "
                           r"\(HTTP\+JSON 1\.0\) -> 404, error 404: Task t-1 was not found\n"):
            server.assert_called("CreateTaskPushNotificationConfig")
        server.assert_called("CreateTaskPushNotificationConfig", ok=False)
        server.assert_called("SendMessage", binding="rest", version="1.0")
        with pytest.raises(AssertionError, match=r"never called SendMessage over JSON-RPC 1\.0"):
            server.assert_called("SendMessage", binding="jsonrpc", version="1.0", ok=False)
        with pytest.raises(ValueError, match="'SendMesage' is not an A2A operation: one of SendMessage, "):
            server.assert_called("SendMesage")
        with pytest.raises(AssertionError, match=r"^stream-recovered is not exercised, not held \(0 seen\)"):
            server.assert_behaviour("stream-recovered")
        server.assert_behaviour("stream-recovered", "not exercised")
        with pytest.raises(ValueError, match="'stream-recover' is not a behaviour"):
            server.assert_behaviour("stream-recover")
    finally:
        server.stop()


SHARED_PROJECT = """
import httpx


def send(server, text):
    answer = httpx.post(server.url + "/a2a/v1/message:send", timeout=10,
                        headers={"X-API-Key": server.key, "A2A-Version": "1.0"},
                        json={"message": {"messageId": text, "role": "ROLE_USER", "parts": [{"text": text}]}})
    return answer.json()["task"]["artifacts"][0]["parts"][0]["text"]


def test_a_test_that_fails_before_it_clears_its_script(a2a_shared_server):
    a2a_shared_server.set_script({"rules": [{"match": "", "turns": [[{"say": "scripted"}]]}]})
    assert send(a2a_shared_server, "m-one") == "scripted"
    raise AssertionError("this test fails with its script set")


def test_the_next_test_has_the_default_script_and_only_its_own_exchanges(a2a_shared_server):
    assert send(a2a_shared_server, "m-two") == "m-two"  # the default script echoes
    assert [e["request"]["body"]["message"]["messageId"] for e in a2a_shared_server.exchanges()] == ["m-two"]
    assert a2a_shared_server.report()["summary"]["exchanges"] == 1
    a2a_shared_server.assert_called("SendMessage", binding="rest", version="1.0")
    a2a_shared_server.assert_no_violations()


def test_a_violation_fails_the_test_as_pytest_shows_it(a2a_shared_server):
    httpx.post(a2a_shared_server.url + "/a2a/v1/message:send", timeout=10,
               headers={"X-API-Key": a2a_shared_server.key},  # no A2A-Version: read as 0.3
               json={"message": {"messageId": "m-3", "role": "ROLE_USER", "parts": [{"text": "three"}]}})
    a2a_shared_server.assert_no_violations()


def test_the_session_server_saw_every_test(a2a_server_session):
    assert len(a2a_server_session.exchanges()) == 3
"""


def test_each_test_of_the_shared_server_has_its_own_script_exchanges_and_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_my_client=SHARED_PROJECT)
    basetemp = pytester.path / "basetemp"
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--basetemp={basetemp}")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines([
        "*AssertionError: the client broke 2 rule(s) and 0 behaviour(s); report: *a2a-test_a_violation_fails_the_te*"
        "/client-report.html (client-report.json beside it)",
        "*- version-header * the request has A2A 1.0 names but no A2A-Version header*",
        "*    POST /a2a/v1/message:send (HTTP+JSON 0.3) -> *",
    ])
    # the failed assertion points at the test's own line, not into the plugin
    assert "pytest_plugin.py" not in result.stdout.str()
    # each test's report, written when it ended and kept beside its records, holds that test's request only
    reports = [json.loads(path.read_text()) for path in basetemp.glob("a2a-test_*/client-report.json")
               if not path.parent.is_symlink()]
    assert [built["summary"]["exchanges"] for built in reports] == [1, 1, 1]
