"""The owner host's features: the owners file and the watches of the push receiver."""
