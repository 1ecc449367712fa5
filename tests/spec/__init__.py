"""Tests of the JSON Schemas and of the spec itself."""
