"""How the server is served (serving.py): slow clients hold nothing for long, headers and bodies have time limits
(with bindings/http.py); and the event loop it runs on, uvloop where it can be had."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.live import LiveServer, settings_for

from reference_server.model.caller import Workspace
from reference_server.platform.disk import THREADS
from reference_server.process.serving import HeadersWithBody, event_loop, uvicorn_options
from reference_server.settings import Settings, SettingsError
from reference_server.workspace.task_store import TaskStore

KEY = "k_slow-client-test"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    workspace = Workspace(tmp_path / "ws")
    workspace.callers_file.parent.mkdir(parents=True)
    workspace.callers_file.write_text(json.dumps([{"name": "slow-bot", "key": KEY}]))
    live = LiveServer(settings_for(header_timeout=timedelta(seconds=0.3), body_timeout=timedelta(seconds=0.3)))
    live.workspaces.add(workspace)
    live.start()
    yield live
    live.stop()


def connect(server: LiveServer) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def wait_for_answer(sock: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and how long that took."""
    started, received = time.monotonic(), b""
    while chunk := sock.recv(65536):
        received += chunk
    return received, time.monotonic() - started


def test_a_connection_whose_headers_never_end_is_closed(server: LiveServer) -> None:
    with connect(server) as sock:
        sock.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # and then nothing
        received, took = wait_for_answer(sock)
    assert received == b"" and took < 3


def test_a_connection_that_sends_nothing_is_closed(server: LiveServer) -> None:
    with connect(server) as sock:
        received, took = wait_for_answer(sock)
    assert received == b"" and took < 3


def test_a_body_that_never_arrives_whole_is_refused_with_408(server: LiveServer) -> None:
    head = (f"POST /a2a HTTP/1.1\r\nHost: x\r\nX-API-Key: {KEY}\r\nA2A-Version: 1.0\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n")
    with connect(server) as sock:
        sock.sendall(head.encode() + b'{"jsonrpc": "2.0", ')  # 20 of the 100 bytes announced
        received, took = wait_for_answer(sock)
    status_line, _, rest = received.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 408"), received[:200]
    assert b"A2A__BodyTimeout" in rest and took < 3


ABORTED = [
    ("POST /a2a", True, "content-length"),  # JSON-RPC with a key
    ("POST /a2a", False, "content-length"),  # JSON-RPC's 401, which reads the body for the request's id
    ("POST /a2a/v1/message:send", True, "content-length"),
    ("POST /a2a/v1/message:send", True, "chunked"),
    ("POST /a2a/push/w-1", False, "content-length"),  # the push receiver: no caller key
]


