"""A small reader that walks request JSON by field path and reports every violation in one InvalidParams."""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Generic, TypeVar

from reference_server.codecs.timestamps import parse_timestamp
from reference_server.model.errors import FieldViolation, InvalidParams

E = TypeVar("E")

_ABSENT: Final = object()
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_DECIMAL = re.compile(r"-?[0-9]{1,20}", re.ASCII)  # int64 fits in 19 digits; longer is not a number we take
_UPPER = re.compile(r"[A-Z]")


def decode_base64(text: str) -> bytes:
    """ProtoJSON `bytes`: standard or URL-safe base64, padding optional; ValueError if malformed."""
    standard = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)


def _as_int(value: Any) -> int | None:
    """ProtoJSON int32: a JSON number without a fraction, or a decimal string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        return int(value)
    return None


@dataclass(frozen=True)
class Choices(Generic[E]):
    """The spellings one enum accepts: names, and (ProtoJSON) numbers; `unspecified` reads as not set."""

    names: Mapping[str, E]
    numbers: Mapping[int, E] = field(default_factory=dict)
    unspecified: str | None = None

    @property
    def reason(self) -> str:
        return "must be one of " + ", ".join(self.names)

    @property
    def placeholder(self) -> E:
        return next(iter(self.names.values()))

    def lookup(self, value: Any) -> tuple[bool, E | None]:
        """(True, member), (True, None) for the unspecified value, or (False, None) when invalid."""
        if isinstance(value, str) and value in self.names:
            return True, self.names[value]
        number = _as_int(value) if self.numbers else None
        if self.unspecified is not None and (value == self.unspecified or number == 0):
            return True, None
        if number is not None and number in self.numbers:
            return True, self.numbers[number]
        return False, None


@functools.lru_cache(maxsize=256)  # bounded, though the names are the decoders' own
def _snake(name: str) -> str:
    """The proto field name of a JSON field name (messageId -> message_id): a field that is absent, as most are,
    is looked up under both, and the decoders ask for the same few dozen names on every request."""
    return _UPPER.sub(lambda m: "_" + m.group(0).lower(), name)


class Reader:
    """One JSON object at a field path; every violation goes to a list shared by the whole request.

    Decoders read every field, then call `finish()` on the root reader, which raises one InvalidParams
    carrying all violations. Values returned after a violation are placeholders that never escape.
    ProtoJSON alternatives are accepted: the proto (snake_case) field name, `null` as "not set".
    With `query=True` the values come from a URL query string, so booleans may be "true"/"false".
    """

    def __init__(
        self, obj: Mapping[str, Any], path: str, violations: list[FieldViolation], *, query: bool = False
    ) -> None:
        self._obj = obj
        self._path = path
        self._violations = violations
        self._query = query

    @classmethod
    def root(cls, value: Any, *, name: str = "params", query: bool = False) -> Reader:
        """The request's top object; absent reads as `{}`, anything but an object is rejected at once."""
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            raise InvalidParams(violations=[FieldViolation(name, "must be an object")])
        return cls(value, "", [], query=query)

    def finish(self) -> None:
        """Raise one InvalidParams with every violation recorded so far, if there is any."""
        if self._violations:
            raise InvalidParams(violations=list(self._violations))

    # --- paths, violations, presence

    def path(self, name: str) -> str:
        return f"{self._path}.{name}" if self._path else name

    def fail(self, name: str, reason: str) -> None:
        self._violations.append(FieldViolation(self.path(name), reason))

    def fail_here(self, reason: str) -> None:
        self._violations.append(FieldViolation(self._path or "params", reason))

    def _lookup(self, name: str) -> Any:
        if name in self._obj:
            return self._obj[name]
        return self._obj.get(_snake(name), _ABSENT)  # ProtoJSON parsers accept the proto field name too

    def _get(self, name: str, *, unwrap: bool = True) -> Any:
        value = self._lookup(name)
        if value is None:
            return _ABSENT  # ProtoJSON: null is the field's default, i.e. not set
        if self._query and unwrap and isinstance(value, list):
            if len(value) == 1:
                return value[0]
            self.fail(name, "must be given once")
            return _ABSENT
        return value

    def has(self, name: str, *, null_counts: bool = False) -> bool:
        value = self._lookup(name)
        return value is not _ABSENT and (null_counts or value is not None)

    def value(self, name: str) -> Any:
        """The raw JSON value (None when absent): for `google.protobuf.Value` fields."""
        value = self._lookup(name)
        return None if value is _ABSENT else value

    # --- scalars

    def required_str(self, name: str, *, non_empty: bool = True) -> str:
        value = self._get(name)
        if value is _ABSENT:
            self.fail(name, "is required")
            return ""
        if not isinstance(value, str):
            self.fail(name, "must be a string")
            return ""
        if non_empty and not value:
            self.fail(name, "must not be empty")
        return str(value)

    def optional_str(self, name: str) -> str | None:
        """A string without presence: absent and "" both read as None (proto3 default)."""
        value = self._get(name)
        if value is _ABSENT:
            return None
        if not isinstance(value, str):
            self.fail(name, "must be a string")
            return None
        return value or None

    def required_bytes(self, name: str) -> bytes:
        text = self.required_str(name, non_empty=False)
        try:
            return decode_base64(text)
        except ValueError:
            self.fail(name, "is not valid base64")
            return b""

    def optional_int(
        self, name: str, *, minimum: int | None = None, maximum: int | None = None
    ) -> int | None:
        value = self._get(name)
        if value is _ABSENT:
            return None
        number = _as_int(value)
        if number is None:
            reason = "must be an integer"
        elif minimum is not None and maximum is not None and not minimum <= number <= maximum:
            reason = f"must be between {minimum} and {maximum}"
        elif minimum is not None and number < minimum:
            reason = "must not be negative" if minimum == 0 else f"must be at least {minimum}"
        elif not _INT32_MIN <= number <= _INT32_MAX:
            reason = "must be a 32-bit integer"
        else:
            return number
        self.fail(name, reason)
        return None

    def optional_bool(self, name: str) -> bool | None:
        value = self._get(name)
        if value is _ABSENT:
            return None
        if isinstance(value, bool):
            return value
        if self._query and isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        self.fail(name, "must be true or false")
        return None

    def required_enum(self, name: str, choices: Choices[E]) -> E:
        value = self._get(name)
        if value is not _ABSENT:
            member = choices.lookup(value)[1]
            if member is not None:
                return member
        self.fail(name, "is required" if value is _ABSENT else choices.reason)
        return choices.placeholder

    def optional_enum(self, name: str, choices: Choices[E]) -> E | None:
        value = self._get(name)
        if value is _ABSENT:
            return None
        valid, member = choices.lookup(value)
        if not valid:
            self.fail(name, choices.reason)
        return member

    def optional_timestamp(self, name: str) -> datetime | None:
        value = self._get(name)
        if value is _ABSENT:
            return None
        try:
            return parse_timestamp(value)
        except ValueError:
            self.fail(name, "must be an RFC 3339 timestamp with Z or an offset")
            return None

    # --- structures

    def optional_struct(self, name: str) -> dict[str, Any] | None:
        """A `google.protobuf.Struct`: any JSON object."""
        value = self._get(name)
        if value is _ABSENT:
            return None
        if not isinstance(value, Mapping):
            self.fail(name, "must be an object")
            return None
        return dict(value)

    def _list(self, name: str, *, required: bool, non_empty: bool, kind: str) -> list[Any]:
        """A repeated field: [] when absent (a violation if required) or not a list; checks non_empty."""
        value = self._get(name, unwrap=False)
        if value is _ABSENT:
            if required:
                self.fail(name, "is required")
            return []
        if not isinstance(value, list):
            self.fail(name, f"must be {kind}")
            return []
        if non_empty and not value:
            self.fail(name, "must not be empty")
        return value

    def str_list(self, name: str, *, required: bool = False, non_empty: bool = False) -> list[str]:
        value = self._list(name, required=required, non_empty=non_empty, kind="a list of strings")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                self.fail(f"{name}[{index}]", "must be a string")
        return [item for item in value if isinstance(item, str)]

    def optional_obj(self, name: str) -> Reader | None:
        value = self._get(name)
        if value is _ABSENT:
            return None
        if not isinstance(value, Mapping):
            self.fail(name, "must be an object")
            return None
        return Reader(value, self.path(name), self._violations, query=self._query)

    def required_obj(self, name: str) -> Reader:
        """A required object; a missing one reads as `{}` whose own violations are dropped."""
        value = self._get(name)
        if isinstance(value, Mapping):
            return Reader(value, self.path(name), self._violations, query=self._query)
        self.fail(name, "is required" if value is _ABSENT else "must be an object")
        return Reader({}, self.path(name), [])

    def items(self, name: str, *, required: bool = False, non_empty: bool = False) -> list[Reader]:
        """A list of objects, one reader per item (`parts[0]`, `parts[1]`...)."""
        value = self._list(name, required=required, non_empty=non_empty, kind="a list")
        readers = []
        for index, item in enumerate(value):
            item_name = f"{name}[{index}]"
            if isinstance(item, Mapping):
                readers.append(Reader(item, self.path(item_name), self._violations, query=self._query))
            else:
                self.fail(item_name, "must be an object")
        return readers
