"""The smallest request that shows a finding again, by hypothesis's own shrinking.

A finding is searched for again among the requests of its interface and operation (fuzz.strategies.Focus): once
hypothesis finds one that shows it, it shrinks it toward the simplest choice of every draw, which is the
well-formed call the request was made from, so what is left is only what the finding needs. Each request is sent
once: its verdict is kept, so hypothesis's last replay (and any repeat) costs nothing and cannot be flaky. The
search ends at its count of requests or its time, whichever comes first, with the smallest request seen so far.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from fuzz.strategies import FuzzRequest
from hypothesis import HealthCheck, Phase, Verbosity, assume, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException


def identity(request: FuzzRequest) -> tuple[object, ...]:
    """What makes two requests the same on the wire."""
    return request.origin, request.verb, request.target, tuple(request.headers), request.body


class _Found(Exception):
    """The search's request shows the finding (hypothesis shrinks what raises it)."""


@dataclass
class Search:
    shows: Callable[[FuzzRequest], bool]  # sends the request: whether the finding shows
    until: float  # time.monotonic() past which no request is sent
    max_size: int  # no request larger than this is sent
    limit: int  # nor more requests than this
    tries: int = 0  # requests sent
    seen: dict[tuple[object, ...], bool] = field(default_factory=dict)
    best: FuzzRequest | None = None

    def verdict(self, request: FuzzRequest, *, bounded: bool = True) -> bool:
        """Whether the request shows the finding: sent once, then known; nothing sent past the bounds."""
        key = identity(request)
        if key not in self.seen:
            if bounded and (time.monotonic() > self.until or self.tries >= self.limit):
                return False  # out of time or tries: nothing more is sent, and hypothesis ends its shrinking quickly
            self.tries += 1
            self.seen[key] = self.shows(request)
        if self.seen[key] and (self.best is None or request.size() <= self.best.size()):
            self.best = request
        return self.seen[key]


def smallest(strategy: st.SearchStrategy[FuzzRequest], search: Search, *, examples: int,
             seed_: int) -> FuzzRequest | None:
    """The smallest request of the strategy that shows the finding, or None when none did within the bounds."""

    @settings(max_examples=examples, phases=[Phase.generate, Phase.shrink], database=None, deadline=None,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, report_multiple_bugs=False)
    @seed(seed_)
    @given(strategy)
    def find(request: FuzzRequest) -> None:
        assume(request.size() <= search.max_size)
        if search.verdict(request):
            raise _Found

    try:
        find()
    except (_Found, HypothesisException):
        pass  # found (and shrunk), or hypothesis gave up: the best request seen is the answer either way
    except ExceptionGroup as group:  # hypothesis's flaky report, should a kept verdict ever disagree with a replay
        if group.subgroup(_Found) is None and group.subgroup(HypothesisException) is None:
            raise
    return search.best
