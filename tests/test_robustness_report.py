"""What a robustness run hands a person: curl lines that send the very bytes the run sent, the report (console and
JSON) that names credentials and never shows the caller's key, the living page's section, and docs/robustness.md."""

from __future__ import annotations

import importlib
import json
import shutil
import socket
import subprocess
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import h11
import pytest
from fuzz.rules import BY_ID
from fuzz.strategies import FuzzRequest
from fuzz.surface import Secrets

from reference_server.conformance import living_page
from reference_server.conformance.support.raw import timed_request
from scripts import robustness_doc
from scripts.robustness_kit import report as reporting
from scripts.robustness_kit.campaign import Finding, Outcome, Sent, Settings
from scripts.robustness_kit.curl import curl_line

ROOT = Path(__file__).resolve().parents[1]
SECRETS = Secrets.made_up("k_report-caller-key")


def captured(send: Any) -> tuple[bytes, bytes, list[tuple[bytes, bytes]], bytes]:
    """What one request sent by `send(origin)` looks like on the wire, read by a server socket on loopback."""
    seen: dict[str, Any] = {}
    with socket.create_server(("127.0.0.1", 0)) as listener:
        origin = f"http://127.0.0.1:{listener.getsockname()[1]}"

        def serve() -> None:
            conn, _ = listener.accept()
            with conn:
                server = h11.Connection(h11.SERVER)
                body = b""
                while True:
                    event = server.next_event()
                    if event is h11.NEED_DATA:
                        server.receive_data(conn.recv(65536))
                    elif isinstance(event, h11.Request):
                        seen["request"] = event
                    elif isinstance(event, h11.Data):
                        body += bytes(event.data)
                    elif isinstance(event, h11.EndOfMessage):
                        break
                seen["body"] = body
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        send(origin)
        thread.join(10)
    request = seen["request"]
    headers = [(k, v) for k, v in request.headers if k not in (b"host",)]
    return request.method, request.target, headers, seen["body"]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("body", [
    b'{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "it\'s 100% sure \\\\ \xf0\x9f\xa6\x8a"}}',
    b'{"text": "\x00\x01\r\n\x7f", "bad": "\xff\xfe"}',
    b"@not-a-file",
    b"",
])
def test_a_curl_line_sends_the_bytes_the_run_sent(body: bytes) -> None:
    def request(origin: str) -> FuzzRequest:
        headers = [("X-API-Key", SECRETS.key), ("X-API-Key", ""), ("Authorization", f"Bearer {SECRETS.bearer}"),
                   ("A2A-Version", "1.0"), *([("Content-Type", "text/plain")] if body else [])]
        return FuzzRequest("rest", "POST", "/a2a/v1/tasks/..%2f%00:cancel?x=1&y=%F0", headers, body, ["odd"],
                           "rest-1.0", "CancelTask", False, origin)

    def by_curl(origin: str) -> None:
        line = curl_line(request(origin), SECRETS)
        assert SECRETS.key not in line and "$A2A_TARGET_KEY" in line
        done = subprocess.run(["bash", "-c", line], capture_output=True, timeout=30,
                              env={"PATH": "/usr/bin:/bin", "A2A_TARGET_KEY": SECRETS.key})
        assert done.returncode == 0, done.stderr

    def by_the_run(origin: str) -> None:
        sent = request(origin)
        timed_request(origin, sent.verb, sent.target, sent.headers, sent.body, timeout=10, max_answer=1024)

    assert captured(by_curl) == captured(by_the_run)


def _outcome() -> Outcome:
    leak_request = FuzzRequest("jsonrpc", "POST", "/a2a", [("X-API-Key", SECRETS.wrong_key)], b"{}",
                               ["a key the server does not know"], "jsonrpc-1.0", "GetTask", True,
                               "http://127.0.0.1:1")
    sent = FuzzRequest("jsonrpc", "POST", "/a2a", [("X-API-Key", SECRETS.key)], b'{"method": "CancelTask"}', [],
                       "jsonrpc-1.0", "CancelTask", True, "http://127.0.0.1:1")
    leak = Finding("leak", "jsonrpc-1.0", "a made-up API key in the error body",
                   "the error body echoes a made-up API key, sent in the request", leak_request,
                   Counter({"GetTask": 3}), count=3, reproducer=leak_request, answered="HTTP 401 …[a made-up API key]",
                   shrink="shrunk: the smallest request that showed it again, in 4 tries")
    crash = Finding("crash", "", "", "its card now answers HTTP 500", sent, Counter({"one of the last requests": 1}),
                    count=1,
                    shrink="not traced to one request: the run stopped at the crash",
                    before=[Sent(sent, "HTTP 200 application/json, {}", False),
                            Sent(sent, "HTTP 500 text/plain, Internal Server Error", True)])
    counts = {("jsonrpc-1.0", "GetTask"): Counter({"sent": 10, "4xx": 10, "leak": 3}),
              ("jsonrpc-1.0", "CancelTask"): Counter({"sent": 2, "2xx": 1, "5xx": 1})}
    return Outcome([crash, leak], counts, 12, 1, 0, 4, 20, 1.5, "The server stopped answering (…): the run stops "
                   "here.", [])


