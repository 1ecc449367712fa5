"""The portable conformance suite, inside the package: `reference-server conformance URL` (run.py) runs
spec/features/a2a/ against any A2A server through the pytest plugin (plugin.py), its step definitions (steps/) and
their support (support/: the binding-agnostic client, schema checks, discovery of another server), and writes the
requirement view (by_requirement.py, over catalogue.py's spec/requirements.toml) and the living page
(living_page.py). The repository's own test run uses the same plugin, with the design's steps beside it."""
