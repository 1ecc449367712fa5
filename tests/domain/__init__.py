"""Unit tests of the domain, one module per module of reference_server/domain (and settings)."""
