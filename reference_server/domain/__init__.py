"""The transport-free domain: model, errors, callers, tasks, the A2A service."""
