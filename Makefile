# The only commands a newcomer needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
PROJECTS := pyproject.toml core/pyproject.toml leaves/pyproject.toml interpreters/pyproject.toml

.PHONY: demo test check typetest unit bench security properties clean sandbox-tools verifytypes \
	screenshot

$(STAMP): $(PROJECTS)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ./core -e ./leaves -e ./interpreters -e '.[dev]'
	touch $@

demo: $(STAMP)
	$(VENV)/bin/toolfx demo

check: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(PY) -m pytest -p no:cacheprovider tests/architecture

typetest: $(STAMP)
	$(PY) -m pytest tests/typesafety

unit: $(STAMP)
	$(PY) -m pytest --ignore=tests/typesafety --ignore=tests/architecture

# bubblewrap for the sandbox tests: installed when missing and apt-get is there (CI runs as
# root on Debian/Ubuntu); elsewhere the bwrap tests skip, saying bubblewrap is not available.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { command -v apt-get >/dev/null 2>&1 \
		&& { apt-get update -qq && apt-get install -y -qq bubblewrap; } \
		|| echo "bubblewrap is not installed and apt-get is not available: bwrap tests skip"; }

test: sandbox-tools check unit typetest verifytypes

security: $(STAMP)
	TOOLFX_SECURITY_ATTEMPTS=1000 TOOLFX_SECURITY_REPORT=1 $(PY) -m pytest tests/security

# Every hypothesis property at 10,000 examples (the `properties` profile; CI runs 300): long.
# One file: make properties PROPERTIES=tests/properties/test_fault_properties.py
PROPERTIES ?= tests/properties
properties: $(STAMP)
	TOOLFX_HYPOTHESIS_PROFILE=properties $(PY) -m pytest $(PROPERTIES)

# pyright's type completeness of each distribution's public surface (and the toolfx.testing kit) (--ignoreexternal: what
# returns, mcp and pydantic leave unknown is theirs). The three `toolfx` folders are one
# namespace package, which --verifytypes cannot follow across editable installs: it reads them
# through a temporary folder (outside the project, where pyright scores it as an installed
# package) that links all three under one `toolfx/`.
verifytypes: $(STAMP)
	root=$$(mktemp -d) && mkdir $$root/toolfx && status=0 && \
	for p in core leaves interpreters; do ln -s $(CURDIR)/$$p/src/toolfx/$$p $$root/toolfx/$$p; done && \
	ln -s $(CURDIR)/interpreters/src/toolfx/testing $$root/toolfx/testing && \
	for p in core leaves interpreters testing; do \
		PYRIGHT_PYTHON_IGNORE_WARNINGS=1 PYTHONPATH=$$root $(VENV)/bin/pyright --pythonpath $(CURDIR)/$(PY) \
			--verifytypes toolfx.$$p --ignoreexternal || status=1; done; \
	rm -rf $$root; exit $$status

# The README's picture of the demo (docs/demo.svg); tests/cli/test_screenshot.py checks it.
screenshot: $(STAMP)
	$(PY) -m tests.screenshot

bench: $(STAMP)
	$(PY) -m tests.bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
