"""scripts/profile_split.py: each sample of a py-spy profile goes to the server's layer whose frame is innermost, a
frame shared by every layer (JSON, asyncio) to the layer that called it; a kept profile splits as the raw one did."""

from __future__ import annotations

from collections import Counter

import pytest

from scripts import profile_split as split
from scripts.profile_split import Frame

LOOP_TRUNK = ["<module> (bench_kit/serve_ours.py:120)", "main (bench_kit/serve_ours.py)",
              "Server.run (uvicorn/server.py)", "asyncio_run (uvicorn/_compat.py)",
              "BaseEventLoop.run_forever (asyncio/base_events.py)",
              "BaseEventLoop._run_once (asyncio/base_events.py)", "Handle._run (asyncio/events.py)"]
REQUEST = [*LOOP_TRUNK, "RequestResponseCycle.run_asgi (uvicorn/protocols/http/httptools_impl.py)",
           "Application.__call__ (blacksheep/server/application.py)",
           "request_log.<locals>.log_requests (reference_server/bindings/requestlog.py)",
           "handle (reference_server/bindings/jsonrpc.py)"]
WRITER = ["Thread._bootstrap (threading.py)", "Thread.run (threading.py)",
          "Writer._serve (reference_server/platform/disk.py)", "Writer._write (reference_server/platform/disk.py)"]
SOURCE = {("reference_server/platform/disk.py", 178): "                _datasync(fd)",
          ("reference_server/platform/disk.py", 181): "        os.replace(tmp, name)"}


def layer(*frames: str) -> str | None:
    return split.layer_of([Frame.parse(text) for text in frames], lambda file, line: SOURCE.get((file, line), ""))


@pytest.mark.parametrize(("frames", "expected"), [
    ([*REQUEST, "read_json (reference_server/bindings/http.py)", "parse_json (reference_server/bindings/http.py)",
      "loads (json/__init__.py)", "JSONDecoder.decode (json/decoder.py:337)"], split.DECODING),
    ([*REQUEST, "decode_send_request (reference_server/wire/v1.py)", "Reader.items (reference_server/wire/fields.py)"],
     split.DECODING),
    ([*REQUEST, "handle.<locals>.respond (reference_server/bindings/jsonrpc.py)",
      "json_response (reference_server/bindings/http.py)", "dumps (reference_server/bindings/http.py)",
      "JSONEncoder.iterencode (json/encoder.py:258)"], split.RESPONSE),
    ([*REQUEST, "_of.<locals>.<lambda> (reference_server/bindings/operations.py)",
      "encode_task (reference_server/wire/v1.py)", "format_timestamp (reference_server/wire/timestamps.py:20)"],
     split.RESPONSE),
    ([*WRITER, "TaskStore._encoding.<locals>.<lambda> (reference_server/domain/task_store.py)",
      "TaskFileCodec.encode (reference_server/wire/task_file.py)", "encode_task (reference_server/wire/v1.py)",
      "JSONEncoder.iterencode (json/encoder.py:258)"], split.ENCODE),
    ([*WRITER, "_replace (reference_server/platform/disk.py:178)"], split.FSYNC),
    ([*WRITER, "_replace (reference_server/platform/disk.py:181)"], split.WRITE),
    ([*WRITER, "_fsync (reference_server/platform/disk.py:234)"], split.FSYNC),
    ([*WRITER, "_append (reference_server/platform/disk.py:153)"], split.JOURNAL),
    ([*WRITER, "BaseEventLoop.call_soon_threadsafe (asyncio/base_events.py)",
      "BaseSelectorEventLoop._write_to_self (asyncio/selector_events.py:139)"], split.LOOP),
    ([*REQUEST, "A2AService.send_message (reference_server/domain/service.py)", "Event.wait (asyncio/locks.py)",
      "_LoopBoundMixin._get_loop (asyncio/mixins.py:13)"], split.DOMAIN),
    ([*REQUEST, "A2AService.send_message (reference_server/domain/service.py)",
      "ScriptedProvider._script (reference_server/agent/scripted.py)",
      "StatCache.get (reference_server/platform/disk.py:276)"], split.AGENT),
    ([*REQUEST, "A2AService.get_task (reference_server/domain/service.py)",
      "TaskStore.load (reference_server/domain/task_store.py)", "off_loop (reference_server/platform/disk.py:51)"],
     split.READ),
    ([*REQUEST, "TaskStore.save (reference_server/domain/task_store.py)",
      "Writer.replace (reference_server/platform/disk.py)", "Condition.notify (threading.py:382)"], split.WRITE),
    ([*REQUEST, "request_log.<locals>.write (reference_server/bindings/requestlog.py)",
      "ConsoleLines.__call__ (reference_server/console.py)"], split.LOG),
    ([*REQUEST, "read_json (reference_server/bindings/http.py)", "read_body (reference_server/bindings/http.py:222)",
      "RequestResponseCycle.receive (uvicorn/protocols/http/httptools_impl.py)"], split.HTTP),
    ([*REQUEST[:-2], "Application._handle_http (blacksheep/server/application.py)"], split.ROUTING),
    ([*LOOP_TRUNK, "_SelectorSocketTransport._read_ready (asyncio/selector_events.py)",
      "_SelectorSocketTransport._read_ready__data_received (asyncio/selector_events.py:995)"], split.HTTP),
    ([*REQUEST, "HeadersWithBody.write (reference_server/serving.py)",
      "_SelectorSocketTransport.write (asyncio/selector_events.py:1057)"], split.RESPONSE),
    # the same layers on the tree as the redesign by concept left it (issue 27)
    ([*REQUEST, "A2AService.get_task (reference_server/a2a/service.py)",
      "TaskStore.load (reference_server/workspace/task_store.py)",
      "Written.recall (reference_server/workspace/written.py)"],
     split.READ),
    ([*REQUEST, "A2AService.get_task (reference_server/a2a/service.py)", "trim (reference_server/a2a/service.py)"],
     split.DOMAIN),
    ([*REQUEST, "decode_message (reference_server/codecs/v1.py)"], split.DECODING),
    ([*REQUEST, "HeadersWithBody.write (reference_server/process/serving.py)",
      "_SelectorSocketTransport.write (asyncio/selector_events.py:1057)"], split.RESPONSE),
    (LOOP_TRUNK, split.LOOP),  # uvicorn's server loop is no HTTP parsing
    (["Thread.run (threading.py)", "Trimmer._run (reference_server/platform/heap.py)"], split.OTHER),
])
def test_a_sample_goes_to_the_innermost_layer(frames: list[str], expected: str) -> None:
    assert layer(*frames) == expected


