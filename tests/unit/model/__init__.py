"""Unit tests of reference_server/model/."""
