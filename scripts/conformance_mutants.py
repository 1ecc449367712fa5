"""`make conformance-mutants`: the conformance suite measured against known defects.

The reference server runs on loopback; for each mutant of tests/support/mutants.py a rewriting proxy
(tests/support/proxy.py) puts that one defect in front of it, and the portable suite runs against the proxy as
against any server (`reference-server conformance`). A mutant is **caught** when a requirement it breaks fails,
and the catch is **precise** when no other requirement fails. A first run through a proxy that changes nothing must
fail nothing, or no catch would mean anything. The table goes to the console and to docs/conformance.md.

Exit status: 0 when every mutant is caught precisely, 1 otherwise, 3 when the baseline run fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))

from support.live import LiveServer, settings_for  # noqa: E402
from support.mutants import MUTANTS  # noqa: E402
from support.proxy import IDENTITY, Mutant, Proxy  # noqa: E402

from reference_server.model.caller import Workspace  # noqa: E402

DOC = ROOT / "docs" / "conformance.md"
BEGIN, END = "<!-- mutants: begin -->", "<!-- mutants: end -->"
KEY, OTHER_KEY = "k_mutants_conformance", "k_mutants_other"


@dataclass
class Outcome:
    mutant: Mutant
    failed: list[str] = field(default_factory=list)  # every requirement that failed, at any level
    seconds: float = 0.0
    status: int = 0

    @property
    def caught(self) -> bool:
        return any(r in self.failed for r in self.mutant.breaks)

    @property
    def precise(self) -> bool:
        return self.caught and not set(self.failed) - set(self.mutant.breaks)


def run(server: LiveServer, mutant: Mutant, reports: Path) -> Outcome:
    """The portable suite against the server behind this mutant."""
    proxy = Proxy(server.url, mutant).start()
    proxy.memory["key"] = KEY
    reports.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "A2A_TARGET_URL": proxy.url, "A2A_TARGET_KEY": KEY, "A2A_TARGET_OTHER_KEY": OTHER_KEY,
           "A2A_CONFORMANCE_REPORTS": str(reports)}
    env.pop("A2A_TARGET_CARD_URL", None)
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "reference_server", "conformance"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=900)
    finally:
        proxy.stop()
    report_file = reports / "conformance.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    if done.returncode not in (0, 1) or "requirements" not in report:
        raise RuntimeError(f"the run against {mutant.name} could not run (exit status {done.returncode}):\n"
                           + (report.get("could_not_run") or done.stdout[-3000:] + done.stderr[-3000:]))
    failed = sorted(r["id"] for r in report.get("requirements", []) if r["result"] == "fail")
    return Outcome(mutant, failed, time.monotonic() - started, done.returncode)


def table(outcomes: list[Outcome]) -> list[str]:
    caught = sum(o.caught for o in outcomes)
    precise = sum(o.precise for o in outcomes)
    lines = [f"{len(outcomes)} mutants: {caught} caught, {precise} caught precisely.", "",
             "| mutant | what it does | breaks | caught | precise | also failed |",
             "| --- | --- | --- | --- | --- | --- |"]
    for o in outcomes:
        others = ", ".join(r for r in o.failed if r not in o.mutant.breaks) or "-"
        lines.append(f"| {o.mutant.name} | {o.mutant.says} | {', '.join(o.mutant.breaks)} | "
                     f"{'yes' if o.caught else '**no**'} | {'yes' if o.precise else '**no**'} | {others} |")
    return lines


def write_doc(lines: list[str], when: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    block = "\n".join([BEGIN, f"The last `make conformance-mutants` ({when}):", "", *lines, END])
    if BEGIN in text:
        text = text[: text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    DOC.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="run these mutants only (by name); the doc is not written")
    options = parser.parse_args()
    chosen = [m for m in MUTANTS if not options.only or m.name in options.only]
    root = Path(tempfile.mkdtemp(prefix="a2a-mutants-"))
    workspace = Workspace(root / "owner", owner_id="owner", scope_prefix="mutants")
    workspace.callers_file.parent.mkdir(parents=True, exist_ok=True)
    workspace.callers_file.write_text(json.dumps([{"name": "conformance", "key": KEY},
                                                  {"name": "other", "key": OTHER_KEY}]))
    server = LiveServer(settings_for())
    server.workspaces.add(workspace)
    server.start()
    try:
        baseline = run(server, IDENTITY, root / "reports-baseline")
        print(f"baseline (no mutant): {len(baseline.failed)} requirements failed in {baseline.seconds:.0f} s"
              + (f": {', '.join(baseline.failed)}" if baseline.failed else ""))
        if baseline.failed:
            return 3
        outcomes = []
        for mutant in chosen:
            outcome = run(server, mutant, root / f"reports-{mutant.name}")
            outcomes.append(outcome)
            word = "precise" if outcome.precise else "caught" if outcome.caught else "SURVIVED"
            others = [r for r in outcome.failed if r not in mutant.breaks]
            print(f"{mutant.name:36} {word:9} {outcome.seconds:5.0f} s" + (f"  also: {', '.join(others)}"
                                                                            if others else ""))
    finally:
        server.stop()
    lines = table(outcomes)
    print("\n".join(["", *lines]))
    if not options.only:
        write_doc(lines, time.strftime("%Y-%m-%d"))
        print(f"\nwritten to {DOC.relative_to(ROOT)}")
    return 0 if all(o.precise for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
