"""A request as a curl line a person can paste: the same verb, target byte for byte, headers and body.

The caller's key is written as $A2A_TARGET_KEY, never as its value; the made-up credentials, new for every run, are
written as they were sent. curl's own Accept and User-Agent headers are taken out, so the server gets what the run
sent, and a body that is not plain printable text goes through printf, byte for byte.
"""

from __future__ import annotations

import shlex

from fuzz.strategies import FuzzRequest
from fuzz.surface import Secrets

KEY_VARIABLE = "$A2A_TARGET_KEY"


def curl_line(request: FuzzRequest, secrets: Secrets) -> str:
    parts = ["curl", "-sS", "-i", "--path-as-is", "-X", request.verb, shlex.quote(request.origin + request.target),
             "-H", "'Accept:'", "-H", "'User-Agent:'"]
    for name, value in request.headers:
        parts += ["-H", _header(name, value, secrets)]
    names = {name.lower() for name, _ in request.headers}
    printf = ""
    if request.body or request.verb in ("POST", "PUT", "PATCH"):
        if "content-type" not in names:
            parts += ["-H", "'Content-Type:'"]  # curl would add application/x-www-form-urlencoded
        text = _plain(request.body)
        if text is not None:
            parts += ["--data-binary", shlex.quote(text) if text else "''"]
        else:
            printf = f"printf '{_printf(request.body)}' | "
            parts += ["--data-binary", "@-"]
    return printf + " ".join(parts)


def _header(name: str, value: str, secrets: Secrets) -> str:
    if not value:
        return shlex.quote(f"{name};")  # curl sends `Name:` with no value for `Name;` (`Name:` removes it)
    if secrets.key and secrets.key in value:
        pieces = [_double_quoted(piece) for piece in f"{name}: {value}".split(secrets.key)]
        return '"' + KEY_VARIABLE.join(pieces) + '"'
    return shlex.quote(f"{name}: {value}")


def _double_quoted(text: str) -> str:
    for special in ("\\", '"', "$", "`"):
        text = text.replace(special, "\\" + special)
    return text


def _plain(body: bytes) -> str | None:
    """The body as text when a shell's single quotes can carry it as it is."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.startswith("@") or any(ord(c) < 32 and c not in "\t" for c in text) or "\x7f" in text:
        return None
    return text


def _printf(body: bytes) -> str:
    """The body as a printf format inside single quotes: printable ASCII as it is, every other byte as \\xHH."""
    out = []
    for byte in body:
        char = chr(byte)
        if char == "'":
            out.append("'\\''")
        elif char == "\\":
            out.append("\\\\")
        elif char == "%":
            out.append("%%")
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\x{byte:02x}")
    return "".join(out)
