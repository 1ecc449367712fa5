"""The README's promise: `reference-server` serves the demo workspace and prints a key (tests/test_docs_examples.py
runs the README's curl lines against it)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from reference_server.cli import prepare_demo_workspace
from reference_server.settings import SettingsError

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Served:
    def __init__(self, process: subprocess.Popen[str], port: int, banner: str, log: Path) -> None:
        self.process, self.port, self.banner, self.log = process, port, banner, log

    @property
    def key(self) -> str:
        match = re.search(r"demo key:\s+(\S+)", self.banner)
        assert match, self.banner
        return match.group(1)

    def stop(self) -> None:
        """SIGTERM, as a user stops it; killed if it has not ended within 10 s."""
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


def serve(tmp_path: Path, *args: str) -> Served:
    """Start the CLI as its own process; its output goes to a file (a full pipe would block it)."""
    port = free_port()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "PYTHONUNBUFFERED": "1"}
    log = tmp_path / f"server-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "reference_server", "--host", "127.0.0.1", "--port", str(port), *args],
            stdout=out, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path,
        )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and process.poll() is None:
        text = log.read_text()
        if "Application startup complete" in text:
            return Served(process, port, text, log)
        time.sleep(0.05)  # polling the log for start-up, with a deadline
    process.kill()
    process.wait(5)
    raise AssertionError("the server did not start:\n" + log.read_text())


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Served]:
    served = serve(tmp_path)
    try:
        yield served
    finally:
        served.stop()


def test_the_banner_prints_the_demo_caller_key_and_a_curl_line(demo: Served) -> None:
    assert "demo caller: demo" in demo.banner
    assert re.fullmatch(r"[0-9a-f]{64}", demo.key)
    assert f"curl -s -H 'X-API-Key: {demo.key}'" in demo.banner


def test_the_demo_key_fetches_the_extended_card_on_both_bindings(demo: Served) -> None:
    headers = {"X-API-Key": demo.key, "A2A-Version": "1.0"}
    base = f"http://127.0.0.1:{demo.port}"
    rest = httpx.get(f"{base}/a2a/v1/extendedAgentCard", headers=headers)
    jsonrpc = httpx.post(f"{base}/a2a", headers=headers,
                         json={"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard"})
    assert rest.status_code == 200 and rest.json()["name"] == "Reference demo assistant"
    assert jsonrpc.json()["result"]["name"] == "Reference demo assistant"


def test_the_console_has_a_line_per_exchange_among_the_log_lines(demo: Served) -> None:
    base = f"http://127.0.0.1:{demo.port}"
    httpx.get(f"{base}/.well-known/agent-card.json")
    httpx.get(f"{base}/a2a/v1/extendedAgentCard", headers={"X-API-Key": "k_unknown", "A2A-Version": "1.0"})
    demo.stop()
    lines = demo.log.read_text().splitlines()
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}"  # as the other log lines' (logging's default)
    card = [n for n, line in enumerate(lines) if re.fullmatch(
        stamp + r" INFO reference_server.requests: card - - caller=\(no key\) status=200 in \d+\.\d ms", line)]
    refused = [n for n, line in enumerate(lines) if re.fullmatch(
        stamp + r" INFO reference_server.requests: rest - - caller=\(no key\) status=401 in \d+\.\d ms "
        r"error=Unauthenticated \(unknown key\)", line)]
    assert len(card) == 1 and len(refused) == 1 and card[0] < refused[0], lines
    assert "k_unknown" not in demo.log.read_text()


def test_json_request_lines_are_bare_objects_on_the_console(tmp_path: Path) -> None:
    served = serve(tmp_path, "--request-log", "json")
    try:
        httpx.get(f"http://127.0.0.1:{served.port}/.well-known/agent-card.json")
    finally:
        served.stop()
    [line] = [line for line in served.log.read_text().splitlines() if line.startswith("{")]
    record = json.loads(line)
    assert (record["binding"], record["status"], record["caller"]) == ("card", 200, None)


def _watch(workspace: Path, watch_id: str, token: str) -> None:
    a2a = workspace / ".volcanic" / "a2a"
    a2a.mkdir(parents=True, exist_ok=True)
    (a2a / "watches.json").write_text(json.dumps([{"id": watch_id, "token": token}]))


def _pushed(port: int, watch_id: str, token: str) -> int:
    answer = httpx.post(f"http://127.0.0.1:{port}/a2a/push/{watch_id}", json={"task": {"id": "t1"}},
                        headers={"X-A2A-Notification-Token": token})
    return answer.status_code


def test_the_served_workspace_takes_pushes_for_its_watches(demo: Served, tmp_path: Path) -> None:
    workspace = tmp_path / "state" / "a2a-reference-server" / "demo-workspace"
    _watch(workspace, "build-status", "t_build")
    assert _pushed(demo.port, "build-status", "t_wrong") == 404
    assert _pushed(demo.port, "build-status", "t_build") == 204
    [line] = (workspace / ".volcanic" / "a2a" / "pushes" / "build-status.jsonl").read_text().splitlines()
    assert json.loads(line)["body"] == {"task": {"id": "t1"}}


def test_the_demo_key_survives_a_restart(tmp_path: Path) -> None:
    keys = []
    for _ in range(2):
        served = serve(tmp_path)
        keys.append(served.key)
        served.process.terminate()
        served.process.wait(10)
    assert keys[0] == keys[1]


def test_a_bad_setting_stops_start_up_with_a_message(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "reference_server", "--port", "eighty"],
                            capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert result.returncode == 2
    assert "--port has the value 'eighty'; expected a port number 0-65535" in result.stderr


def test_a_busy_port_stops_the_start_with_one_sentence_before_any_key(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "reference_server", "--port", str(port)],
                                capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""  # no banner, no key
    assert result.stderr == (f"reference-server: port {port} on 127.0.0.1 cannot be listened on (another process "
                             "listens there); choose another with --port (A2A__Port), or stop what uses it\n")


def test_an_event_loop_that_cannot_be_had_stops_the_start_with_one_sentence(tmp_path: Path) -> None:
    without_uvloop = ("import sys; sys.modules['uvloop'] = None; from reference_server.cli import main; "
                      "sys.exit(main(sys.argv[1:]))")
    argv = ["--event-loop", "uvloop", "--port", str(free_port())]
    result = subprocess.run([sys.executable, "-c", without_uvloop, *argv], capture_output=True, text=True, timeout=30,
                            cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""  # no banner, no key
    assert result.stderr.startswith("reference-server: A2A__EventLoop (--event-loop) is uvloop, but uvloop cannot be "
                                    "imported here (")
    assert result.stderr.endswith("); expected asyncio (or auto)\n") and result.stderr.count("\n") == 1


def test_version_and_help_name_the_command_and_its_other_commands() -> None:
    version = subprocess.run([sys.executable, "-m", "reference_server", "--version"],
                             capture_output=True, text=True, timeout=30)
    assert version.returncode == 0 and re.fullmatch(r"reference-server \d+\.\d+\.\d+\S*\n", version.stdout)
    usage = subprocess.run([sys.executable, "-m", "reference_server", "--help"], capture_output=True, text=True,
                           timeout=30)
    assert "reference-server a2a" in usage.stdout and "reference-server report DIR" in usage.stdout


def test_a_demo_callers_file_that_is_not_a_list_is_kept_and_the_start_stops(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    callers = demo / ".volcanic" / "a2a" / "callers.json"
    callers.parent.mkdir(parents=True)
    callers.write_text('{"name": "mine", "key": "k_mine_written_by_hand"}')  # an object, not a list
    with pytest.raises(SettingsError, match=r"callers\.json is not a JSON list of callers; mend it by hand"):
        prepare_demo_workspace(demo)
    assert callers.read_text() == '{"name": "mine", "key": "k_mine_written_by_hand"}'


def test_the_demo_caller_is_added_after_the_callers_already_there(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    callers = demo / ".volcanic" / "a2a" / "callers.json"
    callers.parent.mkdir(parents=True)
    callers.write_text(json.dumps([{"name": "mine", "key": "k_mine_written_by_hand"}]))
    key = prepare_demo_workspace(demo)
    entries = json.loads(callers.read_text())
    assert [e["name"] for e in entries] == ["mine", "demo"] and entries[1]["key"] == key
    assert prepare_demo_workspace(demo) == key  # found again, not added twice
    assert len(json.loads(callers.read_text())) == 2


def _owner(root: Path, owner: str, key: str, card_name: str) -> None:
    a2a = root / owner / ".volcanic" / "a2a"
    a2a.mkdir(parents=True)
    (a2a / "callers.json").write_text(json.dumps([{"name": "bot", "key": key}]))
    (a2a / "card.json").write_text(json.dumps({"name": card_name}))


def test_a_workspace_root_serves_the_listed_owners_only(tmp_path: Path) -> None:
    root = tmp_path / "owners"
    _owner(root, "alice", "k_alice", "Alice's assistant")
    _owner(root, "bob", "k_shared", "Bob's assistant")
    _owner(root, "carol", "k_shared", "Carol's assistant")  # not listed: never read, so k_shared is not ambiguous
    served = serve(tmp_path, "--workspace-root", str(root), "--owner", "alice", "--owner", "bob")
    try:
        url = f"http://127.0.0.1:{served.port}/a2a/v1/extendedAgentCard"

        def card(key: str) -> httpx.Response:
            return httpx.get(url, headers={"X-API-Key": key, "A2A-Version": "1.0"})

        assert card("k_alice").json()["name"] == "Alice's assistant"
        assert card("k_shared").json()["name"] == "Bob's assistant"
        # a push goes to the first listed owner whose watches.json lists the watch
        _watch(root / "alice", "shared", "t_alice")
        _watch(root / "bob", "shared", "t_bob")
        _watch(root / "carol", "shared", "t_carol")
        assert _pushed(served.port, "shared", "t_bob") == 404
        assert _pushed(served.port, "shared", "t_carol") == 404
        assert _pushed(served.port, "shared", "t_alice") == 204
        assert (root / "alice" / ".volcanic" / "a2a" / "pushes" / "shared.jsonl").exists()
        assert not (root / "bob" / ".volcanic" / "a2a" / "pushes").exists()
        # alice's callers.json gains k_shared: from the next request, two listed owners hold it
        (root / "alice" / ".volcanic" / "a2a" / "callers.json").write_text(json.dumps(
            [{"name": "bot", "key": "k_alice"}, {"name": "twin", "key": "k_shared"}]))
        assert card("k_shared").status_code == 401
    finally:
        served.process.terminate()
        served.process.wait(10)
    log = (tmp_path / f"server-{served.port}.log").read_text()
    assert "owners: alice, bob (each served from" in served.banner
    assert "(owners: alice, bob)" in log and "k_shared" not in log
    assert "push for watch shared recorded" in log and "t_alice" not in log and "t_bob" not in log


def test_a_workspace_root_needs_its_owners(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "reference_server", "--workspace-root", "."],
                            capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert result.returncode == 2
    assert "A2A__WorkspaceRoot (--workspace-root) is set but no owner is listed" in result.stderr


@pytest.mark.parametrize("means", ["auto", "stat"])
def test_an_owners_file_lists_the_owners_and_is_read_again_when_it_changes(tmp_path: Path, means: str) -> None:
    root = tmp_path / "owners"
    _owner(root, "alice", "k_alice", "Alice's assistant")
    _owner(root, "bob", "k_bob", "Bob's assistant")
    owners = tmp_path / "owners.txt"
    owners.write_text("# served by this host\nalice\n")
    served = serve(tmp_path, "--workspace-root", str(root), "--owners-file", str(owners), "--file-changes", means)
    try:
        url = f"http://127.0.0.1:{served.port}/a2a/v1/extendedAgentCard"
        with httpx.Client(headers={"A2A-Version": "1.0"}) as client:
            assert client.get(url, headers={"X-API-Key": "k_alice"}).status_code == 200
            assert client.get(url, headers={"X-API-Key": "k_bob"}).status_code == 401
            owners.write_text("bob\n")  # no restart: the next request
            assert client.get(url, headers={"X-API-Key": "k_bob"}).json()["name"] == "Bob's assistant"
            assert client.get(url, headers={"X-API-Key": "k_alice"}).status_code == 401
    finally:
        served.stop()
    assert f"owners: those listed in {owners}, read again when it changes" in served.banner


def test_an_owners_file_must_be_there_at_start(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "reference_server", "--workspace-root", ".", "--owners-file",
                             "missing.txt"], capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert result.returncode == 2
    assert f"reference-server: --owners-file {tmp_path.resolve() / 'missing.txt'} is not a file" in result.stderr


def test_with_a2a_switched_off_nothing_is_served_and_the_log_says_so_once(tmp_path: Path) -> None:
    served = serve(tmp_path, "--enabled", "false")
    try:
        base = f"http://127.0.0.1:{served.port}"
        assert httpx.get(f"{base}/.well-known/agent-card.json").status_code == 404
        assert httpx.post(f"{base}/a2a", json={"jsonrpc": "2.0", "id": 1, "method": "GetTask"}).status_code == 404
    finally:
        served.process.terminate()
        served.process.wait(10)
    assert "A2A is switched off (A2A__Enabled=false): every path answers 404" in served.banner
    assert "curl" not in served.banner
    log = (tmp_path / f"server-{served.port}.log").read_text()
    assert log.count("A2A is switched off (A2A__Enabled=false): no A2A endpoint is mapped") == 1


def test_a_workspace_and_a_workspace_root_are_exclusive(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "reference_server", "--workspace", ".", "--workspace-root", "."],
                            capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert result.returncode == 2
    assert "A2A__Workspace (--workspace) and A2A__WorkspaceRoot (--workspace-root) are both set" in result.stderr
