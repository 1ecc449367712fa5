"""Faults and timing on demand: what a script rule's `fault` asks for, checked and bounded, and carried out at the
HTTP edge (docs/scripted-agent.md, "Faults and timing").

The script decides which fault (the agent core finds the rule, agent/scripted.py), this module carries it out
around the binding's answer, and the domain never learns of it: a refused or reset attempt reaches no service call,
a delay waits before one, and a cut, slowed or garbled stream or answer is the server's own, changed on its way
out. So the task ends as it would have, its file is written whole, and GetTask tells the truth.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections import OrderedDict
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, cast

from blacksheep import Content, Request, Response
from blacksheep.contents import StreamedContent

from reference_server.a2a.prompt import prompt_text
from reference_server.bindings.http import Outlet, outlet_of
from reference_server.model.caller import Caller
from reference_server.model.errors import A2AError, InvalidParams, TooManyRequests, Unavailable, UnsupportedOperation
from reference_server.model.types import AskedFault, Message, SendRequest

# the ASGI scope key under which a request carries the fault it asked for (the recorder writes it in its record)
FAULT_KEY = "reference_server.fault"

# the bounds (docs/scripted-agent.md): no fault holds a connection or a request longer than these
MAX_CUT_AFTER = 1000  # events
MAX_FIRST_BYTE_DELAY = 30.0  # seconds
MAX_EVENT_DELAY = 10.0  # seconds between two events
MAX_TIMES = 10  # attempts refused or reset, per messageId
MAX_RETRY_AFTER = 60  # seconds, the Retry-After of a refusal
REFUSALS = {429: TooManyRequests, 503: Unavailable}  # RFC 6585 §4, RFC 9110 §15.6.4: both may carry Retry-After
MAX_REMEMBERED = 10_000  # messageIds whose attempts are counted; beyond it the oldest are forgotten


class FaultError(ValueError):
    """A fault asked for with a value it cannot take; the message names the setting and the value."""


@dataclass(frozen=True)
class Fault:
    """A fault in the script's terms (each field is a key of a rule's `fault`, camelCase there)."""

    cut_after: int | None = None  # a stream: the connection closes after this many events, without its end
    first_byte_delay: float = 0.0  # seconds before anything is done and answered
    event_delay: float = 0.0  # a stream: seconds before each event after the first
    refuse: int | None = None  # 429 or 503 with Retry-After, for the first `times` attempts
    reset: bool = False  # the connection is reset before any answer, for the first `times` attempts
    times: int = 1
    retry_after: int = 1  # seconds
    bad_frame: bool = False  # a stream: after the first event, a frame whose data is not JSON
    not_json: bool = False  # SendMessage: an answer body that is not JSON

    @property
    def stream_only(self) -> list[str]:
        return [name for name, on in (("cutAfter", self.cut_after is not None), ("eventDelay", self.event_delay > 0),
                                      ("badFrame", self.bad_frame)) if on]

    def as_json(self) -> dict[str, Any]:
        """The fault as the script writes it, only what is set (for the record of the exchange)."""
        default = Fault()
        return {_camel(f.name): getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != getattr(default, f.name)
                and (f.name not in ("times", "retry_after") or self.refuse is not None or self.reset)}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


KEYS = {_camel(f.name): f.name for f in fields(Fault)}


def plan(asked: AskedFault) -> Fault:
    """The fault a rule asks for, every value checked against its bounds; FaultError names what is wrong (and the
    caller says where the rule is). A placeholder whose group did not match (an empty string) leaves the setting at
    its default."""
    values: dict[str, Any] = {}
    for key, raw in asked.settings.items():
        if key not in KEYS:
            raise FaultError(f"unknown fault setting {key!r}; the settings are {', '.join(KEYS)}")
        if raw == "":
            continue
        values[KEYS[key]] = _value(key, raw)
    fault = Fault(**values)
    if fault.refuse is not None and fault.reset:
        raise FaultError("refuse and reset both answer before anything is done: ask for one")
    if fault.not_json and fault.stream_only:
        raise FaultError(f"notJson changes a SendMessage answer and {', '.join(fault.stream_only)} "
                         "a stream: ask for one kind")
    return fault


def _value(key: str, raw: Any) -> Any:
    if key in ("reset", "badFrame", "notJson"):
        return _flag(key, raw)
    if key in ("firstByteDelay", "eventDelay"):
        return _seconds(key, raw, MAX_FIRST_BYTE_DELAY if key == "firstByteDelay" else MAX_EVENT_DELAY)
    if key == "refuse":
        status = _number(key, raw)
        if status not in REFUSALS:
            why = "is not an error status" if 100 <= status < 400 else "is not a status a client retries after " \
                "Retry-After" if status.is_integer() and 400 <= status < 600 else "is not an HTTP status"
            raise FaultError(f"refuse {raw!r}: {why}; refuse takes {' or '.join(map(str, REFUSALS))}")
        return int(status)
    low, high, what = {"cutAfter": (1, MAX_CUT_AFTER, "events"), "times": (1, MAX_TIMES, "attempts"),
                       "retryAfter": (0, MAX_RETRY_AFTER, "seconds")}[key]
    return _whole(key, raw, low, high, what)


def _number(key: str, raw: Any) -> float:
    if isinstance(raw, bool):
        raise FaultError(f"{key} {raw!r}: not a number")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise FaultError(f"{key} {raw!r}: not a number") from None
    if not math.isfinite(value):
        raise FaultError(f"{key} {raw!r}: not a finite number")
    return value


def _whole(key: str, raw: Any, low: int, high: int, what: str) -> int:
    value = _number(key, raw)
    if not value.is_integer() or not low <= value <= high:
        raise FaultError(f"{key} {raw!r}: must be a whole number of {what} from {low} to {high}")
    return int(value)


def _seconds(key: str, raw: Any, high: float) -> float:
    value = _number(key, raw)
    if not 0 <= value <= high:
        raise FaultError(f"{key} {raw!r}: must be a number of seconds from 0 to {high:g}")
    return value


def _flag(key: str, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if raw in ("true", "false"):
        return bool(raw == "true")
    raise FaultError(f"{key} {raw!r}: must be true or false")


Lookup = Callable[[Path, str, str | None], AskedFault | None]  # (workspace, prompt text, messageId)
Respond = Callable[[], Awaitable[Response]]
Refuse = Callable[[A2AError], Response]


class Faults:
    """The faults of one server: what a message asks for (through the script), and how many attempts of each
    messageId were refused or reset so far (at most MAX_REMEMBERED messageIds, the oldest forgotten first)."""

    def __init__(self, lookup: Lookup) -> None:
        self._lookup = lookup
        self._attempts: OrderedDict[tuple[str, str, str], int] = OrderedDict()

    def asked(self, caller: Caller, message: Message, prompt: str) -> Fault | None:
        found = self._lookup(caller.workspace.path, prompt, message.message_id)
        if found is None:
            return None
        try:
            return plan(found)
        except FaultError as error:
            # bad input, not a server error: the caller asked for it with its message (A2A §3.3.2)
            raise InvalidParams(f"The fault this message asks for cannot be carried out: {error} "
                                f"({found.where})") from None

    def attempt(self, caller: Caller, message_id: str) -> int:
        """How many attempts at message_id this caller has made, this one included."""
        key = (caller.owner_id, caller.name, message_id)
        count = self._attempts.pop(key, 0) + 1
        self._attempts[key] = count
        while len(self._attempts) > MAX_REMEMBERED:
            self._attempts.popitem(last=False)
        return count


async def answered(request: Request, faults: Faults | None, caller: Caller, params: Any, streaming: bool,
                   respond: Respond, refuse: Refuse) -> Response:
    """The binding's answer to a request, with the fault its message asks for carried out. Most requests ask for
    none: then it is respond() after one script lookup."""
    if faults is None or not isinstance(params, SendRequest):
        return await respond()
    # the text the script's rules see, as the run's prompt will hold it (its files are not saved yet: no Files line)
    prompt = prompt_text(params.message, [])
    fault = faults.asked(caller, params.message, prompt)
    if fault is None:
        return await respond()
    _check_applies(fault, streaming)
    cast(dict[str, Any], request.scope)[FAULT_KEY] = fault.as_json()
    outlet = outlet_of(request)
    if (fault.refuse is not None or fault.reset) and faults.attempt(caller, params.message.message_id) <= fault.times:
        return _refused(fault, outlet, refuse)
    if fault.first_byte_delay and not await _waited(fault.first_byte_delay, outlet):
        return Response(499, None, None)  # the client left while the server waited: nothing was done
    response = await respond()
    content = response.content
    if isinstance(content, StreamedContent) and fault.stream_only:
        response.content = StreamedContent(content.type, _shaped(content.generator, fault, outlet))
    elif fault.not_json and content is not None and content.body:
        # the first half of the answer: what a cut body looks like, and never JSON (an object lacks its end)
        response.content = Content(content.type, content.body[:len(content.body) // 2])
    return response


def _check_applies(fault: Fault, streaming: bool) -> None:
    if streaming and fault.not_json:
        raise InvalidParams("The fault notJson changes a SendMessage answer: send this message with SendMessage, "
                            "or ask for badFrame to garble a stream")
    if not streaming and fault.stream_only:
        raise InvalidParams(f"The fault {', '.join(fault.stream_only)} changes a stream: send this message with "
                            "SendStreamingMessage")


def _refused(fault: Fault, outlet: Outlet | None, refuse: Refuse) -> Response:
    if fault.reset:
        if outlet is None:
            raise UnsupportedOperation("A connection reset needs the server's own HTTP protocol "
                                       "(reference_server.process.serving), which serves this request not")
        outlet.abort()
        return Response(499, None, None)  # nobody reads it: the connection is gone
    assert fault.refuse is not None
    error = REFUSALS[fault.refuse](f"Refused on purpose (the fault this message asks for): retry after "
                                   f"{fault.retry_after} s with the same messageId")
    response = refuse(error)
    # RFC 9110 §10.2.3: delay-seconds
    response.add_header(b"Retry-After", str(fault.retry_after).encode())
    return response


async def _waited(seconds: float, outlet: Outlet | None) -> bool:
    """Wait `seconds`; False as soon as the client leaves (then nothing more is done for it)."""
    if outlet is None:
        await asyncio.sleep(seconds)
        return True
    left = asyncio.Event()
    outlet.on_lost(left.set)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await left.wait()
    return not left.is_set()


def _shaped(generator: Callable[[], AsyncIterable[bytes]], fault: Fault, outlet: Outlet | None
            ) -> Callable[[], AsyncIterator[bytes]]:
    """The stream's bytes, event by event (an SSE event ends with a blank line; `data:` holds one JSON document on
    one line, so a blank line never falls inside one): slowed, garbled after its first event, or cut."""

    async def body() -> AsyncIterator[bytes]:
        source = aiter(generator())
        pending, sent = b"", 0
        try:
            async for chunk in source:
                pending += chunk
                *frames, pending = pending.split(b"\n\n")
                for frame in frames:
                    if frame.startswith(b":"):  # a keep-alive comment: not an event
                        yield frame + b"\n\n"
                        continue
                    if sent and fault.event_delay and not await _waited(fault.event_delay, outlet):
                        return
                    yield frame + b"\n\n"
                    sent += 1
                    if sent == 1 and fault.bad_frame:  # the first event's data line again, cut in half
                        head, _, data = frame.rpartition(b"data: ")
                        yield head + b"data: " + data[:max(1, len(data) // 2)] + b"\n\n"
                    if fault.cut_after is not None and sent >= fault.cut_after:
                        if outlet is not None:
                            outlet.cut()  # the connection closes once these bytes are sent: no end, no final event
                        return
        finally:
            closer = getattr(source, "aclose", None)
            if closer is not None:
                await closer()  # the stream leaves the task; its run goes on

    return body
