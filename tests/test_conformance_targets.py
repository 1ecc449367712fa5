"""The conformance suite against servers that are not TCK agents: what `reference-server conformance` reports, in
its exit status and reports/conformance.json, about small misbehaving servers these tests start themselves.

Each server is the reference server with one thing changed, by its settings, its script or the rewriting proxy
(support/proxy.py), or a proxy that answers by itself: a card only A2A 0.3 can read, no card at all, an agent that
ignores the TCK's and ACTS's conventions, HTML 500s, timestamps without their zone, webhooks on loopback refused.
The report must say the right thing: the right results, n/a with its reason, and messages a person can act on.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.live import LiveServer, settings_for
from support.mutants import MUTANTS
from support.proxy import Answer, Call, Mutant, Proxy

from reference_server.model.caller import Workspace

ROOT = Path(__file__).resolve().parents[1]
KEY, OTHER_KEY = "k_targets_conformance", "k_targets_other"
PYTHON_TEXTS = re.compile(r"\{'|\['|': |\bNone\b(?! of)|\w+View\(|\w+Reply\(|Traceback|KeyError|TypeError|ValueError|"
                          r"AttributeError|object has no attribute|values to unpack|Expecting value|not subscriptable|"
                          r"is not a '|urn:a2a:")


def run_suite(target: str, reports: Path, *args: str, card: str | None = None) -> tuple[int, dict[str, Any], str]:
    """`reference-server conformance` against the target: its exit status, its report and what it printed."""
    env = {**os.environ, "A2A_TARGET_URL": target, "A2A_TARGET_KEY": KEY, "A2A_TARGET_OTHER_KEY": OTHER_KEY,
           "A2A_CONFORMANCE_REPORTS": str(reports)}
    env.pop("A2A_TARGET_CARD_URL", None)
    if card:
        env["A2A_TARGET_CARD_URL"] = card
    done = subprocess.run([sys.executable, "-m", "reference_server", "conformance", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    report_file = reports / "conformance.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    return done.returncode, report, done.stdout + done.stderr


def failed(report: dict[str, Any]) -> set[str]:
    return {r["id"] for r in report["requirements"] if r["result"] == "fail"}


def messages(report: dict[str, Any]) -> list[str]:
    """Every failure message and n/a reason the report holds, with each failure's exchange."""
    found = [report.get("could_not_run", "")] if report.get("could_not_run") else []
    for requirement in report.get("requirements", []):
        for failure in requirement["failures"]:
            found += [failure["message"], failure["step"]]
        found += requirement["not_applicable"]
    return [text for text in found if text]


def assert_readable(report: dict[str, Any]) -> None:
    """No message of the report is Python: no reprs, no exception texts, no schema URNs."""
    for text in messages(report):
        assert not PYTHON_TEXTS.search(text), f"a message a person cannot act on: {text}"


@pytest.fixture(scope="module")
def workspace_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("targets")


def served(root: Path, name: str, *, script: dict[str, Any] | None = None, **settings: Any) -> LiveServer:
    """The reference server with one workspace whose callers are the suite's two keys (and its script, if any)."""
    workspace = Workspace(root / name, owner_id=name, scope_prefix="targets")
    workspace.callers_file.parent.mkdir(parents=True, exist_ok=True)
    workspace.callers_file.write_text(json.dumps([{"name": "conformance", "key": KEY},
                                                  {"name": "other", "key": OTHER_KEY}]))
    if script is not None:
        (workspace.callers_file.parent / "script.json").write_text(json.dumps(script))
    server = LiveServer(settings_for(**settings))
    server.workspaces.add(workspace)
    return server.start()


