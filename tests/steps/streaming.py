"""Steps about streaming."""