@pytest.mark.parametrize(("request_line", "with_key", "framing"), ABORTED)
def test_a_body_the_client_aborts_ends_the_request_with_one_info_line(
        server: LiveServer, caplog: pytest.LogCaptureFixture, request_line: str, with_key: bool, framing: str) -> None:
    caplog.set_level(logging.DEBUG)
    head = f"{request_line} HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n"
    head += f"X-API-Key: {KEY}\r\n" if with_key else ""
    part = b'{"jsonrpc": "2.0", '
    if framing == "chunked":
        body = f"Transfer-Encoding: chunked\r\n\r\n{len(part):x}\r\n".encode() + part + b"\r\n"
    else:
        body = b"Content-Length: 100\r\n\r\n" + part  # 19 of the 100 bytes announced
    with connect(server) as sock:
        sock.sendall(head.encode() + body)
    path = request_line.split()[1]
    deadline = time.monotonic() + 5
    while not [r for r in caplog.records if path in r.getMessage()] and time.monotonic() < deadline:
        time.sleep(0.01)
    about = [r for r in caplog.records if path in r.getMessage()]
    assert [r.levelname for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert [(r.levelname, r.exc_info) for r in about] == [("INFO", None)], [r.getMessage() for r in about]
    assert "the client closed the connection" in about[0].getMessage()
    assert KEY not in caplog.text


def test_a_prompt_client_is_served_as_usual(server: LiveServer) -> None:
    with connect(server) as sock:
        sock.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        received, _ = wait_for_answer(sock)
    assert received.startswith(b"HTTP/1.1 200")


def test_a_webhook_that_never_answers_holds_neither_the_answer_nor_the_shutdown(tmp_path: Path) -> None:
    """Issue 9: delivery never blocks the run or the caller's answer, and a shutdown does not wait for it."""
    listener = socket.create_server(("127.0.0.1", 0))  # takes connections, never answers
    listener.settimeout(10)
    workspace = Workspace(tmp_path / "ws")
    workspace.callers_file.parent.mkdir(parents=True)
    workspace.callers_file.write_text(json.dumps([{"name": "push-bot", "key": KEY}]))
    live = LiveServer(settings_for())  # its outbound client gives each attempt 5 s
    live.workspaces.add(workspace)
    live.start()
    try:
        hook = f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
        params = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]},
                  "configuration": {"taskPushNotificationConfig": {"url": hook}}}
        # shorter than one delivery attempt: an answer that waited for the webhook would time out here
        answer = httpx.post(live.url + "/a2a", timeout=4, headers={"X-API-Key": KEY, "A2A-Version": "1.0"},
                            json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params}).json()
        assert answer["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED", answer
        connection, _ = listener.accept()  # a push is under way, and will never be answered
        connection.close()
    finally:
        live.stop(timeout=10)  # the graceful shutdown takes 2 s; an attempt's timeout alone is 5 s
        listener.close()
    assert not live.thread.is_alive(), "the server's shutdown waited for a push nobody answers"


class RecordingTransport:
    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closed = False
        self.aborted = False
        self.buffered = 0  # bytes the "socket" has not taken

    def write(self, data: bytes) -> None:
        self.sent.append(data)

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = self.closed = True

    def get_extra_info(self, name: str) -> None:
        return None

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return self.buffered


def written(*writes: bytes, close: bool = False) -> tuple[list[bytes], list[bytes]]:
    """What reached the transport right after the writes, and after the loop's next turn."""

    async def main() -> tuple[list[bytes], list[bytes]]:
        transport = RecordingTransport()
        view = HeadersWithBody(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
        for data in writes:
            view.write(data)
        if close:
            view.close()
        at_once = list(transport.sent)
        await asyncio.sleep(0)
        return at_once, transport.sent

    return asyncio.run(main())


def test_headers_leave_with_the_first_body_bytes_in_one_send() -> None:
    at_once, later = written(b"HTTP/1.1 200 OK\r\n\r\n", b"data: 1\n\n", b"data: 2\n\n")
    assert at_once == later == [b"HTTP/1.1 200 OK\r\n\r\ndata: 1\n\n", b"data: 2\n\n"]


def test_headers_without_a_body_yet_leave_on_the_next_turn() -> None:
    at_once, later = written(b"HTTP/1.1 200 OK\r\n\r\n")
    assert (at_once, later) == ([], [b"HTTP/1.1 200 OK\r\n\r\n"])


def test_a_large_body_is_not_copied_behind_the_headers() -> None:
    body = b"x" * (HeadersWithBody.MERGE_LIMIT + 1)
    at_once, _ = written(b"HTTP/1.1 200 OK\r\n\r\n", body)
    assert at_once == [b"HTTP/1.1 200 OK\r\n\r\n", body]


def test_closing_sends_held_headers_first() -> None:
    at_once, later = written(b"HTTP/1.1 500 Internal Server Error\r\n\r\n", close=True)
    assert at_once == later == [b"HTTP/1.1 500 Internal Server Error\r\n\r\n"]


def test_a_view_tells_what_waits_for_its_client_and_when_its_connection_is_lost() -> None:
    async def main() -> None:
        transport = RecordingTransport()
        view = HeadersWithBody(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
        lost: list[str] = []
        view.on_lost(lambda: lost.append("first"))
        view.write(b"HTTP/1.1 200 OK\r\n\r\n")
        assert view.unsent() == len(b"HTTP/1.1 200 OK\r\n\r\n")  # headers held for the body count too
        view.write(b"data: 1\n\n")
        transport.buffered = 5
        assert (view.unsent(), view.taken(), view.gone) == (5, len(b"HTTP/1.1 200 OK\r\n\r\ndata: 1\n\n") - 5, False)
        view.lost()
        view.on_lost(lambda: lost.append("late"))  # after the loss: called at once
        assert view.gone and lost == ["first", "late"]

    asyncio.run(main())


def test_the_stall_guard_aborts_a_connection_whose_client_takes_nothing() -> None:
    async def main() -> tuple[bool, bool]:
        transport = RecordingTransport()
        view = HeadersWithBody(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
        view.guard_stalls(0.2)
        view.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.buffered = 100  # the client stopped reading: 100 bytes wait
        view.write(b"x" * 100)
        await asyncio.sleep(0.1)
        early = transport.aborted
        while not transport.aborted:  # bounded by the test's wait_for
            await asyncio.sleep(0.05)
        return early, transport.aborted

    early, aborted = asyncio.run(asyncio.wait_for(main(), 5))
    assert not early and aborted


def test_the_stall_guard_spares_a_client_that_keeps_taking() -> None:
    async def main() -> bool:
        transport = RecordingTransport()
        view = HeadersWithBody(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
        view.guard_stalls(0.2)
        view.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.buffered = 1000
        view.write(b"x" * 1000)
        for _ in range(10):  # 0.5 s, more than twice the timeout: the client takes 50 bytes every 50 ms
            await asyncio.sleep(0.05)
            transport.buffered -= 50
        return transport.aborted

    assert asyncio.run(asyncio.wait_for(main(), 5)) is False


def long_text(size: int) -> str:
    words = ("alpha", "beta", "gamma", "delta", "epsilon")
    return " ".join(words[n % 5] for n in range(size // 5))[:size]


def test_a_stream_whose_client_stops_reading_is_closed_and_its_task_still_ends_whole(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    workspace = Workspace(tmp_path / "ws")
    workspace.callers_file.parent.mkdir(parents=True)
    workspace.callers_file.write_text(json.dumps([{"name": "slow-bot", "key": KEY}]))
    live = LiveServer(settings_for(stream_write_timeout=timedelta(seconds=0.5), max_unsent_stream_bytes=64 * 1024))
    live.workspaces.add(workspace)
    live.start()
    text = long_text(3_000_000)  # the stream is twice that: the task with the message, then its echo
    body = json.dumps({"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}}).encode()
    head = (f"POST /a2a/v1/message:stream HTTP/1.1\r\nHost: x\r\nX-API-Key: {KEY}\r\nA2A-Version: 1.0\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    try:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel takes little for a non-reader
        sock.connect(("127.0.0.1", int(live.url.rsplit(":", 1)[1])))
        sock.sendall(head.encode() + body)
        deadline = time.monotonic() + 15
        while "took none of the" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "took none of the" in caplog.text, "the server kept the stream of a client that reads nothing"
        received = 0
        sock.settimeout(5)
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(1 << 20):
                received += len(chunk)
        sock.close()
        assert received < len(text), f"the client got {received} bytes: it was not cut off"
        task_file = wait_for_task_file(workspace, "TASK_STATE_COMPLETED")
        (artifact,) = task_file["artifacts"]
        assert artifact["parts"] == [{"text": text}]  # the run went on to its end: the task file is whole
    finally:
        live.stop()
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert KEY not in caplog.text


def wait_for_task_file(workspace: Workspace, state: str) -> dict[str, object]:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for path in workspace.tasks_dir.glob("*.json"):
            with contextlib.suppress(ValueError):
                task = json.loads(path.read_text())
                if task["status"]["state"] == state:
                    return task  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError(f"no task file says {state}: {[p.name for p in workspace.tasks_dir.glob('*')]}")


def test_listings_whose_clients_left_are_dropped_before_they_start(
        server: LiveServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    started, release = threading.Semaphore(0), threading.Event()
    calls = 0
    real = TaskStore.listing

    def slow_listing(self: TaskStore, *args: Any) -> Any:  # a disk that takes its time
        nonlocal calls
        calls += 1
        started.release()
        release.wait(10)
        return real(self, *args)

    monkeypatch.setattr(TaskStore, "listing", slow_listing)
    request = (f"GET /a2a/v1/tasks HTTP/1.1\r\nHost: x\r\nX-API-Key: {KEY}\r\nA2A-Version: 1.0\r\n\r\n").encode()
    sockets = []
    try:
        for _ in range(THREADS._max_workers + 6):  # every disk thread busy, and six listings waiting for one
            sock = connect(server)
            sock.sendall(request)
            sockets.append(sock)
        for _ in range(THREADS._max_workers):
            assert started.acquire(timeout=10)
        deadline = time.monotonic() + 10
        while THREADS._work_queue.qsize() < 6 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert THREADS._work_queue.qsize() == 6
        for sock in sockets:
            sock.close()  # every client leaves
        deadline = time.monotonic() + 10
        while caplog.text.count("before its answer") < len(sockets) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        release.set()
    assert caplog.text.count("before its answer") == len(sockets)
    deadline = time.monotonic() + 5
    while THREADS._work_queue.qsize() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == THREADS._max_workers  # the six that had not started never ran
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.fixture
def uvloop_present(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", type(sys)("uvloop"))  # importable, whether installed or not


@pytest.fixture
def uvloop_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError, as where it is not installed


@pytest.mark.usefixtures("uvloop_present")
def test_auto_runs_on_uvloop_where_it_can_be_imported() -> None:
    assert event_loop("auto") == event_loop("uvloop") == "uvloop"
    assert uvicorn_options(Settings())["loop"] == "uvloop"


@pytest.mark.usefixtures("uvloop_present")
def test_asyncio_runs_on_asyncio_even_where_uvloop_is_there() -> None:
    assert uvicorn_options(Settings(event_loop="asyncio"))["loop"] == "asyncio"


@pytest.mark.usefixtures("uvloop_missing")
def test_auto_falls_back_to_asyncio_where_uvloop_cannot_be_imported(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="reference_server.serving"):
        assert uvicorn_options(Settings())["loop"] == "asyncio"
    assert "uvloop cannot be imported here" in caplog.text


@pytest.mark.usefixtures("uvloop_missing")
def test_uvloop_asked_for_where_it_cannot_be_imported_stops_the_start() -> None:
    with pytest.raises(SettingsError, match=r"A2A__EventLoop \(--event-loop\) is uvloop, but uvloop cannot be imported "
                                            r"here \(.*\); expected asyncio \(or auto\)"):
        event_loop("uvloop")
