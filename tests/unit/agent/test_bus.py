"""EventBus: publish/subscribe by name, unsubscribe, failing handlers."""

from __future__ import annotations

from typing import Any

import pytest

from reference_server.agent.bus import EventBus


def test_subscribers_get_payloads_of_their_name_only() -> None:
    bus = EventBus()
    inbound: list[dict[str, Any]] = []
    other: list[dict[str, Any]] = []
    bus.subscribe("a2a.inbound", inbound.append)
    bus.subscribe("other", other.append)

    bus.publish("a2a.inbound", {"hops": 2, "caller": "travel-bot"})

    assert inbound == [{"hops": 2, "caller": "travel-bot"}]
    assert other == []


def test_unsubscribe_stops_delivery() -> None:
    bus = EventBus()
    seen: list[dict[str, Any]] = []
    unsubscribe = bus.subscribe("x", seen.append)

    unsubscribe()
    unsubscribe()  # twice is harmless
    bus.publish("x", {})

    assert seen == []


def test_failing_handler_is_logged_and_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    bus = EventBus()
    seen: list[dict[str, Any]] = []

    def fail(payload: dict[str, Any]) -> None:
        raise RuntimeError("handler broke")

    bus.subscribe("x", fail)
    bus.subscribe("x", seen.append)

    bus.publish("x", {"n": 1})

    assert seen == [{"n": 1}]
    assert "handler broke" in caplog.text


def test_publish_without_subscribers_is_fine() -> None:
    EventBus().publish("nobody", {"n": 1})
