# The two commands of README: `make run` and `make test`.
# Each creates .venv when missing and (re)installs requirements when they change.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501

.PHONY: run test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime-installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime-installed

run: $(VENV)/.runtime-installed
	$(BIN)/streamlit run app.py --server.port $(PORT)

test: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(VENV)/.runtime-installed
	$(BIN)/python bench/core.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis test-artifacts
