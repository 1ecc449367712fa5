"""Client conformance: record every exchange per caller, check each request against its version's rules, report."""
