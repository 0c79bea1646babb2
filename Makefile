# The two commands of a fresh machine. Each creates .venv/ and installs first (once; again when
# requirements.txt or pyproject.toml change).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: book test clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

## make book [DATA=my_scores.csv [OPTIONS="--leaderboard NAME --level tasks --lower-is-better X"]]: execute every
## chapter (cached), render _build/html and the student edition _build/student/html; with DATA, every chapter that
## applies runs on your file into _build/yours, read with OPTIONS (the reading options of blindspot analyze)
book: $(STAMP)
	$(PY) -m blindspot book $(if $(DATA),--data $(DATA) $(OPTIONS),--student)

## make test: lint (ruff; the chapters' code formatted to the book's 88 columns), the import layers (lint-imports),
## the chapters' measures (code, plumbing, reader steps, long cells, glue calls: blindspot.book.chapter_metrics),
## the doctests of the public API's modules, the unit and property tests (side by side on every core, one math thread
## each; tests/test_public_api_docs.py runs numpydoc's validation over every exported name), then the tests that build
## the book in quick mode and open it in a browser (the build runs its chapters side by side itself)
DOCTESTS := support/dkps support/blindspot/__init__.py support/blindspot/report/analyze.py support/blindspot/report/compare.py
test: $(STAMP)
	$(VENV)/bin/ruff check support tests benchmarks
	$(VENV)/bin/ruff format --check support tests benchmarks
	$(PY) -m blindspot.book.notebook_format --check notebooks/*.md book/templates/chapter.md
	$(VENV)/bin/lint-imports
	$(PY) -m blindspot.book.chapter_metrics
	$(PY) -m pytest --doctest-modules -q $(DOCTESTS)
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} OPENBLAS_NUM_THREADS=$${OPENBLAS_NUM_THREADS:-1} \
	  MKL_NUM_THREADS=$${MKL_NUM_THREADS:-1} $(PY) -m pytest -m "not pipeline" -n auto
	$(PY) -m pytest -m pipeline

clean:
	rm -rf _build book/chapters
