"""Every shell example in README.md and docs/*.md runs against a live server (STYLE.md: examples do not drift).

An example is a fenced block marked `sh`, `bash`, `shell` or `console`. The conventions, which the README's
"Try it" states for its readers:

- Examples call the server at `$A2A_URL` with the key `$A2A_KEY`. Here the server is the demo workspace served by
  the real command, as `make serve` serves it, and both variables are set to its address and its demo key.
- A `sh` block runs under `bash -euo pipefail`, from the repository's root, and must exit 0. Each curl in it must
  get a 2xx answer that is not a JSON-RPC error, unless the block follows `<!-- expect error: REASON -->`: then
  each answer must be an error with that reason.
- A `console` block is `$ command` lines, each followed by its exact output (stdout and stderr).
- A block that cannot run here (it serves until stopped, installs, or needs another server) follows
  `<!-- not run: why -->`; it is reported as skipped with that reason. A `<!-- walkthrough: step -->` block
  is a step of docs/owner-host.md, run in order by tests/test_owner_host_doc.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_cli import Served, serve

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "bash", "shell", "console"}
FENCE = re.compile(r"^```\s*([\w-]*)")
MARK = re.compile(r"^<!--\s*(not run|expect error|walkthrough):\s*(.*?)\s*-->$")
# a `walkthrough:` block is one step of docs/owner-host.md, which tests/test_owner_host_doc.py runs in order
# every curl of a sh block ends its output with its status line, so each answer can be checked on its own
CURL = "curl() { command curl --no-progress-meter --write-out '\\n@@curl %{http_code}@@\\n' \"$@\"; }\n"
STATUS = re.compile(r"\n@@curl (\d{3})@@\n")


@dataclass
class Example:
    path: Path
    line: int
    lang: str
    code: str
    mark: tuple[str, str] | None  # ("not run" | "expect error", the text after the colon)

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Example]:
    """Every fenced block of a markdown file, with the marker comment on the last non-blank line before it."""
    found: list[Example] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
        before = next((lines[i].strip() for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        marked = MARK.match(before)
        found.append(Example(path, index + 1, opening.group(1), "\n".join(lines[index + 1:end]) + "\n",
                             (marked.group(1), marked.group(2)) if marked else None))
        index = end + 1
    return found


EXAMPLES = [example for path in DOCS for example in blocks(path) if example.lang in SHELL]


def _skipped(example: Example) -> str:
    assert example.mark is not None
    if example.mark[0] == "walkthrough":
        return f"{example.name} is the walkthrough step {example.mark[1]!r} (tests/test_owner_host_doc.py runs it)"
    return f"{example.name} not run: {example.mark[1]}"


def params() -> list[object]:
    return [pytest.param(example, id=example.name,
                         marks=[pytest.mark.skip(reason=_skipped(example))]
                         if example.mark and example.mark[0] in ("not run", "walkthrough") else [])
            for example in EXAMPLES]


@dataclass
class Docs:
    served: Served
    env: dict[str, str]


@pytest.fixture(scope="module")
def docs() -> Iterator[Docs]:
    """The demo workspace served by the real command, and the environment the examples run in."""
    state = Path(tempfile.mkdtemp(prefix="a2a-docs-"))
    served = serve(state)
    bin_dir = str(Path(sys.executable).parent)  # reference-server, as installed beside this Python
    env = {**os.environ, "A2A_URL": f"http://127.0.0.1:{served.port}", "A2A_KEY": served.key,
           "XDG_STATE_HOME": str(state / "state"), "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    try:
        yield Docs(served, env)
    finally:
        served.stop()
        shutil.rmtree(state, ignore_errors=True)


def run_sh(example: Example, env: dict[str, str]) -> list[tuple[int, str]]:
    """Run a sh block; return each curl's (HTTP status, body)."""
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", CURL + example.code], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, f"{example.name} exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    pieces = STATUS.split(run.stdout)
    return [(int(status), body) for body, status in zip(pieces[0::2], pieces[1::2], strict=False)]


def jsonrpc_error(body: str) -> dict[str, object] | None:
    try:
        answer = json.loads(body)
    except json.JSONDecodeError:
        return None
    return answer.get("error") if isinstance(answer, dict) and "jsonrpc" in answer else None


def run_console(example: Example, env: dict[str, str]) -> None:
    """Each `$ command` and the lines after it: the command's exact output."""
    steps: list[tuple[str, list[str]]] = []
    for line in example.code.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"{example.name}: a console block starts with a `$ ` command"
            steps[-1][1].append(line)
    for command, expected in steps:
        run = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert (run.stdout + run.stderr).strip().splitlines() == expected, f"{example.name}: $ {command}"


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("example", params())
def test_the_example_runs(example: Example, docs: Docs) -> None:
    if example.lang == "console":
        run_console(example, docs.env)
        return
    answers = run_sh(example, docs.env)
    if "curl" not in example.code:
        return
    assert answers, f"{example.name}: no curl answered"
    for status, body in answers:
        if example.mark and example.mark[0] == "expect error":
            assert status >= 400 or jsonrpc_error(body), f"{example.name}: expected an error, got {status} {body}"
            assert f'"reason":"{example.mark[1]}"' in body.replace(" ", ""), body
        else:
            assert 200 <= status < 300, f"{example.name}: HTTP {status} {body}"
            assert jsonrpc_error(body) is None, f"{example.name}: {body}"


def test_the_readme_try_it_block_answers_with_the_echo(docs: Docs) -> None:
    """Beyond succeeding: the README's first curl block shows the card, the extended card and a completed echo."""
    [block] = [e for e in EXAMPLES if e.path.name == "README.md" and "message:send" in e.code and not e.mark]
    public, extended, sent, jsonrpc = (json.loads(body) for _status, body in run_sh(block, docs.env))
    assert public["supportedInterfaces"][0]["protocolVersion"] == "1.0"
    assert extended["name"] == "Reference demo assistant"
    assert sent["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert sent["task"]["artifacts"][0]["parts"][0]["text"] == "hello"
    assert jsonrpc["result"]["name"] == "Reference demo assistant"


def test_examples_are_found_and_every_unrun_one_says_why() -> None:
    assert len(EXAMPLES) >= 4
    assert any(e.path.name == "README.md" and not e.mark for e in EXAMPLES)
    for example in EXAMPLES:
        if example.mark:
            assert example.mark[1], f"{example.name}: say why in the marker"


def test_a_shell_example_is_fenced_as_one() -> None:
    """A block of another kind that holds a command would escape this test: it must be marked sh or console."""
    for path in DOCS:
        for example in blocks(path):
            if example.lang not in SHELL:
                commands = [line for line in example.code.splitlines() if re.match(r"(\$ |curl |make )", line)]
                assert not commands, f"{example.name} (```{example.lang}) holds shell commands: {commands}"
