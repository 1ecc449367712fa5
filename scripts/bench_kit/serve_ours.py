"""Serve one workspace as `reference-server --workspace DIR` does, with an event-loop lag probe for the bench."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from pathlib import Path

import uvicorn

from reference_server.agent.notifier import LoggingNotifier
from reference_server.cli import configure_logging, tune_runtime
from reference_server.model.caller import Workspace
from reference_server.platform.file_changes import notifications_for
from reference_server.process.app import create_app
from reference_server.process.serving import uvicorn_options
from reference_server.settings import load_settings

PROBE_INTERVAL = 0.001


class LagProbe:
    """Sleeps 1 ms at a time on the server's loop and records how late each wake-up was, with its monotonic time;
    its report also holds the long callbacks, when they were timed."""

    def __init__(self, *, timed_callbacks: bool) -> None:
        self.times: list[float] = []
        self.lags: list[float] = []
        self.timed_callbacks = timed_callbacks

    async def run(self) -> None:
        while True:  # by the clock, not loop.time(): uvloop's counts whole milliseconds
            due = time.monotonic() + PROBE_INTERVAL
            await asyncio.sleep(PROBE_INTERVAL)
            now = time.monotonic()
            self.times.append(now)
            self.lags.append(max(0.0, now - due) * 1000)

    def report(self) -> dict[str, object]:
        ordered = sorted(self.lags) or [0.0]

        def rank(q: float) -> float:
            return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

        return {"max_ms": ordered[-1], "p99_ms": rank(0.99), "p50_ms": rank(0.5), "samples": len(self.lags),
                "series": [[round(t, 4), round(lag, 3)] for t, lag in zip(self.times, self.lags, strict=True)],
                "callbacks": [[round(t, 4), round(took, 3)] for t, took in LONG_CALLBACKS]
                if self.timed_callbacks else None}


# The lag probe sees a wake-up late both when one callback holds the loop (a stall) and when many short ones
# are queued before it (a saturated loop). Timing each callback tells them apart: these are the ones over 1 ms.
LONG_CALLBACKS: list[tuple[float, float]] = []


def time_callbacks() -> None:
    """Record every loop callback that runs longer than 1 ms (the bench wrapper only; asyncio's own loop)."""
    run = asyncio.events.Handle._run

    def timed(handle: asyncio.events.Handle) -> None:
        started = time.perf_counter()
        run(handle)
        took = time.perf_counter() - started
        if took > 0.001:
            LONG_CALLBACKS.append((time.monotonic(), took * 1000))

    asyncio.events.Handle._run = timed  # type: ignore[method-assign]


class ProbedServer(uvicorn.Server):
    """A uvicorn server whose loop also runs the lag probe, from startup until shutdown, which writes its report
    (uvicorn re-raises the captured SIGTERM once serving ends, so nothing after run() would be reached)."""

    def __init__(self, config: uvicorn.Config, probe: LagProbe, report: Path) -> None:
        super().__init__(config)
        self.probe = probe
        self.report = report
        self.probe_task: asyncio.Task[None] | None = None

    async def startup(self, sockets: list | None = None) -> None:  # type: ignore[type-arg]
        self.probe_task = asyncio.create_task(self.probe.run())
        await super().startup(sockets)

    async def shutdown(self, sockets: list | None = None) -> None:  # type: ignore[type-arg]
        if self.probe_task is not None:
            self.probe_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.probe_task
        self.report.write_text(json.dumps(self.probe.report()))
        await super().shutdown(sockets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lag-report", type=Path, help="probe the loop, and write the report here at shutdown")
    args, rest = parser.parse_known_args()
    settings = load_settings(os.environ, rest)  # the rest (--workspace, --port, ...) as cli.main() reads it
    if settings.workspace is None or not settings.workspace.resolve().is_dir():
        print("serve_ours: --workspace must name a folder", file=sys.stderr)
        return 2
    configure_logging(settings.request_log)  # as cli.main(): the task-end line and the request log cost their share
    single = Workspace(settings.workspace.resolve(), owner_id="owner", scope_prefix=settings.scope_prefix)
    app = create_app(settings, lambda: [single], notifier=LoggingNotifier(),
                     notifications=notifications_for(settings.file_changes))
    tune_runtime(app)
    options = uvicorn_options(settings)
    config = uvicorn.Config(app, host="127.0.0.1", port=settings.port, workers=1, log_level="warning", **options)
    if args.lag_report is None:
        uvicorn.Server(config).run()
        return 0
    timed = options["loop"] == "asyncio"  # uvloop's callbacks are not asyncio's Python handles: not timed there
    if timed:
        time_callbacks()
    ProbedServer(config, LagProbe(timed_callbacks=timed), args.lag_report).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
