"""The one guarded outbound HTTP client (push delivery, file-part URL downloads): every connect-time address checked."""

from __future__ import annotations

import asyncio
import contextlib
import email.message
import ipaddress
import logging
import os
import socket
import ssl
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import httpcore
import httpx

from reference_server.platform.addresses import Address, UrlProblem, literal_address, parsed_url, why_blocked

# httpx logs every request's full URL at INFO ("HTTP Request: POST https://..."). A URL can carry a secret (the
# Telegram Bot API's path holds the bot token; a webhook's query may hold one) and the server logs at INFO, so
# those lines stay out of the log. Failures are reported as OutboundError, in words without the URL.
logging.getLogger("httpx").setLevel(logging.WARNING)


# --- the guarded client ---

Resolver = Callable[[str, int], Awaitable[list[str]]]  # host, port -> IP address strings

# How much of a push answer's body is read and dropped: a short answer leaves the connection fit for the next push.
_DRAIN_BYTES = 64 * 1024


class OutboundError(Exception):
    """Why an outbound request did not succeed, in plain words safe for a log line or a task's failure text
    (never headers, never credentials, never the URL's query or userinfo)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Download:
    """What a download gave (its bytes went to the sink, as they came)."""

    size: int  # the bytes written to the sink
    media_type: str | None  # from Content-Type, without parameters
    filename: str | None  # from Content-Disposition filename=, else the URL path's last segment, else None


class Sink(Protocol):
    """Where a download's bytes go as they arrive (a file on disk): the whole body is never held in memory."""

    async def write(self, data: bytes) -> None: ...


class Outbound:
    """One POST (push delivery) or one capped GET (a file part's URL), never following redirects, never through a
    proxy, each bounded by timeout seconds in all (connect, write, read, pool), every connect-time address checked."""

    def __init__(self, *, allow_private: bool, ssl_context: ssl.SSLContext | None = None,
                 resolver: Resolver | None = None, timeout: float = 10.0) -> None:
        self._allow_private = allow_private
        self._timeout = timeout
        backend = _GuardedBackend(allow_private=allow_private, resolver=resolver or _system_resolver)
        # Nothing from the environment: no CA file (SSL_CERT_FILE, SSL_CERT_DIR), and no proxy, whose mount would
        # bypass the guarded transport (httpx 0.28 already skips environment proxies when given a transport;
        # trust_env=False keeps it so whatever a later httpx does).
        context = ssl_context or httpx.create_ssl_context(trust_env=False)
        self._client = httpx.AsyncClient(transport=_GuardedTransport(ssl_context=context, backend=backend),
                                         follow_redirects=False, trust_env=False, timeout=httpx.Timeout(timeout))

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> int:
        """POST body to url and return the status; a 3xx is returned as it is, its Location never fetched."""
        async with (self._guard(url) as target,
                    self._client.stream("POST", target, content=body, headers=dict(headers)) as response):
            drained = 0
            async for chunk in response.aiter_raw():
                drained += len(chunk)
                if drained > _DRAIN_BYTES:
                    break
            return response.status_code

    async def download(self, url: str, max_bytes: int, sink: Sink) -> Download:
        """GET url into sink, refusing a redirect, any other status but 2xx, and a body of more than max_bytes once
        decoded (what the sink got by then is the caller's to drop).

        The body is read as it came over the wire (never httpx's own decoding, which inflates a whole read at
        once, before any cap is looked at): a gzip or deflate answer is inflated here, a bounded step at a time,
        so that no read holds more than the cap, whatever the compression ratio (a gzip bomb)."""
        # identity is asked for; a server may still send gzip or deflate, which are decoded within the cap
        async with (self._guard(url) as target,
                    self._client.stream("GET", target, headers={"Accept-Encoding": "identity"}) as response):
            status = response.status_code
            if 300 <= status < 400:
                raise OutboundError(f"HTTP {status}: redirect not followed")
            if not 200 <= status < 300:
                raise OutboundError(f"HTTP {status}")
            too_big = OutboundError(f"the file is larger than the cap of {max_bytes} bytes")
            decoder = _decoder_for(response.headers.get("Content-Encoding"), max_bytes)
            length = response.headers.get("Content-Length", "")
            if decoder.identity and length.isdigit() and int(length) > max_bytes:
                raise too_big
            size = 0
            async for chunk in response.aiter_raw():
                for piece in decoder.pieces(chunk, max_bytes - size):
                    size += len(piece)
                    await sink.write(piece)
                if decoder.over:
                    raise too_big  # the rest is never read: the connection is closed
            decoder.end()
            return Download(size, _media_type(response.headers.get("Content-Type")),
                            _filename(response.headers.get("Content-Disposition"), target))

    async def aclose(self) -> None:
        await self._client.aclose()

    @contextlib.asynccontextmanager
    async def _guard(self, url: str) -> AsyncIterator[httpx.URL]:
        """The URL's form checked, the request bounded by the timeout, and every failure an OutboundError in our
        own words, never the library's: they can quote a header value (h11 does, for an illegal one)."""
        try:
            target = parsed_url(url, allow_private=self._allow_private)
        except UrlProblem as problem:
            raise OutboundError(str(problem)) from None
        host = f"[{target.host}]" if ":" in target.host else target.host
        where = f"{host}:{target.port or (443 if target.scheme == 'https' else 80)}"
        try:
            async with asyncio.timeout(self._timeout):
                yield target
        except OutboundError:
            raise
        except (TimeoutError, httpcore.TimeoutException):
            raise OutboundError(f"no answer from {where} within {self._timeout:g} s") from None
        except httpcore.ConnectError as error:
            raise OutboundError(f"could not connect to {where}: {_connect_failure(error)}") from None
        except (httpcore.NetworkError, httpcore.ProtocolError, httpx.HTTPError, httpx.InvalidURL,
                UnicodeError) as error:
            raise OutboundError(f"the exchange with {where} failed ({type(error).__name__})") from None


