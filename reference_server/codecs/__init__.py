"""Wire codecs: A2A 1.0 ProtoJSON (v1), A2A 0.3 JSON-RPC and HTTP+JSON shapes (v03, v03_rest), the task file,
field readers and RFC 3339 timestamps."""
