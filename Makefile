# The two commands a new user needs: `make run` and `make test` (see README.md).
# Both are idempotent: they install what is missing into .venv, then do their job.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install system-deps run test lint typecheck unit e2e bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[all,dev]'
	touch $(STAMP)

install: $(STAMP)

# Debian packages the tests use: Chromium for the browser tests, PostgreSQL for storage tests.
system-deps:
	@if ! command -v chromium >/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q chromium postgresql; \
	fi

run: install
	$(BIN)/omega serve

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src

test: install system-deps lint
	$(BIN)/python -m pytest -q

# Parts of the suite, for a quicker loop while working.
unit: install
	$(BIN)/python -m pytest -q --ignore=tests/e2e

e2e: install system-deps
	$(BIN)/python -m pytest -q tests/e2e

bench: install
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) data .pytest_cache
