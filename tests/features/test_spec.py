"""Binds every feature under spec/features/ to pytest-bdd."""

from pytest_bdd import scenarios

scenarios(".")
