# The A2A reference server. `make serve` and `make test` install what they need first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SERVE_STAMP := $(VENV)/.installed-serve
COMMAND := $(VENV)/bin/reference-server
JS_CLIENT := tests/interop/js
JS_STAMP := $(JS_CLIENT)/node_modules/.installed

.PHONY: install js serve test conformance conformance-mutants conformance-peers schemas lint bench fuzz fuzz-peers clean client-check probe-memory

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP) $(SERVE_STAMP)

# serving needs the server's own dependencies only, not the test stack (make test installs that)
$(SERVE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e .
	touch $(SERVE_STAMP)

install: $(STAMP)  ## create .venv and install the server with its test dependencies

# the @a2a-js/sdk client that tests/interop/test_js_sdk.py drives, pinned by its package-lock.json;
# node_modules stays between runs and is reinstalled only when the lock file changes
$(JS_STAMP): $(JS_CLIENT)/package-lock.json
	@if command -v npm >/dev/null; then \
		cd $(JS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else echo "npm is not installed: the JS SDK interop tests will be skipped"; fi

js: $(JS_STAMP)  ## install the @a2a-js/sdk client of the interop tests (npm ci in tests/interop/js)

serve: $(SERVE_STAMP)  ## serve the embedded demo workspace on 127.0.0.1:8080 (prints the demo key); another port: ARGS='--port 9000'
	$(VENV)/bin/reference-server $(ARGS)

test: $(STAMP) $(JS_STAMP)  ## lint and type-check, then every test: unit tests, the executable spec on both bindings, interop
	$(PY) -m ruff check reference_server tests scripts
	$(PY) -m mypy --strict reference_server
	$(PY) -m pytest -q

# make turns any failing recipe into its own exit status 2: the recipes that document their own statuses say which
# one they got; run the command itself (.venv/bin/reference-server conformance) where the status matters
conformance: $(STAMP)  ## run spec/features (A2A_TARGET_URL: another server's portable ones) and print the result per requirement, feature and design test; pytest's arguments in ARGS='-- -k card'
	@$(COMMAND) conformance $(ARGS) || { status=$$?; echo "reference-server conformance exited with $$status (1: a MUST failed, 2: usage, 3: the run could not run); make reports any failure as 2"; exit $$status; }

conformance-mutants: $(STAMP)  ## the portable suite against the known defects of tests/support/mutants.py, put in front of this server by a rewriting proxy; writes the table to docs/conformance.md
	@$(PY) scripts/conformance_mutants.py $(ARGS) || { status=$$?; echo "scripts/conformance_mutants.py exited with $$status (1: a mutant was missed or caught imprecisely, 3: the baseline failed)"; exit $$status; }

conformance-peers: $(STAMP)  ## the portable suite against this server, the a2a-sdk and @a2a-js/sdk TCK agents, an a2a-sdk echo agent, fasta2a and @voltagent/a2a-server; writes docs/conformance.md
	$(PY) scripts/conformance_peers.py $(ARGS)

# CLIENT reaches the script as written: $(value) keeps make from expanding its $A2A_URL (as $A plus "2A_URL"), and
# the single quotes inside it are escaped for the shell; the command's own shell expands $A2A_URL and $A2A_KEY
unexport CLIENT
client-check: $(STAMP)  ## run CLIENT='<command>' against a fresh recording server; print its report (docs/client-testing.md)
	@$(COMMAND) client-check --command '$(subst ','\'',$(value CLIENT))' $(ARGS) || { status=$$?; echo "reference-server client-check exited with $$status (1: violations, 2: the command failed, 3: the server did not start); make reports any failure as 2"; exit $$status; }

schemas: $(STAMP)  ## regenerate spec/schemas/a2a-v1.json and a2a-v0.3-proto.json from spec/proto/
	$(PY) scripts/gen_schemas.py

lint: $(STAMP)
	$(PY) -m ruff check reference_server tests scripts
	$(PY) -m mypy --strict reference_server

clean:
	rm -rf $(VENV) reports .cache $(JS_CLIENT)/node_modules

fuzz: $(STAMP)  ## 10,000 new hostile requests on both bindings and versions (A2A_TARGET_URL: against another server, with a report by rule)
	@if [ -n "$$A2A_TARGET_URL" ]; then \
		$(PY) scripts/robustness.py $(ARGS) || { status=$$?; echo "scripts/robustness.py exited with $$status (1: findings, 3: the run could not run); make reports any failure as 2"; exit $$status; }; \
	else \
		FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-10000} FUZZ_RANDOM=1 $(PY) -m pytest -q -s tests/fuzz; \
	fi

fuzz-peers: $(STAMP)  ## the robustness run against the servers of conformance-peers; writes docs/robustness.md
	$(PY) scripts/robustness_peers.py $(ARGS)

probe-memory: $(STAMP)  ## what a gzip bomb, 20 readers and 20 non-readers of a 4 MB echo cost the server in memory
	$(PY) scripts/probe_memory.py $(ARGS)

bench: $(STAMP)  ## latency and throughput against a server on loopback (timing goals live here, never in tests)
	$(PY) scripts/bench.py $(ARGS)