def _connect_failure(error: httpcore.ConnectError) -> str:
    """Why a connect failed, in words: the first TLS error or OS error message down the chain of causes (a connect
    fails before any request data is sent, so none of it can be quoted)."""
    cause: BaseException | None = error
    for _ in range(5):  # httpcore's error, anyio's "All connection attempts failed", the OS error
        if cause is None:
            break
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"TLS certificate not accepted ({cause.verify_message})"
        if isinstance(cause, ssl.SSLError):
            return f"TLS failed ({cause.reason or cause.strerror})"
        if isinstance(cause, socket.gaierror):
            return f"the name could not be resolved ({cause.strerror})"
        if isinstance(cause, OSError) and (cause.errno or cause.strerror):
            # asyncio words a refused connect as "Connect call failed (address)": the errno says it plainly
            return os.strerror(cause.errno) if cause.errno else str(cause.strerror)
        cause = cause.__cause__ or cause.__context__
    return str(error) or "connection failed"


def _media_type(content_type: str | None) -> str | None:
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    return media_type or None


def _filename(disposition: str | None, url: httpx.URL) -> str | None:
    if disposition:
        header = email.message.Message()
        header["Content-Disposition"] = disposition
        named = _bare_name(header.get_filename())  # filename*= (RFC 6266 / 5987) or filename=
        if named:
            return named
    return _bare_name(url.path.rsplit("/", 1)[-1])


