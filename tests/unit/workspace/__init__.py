"""Unit tests of reference_server/workspace/."""
