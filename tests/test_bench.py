"""The bench's targets (scripts/bench.py): each operation's ratio against both peers, from the same run's results, and
whether it is met, on canned numbers."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

OURS = {"card_rps": 12_000.0, "send_rps": 900.0, "streams_rps": 450.0, "get_rps": 4_800.0, "send_p99": 20.0,
        "sse8_p50": 1.2, "lag_max": 4.0, "callback_max": 6.0, "fanout_first_p99": 240.0}
SDK = {"card_rps": 3_000.0, "send_rps": 450.0, "streams_rps": 300.0, "get_rps": 2_000.0, "send_p99": 60.0,
       "sse8_p50": 15.0}
JS = {"card_rps": 6_000.0, "send_rps": 2_400.0, "streams_rps": 1_400.0, "get_rps": 4_000.0, "send_p99": 14.0,
      "sse8_p50": 4.0}


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))  # bench.py imports bench_kit as scripts/ does
    return importlib.import_module("bench")


def found(met: list[dict[str, Any]], target: str) -> dict[str, Any]:
    return next(item for item in met if item["target"] == target)


def test_each_operation_is_held_against_both_peers_with_their_own_bounds(bench: ModuleType) -> None:
    met = bench.targets({"ours": OURS, "a2a-sdk": SDK, "js": JS})
    expected = {
        "public card GET req/s >= 2x a2a-sdk": (4.0, "MET"), "public card GET req/s >= 2x js": (2.0, "MET"),
        "blocking SendMessage req/s >= 2x a2a-sdk": (2.0, "MET"),
        "blocking SendMessage req/s >= 1x js": (0.375, "MISSED"),
        "whole streams/s, 8 in flight >= 2x a2a-sdk": (1.5, "MISSED"),
        "whole streams/s, 8 in flight >= 1x js": (450 / 1400, "MISSED"),
        "GetTask req/s >= 2x a2a-sdk": (2.4, "MET"), "GetTask req/s >= 1.2x js": (1.2, "MET"),
        "blocking SendMessage p99 <= 0.5x a2a-sdk": (1 / 3, "MET"),
        "first SSE event, 8 in flight, p50 <= 0.5x a2a-sdk": (0.08, "MET"),
    }
    for target, (value, status) in expected.items():
        item = found(met, target)
        assert item["value"] == pytest.approx(value) and item["status"] == status, item


def test_a_ratio_without_a_js_target_is_shown_without_a_verdict(bench: ModuleType) -> None:
    item = found(bench.targets({"ours": OURS, "a2a-sdk": SDK, "js": JS}), "blocking SendMessage p99 vs js")
    assert item["value"] == pytest.approx(20 / 14) and item["status"] == "-"


def test_every_throughput_must_be_twice_the_a2a_sdk(bench: ModuleType) -> None:
    throughputs = [target for target in bench.PEER_TARGETS if not target.lower_is_better]
    assert {target.key for target in throughputs} == {"card_rps", "send_rps", "streams_rps", "get_rps"}
    assert all(target.sdk == 2 for target in throughputs)


def test_a_peer_that_did_not_run_leaves_its_targets_unjudged(bench: ModuleType) -> None:
    met = bench.targets({"ours": OURS, "a2a-sdk": SDK})  # the JS peer skipped: no node
    assert found(met, "GetTask req/s >= 1.2x js")["status"] == "n/a"
    assert found(met, "GetTask req/s >= 2x a2a-sdk")["status"] == "MET"


def test_a_ratio_just_below_its_bound_is_not_shown_as_the_bound(bench: ModuleType) -> None:
    lines = bench.target_lines(bench.targets({"ours": {"streams_rps": 637.0}, "js": {"streams_rps": 639.0}}))
    streams = next(line for line in lines if line.strip().startswith("whole streams/s"))
    assert streams.split()[-4:] == ["0.997x", ">=", "1x", "MISSED"]


def test_the_targets_of_ours_alone(bench: ModuleType) -> None:
    met = bench.targets({"ours": OURS, "a2a-sdk": SDK, "js": JS})
    assert found(met, "loop stall <= 5 ms (max lag, phases but the fan-out)")["status"] == "MET"
    assert found(met, "  the same, as the longest single loop callback")["status"] == "MISSED"
    assert found(met, "1,000 streams at once: first event p99 <= 250 ms")["status"] == "MET"
    assert found(met, "RSS growth <= 1 KB per finished task")["status"] == "n/a"


def test_the_printed_targets_put_both_ratios_on_one_line(bench: ModuleType) -> None:
    lines = bench.target_lines(bench.targets({"ours": OURS, "a2a-sdk": SDK, "js": JS}))
    send = next(line for line in lines if line.strip().startswith("blocking SendMessage req/s"))
    assert send.split() == ["blocking", "SendMessage", "req/s", "2.00x", ">=", "2x", "MET", "0.38x", ">=", "1x",
                            "MISSED"]
    p99 = next(line for line in lines if line.strip().startswith("blocking SendMessage p99"))
    assert p99.split()[3:] == ["0.33x", "<=", "0.5x", "MET", "1.43x", "-"]
    assert any(line.split()[:2] == ["MISSED", "the"] for line in lines)  # the longest callback, ours alone
