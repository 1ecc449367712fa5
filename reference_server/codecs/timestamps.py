"""RFC 3339 timestamps as A2A puts them on the wire: UTC, milliseconds, a `Z` suffix."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

# RFC 3339 §5.6 date-time: the offset is REQUIRED (a naive time is rejected), `T`/`Z` may be lower case.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)


def format_timestamp(dt: datetime) -> str:
    """`2026-11-30T02:06:33.726Z` (A2A §5.6.1: UTC, millisecond precision, `Z`); naive means UTC."""
    utc = dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T"
        f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond // 1000:03d}Z"
    )


def parse_timestamp(text: str) -> datetime:
    """An RFC 3339 date-time with `Z` or an offset, as an aware UTC datetime; ValueError otherwise."""
    match = _RFC3339.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction, zulu, sign, off_hours, off_minutes = match.groups()[6:]
    micros = int((fraction or "0").ljust(6, "0")[:6])  # nanoseconds are truncated to microseconds
    tz = UTC
    if not zulu:
        if int(off_hours) > 23 or int(off_minutes) > 59:
            raise ValueError(f"not an RFC 3339 offset: {text!r}")
        offset = timedelta(hours=int(off_hours), minutes=int(off_minutes))
        tz = timezone(-offset if sign == "-" else offset)
    parsed = datetime(year, month, day, hour, minute, second, micros, tzinfo=tz)  # ValueError if out of range
    return parsed.astimezone(UTC)
