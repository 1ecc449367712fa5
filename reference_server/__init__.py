"""The Python reference server for the A2A (Agent2Agent) protocol, 1.0 with 0.3 compatibility."""

__version__ = "1.0.0a1"  # as pyproject.toml says
