"""`make fuzz` in target mode: the fuzz suite's hostile requests against another A2A server (A2A_TARGET_URL,
A2A_TARGET_KEY, A2A_TARGET_CARD_URL), on the bindings and versions its card offers, each finding classified by rule
(tests/fuzz/rules.py) with its smallest reproducer as a curl line; the report on the console, in
reports/robustness.json and as a section of the living page (reports/conformance.html, when it is of the same
target).

Safe by construction: a target off this machine's loopback addresses is refused unless --allow-remote-target says
the user owns it; the run is bounded in count (--requests), pace (--rate, every request counted) and time
(--seconds); no request is larger than --max-request-bytes; the credentials it makes up are new for every run, and a
leak is reported by the credential's name, never its value.

Exit status: 0 no finding, 1 findings, 3 the run could not run (no target, a target refused, no usable card, a key
the server refuses). `make` turns any failure into its own 2: the recipe prints the real status.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import textwrap
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the scripts package is imported from the repository's root
sys.path.insert(1, str(ROOT / "tests"))  # and the generators and discovery from the suite's own support

from fuzz.surface import Secrets, Surface, from_target  # noqa: E402

from reference_server.conformance import living_page  # noqa: E402
from reference_server.conformance.support.conventions import Unusable  # noqa: E402
from reference_server.conformance.support.health import baseline, get_task  # noqa: E402
from reference_server.conformance.support.target import PREFERRED, TargetServer, discover  # noqa: E402
from reference_server.conformance.support.v03 import to_v03_message  # noqa: E402
from reference_server.conformance.support.v03_rest import to_proto_params  # noqa: E402
from scripts.robustness_kit import report as reporting  # noqa: E402
from scripts.robustness_kit.campaign import Campaign, Settings  # noqa: E402
from scripts.robustness_kit.safety import off_loopback  # noqa: E402

DEFAULTS = Settings()
REMOTE = ("a robustness run sends thousands of hostile requests, which only the server's owner may send, and it can "
          "take a server down")


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add = parser.add_argument
    add("--requests", type=int, default=int(os.environ.get("FUZZ_EXAMPLES") or DEFAULTS.requests),
        help=f"hostile requests to send (FUZZ_EXAMPLES; default {DEFAULTS.requests})")
    add("--rate", type=float, default=DEFAULTS.rate,
        help=f"requests a second at most, probes and follow-ups counted (default {DEFAULTS.rate:g}; 0: unpaced)")
    add("--seconds", type=float, default=DEFAULTS.seconds, help="the whole run's time bound, shrinking included "
        f"(default {DEFAULTS.seconds:g})")
    add("--shrink-seconds", type=float, default=DEFAULTS.shrink_seconds,
        help=f"of which, at most, for shrinking the findings (default {DEFAULTS.shrink_seconds:g})")
    add("--shrink-tries", type=int, default=DEFAULTS.shrink_tries,
        help=f"requests sent, at most, to shrink one finding (default {DEFAULTS.shrink_tries})")
    add("--timeout", type=float, default=DEFAULTS.timeout,
        help=f"seconds for an answer (a stream: its first event) before it is a hang (default {DEFAULTS.timeout:g})")
    add("--batch", type=int, default=DEFAULTS.batch, help="a health probe after every this many hostile requests "
        f"(default {DEFAULTS.batch})")
    add("--max-request-bytes", type=int, default=DEFAULTS.max_request_bytes,
        help=f"no request is larger (default {DEFAULTS.max_request_bytes})")
    add("--amplification", type=float, default=DEFAULTS.amplification,
        help=f"an answer or stored task this many times its request is amplification (default "
             f"{DEFAULTS.amplification:g}) ...")
    add("--amplification-floor", type=int, default=DEFAULTS.amplification_floor,
        help=f"... once it is at least this many bytes (default {DEFAULTS.amplification_floor})")
    add("--wait-for-restart", type=float, default=DEFAULTS.wait_for_restart, metavar="SECONDS",
        help="on a crash, wait this long for the server to come back (a supervisor restarting it), learn which "
             "request took it down and go on (default 0: the run stops at a crash)")
    add("--seed", type=int, default=None, help="the hypothesis seed (default: a new one, printed)")
    add("--allow-remote-target", action="store_true",
        help=f"send to a target that is not on a loopback address: {REMOTE}; only for a server you own")
    add("--reports", type=Path, default=Path(os.environ.get("A2A_ROBUSTNESS_REPORTS") or ROOT / "reports"),
        help="where robustness.json goes (A2A_ROBUSTNESS_REPORTS; default reports/)")
    return parser.parse_args(argv)


def settings_of(args: argparse.Namespace) -> Settings:
    return Settings(requests=args.requests, rate=args.rate, seconds=args.seconds,
                    shrink_seconds=min(args.shrink_seconds, args.seconds), shrink_tries=args.shrink_tries,
                    timeout=args.timeout, batch=args.batch,
                    max_request_bytes=args.max_request_bytes, amplification=args.amplification,
                    amplification_floor=args.amplification_floor, wait_for_restart=args.wait_for_restart,
                    seed=args.seed if args.seed is not None else random.randrange(2**32))


def refused(urls: list[str], allowed: bool) -> str | None:
    """The sentence that refuses a target off loopback, unless the user said they own it."""
    hosts = off_loopback(urls)
    if not hosts or allowed:
        return None
    return (f"{', '.join(hosts)} is not a loopback address: {REMOTE}. Pass --allow-remote-target if the server is "
            "yours.")


def first_task(server: TargetServer, key: str, protocol: tuple[str, str], timeout: float) -> tuple[int | None, str]:
    """A task of the caller's, from one well-formed send: (the HTTP status, its id or what came instead)."""
    binding, version = protocol
    jsonrpc, rest = server.paths(binding, version)
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "hello"}]}
    headers = {"A2A-Version": version, "X-API-Key": key}
    body: dict[str, Any]
    if binding == "jsonrpc":
        method, sent = ("SendMessage", message) if version == "1.0" else ("message/send", to_v03_message(message))
        url, body = jsonrpc, {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": sent}}
    else:
        params: dict[str, Any] = {"message": message}
        url, body = rest + "/message:send", params if version == "1.0" else to_proto_params("SendMessage", params)
    try:
        with httpx.Client(timeout=timeout) as http:
            response = http.post(url, json=body, headers=headers)
        payload = response.json()
    except (httpx.HTTPError, ValueError) as error:
        return None, f"no task: the send got {type(error).__name__}"
    value = payload.get("result", payload) if isinstance(payload, dict) else None
    for candidate in (value.get("task"), value) if isinstance(value, dict) else ():
        if isinstance(candidate, dict) and isinstance(candidate.get("id"), str) and "status" in candidate:
            return response.status_code, candidate["id"]
    return response.status_code, f"no task: the send got HTTP {response.status_code}"


def known(sent: tuple[int | None, str]) -> str | None:
    """The task id of a send that made one (first_task), else None."""
    status, task = sent
    return task if status is not None and 200 <= status < 300 and not task.startswith("no task") else None


def prepare(target: str, key: str, card_url: str, settings: Settings, allowed: bool) -> tuple[
        TargetServer, Surface, Any, tuple[str, str], list[str]]:
    """Discovery, the safety checks and what the run starts from; Unusable with the sentence that says why not."""
    sentence = refused([target, *([card_url] if card_url else [])], allowed)
    if sentence:
        raise Unusable(sentence)
    server = discover(target, key=key, card_url=card_url, conventions=False)
    sentence = refused(list(server.endpoints.values()), allowed)
    if sentence:
        raise Unusable(f"Its card names interfaces elsewhere: {sentence}")
    protocol = next(p for p in PREFERRED if p in server.interfaces)
    health = baseline(server, key, protocol, settings.timeout)
    notes = []
    if not health.answered:
        notes.append("A GetTask of an unknown task got a server error or no answer at the start: the health probe "
                     "reads the card only.")
    status, task = first_task(server, key, protocol, settings.timeout)
    if status in (401, 403):
        raise Unusable(f"The server refuses the key (A2A_TARGET_KEY): a well-formed send got HTTP {status}.")
    surface = from_target(server, Secrets.made_up(key))
    if known((status, task)):
        surface = replace(surface, known_task=task)
    else:
        notes.append(f"A well-formed send made {task}: the requests about a task name one that does not exist.")
    return server, surface, health, protocol, notes


def write_reports(reports: Path, report: dict[str, Any]) -> None:
    reports.mkdir(parents=True, exist_ok=True)
    (reports / "robustness.json").write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    page = reports / "conformance.html"
    if "could_not_run" not in report and living_page.add_robustness(page, report):
        print(f"living page: {shown_path(page)} (its Robustness section)")
    elif "could_not_run" not in report:
        print(f"living page: none of this target yet in {shown_path(reports)} (`make conformance` with the same "
              "A2A_TARGET_URL writes it, with this section)")
    print(f"machine-readable report: {shown_path(reports / 'robustness.json')}")


def shown_path(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str] | None = None) -> int:
    args = arguments(sys.argv[1:] if argv is None else argv)
    target = os.environ.get("A2A_TARGET_URL", "").rstrip("/")
    key, card_url = os.environ.get("A2A_TARGET_KEY", ""), os.environ.get("A2A_TARGET_CARD_URL", "")
    generated = datetime.now(UTC).isoformat(timespec="seconds")
    settings = settings_of(args)
    if not target:
        report = reporting.could_not_run("(none)", generated, "No target: set A2A_TARGET_URL (and A2A_TARGET_KEY) "
                                         "to the server to test; `make fuzz` without it fuzzes this server.")
    else:
        try:
            server, surface, health, protocol, notes = prepare(target, key, card_url, settings,
                                                               args.allow_remote_target)
        except Unusable as unusable:
            report = reporting.could_not_run(target, generated, str(unusable))
        else:
            print(textwrap.fill(server.description(), 116), flush=True)
            pace = f"at most {settings.rate:g} a second" if settings.rate else "unpaced"
            print(f"\n{settings.requests} hostile requests, seed {settings.seed}, {pace}; findings as they come:",
                  flush=True)
            campaign = Campaign(surface, health, settings, lambda task: get_task(server, key, protocol, task),
                                say=lambda line: print(line, flush=True),
                                new_task=lambda: known(first_task(server, key, protocol, settings.timeout)))
            outcome = campaign.run()
            report = reporting.build(target, generated, server.description(), settings, outcome, surface.secrets,
                                     notes)
    print("\n".join(reporting.console(report)))
    write_reports(args.reports, report)
    status = int(report["exit_status"])
    print(f"exit status {status} ({reporting.STATUSES})")
    return status


if __name__ == "__main__":
    sys.exit(main())
