"""Bindings: translate JSON-RPC and HTTP+JSON to service calls and back."""
