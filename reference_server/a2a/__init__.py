"""The A2A service, free of transports and of the disk: sending, the runs, their broadcast, push configs, the prompt,
the catalogue of operations, and the ports (ports.py) through which it reaches sessions, stores and the owner."""
