"""An ACTS runner (the A2A Conformance Test Specification, draft 0.1.0): reads the vendored corpus in spec/acts and
runs it against a server over JSON-RPC and HTTP+JSON. scripts/acts_run.py is the command; the modules:

- paths: dot paths with [n] and [*], and the MISSING sentinel (ACTS §5.2)
- template: {{...}} variables, captures and step responses (§8, §12.2)
- assertions: the assertion grammar (§5.1, §5.4) on one value
- streams: expect_stream (§7): counts, events, final_event, each_event, monotonic_state
- corpus: loading the manifest and its includes, the passes, what each test writes that is not the grammar
- wire: the abstract operations on each binding (§4.1), errors in A2A terms (A2A §5.4), SSE
- target: the card, its interfaces, preconditions (§3.3, §12.5)
- execute: what a test needs before it runs, requests of steps, repeat (§9)
- evaluate: expect / expect_error / expect_stream and the named assertions on an exchange
- runtest: one test start to verdict, and the table of runner-special tests the runner executes
- special, special_auth: those runner-special hooks (headers, schema, two streams, resubscribe, push deliveries,
  a second caller, requests without a key)
- receiver: the runner's webhook endpoint on 127.0.0.1
- known: where a test contradicts A2A v1.0.1 (for the reader of a failure)
- report: the console lines, totals and the JSON report (§13)
"""