@pytest.mark.parametrize("frames", [
    [*WRITER[:3], "Condition.wait (threading.py:327)"],
    [*LOOP_TRUNK[:-1], "EpollSelector.select (selectors.py:468)"],
    ["Thread.run (threading.py)", "_worker (concurrent/futures/thread.py:81)"],
])
def test_a_waiting_thread_is_counted_nowhere(frames: list[str]) -> None:
    assert layer(*frames) is None


RAW = "\n".join([
    "thread (7): MainThread;" + ";".join([*REQUEST, "A2AService.send_message (reference_server/domain/service.py:90)",
                                           "uuid4 (uuid.py:723)"]) + " 30",
    "thread (7): MainThread;" + ";".join([*REQUEST, "A2AService.send_message (reference_server/domain/service.py:91)",
                                           "uuid4 (uuid.py:724)"]) + " 1",
    "thread (7): MainThread;" + ";".join([*LOOP_TRUNK[:-1], "EpollSelector.select (selectors.py:468)"]) + " 50",
    "thread (9): disk-writer;" + ";".join([*WRITER, "_fsync (reference_server/platform/disk.py:234)"]) + " 20",
    "thread (9): disk-writer;" + ";".join([*WRITER, "TaskStore._encoding.<locals>.<lambda> (reference_server/domain/"
                                           "task_store.py:126)", "encode_task (reference_server/wire/v1.py:290)",
                                           "JSONEncoder.iterencode (json/encoder.py:258)"]) + " 1",
])


def test_a_kept_profile_splits_as_the_raw_one_even_cut() -> None:
    whole = split.compact(RAW, budget=10**9)
    cut = split.compact(RAW, budget=0)  # every stack cut down to the frame that decides its layer
    expected = {"loop": Counter({split.DOMAIN: 31}), "off-loop": Counter({split.FSYNC: 20, split.ENCODE: 1})}
    assert whole.split() == cut.split() == expected
    assert whole.notes["left out"] == "50 samples of waiting threads, or without frames"
    assert len(whole.stacks) == 3  # the two send_message stacks differ only in lines above the last frame
    assert all(not frame.endswith(":90)") for (_, frames) in whole.stacks for frame in frames)
    assert all(len(frames) <= split.CONTEXT + 1 for _, frames in cut.stacks)
    assert len(cut.write()) < len(whole.write())
    assert split.Profile.read(cut.write().splitlines()).split() == expected


def test_the_table_gives_each_layer_its_share_and_its_time_per_operation() -> None:
    profile = split.compact(RAW, budget=10**9)
    profile.notes["operations"] = "100 in 1 s (100/s)"
    rows = {line.split(" | ")[0].strip("| "): line.strip("| ").split(" | ")[1:]
            for line in split.table({"send": profile}, rate=100).splitlines()}
    assert rows["domain"] == ["100.0", "3100", "0"]  # 31 samples at 100 a second, over 100 operations: 3.1 ms each
    assert rows["task file: fsync"] == ["0.0", "0", "2000"]
    assert rows["total"] == ["100.0", "3100", "2100"]
