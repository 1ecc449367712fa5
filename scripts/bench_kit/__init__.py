"""Helpers for scripts/bench.py (load tools, server processes); the peers and our wrapper run as scripts."""
