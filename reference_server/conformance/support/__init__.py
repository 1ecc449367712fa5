"""What the steps stand on: the binding-agnostic client, schema validation, discovery of another server, a live
reference server."""