def _bare_name(name: str | None) -> str | None:
    """The last segment of a file name (a folder part from the server means nothing here), or None when empty."""
    bare = (name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    return None if bare in ("", ".", "..") else bare


# --- what a download decodes ---

# the Content-Encodings a download inflates, with zlib's window bits for each (RFC 9110 §8.4.1: "deflate" is the
# zlib format; a raw deflate stream, which some servers send under that name, is tried when the zlib header fails)
_INFLATED = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
_STEP = 64 * 1024  # the most one inflate step gives: what a download holds of its body at a time


def _decoder_for(content_encoding: str | None, max_bytes: int) -> _Decoder:
    """The decoder of an answer's Content-Encoding: identity, or one of gzip and deflate; any other coding, or
    more than one, is refused (br and zstd need libraries the server does not carry; layered codings only
    multiply what one small answer can become)."""
    codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if not codings:
        return _Decoder(None, max_bytes)
    if len(codings) == 1 and codings[0] in _INFLATED:
        return _Decoder(codings[0], max_bytes)
    shown = (content_encoding or "")[:40]
    raise OutboundError(f"the answer's Content-Encoding {shown!r} is not decoded here (only identity, gzip and "
                        "deflate are)")


class _Decoder:
    """A body as it came (identity), or inflated a bounded step at a time (gzip, deflate): whatever the compression
    ratio, one step holds at most _STEP bytes of output, and the steps stop at the cap (zlib's max_length leaves the
    rest of the input unread, in unconsumed_tail, until the next step)."""

    def __init__(self, coding: str | None, max_bytes: int) -> None:
        self.coding = coding
        self.over = False  # more bytes than the room offered: the body is over the cap
        self._inflater = zlib.decompressobj(_INFLATED[coding]) if coding else None
        self._raw_fallback = coding == "deflate"
        self._head = bytearray()
        # compressed data larger than this cannot hold a body within the cap (deflate adds at most 5 bytes per
        # 16 KiB stored block): a stream of empty blocks is refused instead of read until the timeout
        self._wire_room = max_bytes + max_bytes // 256 + 1024
        self._wire = 0

    @property
    def identity(self) -> bool:
        return self._inflater is None

    def pieces(self, chunk: bytes, room: int) -> Iterator[bytes]:
        """chunk decoded, in pieces of at most _STEP bytes; over is set, and nothing more given, once they would
        pass room (the bytes the cap has left)."""
        if self._inflater is None:
            if len(chunk) > room:
                self.over = True
            elif chunk:
                yield chunk
            return
        self._wire += len(chunk)
        if self._wire > self._wire_room:
            self.over = True
            return
        data = chunk
        while data:
            piece = self._inflate(data, min(_STEP, room + 1))
            if len(piece) > room:
                self.over = True
                return
            room -= len(piece)
            if piece:
                yield piece
            data = self._inflater.unconsumed_tail
            if self._inflater.eof:
                data = self._next_member(data)

    def end(self) -> None:
        """The body is all there: a compressed stream that stopped before its end is refused, not kept in part."""
        if self._inflater is not None and not self._inflater.eof:
            raise OutboundError(f"the answer's {self.coding} data is cut short")

    def _inflate(self, data: bytes, max_length: int) -> bytes:
        assert self._inflater is not None
        if self._raw_fallback:
            self._head += data  # the bytes read before zlib's 2-byte header is known good
        try:
            out = self._inflater.decompress(data, max_length)
        except zlib.error:
            if not self._raw_fallback:
                raise OutboundError(f"the answer's {self.coding} data is corrupt") from None
            self._raw_fallback = False  # deflate without its zlib header: raw deflate, from the first byte
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            return self._inflate(bytes(self._head), max_length)
        if len(self._head) >= 2:
            self._raw_fallback = False  # the header was read: the format is settled
        return out

    def _next_member(self, tail: bytes) -> bytes:
        """After a gzip member's end, the next one (RFC 1952 §2.2: a file may hold several); trailing zero bytes
        (padding some servers add) end the body, as anything after a deflate stream does."""
        assert self._inflater is not None
        rest = self._inflater.unused_data + tail
        if self.coding == "deflate" or not rest.strip(b"\0"):
            return b""
        self._inflater = zlib.decompressobj(_INFLATED["gzip"])
        return rest


# --- under httpx: the connect-time check ---


async def _system_resolver(host: str, port: int) -> list[str]:
    if host.rstrip(".").lower().endswith(".invalid") or host.rstrip(".").lower() == "invalid":
        # RFC 6761 §6.4: a name under .invalid never resolves, and resolver APIs should say so at once: no DNS query
        raise socket.gaierror(socket.EAI_NONAME, "a name under .invalid, which never resolves (RFC 6761)")
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class _Checked(NamedTuple):
    allowed: list[Address]
    refused: list[str]  # why each refused answer was refused, in the order given


class _GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves the host when httpcore opens a connection, refuses blocked addresses, and connects to the checked
    IP itself, so a DNS answer that changes after any earlier check (rebinding) is never used. httpcore then starts
    TLS with server_hostname set to the URL's host, so SNI and the certificate check still use the name."""

    def __init__(self, *, allow_private: bool, resolver: Resolver) -> None:
        self._allow_private = allow_private
        self._resolver = resolver
        self._inner = httpcore.AnyIOBackend()

    async def _addresses(self, host: str, port: int, timeout: float | None) -> list[str]:
        literal = literal_address(host)
        if literal is not None:
            return [str(literal)]
        try:
            async with asyncio.timeout(timeout):
                return await self._resolver(host, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from None
        except OSError as error:
            raise httpcore.ConnectError(f"{host} could not be resolved") from error

    def _check(self, answers: list[str]) -> _Checked:
        checked = _Checked([], [])
        for answer in answers:
            try:
                address = ipaddress.ip_address(answer)
            except ValueError:
                checked.refused.append(f"{answer!r} is not an IP address")
                continue
            why = None if self._allow_private else why_blocked(address)
            if why:
                checked.refused.append(f"{answer} is {why}")
            else:
                checked.allowed.append(address)
        return checked

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                          socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None
                          ) -> httpcore.AsyncNetworkStream:
        checked = self._check(await self._addresses(host, port, timeout))
        if not checked.allowed:
            refused = "; ".join(checked.refused) or "no address"
            raise OutboundError(f"refused to connect to {host}: {refused}")
        failure: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in checked.allowed:  # the next answer when one does not take the connection
            try:
                return await self._inner.connect_tcp(str(address), port, timeout=timeout, local_address=local_address,
                                                     socket_options=socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        assert failure is not None
        raise failure

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None
                                  ) -> httpcore.AsyncNetworkStream:
        raise OutboundError("unix sockets are not used for outbound requests")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, stream: httpcore.Response) -> None:
        self._response = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._response.aiter_stream():
            yield chunk

    async def aclose(self) -> None:
        await self._response.aclose()


class _GuardedTransport(httpx.AsyncBaseTransport):
    """httpx over an httpcore pool that connects through _GuardedBackend (public APIs only: httpx's own
    AsyncHTTPTransport takes no network backend)."""

    def __init__(self, *, ssl_context: ssl.SSLContext, backend: _GuardedBackend) -> None:
        self._pool = httpcore.AsyncConnectionPool(ssl_context=ssl_context, network_backend=backend,
                                                  keepalive_expiry=5.0)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.AsyncByteStream)
        url = httpcore.URL(scheme=request.url.raw_scheme, host=request.url.raw_host, port=request.url.port,
                           target=request.url.raw_path)
        response = await self._pool.handle_async_request(httpcore.Request(
            request.method, url, headers=request.headers.raw, content=request.stream, extensions=request.extensions))
        return httpx.Response(response.status, headers=response.headers, stream=_ResponseStream(response),
                              extensions=response.extensions)

    async def aclose(self) -> None:
        await self._pool.aclose()
