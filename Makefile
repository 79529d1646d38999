# The one command list. Every target sets itself up: a virtual environment
# with the pinned Python packages (constraints.txt) and KaTeX from the npm
# registry (package-lock.json). A machine with python3, make and node/npm
# needs nothing else.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY_STAMP  := $(VENV)/.installed
NPM_STAMP := node_modules/.installed

.PHONY: help setup browser serve site site-properdocs pdf test test-exhaustive test-all test-properdocs quick lint bench clean

help:
	@echo "make serve  set up, then serve the Japanese book at http://127.0.0.1:8000 (live reload)"
	@echo "make test   set up, then run the tests: every kind of check, on a sample of pages"
	@echo "make test-exhaustive  what make test leaves out: every page, every edition, every PDF"
	@echo "make test-all         both tiers in one run"
	@echo "make quick  the quick tier while working: package, examples, pages' sources"
	@echo "make site   set up, then build every language into site/"
	@echo "make pdf    make site, then a PDF of each edition: site/<language>/attention-<language>.pdf"
	@echo "make site-properdocs / test-properdocs  the site built by ProperDocs, and the site tests on it"
	@echo "make bench  set up, then measure build, pages and the package (bench/results.json)"
	@echo "make lint   ruff over the code; textlint and zhlint over the pages (lint/)"
	@echo "make clean  remove site/, the virtual environment and node_modules/"

$(PY_STAMP): pyproject.toml tools/pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PIP_CONSTRAINT=constraints.txt $(BIN)/python -m pip install --quiet \
		--editable ".[plot,test,lint,crosscheck]" --editable ./tools
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
# the PDFs (stages/book.py), so that `make site` never ships a link to a file
# it lacks; a target-specific variable reaches the prerequisites too.
pdf: export BOOK_PDF := 1
pdf: site browser
	$(BIN)/python scripts/build_pdf.py site

# The tests, on every core (pytest-xdist): the workers share one site
# build; the tests that share a browser sweep or a costly fixture run in one
# worker (--dist loadscope, xdist_group marks). Three tiers:
# - make test: every kind of check at representative breadth (the package,
#   the examples, every page's sources and built HTML, the browser checks on
#   a sample of pages that covers every component in both hand-written
#   editions, the Japanese PDF); the signal on every push.
# - make test-exhaustive: what the first leaves out (marker `exhaustive`):
#   every page of every edition in the browser, the Simplified edition's
#   browser checks, both Chinese editions' copies of per-edition examples
#   (the Japanese copy's code), the other PDFs, the screenshots. .ci/run
#   runs both.
# - make test-all: both in one run.
# Each run keeps its durations and a JUnit report in test-artifacts/.
PYTEST_WORKERS ?= auto
PYTEST_ARGS ?=
PYTEST := $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadscope --durations=25

test: setup browser
	$(PYTEST) -m "not exhaustive" --junitxml=test-artifacts/junit-test.xml $(PYTEST_ARGS)

test-exhaustive: setup browser
	$(PYTEST) -m exhaustive --junitxml=test-artifacts/junit-exhaustive.xml $(PYTEST_ARGS)

test-all: setup browser
	$(PYTEST) --junitxml=test-artifacts/junit-all.xml $(PYTEST_ARGS)

# The loop to run while working: no site build, no browser, and not what is
# marked slow (the prose linters, the figures' contrast, the per-edition
# examples that run the trained language models: make test runs them).
quick: setup
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadscope -m "not site and not browser and not slow"

bench: setup browser
	$(BIN)/python scripts/bench.py

lint: setup
	$(BIN)/ruff check src tools tests scripts docs_src conftest.py
	$(BIN)/ruff format --check src tools tests scripts docs_src conftest.py
	$(BIN)/python -m attention_book.prose_lint

clean:
	rm -rf site $(VENV) node_modules .cache
