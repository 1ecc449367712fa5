"""The server's console: its log on stderr, INFO and up (the design's task-end line is INFO), and the request log's
lines among them, as text or as bare JSON objects (A2A__RequestLog). `cli.main` sets it up, and so does the bench's
server, so that what is measured is what runs.

Cheap, because a request-log line is written for every exchange. Through `logging`, a line cost 35-45 us on this
project's machines, while a card's whole answer takes about 150 us: most of it was the record (the caller's file
and line looked up, the thread, the process), then its formatting, then the handler's layers. So:

- the records leave out what the log's format never prints (the logging documentation's "Optimization" section
  names these switches), and the date and time of a second are formatted once (SecondsFormatter);
- the request log's lines go straight onto the console handler's stream, under the handler's lock and flushed
  like its own lines, so they keep their place among the others and read exactly as a record of
  `reference_server.requests` would (ConsoleLines): about 3 us a line.

A host that embeds the app and sets up logging itself gets the request log as records of that logger instead.
"""

from __future__ import annotations

import logging
import time

from reference_server.bindings import requestlog

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class SecondsFormatter(logging.Formatter):
    """logging.Formatter's default time, "2026-12-02 04:56:43,026", with the date and time of each second
    formatted once."""

    _second = -1
    _text = ""

    def stamp(self, created: float, msecs: float | None = None) -> str:
        second = int(created)
        if second != self._second:
            self._second, self._text = second, time.strftime(self.default_time_format, self.converter(second))
        return f"{self._text},{int((created - second) * 1000 if msecs is None else msecs):03d}"  # default_msec_format

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # logging's name
        return self.stamp(record.created, record.msecs)


class ConsoleLines:
    """Writes a request-log line onto the console handler's stream: with the prefix its formatter gives a record
    of `reference_server.requests` at INFO (text), or bare (JSON)."""

    def __init__(self, handler: logging.StreamHandler, formatter: SecondsFormatter, *, prefixed: bool) -> None:  # type: ignore[type-arg]
        self._handler = handler
        self._formatter = formatter
        self._prefix = f" {logging.getLevelName(logging.INFO)} {requestlog.log.name}: " if prefixed else None

    def __call__(self, line: str) -> None:
        with self._handler.lock:  # type: ignore[union-attr]  # created with the handler
            if self._prefix is not None:  # the formatter's cached second is shared with the records of other threads
                line = self._formatter.stamp(time.time()) + self._prefix + line
            stream = self._handler.stream
            stream.write(line + "\n")
            stream.flush()


def configure(request_log: str) -> None:
    """Set up the process's console; where logging was set up already, the request log goes through it."""
    logging._srcfile = None  # no walk up the stack for the caller's file and line, in every record
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    formatter = SecondsFormatter(LOG_FORMAT)
    handler = logging.StreamHandler()  # stderr
    handler.setFormatter(formatter)
    logging.basicConfig(level=logging.INFO, handlers=[handler])  # as basicConfig does: nothing if the root has some
    if handler in logging.getLogger().handlers and request_log != requestlog.OFF:
        requestlog.write_to(ConsoleLines(handler, formatter, prefixed=request_log == requestlog.TEXT))
    else:
        requestlog.configure(request_log)
