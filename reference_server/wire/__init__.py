"""Wire codecs: A2A 1.0 ProtoJSON (v1), A2A 0.3 JSON-RPC shapes (v03), and RFC 3339 timestamps."""
