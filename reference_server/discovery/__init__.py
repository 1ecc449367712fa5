"""Discovery: the public agent card and the per-caller extended card."""
