# Every target creates or reuses .venv, so a fresh machine needs only Python 3.11+ and make.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' && { echo $$p; break; }; done)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test corpus bench lint clean flash

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "make: Python 3.11 or newer is required" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

demo: $(STAMP)
	$(PY) -m homeworlds demo

test: $(STAMP)
	$(PY) -m pytest -q

corpus: $(STAMP)
	$(PY) -m pytest -q -m corpus tests
	$(PY) benchmarks/corpus_check.py

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

lint: $(STAMP)
	$(PY) -m ruff check host firmware tests benchmarks
	$(PY) -m mypy

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info host/*.egg-info

# Copy the firmware to a mounted CircuitPython board (the CIRCUITPY drive).
CIRCUITPY ?= /media/$(USER)/CIRCUITPY
flash:
	@test -d "$(CIRCUITPY)" || { echo "make flash: mount the board's CIRCUITPY drive or set CIRCUITPY=/path" >&2; exit 1; }
	cp firmware/boot.py firmware/code.py "$(CIRCUITPY)/"
	cp -n firmware/table_config.py "$(CIRCUITPY)/" || true
	rm -rf "$(CIRCUITPY)/tablefw" && cp -r firmware/tablefw "$(CIRCUITPY)/"
	find "$(CIRCUITPY)/tablefw" -name __pycache__ -prune -exec rm -rf {} +
