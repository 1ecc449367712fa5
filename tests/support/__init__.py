"""Test support of the design's own scenarios and tools: the mutants and their proxy, the fake Telegram, the kernel."""
