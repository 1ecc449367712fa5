"""Where the spec's files are: spec/ of a checkout (an editable install), or the copy of it inside the package that
a wheel carries (setup.py copies spec/schemas, spec/features and spec/requirements.toml at build). The schema check,
the portable conformance suite and its pages read them from here."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
_PACKAGED = PACKAGE / "spec"
# a wheel: the package holds spec/; a checkout: the repository does, beside the package
SPEC_ROOT = PACKAGE if (_PACKAGED / "schemas" / "a2a-v1.json").is_file() else PACKAGE.parent
SPEC = SPEC_ROOT / "spec"
SCHEMAS = SPEC / "schemas"
FEATURES = SPEC / "features"
REQUIREMENTS = SPEC / "requirements.toml"
