"""Why a step failed, in A2A terms: what was expected and what came, never the exception it caused.

A step's assertion carries its own words; pytest's explanation of it (Python reprs) is dropped. An exception a
step did not mean to raise is an answer the step could not read: it is said as such (the answer has no such field,
the connection closed), and the exchange that came with it goes beside the text in the report.
"""

from __future__ import annotations

import json

import httpx

from reference_server.conformance.support.exchanges import closed

MAX_TEXT = 3000  # a reason longer than this is cut at a word, with "…"


def cut(text: str, limit: int = MAX_TEXT) -> str:
    """The text, or its start cut at a word (never mid-word) with "…"."""
    if len(text) <= limit:
        return text
    head = text[:limit].rsplit(None, 1)[0] if " " in text[:limit] else text[:limit]
    return head.rstrip(",;:") + " …"


def authored(error: AssertionError) -> str:
    """An assertion's own message, without the explanation pytest's assertion rewriting adds after it."""
    lines = str(error).strip().splitlines()
    kept = []
    for line in lines:
        if line.startswith("assert ") or line.startswith(" +  where") or line.startswith("  +"):
            break
        kept.append(line)
    return "\n".join(kept).strip()


def failure_text(error: BaseException) -> str:
    """What a person needs to read of a failure: the check's words, or what the unread answer lacked."""
    if isinstance(error, AssertionError):
        return cut(authored(error) or "a check of this step failed without saying why (a check of the suite "
                                      "that has no message: please report it)")
    if isinstance(error, httpx.TransportError):
        return closed(error)
    if isinstance(error, json.JSONDecodeError):
        return "an answer is not JSON"
    if isinstance(error, KeyError):
        return f"the answer has no {error.args[0] if error.args else 'such'} field where the step reads one"
    if isinstance(error, IndexError):
        return "the answer has fewer items than the step reads"
    if isinstance(error, (TypeError, AttributeError)):
        return "the answer holds a value of another kind than A2A gives there (a list, an object, a string)"
    if isinstance(error, ValueError):
        return cut(str(error)) if type(error).__module__ != "builtins" else (
            "the answer holds another number of items or another value than the step reads")
    text = str(error).strip()
    return cut(text) if text and type(error).__module__.startswith("support") else (
        "the step stopped on a condition the suite did not expect (a fault of the suite: please report it)")
