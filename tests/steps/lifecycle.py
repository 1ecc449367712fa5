"""Steps about lifecycle."""
