"""A workspace on disk: its layout (every .volcanic path), the task files with their listing, the callers and their
index, the inbox of fetched files, and the sweep of what a crash left behind."""
