"""docs/robustness.md, written by `make fuzz-peers` from the reports of its runs: how the robustness run works and how
to run it, its rules, the counts per server and rule, and each server's findings, with the cause and the wire
evidence of those verified by hand (docs/robustness-findings.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from fuzz.rules import RULES

from reference_server.conformance.robustness_page import interface_name

ROOT = Path(__file__).resolve().parents[1]
FINDINGS = ROOT / "docs" / "robustness-findings.toml"

INTRO = """\
# Robustness

`make fuzz` sends hostile requests: the valid calls of every A2A operation on both bindings and in both versions,
then broken on purpose (deep and huge JSON, numbers no parser should take, lone surrogates, wrong types, the other
version's fields and method names, odd paths, odd and doubled headers, unknown and missing keys). Against this
server it runs 10,000 of them in-process and holds every answer to this server's own error shapes (`make test` runs
1,000 of the same). Given another server (`A2A_TARGET_URL`), it runs them against that one, on the bindings and
versions its card offers, and reports what A2A, or a well-known weakness where A2A says nothing, asks of any server.
The official TCK sends well-formed requests only, and so does every other A2A checker we know of.

## How to run it

<!-- not run: it sends hostile requests to another server; tests/test_robustness_targets.py runs this mode -->
```sh
A2A_TARGET_URL=http://127.0.0.1:9999 A2A_TARGET_KEY=<a key> make fuzz
```

Discovery is the conformance suite's (`conformance/support/target.py`): the card says which bindings and versions to aim
at (`A2A_TARGET_CARD_URL` names a card that is not at the well-known path). The run prints each finding as it
comes, then the counts per rule and per operation and every finding with its reproducer, writes
`reports/robustness.json` and puts a Robustness section into the living page (`reports/conformance.html`) when
that page is of the same target. Its exit status is 0 with no finding, 1 with findings and 3 when the run could not
run (no usable card, a key the server refuses, a target it may not send to); `make` turns any failure into its own
2 and prints the real status (or run `.venv/bin/python scripts/robustness.py`, with the same environment).

| setting | default | what it bounds |
| --- | --- | --- |
| `--requests` (or `FUZZ_EXAMPLES`) | 10000 | the hostile requests |
| `--rate` | 50 | requests a second, every request of the run counted (probes, follow-ups, shrinking); 0: unpaced |
| `--seconds` | 900 | the whole run, shrinking and waiting for a restart included |
| `--shrink-seconds`, `--shrink-tries` | 120, 150 | the search for each finding's smallest request |
| `--timeout` | 10 | seconds for an answer (a stream: its first event) before it is a hang |
| `--batch` | 50 | a health probe after every this many hostile requests |
| `--max-request-bytes` | 262144 | no request is larger |
| `--amplification`, `--amplification-floor` | 20, 262144 | an answer or stored task this many times its \
request, and at least this large, is amplification |
| `--wait-for-restart` | 0 | seconds to wait for a crashed server to come back (0: the run stops at a crash) |
| `--seed` | new each run | the hypothesis seed, printed, to run the same requests again |

**Safe by construction.** A robustness run is an attack in miniature: thousands of malformed requests, some of them
large, some of them meant to take a server down. It goes only where that is the user's own business:

- A target, or an interface its card names, that is not on a loopback address (`127.0.0.0/8`, `::1`, `localhost`)
  is refused before any request, unless `--allow-remote-target` says the server is yours. A card on this machine
  cannot send the run elsewhere either. A name other than `localhost` is not even resolved.
- It is bounded in count, pace and time, as above; no request is larger than `--max-request-bytes`, and no answer
  is read past 16 MiB.
- The credentials it sends, besides the key you give it (a wrong API key, a bearer token, a push token and push
  credentials), are made up for each run. A leak is reported by the credential's name ("the caller's key
  (A2A_TARGET_KEY)", "a made-up push token"), never its value, and the reproducers write your key as
  `$A2A_TARGET_KEY`. Push configs point at a discard port on loopback (`http://127.0.0.1:9/`), so a server that
  delivers pushes sends nothing off its machine.

## The rules

| rule | what it asks | source |
| --- | --- | --- |
{rules}

Only what the rule asks is judged: a path no A2A route has is held to no error shape, a JSON-RPC refusal with an
HTTP 4xx before the binding read the request (an auth layer, a size limit) may say so in any JSON, and A2A 0.3's
HTTP+JSON errors, whose body 0.3 never named, need only be JSON. One request that breaks several rules counts once
under each; the answer a crashed server gives is the crash's, not another finding.