@pytest.fixture
def server(workspace_root: Path, request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    options = getattr(request, "param", {})
    live = served(workspace_root, request.node.name.split("[")[0], **options)
    yield live
    live.stop()


def behind(server_url: str, mutant: Mutant) -> Proxy:
    proxy = Proxy(server_url, mutant).start()
    proxy.memory["key"] = KEY
    return proxy


# --- a card only A2A 0.3 can read ---


def _card_03(call: Call, answer: Answer) -> Answer | None:
    if call.binding != "card":
        return None
    card = answer.json()
    for name in ("supportedInterfaces", "securityRequirements"):
        card.pop(name, None)
    card["capabilities"].pop("extendedAgentCard", None)
    for scheme in card.get("securitySchemes", {}).values():
        scheme.pop("apiKeySecurityScheme", None)
        scheme.pop("httpAuthSecurityScheme", None)
    return answer.set_json(card)


def _refuse_10(call: Call) -> Answer | None:
    if call.binding in ("jsonrpc", "rest") and call.version.startswith("1."):
        from support.mutants import error_answer

        return error_answer(call, -32009, 400, "VERSION_NOT_SUPPORTED", "This server speaks A2A 0.3 only")
    return None


ONLY_03 = Mutant("speaks-only-0.3", (), "a card of the A2A 0.3 shape only, and every A2A 1.0 request refused",
                 request=_refuse_10, answer=_card_03)


@pytest.mark.parametrize("server", [{"hybrid_card": True}], indirect=True)
def test_a_server_that_speaks_only_0_3_is_tested_in_0_3(server: LiveServer, tmp_path: Path) -> None:
    proxy = behind(server.url, ONLY_03)
    try:
        status, report, printed = run_suite(proxy.url, tmp_path)
    finally:
        proxy.stop()
    assert status == 0, printed[-3000:]
    assert "an A2A 0.3 card (url, preferredTransport)" in report["description"], report["description"]
    assert "It does not offer A2A 1.0" in report["description"], report["description"]
    ran = {r["protocol"] for r in report["scenarios"] if r["outcome"] == "passed"}
    assert {"jsonrpc-0.3", "rest-0.3", "none-0.3"} <= ran, ran
    assert not ran & {"jsonrpc-1.0", "rest-1.0"}, ran
    assert not failed(report)
    for line in ("jsonrpc-1.0", "rest-1.0"):
        assert report["summary"]["must"][line] == {"pass": 0, "fail": 0, "n/a": 0}, report["summary"]["must"]
    assert "not offered" in printed


# --- no card ---


NO_CARD = Mutant("no-card", (), "answers 404 to everything", request=lambda call: Answer(
    404, [("content-type", "text/html")], b"<html><title>404 Not Found</title></html>"))


def test_no_card_stops_the_run_at_once_with_one_sentence(tmp_path: Path) -> None:
    proxy = Proxy("http://127.0.0.1:9", NO_CARD).start()  # never forwards: the mutant answers everything
    try:
        status, report, printed = run_suite(proxy.url, tmp_path)
    finally:
        proxy.stop()
    assert status == 3, printed
    sentence = report["could_not_run"]
    assert f"{proxy.url}/.well-known/agent-card.json" in sentence and "HTTP 404" in sentence, sentence
    assert "A2A_TARGET_CARD_URL" in sentence, sentence
    assert "requirements" not in report and len(printed.strip().splitlines()) <= 3, printed
    assert_readable(report)


def test_a_card_named_elsewhere_is_used(server: LiveServer, tmp_path: Path) -> None:
    moved = Mutant("card-elsewhere", (), "the card is served at another path",
                   request=lambda call: _moved_card(call, server.url))
    proxy = behind(server.url, moved)
    try:
        status, report, printed = run_suite(proxy.url, tmp_path, "--", "-k", "card",
                                            card=f"{proxy.url}/cards/agent.json")
    finally:
        proxy.stop()
    assert status == 0, printed[-3000:]  # the card is available (CARD-DISC-001), not at the well-known path (a MAY)
    assert failed(report) == {"SPEC-CARD-001"}, failed(report)
    assert report["server"]["card_url"] == f"{proxy.url}/cards/agent.json"


def _moved_card(call: Call, upstream: str) -> Call | Answer | None:
    if call.path == "/.well-known/agent-card.json":
        return Answer(404, [("content-type", "text/plain")], b"not here")
    if call.path == "/cards/agent.json":
        call.path = "/.well-known/agent-card.json"
        return call
    return None


# --- an agent that follows neither the TCK's nor ACTS's conventions ---


ECHO_ONLY = {"rules": [{"description": "anything -> echoed", "match": "", "turns": [[{"say": "{text}"}]]}]}


@pytest.mark.parametrize("server", [{"script": ECHO_ONLY}], indirect=True)
def test_an_agent_that_ignores_the_prefixes_gets_no_made_up_failures(server: LiveServer, tmp_path: Path) -> None:
    status, report, printed = run_suite(server.url, tmp_path)
    assert status == 0, printed[-4000:]
    agent = report["server"]["agent"]
    assert agent["name"] == "none" and agent["offered"] == [
        "tck-complete-task", "tck-stream-001", "tck-stream-003", "tck-stream-ordering-001"], agent
    assert "follows neither the TCK's nor ACTS's behaviour conventions" in report["description"]
    reasons = {reason for r in report["requirements"] for reason in r["not_applicable"]}
    for behaviour in ("tck-input-required", "tck-reject-task"):
        assert any(f"does not offer the behaviour {behaviour}:" in reason for reason in reasons), reasons
    verdict = {r["id"]: r["result"] for r in report["requirements"]}
    # what the protocol alone decides is still checked, and what a completed task can show
    assert verdict["CORE-GET-002"] == verdict["SPEC-JSONRPC-001"] == verdict["CORE-MULTI-003"] == "pass", verdict
    assert verdict["CORE-SEND-001"] == "pass", verdict  # a task is an answer A2A allows
    assert verdict["CORE-CANCEL-001"] == "n/a", verdict  # needs a task that waits
    assert_readable(report)


# --- HTML 500s ---


def _html_500(call: Call) -> Answer | None:
    if call.binding == "card" or call.path == "/.well-known/agent-card.json":
        host = call.headers["host"]
        card = {"name": "Broken", "description": "Answers every call with an HTML 500.", "version": "1",
                "supportedInterfaces": [{"url": f"http://{host}/rpc", "protocolBinding": "JSONRPC",
                                         "protocolVersion": "1.0"}],
                "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
                "skills": [{"id": "x", "name": "X", "description": "Nothing.", "tags": ["x"]}]}
        return Answer(200, [("content-type", "application/json")], json.dumps(card).encode())
    return Answer(500, [("content-type", "text/html")],
                  b"<!doctype html><html><head><title>500 Internal Server Error</title></head><body>Oops</body></html>")


def test_html_500s_are_described_as_such(tmp_path: Path) -> None:
    proxy = Proxy("http://127.0.0.1:9", Mutant("html-500", (), "HTML 500s", request=_html_500)).start()
    try:
        status, report, printed = run_suite(proxy.url, tmp_path)
    finally:
        proxy.stop()
    assert status == 1, printed[-3000:]
    texts = messages(report)
    assert any("is not JSON: HTTP 500 text/html, an HTML page titled '500 Internal Server Error'" in t for t in texts)
    assert "STOPPED ANSWERING" not in printed  # it never answered: not a crash
    assert_readable(report)


# --- timestamps without their zone: one defect, one failure ---


def test_timestamps_without_a_zone_fail_one_requirement(server: LiveServer, tmp_path: Path) -> None:
    mutant = next(m for m in MUTANTS if m.name == "timestamps-without-zone")
    proxy = behind(server.url, mutant)
    try:
        status, report, printed = run_suite(proxy.url, tmp_path)
    finally:
        proxy.stop()
    assert status == 1, printed[-3000:]
    assert failed(report) == {"DM-SERIAL-003"}, failed(report)
    (requirement,) = [r for r in report["requirements"] if r["id"] == "DM-SERIAL-003"]
    shown = {f["message"].split(": ", 1)[0] for f in requirement["failures"]}
    assert "$.task.status.timestamp" in shown, shown  # each distinct violation once, by where it is
    assert all("is not an RFC 3339 UTC timestamp ending in Z" in f["message"] for f in requirement["failures"]
               if f["step"].startswith("the answer to")), requirement["failures"]
    assert_readable(report)


# --- webhooks on loopback refused, as the design asks by default ---


@pytest.mark.parametrize("server", [{"allow_private_push_urls": False}], indirect=True)
def test_a_server_that_refuses_loopback_webhooks_still_passes_push_configs(server: LiveServer, tmp_path: Path) -> None:
    status, report, printed = run_suite(server.url, tmp_path, "--", "-k", "push")
    assert status == 0, printed[-3000:]
    verdict = {r["id"]: r for r in report["requirements"]}
    for crud in ("PUSH-CREATE-001", "PUSH-CREATE-002", "PUSH-GET-001", "PUSH-LIST-001", "PUSH-DEL-001"):
        assert verdict[crud]["result"] == "pass", verdict[crud]
    delivery = verdict["PUSH-DELIVER-002"]
    assert delivery["result"] == "n/a", delivery
    assert any("refuses a webhook on this machine" in reason and "https" in reason
               for reason in delivery["not_applicable"]), delivery["not_applicable"]
    assert_readable(report)
