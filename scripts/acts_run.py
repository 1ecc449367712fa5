"""Run the ACTS corpus (spec/acts, the A2A project's draft conformance tests) against a server, as the ACTS
specification (acts-specification.md, draft 0.1.0) says: abstract operations on JSON-RPC and HTTP+JSON (the card's
A2A 1.x interfaces), raw requests, expect / expect_error / expect_stream, variables and captures, preconditions
read from the card, SUT behaviours asked by the first text part (with a fresh UUID messageId), and the
runner-special tests this runner can execute (scripts/acts/runtest.py lists them).

One line per test and binding: id, level, PASS / FAIL / SKIP (a precondition or transport the server does not
meet) / NOT RUN (the runner cannot execute it: a client test, gRPC, a value it was not given), and for a FAIL the
first failed assertion with the request and the answer, trimmed; then the counts by level.

Passes (this runner's; ACTS has none): main (default), reduced (the tests that need a capability declared false:
start the server with it off), auth (the tests that withhold credentials or need a second caller: --other-key).

Exit status: 0 when no MUST test failed, 1 when one did, 3 when the run could not run (no card, no usable
interface, a key the server refuses, an unreadable corpus).

    .venv/bin/python scripts/acts_run.py --url http://127.0.0.1:8080 --key k_acts [--binding both] [--pass main]
        [--only ID ...] [--report reports/acts.json]
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the scripts package is imported from the repository's root

from scripts.acts import corpus, report, wire  # noqa: E402
from scripts.acts.execute import NOT_RUN, UNREACHABLE_WEBHOOK, Options, Outcome  # noqa: E402
from scripts.acts.receiver import Receiver  # noqa: E402
from scripts.acts.runtest import Run, run_test  # noqa: E402
from scripts.acts.target import DRIVEN, Target, TargetError, discover  # noqa: E402

NO_MUST_FAILED, MUST_FAILED, COULD_NOT_RUN = 0, 1, 3
CORPUS = ROOT / "spec" / "acts" / "suite.acts.yaml"


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the server's base URL (every request goes to its origin)")
    parser.add_argument("--key", help="API key, sent as X-API-Key (ACTS's auth credentials)")
    parser.add_argument("--binding", choices=("jsonrpc", "rest", "both"), default="both")
    parser.add_argument("--pass", dest="run_pass", choices=corpus.PASSES, default="main")
    parser.add_argument("--only", nargs="+", metavar="ID", help="run these tests only (whatever their pass)")
    parser.add_argument("--report", type=Path, help="write the JSON report here")
    parser.add_argument("--card-url", help="the agent card (default: <url>/.well-known/agent-card.json)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the manifest or one ACTS file")
    parser.add_argument("--other-key", help="a second caller's key (auth pass: another caller's task)")
    parser.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                        help="a variable the tests use, e.g. insufficientAuthToken=... (repeatable)")
    parser.add_argument("--derive-authentication", action="store_true",
                        help="treat the precondition capabilities.authentication (not an A2A 1.0 field) as met "
                             "when the card declares securitySchemes")
    parser.add_argument("--jobs", type=int, default=6, help="tests run at once (default 6)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds for one answer")
    parser.add_argument("--stream-timeout", type=float, default=60.0, help="seconds for a stream to end")
    parser.add_argument("--push-wait", type=float, default=30.0, help="seconds to wait for a push notification")
    parser.add_argument("--no-webhook", action="store_true", help="start no webhook receiver (push delivery "
                                                                  "tests are then NOT RUN)")
    parser.add_argument("--verbose", "-v", action="store_true", help="also print how each test was read")
    return parser.parse_args(argv)


def _variables(pairs: list[str]) -> dict[str, str]:
    variables = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise SystemExit(f"--var wants NAME=VALUE, got {pair!r}")
        variables[name] = value
    return variables


def _select(tests: list[corpus.Test], args: argparse.Namespace) -> list[corpus.Test]:
    if args.only:
        unknown = sorted(set(args.only) - {t.id for t in tests})
        if unknown:
            raise TargetError(f"no such test: {', '.join(unknown)}")
        return [t for t in tests if t.id in args.only]
    return [t for t in tests if corpus.pass_of(t) == args.run_pass]


def _bindings(target: Target, wanted: str) -> list[str]:
    names = list(DRIVEN) if wanted == "both" else [wanted]
    usable = [b for b in names if b in target.interfaces]
    if not usable:
        raise TargetError(f"the card declares no A2A 1.x interface for {' or '.join(names)}")
    return usable


def _check_key(http: wire.Http, target: Target, binding: str, options: Options) -> None:
    """A key the server refuses would fail every test for one reason: stop instead."""
    headers = {"A2A-Version": "1.0", **({"X-API-Key": options.key} if options.key else {})}
    if binding == "jsonrpc":
        request = wire.jsonrpc_request(target.interfaces[binding], "list_tasks", {"pageSize": 1}, headers)
    else:
        request = wire.rest_request(target.interfaces[binding], "list_tasks", {"pageSize": 1}, headers)
    exchange = http.send(request)
    if exchange.status in (401, 403):
        raise TargetError(f"the server refuses {'the key' if options.key else 'a request without a key (--key)'}: "
                          f"HTTP {exchange.status}")


def _safe(test: corpus.Test, run: Run) -> Outcome:
    try:
        return run_test(test, run)
    except Exception as error:
        return Outcome(NOT_RUN, f"runner error: {type(error).__name__}: {error}")


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    url = args.url.rstrip("/")
    card_url = args.card_url or f"{url}/.well-known/agent-card.json"
    options = Options(key=args.key, other_key=args.other_key, timeout=args.timeout,
                      stream_timeout=args.stream_timeout, push_wait=args.push_wait,
                      variables=_variables(args.var), derive_authentication=args.derive_authentication)
    http = wire.Http({wire.origin(url), wire.origin(card_url)}, args.timeout)
    receiver = None
    try:
        tests = corpus.load(args.corpus)
        selected = _select(tests, args)
        target = discover(http, url, card_url, {"A2A-Version": "1.0"})
        target.derive_authentication = args.derive_authentication
        bindings = _bindings(target, args.binding)
        _check_key(http, target, bindings[0], options)
        receiver = None if args.no_webhook else Receiver()
        runs = {b: Run(http, target, b, options, receiver) for b in bindings}
        pairs = [(b, t) for b in bindings for t in selected]
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            outcomes = list(pool.map(lambda pair: _safe(pair[1], runs[pair[0]]), pairs))
    except (corpus.CorpusError, TargetError) as error:
        print(f"acts_run: could not run: {error}", file=sys.stderr)
        return COULD_NOT_RUN
    finally:
        if receiver is not None:
            receiver.close()
        http.close()
    rows = [report.Row(b, t, o) for (b, t), o in zip(pairs, outcomes, strict=True)]
    _print_header(args, url, target, bindings, tests, selected)
    report.print_run(rows, bindings, sys.stdout, args.verbose)
    if args.report:
        meta = {"url": url, "card_url": card_url, "pass": args.run_pass, "bindings": bindings,
                "interfaces": target.interfaces, "only": args.only or [], "corpus": str(args.corpus),
                "notes": _global_notes(target)}
        report.write(args.report, report.document(rows, bindings, meta, target.card))
        print(f"report: {args.report}")
    must_failed = any(r.outcome.verdict == "FAIL" and r.test.level == "must" for r in rows)
    return MUST_FAILED if must_failed else NO_MUST_FAILED


def _global_notes(target: Target) -> list[str]:
    return [*target.notes,
            "outside the auth pass raw steps get the runner's X-API-Key (unless they carry credentials)",
            "the runner's variables (webhookUrl, --var) take precedence over the documents' variables; webhookUrl is "
            f"the runner's receiver on 127.0.0.1 for the push delivery tests, {UNREACHABLE_WEBHOOK}/... (never "
            "resolves) for the others",
            "abstract streams: event assertions on non-StreamResponse keys are read on the event's payload",
            "monotonic_state fails only ACTS §7.1's two MUST rules (nothing returns to SUBMITTED, nothing follows "
            "a terminal state)"]


def _print_header(args: argparse.Namespace, url: str, target: Target, bindings: list[str],
                  tests: list[corpus.Test], selected: list[corpus.Test]) -> None:
    chosen = "--only" if args.only else f"pass {args.run_pass}"
    others = "" if args.only else f", {len(tests) - len(selected)} belong to other passes"
    print(f"ACTS {args.corpus.name}: {len(tests)} tests; {chosen}: {len(selected)} selected{others}")
    print(f"target {url}: {target.card.get('name')!r}; " +
          ", ".join(f"{b} {target.interfaces[b]}" for b in bindings))
    for note in target.notes:
        print(f"note: {note}")
    print()


if __name__ == "__main__":
    sys.exit(main())