def report() -> dict[str, Any]:
    return reporting.build("http://127.0.0.1:1", "2026-12-03T00:00:00+00:00", "The server at http://127.0.0.1:1 …",
                           Settings(seed=3), _outcome(), SECRETS, ["A note."])


def test_the_report_counts_by_rule_and_operation_and_never_shows_the_key() -> None:
    data = report()
    assert data["exit_status"] == 1
    assert {r["id"]: (r["findings"], r["requests"]) for r in data["rules"]}["leak"] == (1, 3)
    crash = data["findings"][0]
    assert crash["reproducer"]["request"] is None and crash["reproducer"]["curl"].count("curl ") == 2
    assert [b["bad"] for b in crash["before"]] == [False, True]
    assert data["credentials"][0] == "the caller's key (A2A_TARGET_KEY)"
    printed = "\n".join(reporting.console(data))
    for text in (json.dumps(data), printed):
        assert SECRETS.key not in text
    assert "CRASH (crash; CWE-248" in printed and "1 time" in printed
    assert "<- the first bad answer" in printed and "THE RUN STOPPED EARLY" in printed
    assert "LEAK (leak; CWE-209" in printed and "3 requests" in printed
    assert "JSON-RPC 1.0 GetTask" in printed
    assert reporting.console(reporting.could_not_run("http://x", "now", "No card.")) == [
        "The robustness run against http://x could not start. No card."]


def _page(tmp_path: Path, target: str | None) -> Path:
    page = living_page.Page([], [], {}, tmp_path, target=target)
    path = tmp_path / "conformance.html"
    living_page.write(path, page)
    return path


def test_the_living_page_gets_the_section_of_its_own_target(tmp_path: Path) -> None:
    data = report()
    (tmp_path / "robustness.json").write_text(json.dumps(data))
    page = _page(tmp_path, "http://127.0.0.1:1/").read_text()
    assert page.count('<section class="robustness"') == 1 and "Robustness" in page
    assert "its card now answers HTTP 500" in page and SECRETS.key not in page
    other = _page(tmp_path, "http://127.0.0.1:2")
    assert "robustness" not in other.read_text()
    assert not living_page.add_robustness(other, data)  # another target's page
    assert living_page.add_robustness(other, data, any_target=True)
    again = {**data, "findings": []}
    assert living_page.add_robustness(other, again, any_target=True)
    html = other.read_text()
    assert html.count('<section class="robustness"') == 1 and "its card now answers" not in html
    assert not living_page.add_robustness(tmp_path / "missing.html", data, any_target=True)


def test_the_doc_shows_the_verified_findings_and_lists_the_others() -> None:
    data = {**report(), "label": "a server", "wall_seconds": 2.0}
    verified = [{"server": "a server", "rule": "leak", "kinds": ["API key"], "summary": "It echoes the key.",
                 "cause": "Its handler puts the header in the message.", "spec": "CWE-209.",
                 "wire": "POST /a2a\nHTTP 401 …"}]
    text = robustness_doc.render([data], verified)
    assert "| crash | **1** (1 times) |" in text and "| leak | **1** (3 requests) |" in text
    assert "- **leak**: It echoes the key. Seen on: JSON-RPC 1.0: GetTask." in text
    assert "    POST /a2a" in text
    assert "Not verified by hand yet:" in text and "`crash` on any interface (untraced), 1 times, on one of" in text
    assert robustness_doc.render([], []).startswith("# Robustness")


def test_the_findings_file_names_servers_and_rules_that_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))  # conformance_peers imports bench_kit as scripts/ does
    peers = importlib.import_module("conformance_peers")
    labels = {peer.label for peer in peers.PEERS}
    for entry in robustness_doc.findings_verified():
        assert set(robustness_doc.servers_of(entry)) <= labels and entry["rule"] in BY_ID, entry
        assert entry["summary"] and entry["cause"] and entry["spec"] and entry["wire"], entry
