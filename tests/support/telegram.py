"""The fake Telegram Bot API of scripts/fake_telegram.py (the one docs/owner-host.md runs), for the tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fake_telegram.py"


def _load() -> Any:
    """The script imported as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("fake_telegram", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


fake_telegram = sys.modules.get("fake_telegram") or _load()
FakeTelegram = fake_telegram.FakeTelegram
