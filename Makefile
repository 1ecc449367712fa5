# The A2A reference server. `make serve` and `make test` install what they need first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install serve test conformance schemas lint bench fuzz clean client-check

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install the server with its test dependencies

serve: $(STAMP)  ## serve the embedded demo workspace on 127.0.0.1:8080 (prints the demo key)
	$(VENV)/bin/reference-server $(ARGS)

test: $(STAMP)  ## lint and type-check, then every test: unit tests, the executable spec on both bindings, interop
	$(PY) -m ruff check reference_server tests scripts
	$(PY) -m mypy --strict reference_server
	$(PY) -m pytest -q

conformance: $(STAMP)  ## run spec/features and print the result per feature and per design test
	$(PY) scripts/conformance.py $(ARGS)

client-check: $(STAMP)  ## run CLIENT='<command>' against a fresh recording server; print its report (docs/client-testing.md)
	$(PY) scripts/client_check.py $(ARGS)

schemas: $(STAMP)  ## regenerate spec/schemas/a2a-v1.json and a2a-v0.3-proto.json from spec/proto/
	$(PY) scripts/gen_schemas.py

lint: $(STAMP)
	$(PY) -m ruff check reference_server tests scripts
	$(PY) -m mypy --strict reference_server

clean:
	rm -rf $(VENV) reports

fuzz: $(STAMP)  ## 10,000 new hostile requests on both bindings and versions; prints the counts (make test runs 1,000)
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-10000} FUZZ_RANDOM=1 $(PY) -m pytest -q -s tests/fuzz

bench: $(STAMP)  ## latency and throughput against a server on loopback (timing goals live here, never in tests)
	$(PY) scripts/bench.py $(ARGS)
