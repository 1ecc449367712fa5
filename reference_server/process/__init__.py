"""The server process: the composition root (app.py), uvicorn's serving (serving.py) and the console (console.py)."""
