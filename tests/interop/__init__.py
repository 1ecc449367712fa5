"""Official A2A SDK clients driving a live reference server (pytest -m interop)."""
