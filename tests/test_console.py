"""console.py: the time of the log's lines is logging's own, and a request-log line written straight onto the
console reads as the record of reference_server.requests would."""

from __future__ import annotations

import io
import logging
import re

import pytest

from reference_server.process.console import LOG_FORMAT, ConsoleLines, SecondsFormatter


@pytest.mark.parametrize("created", [1_796_000_000.0, 1_796_000_000.0009, 1_796_000_000.5, 1_796_000_000.999,
                                     1_796_000_001.001, 1_796_086_399.999])
def test_the_time_reads_as_logging_formats_it(created: float) -> None:
    record = logging.makeLogRecord({"name": "x", "levelname": "INFO", "msg": "m", "created": created,
                                    "msecs": (created - int(created)) * 1000})
    ours = SecondsFormatter(LOG_FORMAT)
    ours.format(logging.makeLogRecord({"created": created - 1, "msecs": 0.0}))  # another second formatted before
    assert ours.format(record) == logging.Formatter(LOG_FORMAT).format(record)


def console(*, prefixed: bool) -> tuple[ConsoleLines, io.StringIO, logging.StreamHandler]:  # type: ignore[type-arg]
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    formatter = SecondsFormatter(LOG_FORMAT)
    handler.setFormatter(formatter)
    return ConsoleLines(handler, formatter, prefixed=prefixed), stream, handler


def test_a_text_line_reads_as_the_record_would() -> None:
    lines, stream, handler = console(prefixed=True)
    lines("card - - caller=(no key) status=200 in 0.2 ms")
    handler.handle(logging.makeLogRecord({"name": "reference_server.requests", "levelname": "INFO",
                                          "levelno": logging.INFO, "msg": "the same line through logging"}))
    ours, logged = stream.getvalue().splitlines()
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "
    assert re.fullmatch(stamp + "INFO reference_server.requests: card - - caller=\\(no key\\) status=200 in 0.2 ms",
                        ours)
    assert re.fullmatch(stamp + "INFO reference_server.requests: the same line through logging", logged)


def test_a_json_line_is_written_bare() -> None:
    lines, stream, _ = console(prefixed=False)
    lines('{"status":200}')
    assert stream.getvalue() == '{"status":200}\n'
