"""Plain values, importing nothing of the server's: the A2A model (types.py) with the server's own values beside it,
the error tree (errors.py), who calls (caller.py) and where a workspace's files are (layout.py)."""
