"""The robustness run (`make fuzz` in target mode, scripts/robustness.py) against small faulty servers these tests
start: each is this server behind the rewriting proxy (support/proxy.py) with one fault planted, and the run must
find it under its rule, with a reproducer that shows it again. This server itself gives no finding, and a target the
run cannot or may not be pointed at is refused with one sentence and the exit status 3, before any hostile request.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from support.live import LiveServer, one_caller_server
from support.proxy import NO_ANSWER, Answer, Call, Mutant, Proxy

from scripts import robustness

KEY = "k_robustness_targets"
# quick runs: unpaced, a few hundred requests, a fixed seed (the faults are planted where those requests go)
QUICK = ["--rate", "0", "--seed", "7", "--requests", "300", "--timeout", "3", "--seconds", "60",
         "--shrink-seconds", "20", "--shrink-tries", "25"]


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = one_caller_server(tmp_path_factory.mktemp("robustness"), "robustness", KEY, max_body_bytes=1024 * 1024)
    yield live
    live.stop()


def run(target: str, reports: Path, monkeypatch: pytest.MonkeyPatch, *args: str,
        key: str = KEY) -> tuple[int, dict[str, Any], str]:
    """scripts/robustness.py against the target, in this process: its exit status, its report, what it printed."""
    monkeypatch.setenv("A2A_TARGET_URL", target)
    monkeypatch.setenv("A2A_TARGET_KEY", key)
    monkeypatch.delenv("A2A_TARGET_CARD_URL", raising=False)
    printed = io.StringIO()
    with redirect_stdout(printed):
        status = robustness.main([*QUICK, "--reports", str(reports), *args])
    return status, json.loads((reports / "robustness.json").read_text()), printed.getvalue()


def findings(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["rule"] == rule]


def faulty(upstream: LiveServer, mutant: Mutant) -> Proxy:
    return Proxy(upstream.url, mutant).start()


def refused_input(call: Call, answer: Answer) -> bool:
    """The upstream refused the call's input: JSON-RPC InvalidParams, or HTTP 400."""
    payload = answer.json()
    error = payload.get("error") if isinstance(payload, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code == -32602 if call.binding == "jsonrpc" else answer.status == 400


# --- this server: nothing ---


def test_this_server_gives_no_finding(upstream: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    status, report, printed = run(upstream.url, tmp_path, monkeypatch, "--requests", "400")
    assert status == 0, printed[-3000:]
    assert report["findings"] == [] and report["exit_status"] == 0
    assert report["requests"]["hostile"] == 400 and report["requests"]["probes"] >= 8
    offered = {op["interface"] for op in report["operations"]}
    assert {"jsonrpc-1.0", "rest-1.0", "jsonrpc-0.3", "rest-0.3"} <= offered, offered
    assert sum(op.get("5xx", 0) for op in report["operations"]) == 0
    assert "exit status 0" in printed


# --- one fault each ---


def _crash_after_cancel(down_for: float | None) -> Mutant:
    """Down for good (or for `down_for` seconds, as if a supervisor restarted it) after a CancelTask of a task it
    does not know, as fasta2a 2.1.1 is: every later request, the card included, an HTTP 500."""

    def request(call: Call) -> Answer | None:
        since = call.memory.get("crashed")
        if since is not None and (down_for is None or time.monotonic() - since < down_for):
            return Answer(500, [("content-type", "text/plain")], b"Internal Server Error")
        return None

    def answer(call: Call, got: Answer) -> Answer | None:
        if call.operation == "CancelTask" and got.status in (200, 404) and b"error" in got.body:
            call.memory["crashed"] = time.monotonic()
        return None

    return Mutant("crash-after-cancel", (), "crashes after a CancelTask of an unknown task", request=request,
                  answer=answer)


def test_a_crash_stops_the_run_and_names_the_last_requests(upstream: LiveServer, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = faulty(upstream, _crash_after_cancel(None))
    try:
        status, report, printed = run(proxy.url, tmp_path, monkeypatch)
    finally:
        proxy.stop()
    assert status == 1, printed[-3000:]
    (crash,) = findings(report, "crash")
    assert "now answers HTTP 500" in crash["first"], crash
    assert report["stopped"] and "--wait-for-restart" in report["stopped"]
    operations = [json.loads(b["curl"].split("--data-binary ", 1)[1].strip("'")).get("method")
                  if "--data-binary '" in b["curl"] else None for b in crash["before"]]
    assert crash["before"] and any(b["bad"] for b in crash["before"]), crash["before"]
    first_bad = next(i for i, b in enumerate(crash["before"]) if b["bad"])
    # the cancel that took it down is among the requests named before the first bad answer
    assert any("cancel" in (op or "").lower() or ":cancel" in b["curl"]
               for op, b in zip(operations[:first_bad], crash["before"][:first_bad], strict=True)), crash["before"]
    assert crash["reproducer"]["request"] is None and "not traced" in crash["reproducer"]["how"]
    assert "THE RUN STOPPED EARLY" in printed and "the first bad answer" in printed


def test_a_crashed_server_that_comes_back_is_traced_to_its_request(upstream: LiveServer, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = faulty(upstream, _crash_after_cancel(0.3))
    try:
        status, report, printed = run(proxy.url, tmp_path, monkeypatch, "--wait-for-restart", "10",
                                      "--shrink-tries", "12")
    finally:
        proxy.stop()
    assert status == 1, printed[-3000:]
    crashes = findings(report, "crash")
    assert crashes and all(list(c["operations"]) == ["CancelTask"] for c in crashes), crashes
    assert any("came back each time" in note for note in report["notes"]), report["notes"]
    reproducer = crashes[0]["reproducer"]
    assert reproducer["request"]["operation"] == "CancelTask", reproducer
    assert report["requests"]["hostile"] == 300  # it went on after each crash


def _500_on_bad_field(call: Call, got: Answer) -> Answer | None:
    if call.operation == "SendMessage" and refused_input(call, got):
        return Answer(500, [("content-type", "text/plain")], b"Internal Server Error")
    return None


def test_a_500_on_a_bad_field_is_found_with_its_smallest_request(upstream: LiveServer, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = faulty(upstream, Mutant("500-on-bad-field", (), "a 500 for a send with a bad field",
                                    answer=_500_on_bad_field))
    try:
        status, report, printed = run(proxy.url, tmp_path, monkeypatch)
        found = findings(report, "server-error")
        assert status == 1 and found, printed[-3000:]
        assert {op for f in found for op in f["operations"]} == {"SendMessage"}, found
        assert not findings(report, "crash")
        smallest = min(found, key=lambda f: len(f["reproducer"]["curl"]))
        reproducer = smallest["reproducer"]
        # shrunk, or found already as small as a send with a bad field gets: `{}`, `null`, params left out
        assert reproducer["how"].startswith(("shrunk: the smallest request", "as found: ")), reproducer
        assert len(reproducer["request"].get("body", "")) < 150, reproducer
        assert reproducer["request"]["broken"], reproducer  # a bad field, not a well-formed send
        assert "HTTP 500" in reproducer["answered"]
        # the curl line, run by a shell, gets the 500 again
        if shutil.which("curl"):
            shown = subprocess.run(["bash", "-c", reproducer["curl"]], capture_output=True, text=True, timeout=30,
                                   env={**os.environ, "A2A_TARGET_KEY": KEY})
            assert shown.stdout.startswith("HTTP/1.1 500"), shown.stdout[:300] + shown.stderr
    finally:
        proxy.stop()
    assert "SERVER-ERROR (5xx on bad input" in printed


def _echoes_the_key(call: Call, got: Answer) -> Answer | None:
    if got.status != 401:
        return None
    said = call.headers.get("x-api-key") or call.headers.get("authorization", "")
    return Answer(401, [("content-type", "application/json")], json.dumps(
        {"error": {"code": 401, "status": "UNAUTHENTICATED", "message": f"no caller has the key {said}"}}).encode())


def test_a_key_echoed_in_an_error_is_a_leak_named_never_shown(upstream: LiveServer, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = faulty(upstream, Mutant("echoes-key", (), "echoes the key it refuses", answer=_echoes_the_key))
    try:
        status, report, printed = run(proxy.url, tmp_path, monkeypatch, "--shrink-tries", "10")
        leaks = findings(report, "leak")
        assert status == 1 and leaks, printed[-3000:]
        said = " ".join(f["first"] + f["reproducer"]["answered"] for f in leaks)
        assert "a made-up API key" in said and "the caller's key (A2A_TARGET_KEY)" in said, said
        if shutil.which("curl"):  # the reproducer gets the credential back: the leak is real
            leak = next(f for f in leaks if "made-up API key" in f["reproducer"]["answered"])
            shown = subprocess.run(["bash", "-c", leak["reproducer"]["curl"]], capture_output=True, text=True,
                                   timeout=30, env={**os.environ, "A2A_TARGET_KEY": KEY})
            assert "no caller has the key fz-key-" in shown.stdout, shown.stdout[:300]
    finally:
        proxy.stop()
    written = (tmp_path / "robustness.json").read_text()
    for text in (written, printed):
        assert KEY not in text, "the caller's key is in the report"
        assert "[a made-up API key]" in text or "a made-up API key" in text
    assert "$A2A_TARGET_KEY" in written


def test_a_hang_is_found_within_its_bound(upstream: LiveServer, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    hangs = Mutant("hangs-on-list", (), "never answers ListTasks",
                   request=lambda call: NO_ANSWER if call.operation == "ListTasks" else None)
    proxy = faulty(upstream, hangs)
    try:
        status, report, printed = run(proxy.url, tmp_path, monkeypatch, "--requests", "150", "--timeout", "0.3",
                                      "--shrink-seconds", "4", "--shrink-tries", "8")
    finally:
        proxy.stop()
    found = findings(report, "hang")
    assert status == 1 and found, printed[-3000:]
    assert {op for f in found for op in f["operations"]} == {"ListTasks"}, found
    assert all("no answer in 0.3 s" in f["first"] for f in found)
    assert not findings(report, "crash")  # the card and GetTask still answer


def _amplifies(call: Call, got: Answer) -> Answer | None:
    payload = got.json()
    if call.operation != "SendMessage" or got.status != 200 or not isinstance(payload, dict):
        return None
    result = payload.get("result", payload)
    if isinstance(result, dict) and isinstance(result.get("task"), dict):
        result["task"]["metadata"] = {"padding": "x" * 400_000}
        return got.set_json(payload)
    return None


def test_an_answer_far_larger_than_its_request_is_amplification(upstream: LiveServer, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = faulty(upstream, Mutant("amplifies", (), "pads every send's answer", answer=_amplifies))
    try:
        status, report, printed = run(proxy.url, tmp_path, monkeypatch)
    finally:
        proxy.stop()
    found = findings(report, "amplification")
    assert status == 1 and found, printed[-3000:]
    assert {op for f in found for op in f["operations"]} == {"SendMessage"}
    assert all("-byte answer" in f["first"] for f in found), found


def _html_errors(call: Call, got: Answer) -> Answer | None:
    if call.binding == "rest" and got.status == 400:
        return Answer(400, [("content-type", "text/html")], b"<html><title>400 Bad Request</title></html>")
    return None


def test_an_error_without_its_binding_shape_is_found(upstream: LiveServer, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = faulty(upstream, Mutant("html-errors", (), "HTTP+JSON errors as HTML", answer=_html_errors))
    try:
        status, report, printed = run(proxy.url, tmp_path, monkeypatch)
    finally:
        proxy.stop()
    found = findings(report, "malformed-answer")
    assert status == 1 and found, printed[-3000:]
    assert {f["interface"] for f in found} <= {"rest-1.0", "rest-0.3"}, found
    assert all("is not JSON: HTTP 400 text/html, an HTML page titled '400 Bad Request'" in f["first"] for f in found)


# --- what it refuses ---


def test_a_target_off_loopback_is_refused_before_any_request(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def no_traffic(*args: object, **kwargs: object) -> None:
        raise AssertionError("the run reached for the target")

    monkeypatch.setattr(robustness, "discover", no_traffic)
    status, report, printed = run("http://192.0.2.1:8080", tmp_path, monkeypatch)
    assert status == 3 and "could not start" in printed
    assert "192.0.2.1 is not a loopback address" in report["could_not_run"]
    assert "--allow-remote-target" in report["could_not_run"]


def test_a_card_that_names_an_interface_elsewhere_is_refused(upstream: LiveServer, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def elsewhere(call: Call, got: Answer) -> Answer | None:
        if call.binding != "card":
            return None
        card = got.json()
        card["supportedInterfaces"][0]["url"] = "http://192.0.2.1/a2a"
        return got.set_json(card)

    proxy = faulty(upstream, Mutant("card-elsewhere", (), "names a remote interface", answer=elsewhere))
    try:
        status, report, _ = run(proxy.url, tmp_path, monkeypatch)
    finally:
        proxy.stop()
    assert status == 3
    assert report["could_not_run"].startswith("Its card names interfaces elsewhere: 192.0.2.1 is not a loopback")
    assert proxy.calls == 1  # the card, and nothing after it


def test_no_card_and_a_refused_key_cannot_run(upstream: LiveServer, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = Proxy("http://127.0.0.1:9", Mutant("no-card", (), "404 to everything", request=lambda call: Answer(
        404, [("content-type", "text/plain")], b"Not Found"))).start()
    try:
        status, report, printed = run(proxy.url, tmp_path, monkeypatch)
    finally:
        proxy.stop()
    assert status == 3 and "No agent card at" in report["could_not_run"], report
    assert "exit status 3" in printed
    status, report, _ = run(upstream.url, tmp_path, monkeypatch, key="k_not_a_caller")
    assert status == 3 and "refuses the key" in report["could_not_run"], report

