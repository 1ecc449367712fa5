"""The independent peers of `make conformance-peers`: A2A servers built on neither official SDK, installed pinned
from PyPI and npm into the user's cache, outside the checkout, and started from there.

Each one's launcher and pins are in scripts/bench_kit/peers/<name>/ (a requirements.txt for a venv, or a
package.json with its package-lock.json). Its cache folder, ${XDG_CACHE_HOME:-~/.cache}/a2a-reference-server/peers/
<name>/, holds what is installed (venv/, or node_modules/ with the package files it came from), a copy of the
launcher (copied at every start, so that a changed launcher needs no new install) and installed.json: the pins it
was installed from. Pins that differ from those in the repository install it again. ready() says why a peer cannot
run (no npm, no registry, a failed install) instead of raising, and the run goes on without it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "peers"
STAMP = "installed.json"
INSTALL_SECONDS = 600


def cache_root() -> Path:
    """${XDG_CACHE_HOME:-~/.cache}/a2a-reference-server/peers (a relative XDG_CACHE_HOME is ignored, as XDG says)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "a2a-reference-server" / "peers"


@dataclass(frozen=True)
class Independent:
    """A peer installed outside the checkout: `name` is its folder under scripts/bench_kit/peers/ and in the cache."""

    name: str
    kind: Literal["pip", "npm"]
    launcher: str  # the file in its folder that serves it, run with the port
    card_path: str = "/.well-known/agent-card.json"
    rpc_path: str = "/"

    @property
    def source(self) -> Path:
        return SOURCES / self.name

    @property
    def home(self) -> Path:
        return cache_root() / self.name

    def pins(self) -> dict[str, Any]:
        """What an install is made from, as kept in its stamp: the exact versions, and what they run on."""
        if self.kind == "pip":
            lines = (self.source / "requirements.txt").read_text().splitlines()
            requirements = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
            return {"requirements": requirements, "python": f"{sys.version_info.major}.{sys.version_info.minor}"}
        package = json.loads((self.source / "package.json").read_text())
        lock = (self.source / "package-lock.json").read_bytes()
        return {"dependencies": package["dependencies"], "package-lock.json": hashlib.sha256(lock).hexdigest()}

    def installed(self) -> bool:
        """Its stamp names the pins of the repository, and what it runs with is there."""
        marker = self.home / ("venv/bin/python" if self.kind == "pip" else "node_modules/.package-lock.json")
        try:
            stamp = json.loads((self.home / STAMP).read_text())
        except (OSError, ValueError):
            return False
        return bool(stamp == self.pins() and marker.exists())

    def ready(self) -> str | None:
        """None when it can be started (installing it first where needed), else why it is left out."""
        if self.kind == "npm" and shutil.which("node") is None:
            return "node is not installed"
        if self.installed():
            return None
        if self.kind == "npm" and shutil.which("npm") is None:
            return "npm is not installed"
        try:
            self.home.mkdir(parents=True, exist_ok=True)
            with _locked(self.home / ".lock"):  # two runs at once install it once
                if self.installed():
                    return None
                print(f"  installing {self.name} into {self.home} (once, and again when its pins change) ...",
                      flush=True)
                (self.home / STAMP).unlink(missing_ok=True)
                failed = self._install_pip() if self.kind == "pip" else self._install_npm()
                if failed is not None:
                    return failed
                (self.home / STAMP).write_text(json.dumps(self.pins(), indent=2) + "\n")
        except OSError as error:
            return f"it cannot be installed into {self.home} ({error})"
        return None

    def _install_pip(self) -> str | None:
        venv = self.home / "venv"
        shutil.rmtree(venv, ignore_errors=True)  # a fresh venv: nothing of the last pins is left in it
        shutil.copyfile(self.source / "requirements.txt", self.home / "requirements.txt")
        failed = _run([sys.executable, "-m", "venv", str(venv)], self.home, "python -m venv")
        if failed is None:
            # a registry that cannot be reached fails in a minute or two, not in pip's default quarter of an hour
            failed = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-input",
                           "--disable-pip-version-check", "--timeout", "30", "--retries", "2",
                           "-r", "requirements.txt"], self.home, "pip install")
        return failed

    def _install_npm(self) -> str | None:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(self.source / name, self.home / name)
        # no install scripts: none of these packages needs one to run (the only one is protobufjs's version check);
        # a registry that cannot be reached fails in a minute, not after npm's default retries (ten minutes and more)
        return _run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error",
                     "--fetch-retries=2", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=10000",
                     "--fetch-timeout=60000"], self.home, "npm ci")

    def argv(self, port: int) -> list[str]:
        """The command that serves it on 127.0.0.1:port, from its cache folder (its launcher copied there now)."""
        shutil.copyfile(self.source / self.launcher, self.home / self.launcher)
        if self.kind == "pip":
            return [str(self.home / "venv" / "bin" / "python"), str(self.home / self.launcher), "--port", str(port)]
        return [shutil.which("node") or "node", str(self.home / self.launcher), str(port)]

    def env(self) -> dict[str, str]:
        """Its environment: this one, less what would point it at another interpreter, package or service."""
        dropped = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NODE_OPTIONS", "NODE_PATH")
        env = {k: v for k, v in os.environ.items()
               if k not in dropped and not k.startswith(("VOLTAGENT_", "OTEL_"))}
        if self.kind == "npm":
            env["NODE_ENV"] = "production"  # @voltagent/core fetches the models.dev registry at start otherwise
        return env


def _run(argv: list[str], cwd: Path, what: str) -> str | None:
    """None when the command succeeded, else a line saying how it failed."""
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=INSTALL_SECONDS)
    except subprocess.TimeoutExpired:
        return f"{what} did not finish in {INSTALL_SECONDS // 60} minutes"
    except OSError as error:
        return f"{what} could not run ({error})"
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
        errors = [line.strip() for line in lines if line.lower().startswith(("error", "npm error"))]
        return f"{what} failed (exit {done.returncode}): " + " / ".join(errors[:2] or lines[-3:])[:300]
    return None


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


FASTA2A = Independent("fasta2a", "pip", "serve.py")
VOLTAGENT = Independent("voltagent", "npm", "serve.mjs", card_path="/.well-known/echo/agent-card.json",
                        rpc_path="/a2a/echo")
