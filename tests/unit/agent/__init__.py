"""Unit tests of the agent core, one module per module of reference_server/agent."""
