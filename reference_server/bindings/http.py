"""Small HTTP helpers shared by the bindings: JSON responses, bounded body reads, the A2A-Version."""

from __future__ import annotations

import json
import re
from typing import Any

from blacksheep import Content, Request, Response

from reference_server.domain.errors import ParseError, PayloadTooLarge, VersionNotSupported

A2A_JSON = b"application/a2a+json"
JSON = b"application/json"

V1_0 = "1.0"
V0_3 = "0.3"
SUPPORTED_VERSIONS = (V1_0, V0_3)
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?$")


def dumps(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def parse_json(body: bytes) -> Any:
    """The body as JSON; A2A §14.1.1: UTF-8 only, so any other encoding is a parse error that says so."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"Invalid JSON payload: the body is not UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"Invalid JSON payload: {exc}") from None


def json_response(body: Any, status: int = 200, content_type: bytes = JSON) -> Response:
    return Response(status, [(b"Cache-Control", b"no-store")], Content(content_type, dumps(body)))


async def read_body(request: Request, limit: int) -> bytes:
    """The whole body, refused before parsing when it is larger than `limit` bytes."""
    declared = request.get_first_header(b"Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(int(declared), limit)
    chunks: list[bytes] = []
    size = 0
    # blacksheep's stub types stream() as a coroutine; it is an async generator
    async for chunk in request.stream():  # type: ignore[attr-defined]
        size += len(chunk)
        if size > limit:
            raise _too_large(size, limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(size: int, limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"Request body too large: {size} bytes or more; the limit is {limit} bytes (A2A__MaxBodyBytes)"
    )


def requested_version(request: Request) -> str:
    """A2A §3.6: the A2A-Version header, else the query parameter; missing or empty means 0.3."""
    raw = request.get_first_header(b"A2A-Version")
    text = raw.decode("latin-1").strip() if raw is not None else ""
    if not text:
        values = request.query.get("A2A-Version") or request.query.get("a2a-version") or [""]
        text = values[0].strip()
    if not text:
        return V0_3
    match = _VERSION.match(text)
    # A2A §3.6: Major.Minor decides; a patch number is ignored
    version = f"{int(match.group(1))}.{int(match.group(2))}" if match else None
    if version not in SUPPORTED_VERSIONS:
        raise VersionNotSupported(
            f"A2A version {text!r} is not supported; send the header A2A-Version: 1.0 "
            "(or A2A-Version: 0.3 for the 0.3 JSON-RPC methods)",
            metadata={"requestedVersion": text, "supportedVersions": "1.0,0.3"},
        )
    return version
