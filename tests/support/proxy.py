"""A rewriting proxy on loopback: every exchange passes through a Mutant that may change the request, the answer or
each event of a stream. It puts a misbehaving A2A server in front of a correct one, so that the conformance suite can
be measured against known defects (tests/support/mutants.py) while the shipped server carries no mutation switch.

The proxy listens on 127.0.0.1 on a free port, in a thread of its own, and forwards to one upstream URL; the Host
header goes upstream as the client sent it, so a card built from the request names the proxy.
"""

from __future__ import annotations

import asyncio
import json
import re
import ssl
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn

from reference_server.a2a.catalogue import NAMES, V03_METHODS

# A2A 1.0 and 0.3 JSON-RPC method names -> the 1.0 operation (the catalogue's names)
METHODS = {name: name for name in NAMES} | {method: op.name for method, op in V03_METHODS.items()}
# HTTP+JSON routes (after the binding's prefix) -> the 1.0 operation
ROUTES = [
    ("POST", re.compile(r"/message:send$"), "SendMessage"),
    ("POST", re.compile(r"/message:stream$"), "SendStreamingMessage"),
    ("POST", re.compile(r"/tasks/[^/]+:cancel$"), "CancelTask"),
    ("*", re.compile(r"/tasks/[^/]+:subscribe$"), "SubscribeToTask"),
    ("GET", re.compile(r"/tasks/[^/:]+$"), "GetTask"),
    ("GET", re.compile(r"/tasks$"), "ListTasks"),
    ("GET", re.compile(r"/(extendedAgentCard|card)$"), "GetExtendedAgentCard"),
    ("POST", re.compile(r"/tasks/[^/]+/pushNotificationConfigs$"), "CreateTaskPushNotificationConfig"),
    ("GET", re.compile(r"/tasks/[^/]+/pushNotificationConfigs/[^/]+$"), "GetTaskPushNotificationConfig"),
    ("GET", re.compile(r"/tasks/[^/]+/pushNotificationConfigs$"), "ListTaskPushNotificationConfigs"),
    ("DELETE", re.compile(r"/tasks/[^/]+/pushNotificationConfigs/[^/]+$"), "DeleteTaskPushNotificationConfig"),
]
CARD = "/.well-known/agent-card.json"
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "content-length",
              "content-encoding"}


@dataclass
class Call:
    """A request as it reached the proxy, and what it is in A2A terms."""

    method: str
    path: str
    query: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    binding: str = "other"  # "jsonrpc", "rest", "card" or "other"
    operation: str | None = None  # the 1.0 operation name
    memory: dict[str, Any] = field(default_factory=dict)  # the mutant's, across calls

    @property
    def version(self) -> str:
        return self.headers.get("a2a-version", "")

    def json(self) -> Any:
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    def params(self) -> Any:
        """The operation's parameters: JSON-RPC params, or the HTTP+JSON body."""
        body = self.json()
        return body.get("params") if self.binding == "jsonrpc" and isinstance(body, dict) else body

    def with_params(self, params: Any) -> Call:
        body = {**self.json(), "params": params} if self.binding == "jsonrpc" else params
        self.body = json.dumps(body).encode()
        return self


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str:
        return next((v for k, v in self.headers if k.lower() == name.lower()), "")

    def set_header(self, name: str, value: str | None) -> None:
        self.headers = [(k, v) for k, v in self.headers if k.lower() != name.lower()]
        if value is not None:
            self.headers.append((name, value))

    def json(self) -> Any:
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    def set_json(self, value: Any) -> Answer:
        self.body = json.dumps(value).encode()
        return self


NO_ANSWER = Answer(0, [], b"")  # what a mutant's request rewrite returns to leave the call unanswered: a hang

Rewrite = Callable[[Call], "Call | Answer | None"]
Reanswer = Callable[[Call, Answer], "Answer | None"]
Reevent = Callable[[Call, Any], list[Any]]


@dataclass(frozen=True)
class Mutant:
    """One defect put in front of a correct server: the requirements it breaks, in words, and its rewrites."""

    name: str
    breaks: tuple[str, ...]  # the requirement ids it breaks (several only where the catalogue repeats a rule)
    says: str
    request: Rewrite | None = None  # may change the call, or answer it without the server
    answer: Reanswer | None = None  # may change a whole answer (not a stream's)
    event: Reevent | None = None  # each event of a stream -> the events to send instead (none drops it)


IDENTITY = Mutant("none", (), "forwards everything as it is")


def classify(call: Call, jsonrpc_paths: set[str], rest_prefixes: list[str]) -> None:
    """The call's binding and 1.0 operation, from its path and body."""
    if call.path == CARD:
        call.binding = "card"
        return
    if call.method == "POST" and call.path.rstrip("/") in jsonrpc_paths:
        body = call.json()
        if isinstance(body, dict) and "jsonrpc" in body:
            call.binding = "jsonrpc"
            call.operation = METHODS.get(str(body.get("method")))
            return
    for prefix in rest_prefixes:
        if call.path.startswith(prefix):
            rest = call.path[len(prefix):]
            call.binding = "rest"
            call.operation = next((op for verb, route, op in ROUTES
                                   if route.search(rest) and verb in ("*", call.method)), None)
            return


