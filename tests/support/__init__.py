"""Test support: the live server, the binding-agnostic client, schema validation, other targets."""
