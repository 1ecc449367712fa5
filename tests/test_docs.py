"""The docs tell the truth: every setting is documented with its variable, flag and form."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_server.settings import KEYS

ROOT = Path(__file__).resolve().parents[1]
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text()


@pytest.mark.parametrize("key", KEYS, ids=lambda k: k.env)
def test_every_setting_is_in_the_configuration_doc(key: object) -> None:
    row = f"| `A2A__{key.env}` | `{key.flag}` |"  # type: ignore[attr-defined]
    assert row in CONFIGURATION, f"docs/configuration.md has no row for {row}"
    line = next(line for line in CONFIGURATION.splitlines() if line.startswith(row))
    assert key.form in line, f"the row of A2A__{key.env} does not give the form {key.form!r}"  # type: ignore[attr-defined]


def test_the_configuration_doc_shows_the_real_error_message() -> None:
    from reference_server.settings import SettingsError, load_settings

    with pytest.raises(SettingsError) as raised:
        load_settings({"A2A__MaxHops": "many"})
    assert f"reference-server: {raised.value}" in CONFIGURATION
