"""Before a workspace's first request, what interrupted work left in it is removed: the temp files of writes a
stopped server did not finish (tasks/) and its unfinished downloads (inbox/)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from reference_server.model.caller import Caller, Workspace
from reference_server.platform.disk import off_loop
from reference_server.workspace.inbox import inbox_of, remove_stray_downloads
from reference_server.workspace.task_store import remove_stray_temp_files

log = logging.getLogger("reference_server.app")  # its lines have always been the app's


def swept_on_first_use() -> Callable[[Caller], Awaitable[None]]:
    """Before a workspace's first request, the temp files that interrupted writes left in its tasks/ and the
    unfinished downloads in its inbox/ are removed (on a disk thread): only then, so that a host of many owners reads
    nothing of an owner's folders at start (the caller index reads its callers.json, nothing else), and before this
    process writes anything there."""
    swept: dict[Path, asyncio.Future[None] | None] = {}  # None: done

    def sweep(workspace: Workspace) -> None:
        try:
            if removed := remove_stray_temp_files(workspace):
                log.info("removed %d temp files that interrupted writes left in %s", removed, workspace.tasks_dir)
            if removed := remove_stray_downloads(workspace):
                log.info("removed %d downloads a stopped server left unfinished in %s", removed, inbox_of(workspace))
        except OSError as error:  # the folder is the owner's: what cannot be removed stays, the request goes on
            log.warning("the leftovers of interrupted writes in %s could not be removed: %s", workspace.path, error)

    async def prepare(caller: Caller) -> None:
        path = caller.workspace.path
        if path not in swept:
            started = swept[path] = asyncio.ensure_future(off_loop(sweep, caller.workspace))
            started.add_done_callback(lambda _: swept.update({path: None}))
        job = swept[path]
        if job is not None:
            await asyncio.shield(job)  # a request that goes away does not stop the sweep

    return prepare
