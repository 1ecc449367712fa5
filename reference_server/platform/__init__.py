"""The platform: what the server needs of the operating system and the runtime, kept apart from A2A. The disk off
the event loop (disk), file changes (changes, inotify), the one guarded outbound HTTP client and the addresses it may
reach (outbound, addresses), and the runtime's tuning: the C heap (heap), the garbage collector (collector) and the
back lane for work that can wait (lane). Nothing here imports the rest of the package but its settings."""
