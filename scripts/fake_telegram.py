"""A fake Telegram Bot API on 127.0.0.1: answers sendMessage like Telegram does and prints each message it gets.

Try the Telegram owner notifier without a bot (docs/owner-host.md):

    python scripts/fake_telegram.py --port 8081 --token 123:fake
    reference-server ... --notifier telegram --telegram-bot-token 123:fake \\
        --telegram-api-url http://127.0.0.1:8081 --allow-private-push-urls true

Standard library only. It listens on loopback only, never prints the token, and keeps what it got in `messages`
for the tests (tests/steps/owner_host.py), which start it in-process.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO


@dataclass(frozen=True)
class Message:
    """One sendMessage the fake accepted."""

    chat_id: int | str
    text: str


@dataclass
class FakeTelegram:
    """token: the only bot token accepted (None: any); refused: chats whose messages get Telegram's 403 (a user who
    blocked the bot). start() listens on 127.0.0.1:port (0: a free port); url is then the API base URL."""

    token: str | None = None
    port: int = 0
    refused: set[str] = field(default_factory=set)
    out: TextIO | None = None  # where each accepted message is printed (None: nowhere)
    messages: list[Message] = field(default_factory=list)
    url: str = ""
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> FakeTelegram:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                status, answer = fake.answer(self.path, self.rfile.read(length))
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the request line holds the token: never printed

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def answer(self, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
        """Telegram's answer to POST <path> with body: /bot<token>/<method>, JSON parameters."""
        token, _, method = path.removeprefix("/bot").partition("/")
        if not path.startswith("/bot") or (self.token is not None and token != self.token):
            return _error(401, "Unauthorized")
        if method != "sendMessage":
            return _error(404, "Not Found")
        try:
            params = json.loads(body or b"{}")
        except ValueError:
            return _error(400, "Bad Request: can't parse JSON")
        chat_id, text = params.get("chat_id"), params.get("text")
        if not isinstance(chat_id, int | str) or chat_id == "":
            return _error(400, "Bad Request: chat_id is empty")
        if not isinstance(text, str) or not text:
            return _error(400, "Bad Request: message text is empty")
        if str(chat_id) in self.refused:
            return _error(403, "Forbidden: bot was blocked by the user")
        with self._lock:
            self.messages.append(Message(chat_id, text))
            message_id = len(self.messages)
        if self.out is not None:
            print(f"chat {chat_id}: {text}", file=self.out, flush=True)
        return 200, {"ok": True, "result": {"message_id": message_id, "date": int(time.time()),
                                            "chat": {"id": chat_id, "type": "private"}, "text": text}}

    def to(self, chat_id: str) -> list[str]:
        """The texts sent to one chat, in order."""
        with self._lock:
            return [m.text for m in self.messages if str(m.chat_id) == chat_id]


def _error(code: int, description: str) -> tuple[int, dict[str, Any]]:
    return code, {"ok": False, "error_code": code, "description": description}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A fake Telegram Bot API on 127.0.0.1 that prints what it gets.")
    parser.add_argument("--port", type=int, default=8081, help="port on 127.0.0.1 (default 8081; 0: any free port)")
    parser.add_argument("--token", help="the only bot token accepted (default: any)")
    parser.add_argument("--refuse", action="append", default=[], metavar="CHAT",
                        help="answer messages to this chat as Telegram does when the user blocked the bot")
    args = parser.parse_args(argv)
    fake = FakeTelegram(token=args.token, port=args.port, refused=set(args.refuse), out=sys.stdout).start()
    print(f"fake Telegram Bot API on {fake.url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
