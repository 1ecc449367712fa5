"""`reference-server client-check COMMAND`: run an A2A client against a fresh recording server and print its report
(`make client-check CLIENT='<command>'` is a thin call of it).

A temporary workspace with one caller and a new key; the server on 127.0.0.1 on a free port with --record; the
command run with A2A_URL (the server's base URL: the card is at $A2A_URL/.well-known/agent-card.json) and A2A_KEY
(send it as X-API-Key or Authorization: Bearer); then the server is stopped and the report written and printed.

Exit status: 0 when the command succeeded, no request broke a rule and no behaviour was broken; 1 when there are
violations or broken behaviours; 2 when the command failed or timed out (or for a usage error); 3 when the server did
not start. See docs/client-testing.md.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reference_server.clientcheck import report
from reference_server.clientcheck.behaviours import RUN_ENDED
from reference_server.model.layout import callers_file
from reference_server.workspace.callers import caller_entry, write_callers

CALLER = "client"
START_SECONDS = 30.0
STOP_SECONDS = 15.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_workspace(folder: Path, keys: dict[str, str], note: str = "made by reference-server client-check") -> None:
    """A workspace with these callers (name -> key): the `.volcanic/a2a/callers.json` of docs/workspace.md."""
    path = callers_file(folder)
    path.parent.mkdir(parents=True)
    write_callers(path, [caller_entry(name, key, note) for name, key in keys.items()])


# the capabilities a run can switch off (A2A §3.3.4): what a client does when the agent has no streaming, push or card
CAPABILITIES = {"streaming": "--capabilities-streaming", "push-notifications": "--capabilities-push-notifications",
                "extended-agent-card": "--capabilities-extended-agent-card"}


def start_server(workspace: Path, records: Path | None, port: int, log: Path,
                 without: list[str] | tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    """The reference server as a process of its own on 127.0.0.1:port, recording into records (None: no records)."""
    command = [sys.executable, "-m", "reference_server", "--workspace", str(workspace), "--host", "127.0.0.1",
               "--port", str(port), *(["--record", str(records)] if records is not None else [])]
    for capability in without:
        command += [CAPABILITIES[capability], "false"]
    with log.open("wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=workspace)


def wait_until_serving(process: subprocess.Popen[bytes], port: int) -> bool:
    """Whether the server came to listen on port. The probe opens a TCP connection and sends no request, so the
    records hold the client's requests only (a card fetch here was counted as the client's); uvicorn opens its
    socket once the app has started, so a connection means it serves."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return True
        except OSError:
            time.sleep(0.1)  # polling for start-up, with a deadline
    return False


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM: uvicorn shuts down and the recorder writes what it holds before the process ends."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def run_client(command: str, url: str, key: str, timeout: float) -> int | None:
    """The command's exit code; None when it timed out (it is killed with its process group)."""
    env = {**os.environ, "A2A_URL": url, "A2A_KEY": key}
    print(f"client-check: running {command!r} with A2A_URL={url}", flush=True)
    process = subprocess.Popen(command, shell=True, env=env, start_new_session=True)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)
        return None


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reference-server client-check",
        description="Run an A2A client command against a fresh recording server on loopback, with A2A_URL and A2A_KEY "
                    "set, and print what it exercised and every request that broke a rule.",
        epilog="exit status: 0 the command succeeded and broke no rule, 1 violations or broken behaviours, 2 the "
               "command failed or timed out (or a usage error), 3 the server did not start (docs/client-testing.md)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("command", nargs="?", default=None, help="the client command, run by the shell")
    parser.add_argument("--command", dest="command_option", default=os.environ.get("CLIENT"), metavar="COMMAND",
                        help="the same, as an option ($CLIENT)")
    parser.add_argument("--out", type=Path, default=Path("reports") / "client-check",
                        help="where the records and the report go (emptied first)")
    parser.add_argument("--timeout", type=float, default=float(os.environ.get("CLIENT_TIMEOUT", "300")),
                        help="seconds the command may take ($CLIENT_TIMEOUT)")
    parser.add_argument("--without", action="append", default=[], choices=sorted(CAPABILITIES),
                        help="serve with this capability switched off (the card declares it false; may repeat)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.command = args.command or args.command_option
    if not args.command:
        parser().error("no client command: reference-server client-check '<command>' (or CLIENT='<command>')")
    records = args.out / "records"
    shutil.rmtree(records, ignore_errors=True)
    records.mkdir(parents=True)
    key = "k_" + secrets.token_hex(24)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="a2a-client-check-") as temp:
        workspace = Path(temp) / "workspace"
        make_workspace(workspace, {CALLER: key})
        log = args.out / "server.log"
        server = start_server(workspace, records, port, log, args.without)
        try:
            if not wait_until_serving(server, port):
                print(f"client-check: the server did not start; its log is {log}", file=sys.stderr)
                return 3
            code = run_client(args.command, url, key, args.timeout)
        finally:
            stop(server)
    # the command has ended and the server stopped: no request can come any more, so every window has closed
    built, json_path, html_path = report.write(records, args.out, now=RUN_ENDED)
    print()
    print(report.summary_text(built))
    print(f"\nreport: {json_path}\n        {html_path}\nserver log: {log}")
    if not built["summary"]["exchanges"] and not built["summary"]["cardFetches"]:
        print("client-check: the command made no request to the server; does it read $A2A_URL and $A2A_KEY?",
              file=sys.stderr)
    if code is None:
        print(f"client-check: the command did not end within {args.timeout:g} s", file=sys.stderr)
        return 2
    if code != 0:
        print(f"client-check: the command failed (exit code {code})", file=sys.stderr)
        return 2
    return 1 if report.failed(built) else 0


if __name__ == "__main__":
    sys.exit(main())
