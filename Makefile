# The two commands a new user needs: `make run` and `make test` (see README.md).
# Both are idempotent: they install what is missing into .venv, then do their job.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
NODE_STAMP := node_modules/.installed-stamp
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install system-deps kernels bytecode checks run test quick lint typecheck jscheck jstest unit e2e bench fuzz clean i18n

# uv installs the same releases pip would, bytecode compiled, in about 15 s where pip took 35.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q uv
	$(BIN)/python -m uv pip install -q --compile-bytecode --python $(BIN)/python -e '.[all,dev]'
	touch $(STAMP)

install: $(STAMP)

# The page's type checker (TypeScript from npm); the page itself is served as written.
$(NODE_STAMP): package.json package-lock.json | system-deps
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

# Debian packages the tests use: Chromium for the browser tests (its headless build for
# most, the full browser where a test needs notifications), PostgreSQL for storage tests,
# Node.js and npm for the page's type check and its Node tests, nginx and systemd-analyze for
# the deployment test (docs/deploy.md). Only missing ones are installed.
system-deps:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v chromium-headless-shell >/dev/null || missing="$$missing chromium-headless-shell"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	test -x /usr/sbin/nginx || missing="$$missing nginx"; \
	command -v systemd-analyze >/dev/null || missing="$$missing systemd"; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi

run: install
	$(BIN)/omega serve

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src

# pytest runs on TEST_WORKERS processes (pytest-xdist). Most tests wait on servers, browsers
# and PostgreSQL rather than compute, so more workers than cores pays. `--dist loadscope`
# keeps each module's tests on one worker, so a module's server and browser (module fixtures:
# tests/e2e, tests/server/test_site_workers.py) start once; each worker has its own
# PostgreSQL cluster and temporary directories.  (Not `loadgroup`: with pytest 9 its groups
# are lost, as pytest-xdist 3.8 renames a test where pytest no longer reads the name.)
TEST_WORKERS ?= 4
# PYTHONDONTWRITEBYTECODE emptied: with it set, pytest keeps no cache of the test modules it
# rewrites (their asserts), and every worker of every run rewrote them all (about 5 s of CPU
# a worker; from the cache a later run's collection takes half the time). Collecting them
# once before the workers start cost the checks what it saved the workers, so a fresh clone's
# first run still rewrites them in each worker.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadscope

# Numba's compiled search kernels, written to its cache once before the tests' processes
# start: a fresh clone's workers and servers would otherwise each compile them at once.
kernels: install
	$(BIN)/python -c "import omega.ai; omega.ai.load_kernels()"

# The project's own bytecode, written once: where PYTHONDONTWRITEBYTECODE is set (the
# development machine sets it) no process writes it, and each of the tests' servers, workers
# and commands would compile every module it imports again (about 0.3 s of CPU a start).
bytecode: install
	$(BIN)/python -m compileall -q src

# The checks before the tests: side by side (mypy, the kernels' compilation and the page's
# checks each keep one core busy for seconds on a fresh clone).
checks: install system-deps $(NODE_STAMP)
	$(MAKE) --no-print-directory -j3 lint jscheck jstest kernels bytecode

# Every test, the slow ones included.
test: checks
	$(PYTEST)

# For a quicker loop while working: the same checks and tests less those marked slow
# (`@pytest.mark.slow`: whole games against the computer, the browser's longest stories,
# the deployment test), which `make test` still runs.
quick: checks
	$(PYTEST) -m "not slow"

# The page's modules: JSDoc types checked by tsc, the pure ones tested in Node.  The
# service worker is checked on its own: it runs in a worker, with another global scope.
jscheck: $(NODE_STAMP)
	node_modules/.bin/tsc -p jsconfig.json
	node_modules/.bin/tsc -p jsconfig.sw.json

jstest: system-deps
	node --test tests/js/*.test.js

# Parts of the suite, for a quicker loop while working.
unit: install kernels
	$(PYTEST) --ignore=tests/e2e

e2e: install system-deps $(NODE_STAMP) kernels
	$(PYTEST) tests/e2e

bench: install
	$(BIN)/python bench/run.py

# The server's fuzz suite, run over and over for FUZZ_SECONDS (default 300); it prints the
# runs, steps and failures at the end, each failing sequence as it is found, and fails if
# any was. `make test` runs a short profile of it.
FUZZ_SECONDS ?= 300
fuzz: install
	FUZZ_SECONDS=$(FUZZ_SECONDS) $(BIN)/python -m pytest -q -s tests/server/test_fuzz.py

clean:
	rm -rf $(VENV) data .pytest_cache

# The message catalogs (src/omega/locale) from the sentences the sources mark: _() and N_()
# in Python, t() in the page (docs/web.md, Languages). Rerun after adding or changing one.
i18n: install
	$(BIN)/python -m omega.catalogs
