"""The portable features (spec/features/a2a/) bound to pytest-bdd, for a run from an installed package (run.py);
the repository's own run binds every feature in tests/features/test_spec.py."""

from pytest_bdd import scenarios

scenarios("a2a")
