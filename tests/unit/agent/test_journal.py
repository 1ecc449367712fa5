"""Journal: the session's JSONL file, torn and malformed lines."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from reference_server.agent.journal import Journal


def test_records_are_appended_one_per_line(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "sessions" / "s.jsonl")
    journal.append({"role": "user", "content": "hi"})
    journal.append({"role": "assistant", "content": "hello"})

    assert [r["content"] for r in journal.load()] == ["hi", "hello"]
    assert all(r["ts"].endswith("Z") for r in journal.load())


def test_missing_file_is_an_empty_conversation(tmp_path: Path) -> None:
    assert Journal(tmp_path / "none.jsonl").load() == []


def test_torn_last_line_is_skipped_with_a_warning_and_cut_off(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n{"role": "assistant", "cont')
    journal = Journal(path)

    with caplog.at_level(logging.WARNING):
        records = journal.load()
    journal.append({"role": "user", "content": "again"})
    journal.flush()

    assert [r["content"] for r in records] == ["hi"]
    assert "torn last line" in caplog.text
    assert str(path) in caplog.text
    assert [json.loads(line)["content"] for line in path.read_text().splitlines()] == ["hi", "again"]


def test_whole_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": "hi"}')
    journal = Journal(path)

    assert [r["content"] for r in journal.load()] == ["hi"]
    journal.append({"role": "assistant", "content": "hello"})
    assert [r["content"] for r in journal.load()] == ["hi", "hello"]


def test_malformed_line_in_the_middle_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": "a"}\nnot json\n{"role": "robot"}\n'
                    '{"role": "user", "content": "b"}\n')

    with caplog.at_level(logging.WARNING):
        records = Journal(path).load()

    assert [r["content"] for r in records] == ["a", "b"]
    assert "malformed line 2" in caplog.text
    assert "malformed line 3" in caplog.text
