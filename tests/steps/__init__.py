"""Step definitions of the executable spec, grouped by capability."""
