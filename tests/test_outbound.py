"""outbound.py: the guarded client against servers on 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import gzip
import http.server
import socket
import ssl
import threading
import tracemalloc
import zlib
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest
import trustme

from reference_server.platform.outbound import Download, Outbound, OutboundError

T = TypeVar("T")
TIMEOUT = 20.0  # a hung test fails instead of hanging the suite


def run(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine in a fresh event loop, bounded by TIMEOUT."""

    async def bounded() -> T:
        async with asyncio.timeout(TIMEOUT):
            return await make()

    return asyncio.run(bounded())


# --- servers on 127.0.0.1 ---


@dataclass
class Hit:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    finished: bool = False  # the whole answer was written


Answer = tuple[int, dict[str, str], bytes | Iterable[bytes]]


@dataclass
class Loopback:
    """An HTTP or HTTPS server on 127.0.0.1 in a thread: answers from a table of paths, records what it saw."""

    routes: dict[str, Answer]
    tls: ssl.SSLContext | None = None
    connections: int = 0
    hits: list[Hit] = field(default_factory=list)
    server_names: list[str | None] = field(default_factory=list)  # the SNI of each TLS handshake
    _server: http.server.ThreadingHTTPServer = field(init=False)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, host: str = "127.0.0.1", path: str = "/") -> str:
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}{path}"

    @contextmanager
    def running(self) -> Iterator[Loopback]:
        loopback = self
        if self.tls:
            self.tls.sni_callback = lambda _socket, name, _context: self.server_names.append(name)

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = False  # server_close() waits for every answer to end

            def get_request(self) -> tuple[socket.socket, object]:
                raw, address = self.socket.accept()
                loopback.connections += 1
                raw.settimeout(5)
                if loopback.tls is None:
                    return raw, address
                wrapped = loopback.tls.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
                try:
                    wrapped.do_handshake()
                except OSError:  # e.g. the client refused the certificate: socketserver drops the request
                    wrapped.close()
                    raise
                return wrapped, address

        self._server = Server(("127.0.0.1", 0), self._handler())
        thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
            thread.join()

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        loopback = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._answer()

            def do_POST(self) -> None:
                self._answer()

            def _answer(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                hit = Hit(self.command, self.path, dict(self.headers.items()), body)
                loopback.hits.append(hit)
                status, headers, content = loopback.routes.get(self.path, (404, {}, b""))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if isinstance(content, bytes):
                    self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                try:
                    for chunk in [content] if isinstance(content, bytes) else content:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except OSError:
                    return  # the client went away
                hit.finished = True

        return Handler


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


def server_tls(ca: trustme.CA, *names: str) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert(*names).configure_cert(context)
    return context


def client_tls(ca: trustme.CA) -> ssl.SSLContext:
    """Trusts the test CA and nothing else."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ca.configure_trust(context)
    return context


class Answers:
    """A resolver that gives its answers in turn (the last one again after that) and records each call."""

    def __init__(self, *answers: list[str]) -> None:
        self._answers = list(answers)
        self.calls: list[tuple[str, int]] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append((host, port))
        return self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]


async def refusal(outbound: Outbound, call: Callable[[Outbound], Awaitable[object]]) -> OutboundError:
    """The OutboundError that call raises; outbound is closed after it."""
    try:
        with pytest.raises(OutboundError) as raised:
            await call(outbound)
        return raised.value
    finally:
        await outbound.aclose()


def post(url: str, body: bytes = b"{}", headers: dict[str, str] | None = None) -> Callable[[Outbound], Awaitable[int]]:
    return lambda outbound: outbound.post(url, body, headers or {})


class Collected:
    """A download's sink that keeps what it is given, and the size of each write."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.writes: list[int] = []

    async def write(self, data: bytes) -> None:
        self.data += data
        self.writes.append(len(data))


async def fetched(outbound: Outbound, url: str, max_bytes: int) -> tuple[bytes, Download]:
    sink = Collected()
    got = await outbound.download(url, max_bytes, sink)
    assert got.size == len(sink.data)
    return bytes(sink.data), got


def download(url: str, max_bytes: int = 1 << 20) -> Callable[[Outbound], Awaitable[Download]]:
    return lambda outbound: outbound.download(url, max_bytes, Collected())


# --- the guarded client, live ---


def test_a_blocked_address_is_refused_and_no_connection_made(ca: trustme.CA) -> None:
    with Loopback({"/": (200, {}, b"")}, server_tls(ca, "127.0.0.1")).running() as server:
        for host, named in [("127.0.0.1", "127.0.0.1 is loopback"), ("[::1]", "::1 is loopback"),
                            ("[::ffff:127.0.0.1]", "of 127.0.0.1, loopback"), ("2130706433", "127.0.0.1 is loopback")]:
            for call in (post(server.url(host)), download(server.url(host))):
                error = run(lambda call=call: refusal(Outbound(allow_private=False, ssl_context=client_tls(ca)), call))
                assert named in error.reason
                assert error.reason.startswith("refused to connect")
        assert (server.connections, server.hits) == (0, [])


def test_with_private_allowed_a_post_reaches_the_server(ca: trustme.CA) -> None:
    with Loopback({"/hook": (202, {}, b"")}, server_tls(ca, "localhost", "127.0.0.1")).running() as server:

        async def scenario() -> int:
            outbound = Outbound(allow_private=True, ssl_context=client_tls(ca))  # the system resolver: /etc/hosts
            try:
                return await outbound.post(server.url("localhost", "/hook"), b'{"kind":"task"}',
                                           {"Authorization": "Bearer t0ken", "Content-Type": "application/json"})
            finally:
                await outbound.aclose()

        assert run(scenario) == 202
        [hit] = server.hits
        assert (hit.method, hit.path, hit.body) == ("POST", "/hook", b'{"kind":"task"}')
        assert (hit.headers["Authorization"], hit.headers["Content-Type"]) == ("Bearer t0ken", "application/json")
        assert server.server_names == ["localhost"]


def test_a_download_gives_the_data_its_media_type_and_its_name(ca: trustme.CA) -> None:
    routes: dict[str, Answer] = {
        "/files/report.pdf": (200, {"Content-Type": "Application/PDF; name=x"}, b"%PDF-1.7"),
        "/get?id=7": (200, {"Content-Type": "text/csv", "Content-Disposition": 'attachment; filename="../q1.csv"'},
                      b"a,b\n"),
        "/get?id=8": (200, {"Content-Disposition": "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.txt"}, b"cv"),
        "/": (200, {}, b""),
    }
    with Loopback(routes, server_tls(ca, "localhost")).running() as server:

        async def scenario() -> list[tuple[bytes, Download]]:
            outbound = Outbound(allow_private=True, ssl_context=client_tls(ca))
            try:
                return [await fetched(outbound, server.url("localhost", path), 1024) for path in routes]
            finally:
                await outbound.aclose()

        assert run(scenario) == [
            (b"%PDF-1.7", Download(8, "application/pdf", "report.pdf")),
            (b"a,b\n", Download(4, "text/csv", "q1.csv")),  # a folder part in the name is dropped
            (b"cv", Download(2, None, "résumé.txt")),
            (b"", Download(0, None, None)),
        ]


def test_dns_rebinding_reaches_no_internal_host(ca: trustme.CA) -> None:
    with Loopback({"/": (200, {}, b"")}, server_tls(ca, "rebind.example")).running() as server:
        url = server.url("rebind.example")
        # a resolver that always answers loopback
        always = Answers(["127.0.0.1"])
        error = run(lambda: refusal(Outbound(allow_private=False, ssl_context=client_tls(ca), resolver=always),
                                    post(url)))
        assert "rebind.example: 127.0.0.1 is loopback" in error.reason
        assert always.calls == [("rebind.example", server.port)]

        # a public answer first, as a check made before the request would see it, then loopback
        rebinding = Answers(["93.184.216.34"], ["127.0.0.1"])

        async def scenario() -> OutboundError:
            assert await rebinding("rebind.example", server.port) == ["93.184.216.34"]  # the earlier check
            outbound = Outbound(allow_private=False, ssl_context=client_tls(ca), resolver=rebinding)
            return await refusal(outbound, post(url))

        error = run(scenario)
        assert "127.0.0.1 is loopback" in error.reason
        assert rebinding.calls == [("rebind.example", server.port)] * 2  # asked again at connect time
        assert (server.connections, server.hits) == (0, [])


def test_every_answer_is_checked() -> None:
    # loopback answers only: even a broken guard would connect nowhere but this machine
    answers = Answers(["127.0.0.2", "::ffff:127.0.0.1", "::1", "not-an-ip"])
    error = run(lambda: refusal(Outbound(allow_private=False, resolver=answers), post("https://many.example/")))
    assert error.reason == ("refused to connect to many.example: 127.0.0.2 is loopback 127.0.0.0/8; "
                            "::ffff:127.0.0.1 is IPv4-mapped ::ffff:0:0/96 of 127.0.0.1, loopback 127.0.0.0/8; "
                            "::1 is loopback ::1/128; 'not-an-ip' is not an IP address")


def test_tls_checks_the_host_name_while_the_socket_goes_to_the_checked_address(ca: trustme.CA) -> None:
    with Loopback({"/": (204, {}, b"")}, server_tls(ca, "push.test")).running() as server:
        # 127.0.0.2 refuses the connection (nothing listens there): the next answer is tried
        answers = Answers(["127.0.0.2", "127.0.0.1"])

        async def scenario() -> int:
            outbound = Outbound(allow_private=True, ssl_context=client_tls(ca), resolver=answers)
            try:
                return await outbound.post(server.url("push.test"), b"{}", {})
            finally:
                await outbound.aclose()

        assert run(scenario) == 204
        assert answers.calls == [("push.test", server.port)]
        assert server.server_names == ["push.test"]
        assert server.hits[0].headers["Host"] == f"push.test:{server.port}"

    with Loopback({"/": (204, {}, b"")}, server_tls(ca, "other.test")).running() as server:
        outbound = Outbound(allow_private=True, ssl_context=client_tls(ca), resolver=Answers(["127.0.0.1"]))
        error = run(lambda: refusal(outbound, post(server.url("push.test"))))
        assert error.reason.startswith(f"could not connect to push.test:{server.port}: TLS certificate not accepted")
        assert server.hits == []


def test_a_redirect_is_never_followed(ca: trustme.CA) -> None:
    routes: dict[str, Answer] = {"/go": (302, {"Location": "/target"}, b""), "/target": (200, {}, b"secret")}
    with Loopback(routes, server_tls(ca, "localhost")).running() as server:

        async def scenario() -> tuple[int, OutboundError]:
            outbound = Outbound(allow_private=True, ssl_context=client_tls(ca))
            status = await outbound.post(server.url("localhost", "/go"), b"{}", {})
            return status, await refusal(outbound, download(server.url("localhost", "/go")))

        status, error = run(scenario)
        assert status == 302
        assert error.reason == "HTTP 302: redirect not followed"
        assert [hit.path for hit in server.hits] == ["/go", "/go"]


def test_a_download_fails_on_an_error_status(ca: trustme.CA) -> None:
    with Loopback({}, server_tls(ca, "localhost")).running() as server:
        error = run(lambda: refusal(Outbound(allow_private=True, ssl_context=client_tls(ca)),
                                    download(server.url("localhost", "/missing"))))
        assert error.reason == "HTTP 404"


def test_a_download_over_the_cap_stops_reading(ca: trustme.CA) -> None:
    # 5 MB with its length, and 32 MB streamed without one: more than the socket buffers hold, so the server's
    # writes fail once the client stops reading and closes
    routes: dict[str, Answer] = {"/sized": (200, {}, b"x" * 5_000_000),
                                 "/streamed": (200, {}, (b"x" * 65536 for _ in range(512)))}
    with Loopback(routes, server_tls(ca, "localhost")).running() as server:
        for path in routes:
            error = run(lambda path=path: refusal(Outbound(allow_private=True, ssl_context=client_tls(ca)),
                                                  download(server.url("localhost", path), 1024)))
            assert error.reason == "the file is larger than the cap of 1024 bytes"
    assert [(hit.path, hit.finished) for hit in server.hits][-1] == ("/streamed", False)


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


TEXT = "Grüße, ".encode() * 3000
BOMB = gzip.compress(bytes(256 << 20))  # 256 MiB of zeros in about 255 KB: the probe's bomb


def test_a_compressed_download_is_inflated_within_the_cap(ca: trustme.CA) -> None:
    routes: dict[str, Answer] = {
        "/gzip": (200, {"Content-Encoding": "gzip"}, gzip.compress(TEXT)),
        "/x-gzip": (200, {"Content-Encoding": "X-GZIP"}, gzip.compress(TEXT)),
        "/members": (200, {"Content-Encoding": "gzip"}, gzip.compress(TEXT[:100]) + gzip.compress(TEXT[100:])),
        "/deflate": (200, {"Content-Encoding": "deflate"}, zlib.compress(TEXT)),
        "/raw-deflate": (200, {"Content-Encoding": "deflate"}, _raw_deflate(TEXT)),
        "/identity": (200, {"Content-Encoding": "identity"}, TEXT),
        # in small writes: each read holds a piece of the compressed stream
        "/dribbled": (200, {"Content-Encoding": "gzip"}, (bytes([b]) for b in gzip.compress(TEXT[:500]))),
    }
    with Loopback(routes, server_tls(ca, "localhost")).running() as server:

        async def scenario() -> list[bytes]:
            outbound = Outbound(allow_private=True, ssl_context=client_tls(ca))
            try:
                return [(await fetched(outbound, server.url("localhost", path), len(TEXT)))[0] for path in routes]
            finally:
                await outbound.aclose()

        assert run(scenario) == [TEXT] * 6 + [TEXT[:500]]


def test_a_gzip_bomb_is_refused_holding_no_more_than_the_cap(ca: trustme.CA) -> None:
    cap = 1 << 20
    with Loopback({"/bomb": (200, {"Content-Encoding": "gzip", "Content-Type": "text/plain"}, BOMB)},
                  server_tls(ca, "localhost")).running() as server:
        tracemalloc.start()
        try:
            error = run(lambda: refusal(Outbound(allow_private=True, ssl_context=client_tls(ca)),
                                        download(server.url("localhost", "/bomb"), cap)))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert error.reason == f"the file is larger than the cap of {cap} bytes"
    # the sink kept the cap's worth; beside it, one step of inflating (httpx's own decoding held ~66 MB per read)
    assert peak < 2 * cap, peak


def test_a_download_is_handed_to_its_sink_a_bounded_step_at_a_time(ca: trustme.CA) -> None:
    sink = Collected()
    with Loopback({"/zeros": (200, {"Content-Encoding": "gzip"}, gzip.compress(bytes(3 << 20)))},
                  server_tls(ca, "localhost")).running() as server:

        async def scenario() -> Download:
            outbound = Outbound(allow_private=True, ssl_context=client_tls(ca))
            try:
                return await outbound.download(server.url("localhost", "/zeros"), 4 << 20, sink)
            finally:
                await outbound.aclose()

        assert run(scenario).size == 3 << 20
    assert sink.data == bytes(3 << 20)
    assert max(sink.writes) <= 64 * 1024  # a 3 MiB body from one ~3 KB read: in pieces, never in one


def test_a_compressed_download_that_is_cut_short_corrupt_or_of_another_coding_is_refused(ca: trustme.CA) -> None:
    packed = gzip.compress(TEXT)
    routes: dict[str, Answer] = {
        "/cut": (200, {"Content-Encoding": "gzip"}, packed[: len(packed) // 2]),
        "/corrupt": (200, {"Content-Encoding": "gzip"}, b"this is not gzip at all"),
        "/br": (200, {"Content-Encoding": "br"}, b"\x0b\x02\x80hello\x03"),
        "/layered": (200, {"Content-Encoding": "gzip, gzip"}, gzip.compress(packed)),
        # no body within the cap hides in this much compressed data: refused before it is all read
        "/padded": (200, {"Content-Encoding": "gzip"}, packed + bytes(64 << 10)),
    }
    with Loopback(routes, server_tls(ca, "localhost")).running() as server:
        reasons = [run(lambda path=path: refusal(Outbound(allow_private=True, ssl_context=client_tls(ca)),
                                                 download(server.url("localhost", path), len(TEXT)))).reason
                   for path in routes if path != "/padded"]
        assert reasons == [
            "the answer's gzip data is cut short",
            "the answer's gzip data is corrupt",
            "the answer's Content-Encoding 'br' is not decoded here (only identity, gzip and deflate are)",
            "the answer's Content-Encoding 'gzip, gzip' is not decoded here (only identity, gzip and deflate are)",
        ]
        padded = run(lambda: refusal(Outbound(allow_private=True, ssl_context=client_tls(ca)),
                                     download(server.url("localhost", "/padded"), 1024)))
        assert padded.reason == "the file is larger than the cap of 1024 bytes"


def test_a_push_answer_is_never_inflated(ca: trustme.CA) -> None:
    # a webhook's answer is read as it came and dropped after 64 KiB: a bomb in reply costs nothing
    answer: Answer = (200, {"Content-Encoding": "gzip"}, BOMB)
    with Loopback({"/hook": answer}, server_tls(ca, "localhost")).running() as server:
        tracemalloc.start()
        try:
            status = run(lambda: _posted(Outbound(allow_private=True, ssl_context=client_tls(ca)),
                                         server.url("localhost", "/hook")))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert status == 200
    assert peak < 4 << 20, peak


async def _posted(outbound: Outbound, url: str) -> int:
    try:
        return await outbound.post(url, b"{}", {})
    finally:
        await outbound.aclose()


def test_a_proxy_in_the_environment_is_ignored(ca: trustme.CA, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:1")  # nothing listens there: a request through it would fail
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with Loopback({"/": (200, {}, b"")}, server_tls(ca, "localhost")).running() as server:

        async def scenario() -> int:
            outbound = Outbound(allow_private=True, ssl_context=client_tls(ca))
            try:
                return await outbound.post(server.url("localhost"), b"{}", {})
            finally:
                await outbound.aclose()

        assert run(scenario) == 200
        assert len(server.hits) == 1


def test_a_ca_file_in_the_environment_is_ignored(ca: trustme.CA, monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    with Loopback({"/": (200, {}, b"")}, server_tls(ca, "localhost")).running() as server:
        # no ssl_context: the default verification, which does not take the test CA from the environment
        error = run(lambda: refusal(Outbound(allow_private=True), post(server.url("localhost"))))
        assert "TLS certificate not accepted" in error.reason
        assert server.hits == []


@contextmanager
def silent_server() -> Iterator[int]:
    """A port on 127.0.0.1 that takes connections (the kernel's backlog) and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


def test_a_server_that_never_answers_times_out() -> None:
    with silent_server() as port:
        for call in (post(f"http://127.0.0.1:{port}/"), download(f"http://127.0.0.1:{port}/")):
            error = run(lambda call=call: refusal(Outbound(allow_private=True, timeout=0.5), call))
            assert error.reason == f"no answer from 127.0.0.1:{port} within 0.5 s"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_failed_connect_says_why() -> None:
    port = closed_port()
    error = run(lambda: refusal(Outbound(allow_private=True), post(f"http://127.0.0.1:{port}/")))
    assert error.reason == f"could not connect to 127.0.0.1:{port}: Connection refused"

    async def unknown(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    error = run(lambda: refusal(Outbound(allow_private=True, resolver=unknown), download("https://nowhere.test/", 1)))
    assert error.reason == ("could not connect to nowhere.test:443: "
                            "the name could not be resolved (Name or service not known)")


def test_a_name_under_invalid_is_never_looked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    # RFC 6761 §6.4: .invalid never resolves, so no DNS query leaves the machine for it (the conformance suite's
    # push configs name https://webhook.conformance.invalid/...)
    async def no_lookup(self: asyncio.AbstractEventLoop, *args: object, **kwargs: object) -> object:
        raise AssertionError(f"a DNS lookup was made for {args[0]!r}")

    monkeypatch.setattr(asyncio.BaseEventLoop, "getaddrinfo", no_lookup)
    for url in ("https://webhook.conformance.invalid/hook", "https://WEBHOOK.INVALID./hook"):
        error = run(lambda url=url: refusal(Outbound(allow_private=True), post(url)))  # type: ignore[misc]
        assert error.reason.endswith("the name could not be resolved (a name under .invalid, which never resolves "
                                     "(RFC 6761))"), error.reason


def test_the_reason_never_carries_the_query_the_userinfo_or_a_header(ca: trustme.CA) -> None:
    secret = {"Authorization": "Bearer s3cret"}
    illegal = {"Authorization": "Bearer s3cret\n"}  # h11 quotes an illegal header value in its own message
    with Loopback({"/hook": (200, {}, b"")}, server_tls(ca, "localhost")).running() as server, silent_server() as hang:
        cases = [
            (False, server.url("127.0.0.1", "/hook?token=secret"), secret),  # refused address
            (False, server.url("alice:pa55word@localhost", "/hook?token=secret"), secret),  # userinfo
            (True, f"http://127.0.0.1:{closed_port()}/hook?token=secret", secret),  # connection refused
            (True, f"http://127.0.0.1:{hang}/hook?token=secret", secret),  # timeout
            (True, server.url("localhost", "/hook?token=secret"), illegal),  # the library refuses the header
        ]
        reasons = []
        for allow_private, url, headers in cases:
            outbound = Outbound(allow_private=allow_private, ssl_context=client_tls(ca), timeout=0.5)
            error = run(lambda: refusal(outbound, post(url, headers=headers)))  # noqa: B023
            reasons.append(error.reason)
            for shown in (error.reason, str(error), repr(error.args)):
                assert not any(word in shown for word in ("secret", "s3cret", "token", "pa55word", "alice"))
        assert server.hits == []
    assert [reason.split(":")[0] for reason in reasons] == [
        "refused to connect to 127.0.0.1", "the URL must not carry a user name or password",
        "could not connect to 127.0.0.1", "no answer from 127.0.0.1", "the exchange with localhost"]
