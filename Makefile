# The two commands of README: `make run` and `make test`.
# Each creates .venv when missing and (re)installs requirements when they change.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501
# pytest-xdist workers for `make test` (auto: one per core); JOBS=0 runs in one process.
JOBS ?= auto

.PHONY: run test lint bench bench-latency bench-load bench-failover bench-stalled bench-weight bench-classroom soak clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime-installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

# pip byte-compiles what it installs, about half of its CPU time there; --no-compile would not
# save it. Where PYTHONDONTWRITEBYTECODE=1 is set (as on this project's machines) no later import
# writes bytecode either, so each test worker and server would compile its imports anew:
# Streamlit, Plotly, pandas and the test tools took 4.9 s of CPU to import that way, 1.7 s compiled.
$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime-installed

# Streamlit's frontend files in brotli and gzip, once per install (relpos/static/weight.py serves
# them from data/cache; a server without them compresses each on its first request instead),
# with its Plotly chunk trimmed and its icon font subset (made at a server's start otherwise).
$(VENV)/.precompressed: $(VENV)/.runtime-installed relpos/server/frontend.py relpos/static/weight.py \
		relpos/static/plotly_trim.py relpos/static/icon_font.py
	$(BIN)/python -m relpos.server.frontend
	touch $@

run: $(VENV)/.runtime-installed $(VENV)/.precompressed
	$(BIN)/streamlit run app.py --server.port $(PORT)

test: $(VENV)/.dev-installed $(VENV)/.precompressed
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n $(JOBS) --dist loadscope --no-loadscope-reorder

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(VENV)/.runtime-installed
	$(BIN)/python bench/core.py

# Real-browser interaction latency against the bare-Streamlit floor (needs Chromium).
bench-latency: $(VENV)/.dev-installed
	$(BIN)/python bench/latency.py

# A live class on one server (SQLite): a browser teacher, 60 students' joins, streams and answers
# (bench/classroom.py --replicas 2 --store redis, --kill-teacher-replica, --restart: docs/benchmarks.md).
bench-classroom: $(VENV)/.dev-installed
	$(BIN)/python bench/classroom.py

# A classroom: 30 concurrent sessions on one server, two rounds.
bench-load: $(VENV)/.dev-installed
	$(BIN)/python bench/load.py

# One replica of two killed behind HAProxy with docs/hosting.md's configuration (needs haproxy, Chromium).
bench-failover: $(VENV)/.dev-installed
	$(BIN)/python bench/failover.py

# 50 clients that never read their socket, 10 ordinary sessions measured meanwhile.
bench-stalled: $(VENV)/.dev-installed
	$(BIN)/python bench/stalled.py

# Every page's bytes, requests and time to ready, cold and warm, throttled too, and a class
# of 30 opening the walkthrough at once, against a bare Streamlit page (needs Chromium).
bench-weight: $(VENV)/.dev-installed $(VENV)/.precompressed
	$(BIN)/python bench/page_weight.py

# The browser and server tests three times in a row beside a busy core (0 failures expected).
soak: $(VENV)/.dev-installed
	$(BIN)/python bench/suite_soak.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis test-artifacts data/cache
