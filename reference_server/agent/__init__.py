"""The small agent core: sessions, providers, tools, event bus and session pool (design README)."""
