"""Unit tests of reference_server/a2a/: the service's broadcast, runs and prompt."""
