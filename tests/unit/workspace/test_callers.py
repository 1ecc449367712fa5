"""domain/callers.py: callers.json read on every call, entry rules, the directories over workspaces (the stat
one here, and domain/caller_index.py's index, which must answer alike)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reference_server.model.caller import Caller, Workspace
from reference_server.platform.changes import Notifications
from reference_server.workspace.caller_index import CallerIndex
from reference_server.workspace.callers import (
    CallerDirectory,
    CallerEntry,
    WorkspaceCallerDirectory,
    check_callers,
    masked_key,
    read_callers,
)

KEY = "k_3f9c0123456789abcdef"


def write(workspace: Workspace, entries: Any) -> Path:
    path = workspace.callers_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries), encoding="utf-8")
    return path


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_a_missing_file_means_no_callers_and_no_warning(workspace: Workspace,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    assert read_callers(workspace.callers_file) == []
    assert warnings(caplog) == []


def test_the_design_example_is_read(workspace: Workspace) -> None:
    path = write(workspace, [{"name": "travel-bot", "key": KEY, "mode": "isolated", "note": "Alice's trip planner"}])
    assert read_callers(path) == [CallerEntry("travel-bot", KEY, "isolated", "Alice's trip planner")]


def test_mode_defaults_to_isolated_and_extra_fields_are_ignored(workspace: Workspace) -> None:
    path = write(workspace, [{"name": "travel-bot", "key": KEY, "color": "blue", "note": 7}])
    assert read_callers(path) == [CallerEntry("travel-bot", KEY, "isolated", None)]


@pytest.mark.parametrize("text", ['[{"name": "travel-bot", "key": "' + KEY + '"', "{}", '"callers"', "null"],
                         ids=["torn", "object", "string", "null"])
def test_a_malformed_file_means_no_callers_and_one_warning_naming_the_file(
        workspace: Workspace, caplog: pytest.LogCaptureFixture, text: str) -> None:
    path = write(workspace, text)
    assert read_callers(path) == []
    found = warnings(caplog)
    assert len(found) == 1 and str(path) in found[0], found
    assert KEY not in found[0]


@pytest.mark.parametrize(("entry", "reason"), [
    ({"name": "Travel-Bot"}, "has no valid name"),
    ({"name": "travel_bot"}, "has no valid name"),
    ({"name": "a" * 41}, "has no valid name"),
    ({"name": ""}, "has no valid name"),
    ({"name": "travel-bot\n"}, "has no valid name"),
    ({"name": 7}, "has no valid name"),
    ({}, "has no valid name"),
    ({"name": "travel-bot", "key": ""}, "has no key"),
    ({"name": "travel-bot", "key": 42}, "has no key"),
    ({"name": "travel-bot", "mode": "owner"}, "unknown mode 'owner'"),
], ids=["upper", "underscore", "too-long", "empty", "newline", "number", "no-name", "empty-key", "number-key",
        "owner-mode"])
def test_an_invalid_entry_is_skipped_with_a_warning(workspace: Workspace, caplog: pytest.LogCaptureFixture,
                                                    entry: dict[str, Any], reason: str) -> None:
    path = write(workspace, [{"key": KEY, **entry}, {"name": "ok-bot", "key": "k_other"}])
    assert [e.name for e in read_callers(path)] == ["ok-bot"]
    found = warnings(caplog)
    assert len(found) == 1 and reason in found[0] and str(path) in found[0], found


def test_a_name_of_40_characters_is_valid(workspace: Workspace) -> None:
    path = write(workspace, [{"name": "a" * 40, "key": KEY}])
    assert [e.name for e in read_callers(path)] == ["a" * 40]


def test_a_repeated_name_keeps_the_first_entry(workspace: Workspace, caplog: pytest.LogCaptureFixture) -> None:
    path = write(workspace, [{"name": "travel-bot", "key": KEY}, {"name": "travel-bot", "key": "k_second"}])
    assert read_callers(path) == [CallerEntry("travel-bot", KEY)]
    assert any("repeats the name 'travel-bot'" in w for w in warnings(caplog))


def test_no_warning_ever_shows_a_key(workspace: Workspace, caplog: pytest.LogCaptureFixture) -> None:
    keys = [f"k_secret_{n}_0123456789" for n in range(6)]
    path = write(workspace, [
        {"name": "Bad Name", "key": keys[0]}, {"name": "owner-bot", "key": keys[1], "mode": "owner"},
        {"name": "dup", "key": keys[2]}, {"name": "dup", "key": keys[3]}, "not an object",
        {"name": "fine", "key": keys[4]}, {"name": "no-key", "key": ""},
    ])
    entries = read_callers(path)
    text = "\n".join(warnings(caplog)) + "\n".join(repr(e) for e in entries)
    assert len(warnings(caplog)) == 5
    for key in keys:
        assert key not in text


def test_an_entry_repr_masks_the_key() -> None:
    assert repr(CallerEntry("travel-bot", KEY)) == "CallerEntry(name='travel-bot', key='…cdef', mode='isolated')"


# --- the directories: by stat on every call, and the index kept by the kernel's notifications ---


Directory = Callable[[Callable[[], Iterable[Workspace]]], CallerDirectory]


@pytest.fixture(params=["stat", "index"])
def directory_for(request: pytest.FixtureRequest) -> Iterator[Directory]:
    """Both directories answer alike: WorkspaceCallerDirectory (A2A__FileChanges=stat) and the CallerIndex."""
    if request.param == "stat":
        yield WorkspaceCallerDirectory
        return
    notes = Notifications()
    yield lambda workspaces: CallerIndex(workspaces, notes)
    notes.close()


def found(directory: CallerDirectory, key: str) -> list[Caller]:
    return asyncio.run(directory.find(key))


def test_the_directory_returns_every_match_across_workspaces(tmp_path: Path, directory_for: Directory) -> None:
    one, two = (Workspace(tmp_path / name, owner_id=name) for name in ("owner-1", "owner-2"))
    write(one, [{"name": "travel-bot", "key": KEY}, {"name": "other-bot", "key": "k_other"}])
    write(two, [{"name": "twin-bot", "key": KEY}])
    directory = directory_for(lambda: [one, two])
    # design deviation: Find returns every match, so an ambiguous key can be refused
    assert found(directory, KEY) == [Caller("travel-bot", "isolated", one), Caller("twin-bot", "isolated", two)]
    assert found(directory, "k_other") == [Caller("other-bot", "isolated", one)]
    assert found(directory, "k_unknown") == []


def test_the_same_key_twice_in_one_file_matches_twice(workspace: Workspace, directory_for: Directory) -> None:
    write(workspace, [{"name": "travel-bot", "key": KEY}, {"name": "travel-bot-2", "key": KEY}])
    assert [c.name for c in found(directory_for(lambda: [workspace]), KEY)] == ["travel-bot", "travel-bot-2"]


def test_keys_of_any_text_are_compared_whole(workspace: Workspace, directory_for: Directory) -> None:
    # compared as bytes in constant time: non-ASCII text, and even a lone surrogate from the JSON, compare as text
    write(workspace, [{"name": "accented-bot", "key": "k_clé"}, {"name": "odd-bot", "key": "k_\ud800"}])
    directory = directory_for(lambda: [workspace])
    assert [c.name for c in found(directory, "k_clé")] == ["accented-bot"]
    assert [c.name for c in found(directory, "k_\ud800")] == ["odd-bot"]
    assert found(directory, "k_cl") == [] and found(directory, "k_clé ") == []


def test_the_directory_sees_each_edit_on_the_next_call(workspace: Workspace, directory_for: Directory) -> None:
    directory = directory_for(lambda: [workspace])
    assert found(directory, KEY) == []
    for _ in range(20):  # each edit returns, then the lookup: no edit is missed, however close they come
        write(workspace, [{"name": "late-bot", "key": KEY}])
        assert [c.name for c in found(directory, KEY)] == ["late-bot"]
        write(workspace, [])
        assert found(directory, KEY) == []


def test_the_directory_asks_for_the_workspaces_on_every_call(tmp_path: Path, directory_for: Directory) -> None:
    served: list[Workspace] = []
    directory = directory_for(lambda: list(served))
    workspace = Workspace(tmp_path / "owner-1", owner_id="owner-1")
    write(workspace, [{"name": "travel-bot", "key": KEY}])
    assert found(directory, KEY) == []
    served.append(workspace)
    assert [c.owner_id for c in found(directory, KEY)] == ["owner-1"]
    served.clear()
    assert found(directory, KEY) == []


def test_an_undecodable_file_means_no_callers_and_a_warning(workspace: Workspace, directory_for: Directory,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    path = write(workspace, "[]")
    path.write_bytes(b'[{"name": "bot", "key": "k_\xff"}]')
    assert found(directory_for(lambda: [workspace]), "k_\udcff") == []
    assert any(str(path) in w and "not UTF-8" in w for w in warnings(caplog)), warnings(caplog)


def test_check_callers_says_what_is_wrong_without_a_key(workspace: Workspace) -> None:
    path = write(workspace, [{"name": "ok-bot", "key": KEY}, {"name": "Bad Name", "key": KEY}, "x",
                             {"name": "ok-bot", "key": KEY + "2"}])
    checked = check_callers(path)
    assert [e.name for e in checked.entries] == ["ok-bot"]
    assert checked.problems == [
        f"callers file {path}: entry 1 has no valid name (expected [a-z0-9-]{{1,40}}); skipped",
        f"callers file {path}: entry 2 is not an object; skipped",
        f"callers file {path}: entry 3 repeats the name 'ok-bot'; skipped",
    ]


@pytest.mark.parametrize(("key", "shown"), [(KEY, "…cdef"), ("k_0123456789", "…6789"), ("short-key", "…"), ("", "…")])
def test_a_masked_key_shows_at_most_its_last_four_characters(key: str, shown: str) -> None:
    assert masked_key(key) == shown
