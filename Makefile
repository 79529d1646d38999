# The one command list. Every target sets itself up: a virtual environment
# with the pinned Python packages (constraints.txt) and KaTeX from the npm
# registry (package-lock.json). A machine with python3, make and node/npm
# needs nothing else.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY_STAMP  := $(VENV)/.installed
NPM_STAMP := node_modules/.installed

.PHONY: help setup browser serve site site-properdocs pdf test test-properdocs quick lint bench clean

help:
	@echo "make serve  set up, then serve the Japanese book at http://127.0.0.1:8000 (live reload)"
	@echo "make test   set up, then run every test (package, examples, pages, built site)"
	@echo "make quick  the quick tier while working: package, examples, pages' sources"
	@echo "make site   set up, then build every language into site/"
	@echo "make pdf    make site, then a PDF of each edition: site/<language>/attention-<language>.pdf"
	@echo "make site-properdocs / test-properdocs  the site built by ProperDocs, and the site tests on it"
	@echo "make bench  set up, then measure build, pages and the package (bench/results.json)"
	@echo "make lint   ruff over the code; textlint and zhlint over the pages (lint/)"
	@echo "make clean  remove site/, the virtual environment and node_modules/"

$(PY_STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PIP_CONSTRAINT=constraints.txt $(BIN)/python -m pip install --quiet \
		--editable ".[plot,test,docs,lint,crosscheck,properdocs]"
	@touch $@

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

setup: $(PY_STAMP) $(NPM_STAMP)

# Chromium and CJK fonts for the browser tests, from Debian's packages.
browser:
	@scripts/ensure_browser.sh

serve: setup
	$(BIN)/mkdocs serve --strict --config-file mkdocs.yml --dev-addr 127.0.0.1:8000

site: setup
	$(BIN)/python scripts/build_site.py site

# The same site built by ProperDocs, the maintained fork of MkDocs 1.6
# (decisions/0001-platform.md), and the site's static tests on that build.
site-properdocs: setup
	BOOK_BUILDER=properdocs $(BIN)/python scripts/build_site.py site-properdocs

test-properdocs: setup
	BOOK_BUILDER=properdocs $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadscope \
		tests/site --ignore=tests/site/test_pdf.py

# A PDF of each edition, printed by Chromium (scripts/build_pdf.py), beside
# the edition's pages, which link it. Only a site built with BOOK_PDF=1 links
# the PDFs (hooks/book.py), so that `make site` never ships a link to a file
# it lacks; a target-specific variable reaches the prerequisites too.
pdf: export BOOK_PDF := 1
pdf: site browser
	$(BIN)/python scripts/build_pdf.py site

# Every test, on every core (pytest-xdist): the workers share one site
# build; the tests that share a browser sweep or a costly fixture run in one
# worker (--dist loadscope, xdist_group marks).
PYTEST_WORKERS ?= auto
PYTEST_ARGS ?=

test: setup browser
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadscope $(PYTEST_ARGS)

# The loop to run while working: no site build, no browser (under a minute).
quick: setup
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadscope -m "not site and not browser"

bench: setup browser
	$(BIN)/python scripts/bench.py

lint: setup
	$(BIN)/ruff check src tests scripts hooks conftest.py
	$(BIN)/ruff format --check src tests scripts hooks conftest.py
	$(BIN)/python -m attention_book.prose_lint

clean:
	rm -rf site $(VENV) node_modules .cache
