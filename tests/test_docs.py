"""The docs tell the truth: every setting is documented with its variable, flag and form."""

from __future__ import annotations

import json
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


def test_the_configuration_doc_lists_everything_the_hybrid_card_adds() -> None:
    import re

    from reference_server.bindings.card import build_card, public_details
    from reference_server.settings import Settings

    plain = build_card(public_details(Settings()), "http://h", Settings())
    hybrid = build_card(public_details(Settings()), "http://h", Settings(hybrid_card=True))
    added = {name for name in hybrid if plain.get(name) != hybrid[name]} - {"securitySchemes"}
    section = CONFIGURATION[CONFIGURATION.index("- `Card__Hybrid`"):]
    section = section[:section.index("\n- `", 1)]
    listed = set(re.findall(r"^  \| `(\w+)` \|", section, re.M))
    assert listed == added
    for scheme, fields in hybrid["securitySchemes"].items():
        for name, value in fields.items():
            if name not in plain["securitySchemes"][scheme]:
                assert f'"{name}": {json.dumps(value)}' in section, (scheme, name)
