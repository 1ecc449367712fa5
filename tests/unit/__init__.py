"""Unit tests, one folder per folder of reference_server/ (the executable spec is in tests/features)."""