**Crash detection.** At the start the run notes what the card and a GetTask of an unknown task get (the conformance
suite's health probe, `conformance/support/health.py`). It asks both again after every batch and after every answer that
is a 5xx or no answer at all. A server that answered them and now does not has crashed: the run names the last
requests before it, with what each got and which answer went wrong first, and stops. With `--wait-for-restart` it
waits for the server to come back (under a supervisor), sends those requests again one at a time with the probe
after each to learn which one takes it down, and goes on.

**One defect, one finding.** A finding is a rule broken on one interface in one way (its kind: `HTTP 500
text/plain`, `is not JSON (HTTP 415 text/html)`, `a made-up API key in the error body`), with the operations it
was seen on: a defect of a server's error path shows on every operation, and is one finding.

**Reproducers.** Each finding is searched for again among the requests of its interface (a crash: of its
operation), and hypothesis shrinks the first that shows it the same way toward the well-formed call it came from:
what is left is what the finding needs (`{{}}` where a message was expected, `params` left out). A finding seen
again in no smaller request keeps the request that showed it first, sent once more to see it again. The
reproducer is a curl line that sends the same bytes (`--path-as-is`, curl's own headers taken out, a body that is
not plain text through `printf`).
"""

PEERS_INTRO = """\
## The servers of `make conformance-peers`

`make fuzz-peers` runs the robustness run against the servers of `make conformance-peers`, each on loopback, each
started by that command's own start function, unpaced, with a supervisor that starts a server again on its port
when its health probe fails twice (and the run waiting for it), so that a crash is traced to its request and the run
goes on. Each report is kept as `reports/robustness-<server>.json` and its section put into the server's living
page.

<!-- not run: it starts six servers and runs thousands of hostile requests against each (minutes) -->
```sh
make fuzz-peers
```
"""


def findings_verified(path: Path = FINDINGS) -> list[dict[str, Any]]:
    return list(tomllib.loads(path.read_text(encoding="utf-8")).get("finding", [])) if path.exists() else []


def servers_of(entry: dict[str, Any]) -> list[str]:
    """The servers a verified finding is about: `servers`, or its one `server`."""
    return list(entry.get("servers") or [entry["server"]])


def _cell(report: dict[str, Any], rule: str) -> str:
    found = [f for f in report["findings"] if f["rule"] == rule]
    if not found:
        return "0"
    requests = sum(f["requests"] for f in found)
    what = "times" if rule == "crash" else "requests"
    return f"**{len(found)}** ({requests} {what})"


def render(reports: list[dict[str, Any]], verified: list[dict[str, Any]] | None = None) -> str:
    verified = findings_verified() if verified is None else verified
    rows = "\n".join(f"| `{r.id}` | {r.says} | {r.source} |" for r in RULES)
    out = [INTRO.format(rules=rows), PEERS_INTRO]
    if not reports:
        return "\n".join(out)
    days = sorted({r["generated"][:10] for r in reports})
    dates = f"all on {days[0]}" if len(days) == 1 else ", ".join(f"{r['label']} {r['generated'][:10]}"
                                                                    for r in reports)
    out.append(f"The last `make fuzz-peers` ({dates}, seeds in the reports): findings per rule, with the requests "
               "that showed them.\n")
    out.append("| | " + " | ".join(r["label"] for r in reports) + " |")
    out.append("| --- |" + " --- |" * len(reports))
    out.append("| hostile requests | " + " | ".join(str(r["requests"]["hostile"]) for r in reports) + " |")
    for rule in RULES:
        out.append(f"| {rule.id} | " + " | ".join(_cell(r, rule.id) for r in reports) + " |")
    out.append("| run time | " + " | ".join(f"{r.get('wall_seconds', r['seconds']):.0f} s" for r in reports) + " |")
    out.append("| stopped early | " + " | ".join(("yes: " + r["stopped"]) if r["stopped"] else "no"
                                                   for r in reports) + " |")
    out.append("")
    out.append("## What they found\n")
    out.append("Each server's findings, with the cause in its code and the exchange on the wire for those verified "
               "by hand (`docs/robustness-findings.toml`); the whole reproducer of each is in its report.\n")
    shown: dict[int, str] = {}  # an entry already told in full -> the server it was told under
    for report in reports:
        out += _server(report, [v for v in verified if report["label"] in servers_of(v)], shown)
    return "\n".join(out).rstrip() + "\n"


def _server(report: dict[str, Any], verified: list[dict[str, Any]], told: dict[int, str]) -> list[str]:
    out = [f"### {report['label']}\n"]
    if not report["findings"]:
        return [*out, f"No finding in {report['requests']['hostile']} hostile requests.\n"]
    covered: set[int] = set()
    for entry in verified:
        shown = [f for f in report["findings"] if f["rule"] == entry["rule"] and (
            not entry.get("kinds") or any(kind in f["kind"] for kind in entry["kinds"]))]
        covered |= {id(f) for f in shown}
        where = "; ".join(f"{_interface(f['interface'])}: {', '.join(f['operations'])}" for f in shown) or (
            "not seen in the last run")
        out.append(f"- **{entry['rule']}**: {' '.join(entry['summary'].split())} Seen on: {where}.\n")
        if id(entry) in told:
            out.append(f"  - The same defect as under {told[id(entry)]}, with the same cause.\n")
            continue
        told[id(entry)] = report["label"]
        out.append(f"  - Cause: {' '.join(entry['cause'].split())}")
        out.append(f"  - Rule: {' '.join(entry['spec'].split())}")
        out.append("  - On the wire:\n\n    ```text")
        out += ["    " + line for line in entry["wire"].strip("\n").splitlines()]
        out.append("    ```\n")
    rest = [f for f in report["findings"] if id(f) not in covered]
    if rest:
        out.append("Not verified by hand yet:\n")
        for finding in rest:
            kind = finding["kind"] or "untraced"
            what = "times" if finding["rule"] == "crash" else "requests"
            out.append(f"- `{finding['rule']}` on {_interface(finding['interface'])} ({kind}), "
                       f"{finding['requests']} {what}, on {', '.join(finding['operations'])}: {finding['first']}")
        out.append("")
    return out


def _interface(interface: str) -> str:
    return interface_name(interface)
