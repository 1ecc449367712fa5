"""The Python reference server for the A2A (Agent2Agent) protocol, 1.0 with 0.3 compatibility."""

__version__ = "1.0.0a2"  # A2A 1.0 and 0.3; the wheel carries the portable conformance suite (pyproject reads it here)
