"""Tests for reference_server.codecs.timestamps: RFC 3339 out (UTC, ms, Z) and in (Z or offset)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from reference_server.codecs.timestamps import format_timestamp, parse_timestamp


def test_format_is_utc_with_milliseconds_and_z() -> None:
    dt = datetime(2026, 11, 30, 2, 6, 33, 726364, tzinfo=UTC)
    assert format_timestamp(dt) == "2026-11-30T02:06:33.726Z"


def test_format_converts_an_offset_to_utc() -> None:
    dt = datetime(2026, 11, 30, 4, 6, 33, tzinfo=timezone(timedelta(hours=2)))
    assert format_timestamp(dt) == "2026-11-30T02:06:33.000Z"


def test_format_reads_a_naive_datetime_as_utc() -> None:
    assert format_timestamp(datetime(2026, 1, 2, 3, 4, 5, 6000)) == "2026-01-02T03:04:05.006Z"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-30T02:06:33.726Z", datetime(2026, 11, 30, 2, 6, 33, 726000, tzinfo=UTC)),
        ("2026-11-30T02:06:33Z", datetime(2026, 11, 30, 2, 6, 33, tzinfo=UTC)),
        ("2026-11-30t02:06:33z", datetime(2026, 11, 30, 2, 6, 33, tzinfo=UTC)),
        ("2026-11-30T02:06:33.726364123Z", datetime(2026, 11, 30, 2, 6, 33, 726364, tzinfo=UTC)),
        ("2026-11-30T04:06:33+02:00", datetime(2026, 11, 30, 2, 6, 33, tzinfo=UTC)),
        ("2026-11-29T23:36:33.5-02:30", datetime(2026, 11, 30, 2, 6, 33, 500000, tzinfo=UTC)),
    ],
)
def test_parse_accepts_z_or_an_offset_and_normalises_to_utc(text: str, expected: datetime) -> None:
    parsed = parse_timestamp(text)
    assert parsed == expected
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-30T02:06:33",  # naive: RFC 3339 requires an offset
        "2026-11-30",
        "2026-11-30 02:06:33Z",
        "2026-02-30T00:00:00Z",
        "2026-11-30T02:06:33+24:00",
        "2026-11-30T02:06:33.Z",
        "yesterday",
        "",
    ],
)
def test_parse_rejects_anything_else(text: str) -> None:
    with pytest.raises(ValueError):
        parse_timestamp(text)


def test_parse_rejects_a_non_string() -> None:
    with pytest.raises(ValueError):
        parse_timestamp(1764468393)  # type: ignore[arg-type]


def test_round_trip_is_stable() -> None:
    text = "2026-11-30T02:06:33.726Z"
    assert format_timestamp(parse_timestamp(text)) == text