def sse_blocks(buffer: str) -> tuple[list[str], str]:
    """The complete events of an SSE text and what is left (lines end in CRLF, LF or CR)."""
    text = buffer.replace("\r\n", "\n").replace("\r", "\n")
    *blocks, rest = text.split("\n\n")
    return [b for b in blocks if b], rest


def frame(lines: list[str], data: Any) -> bytes:
    """An SSE event: its other lines as they were, and the data as one line of JSON."""
    kept = [line for line in lines if not line.startswith("data:")]
    return ("\n".join([*kept, "data: " + json.dumps(data)]) + "\n\n").encode()


class Proxy:
    """uvicorn in a daemon thread on 127.0.0.1; start() waits until it listens, stop() ends it."""

    def __init__(self, upstream: str, mutant: Mutant = IDENTITY, *, jsonrpc_paths: tuple[str, ...] = ("/a2a",),
                 rest_prefixes: tuple[str, ...] = ("/a2a/v1",)) -> None:
        self.upstream, self.mutant = upstream.rstrip("/"), mutant
        self.jsonrpc_paths, self.rest_prefixes = set(jsonrpc_paths), list(rest_prefixes)
        self.memory: dict[str, Any] = {}
        self.calls = 0
        self.tls = ssl.create_default_context()  # made once: a client per call would load the CA file each time
        config = uvicorn.Config(self.app, host="127.0.0.1", port=0, log_level="warning", lifespan="off",
                                interface="asgi3", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = ""

    def start(self, timeout: float = 15.0) -> Proxy:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the proxy did not start")
            time.sleep(0.01)
        self.url = f"http://127.0.0.1:{self.server.servers[0].sockets[0].getsockname()[1]}"
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        raw_path = (scope.get("raw_path") or b"").decode("latin-1") or scope["path"]
        call = Call(scope["method"], scope["path"], scope["query_string"].decode("latin-1"), headers,
                    b"".join(chunks), memory=self.memory)
        classify(call, self.jsonrpc_paths, self.rest_prefixes)
        self.calls += 1
        rewritten = self.mutant.request(call) if self.mutant.request else None
        if rewritten is NO_ANSWER:
            await asyncio.Event().wait()  # until the proxy stops and cancels it
            return
        if isinstance(rewritten, Answer):
            await self._send(send, rewritten)
            return
        call = rewritten or call
        async with httpx.AsyncClient(timeout=60, verify=self.tls) as client:
            # the path as it came (percent-escapes kept), unless the mutant changed it
            path = raw_path if call.path == scope["path"] else call.path
            url = self.upstream + path + (f"?{call.query}" if call.query else "")
            forwarded = {k: v for k, v in call.headers.items() if k not in HOP_BY_HOP}
            request = client.build_request(call.method, url, headers=forwarded, content=call.body)
            response = await client.send(request, stream=True)
            try:
                headers_out = [(k, v) for k, v in response.headers.items() if k.lower() not in HOP_BY_HOP]
                if response.headers.get("content-type", "").startswith("text/event-stream"):
                    await self._stream(send, call, response.status_code, headers_out, response.aiter_text())
                    return
                answer = Answer(response.status_code, headers_out, await response.aread())
            finally:
                await response.aclose()
        changed = self.mutant.answer(call, answer) if self.mutant.answer else None
        await self._send(send, changed or answer)

    async def _send(self, send: Any, answer: Answer) -> None:
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers]
        headers.append((b"content-length", str(len(answer.body)).encode()))
        await send({"type": "http.response.start", "status": answer.status, "headers": headers})
        await send({"type": "http.response.body", "body": answer.body})

    async def _stream(self, send: Any, call: Call, status: int, headers: list[tuple[str, str]],
                      text: AsyncIterator[str]) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]})
        buffer = ""
        try:
            async for piece in text:
                blocks, buffer = sse_blocks(buffer + piece)
                for block in blocks:
                    await self._event(send, call, block)
        except (httpx.HTTPError, OSError):  # the upstream stream broke off: so does this one
            return
        if buffer.strip():
            await self._event(send, call, buffer)
        if self.mutant.event:
            for extra in self.mutant.event(call, None):  # the end of the stream: what the mutant adds last
                await send({"type": "http.response.body", "body": frame([], extra), "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    async def _event(self, send: Any, call: Call, block: str) -> None:
        lines = block.split("\n")
        data = "\n".join(line[5:].removeprefix(" ") for line in lines if line.startswith("data:"))
        try:
            payload = json.loads(data) if data else None
        except ValueError:
            payload = None
        if payload is None or self.mutant.event is None:
            out = [(block + "\n\n").encode()]
        else:
            out = [frame(lines, event) for event in self.mutant.event(call, payload)]
        for chunk in out:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await asyncio.sleep(0)
