"""The A2A model (types.py), the error tree (errors.py) and who calls (caller.py): plain values, importing nothing of
the server's but the workspace layout's names."""
