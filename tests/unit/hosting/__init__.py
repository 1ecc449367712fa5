"""Unit tests of reference_server/hosting/."""
