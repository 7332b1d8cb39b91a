# Every target creates or reuses .venv, so a fresh machine needs only Python 3.11+ and make.
# The probe runs each candidate with its output silenced: a pyenv shim for a version that
# is not installed exists on PATH but prints a "command not found" block when run.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; done)
VENV := .venv
PY := $(VENV)/bin/python
# One stamp per set of packages (pyproject's extras), so each target installs what it needs
# once: `make demo` only the table with its terminal view and browser display (`demo`:
# `homeworlds demo --web` works too); `make test` and `make lint` add their tools on top.
# The pip that comes with Python 3.11+ installs all of it (editable installs, extras that
# name the project's own extras): it is not upgraded first, which would cost a few seconds.
DEMO_STAMP := $(VENV)/.installed-demo
TEST_STAMP := $(VENV)/.installed-test
LINT_STAMP := $(VENV)/.installed-lint

.PHONY: demo test corpus bench fuzz lint clean flash browser mosquitto-bin mpvm screenshots

$(DEMO_STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "make: Python 3.11 or newer is required" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[demo]'
	@touch $@

$(TEST_STAMP): $(DEMO_STAMP)
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $@

$(LINT_STAMP): $(DEMO_STAMP)
	$(PY) -m pip install --quiet -e '.[lint]'
	@touch $@

demo: $(DEMO_STAMP)
	$(PY) -m homeworlds demo

test: $(TEST_STAMP) browser mosquitto-bin mpvm
	$(PY) -m pytest -q

# The browser tests (tests/web) drive Debian's Chromium through Playwright; no browser is
# ever downloaded at test time. As root, or under CI (through sudo), the package is
# installed when absent; otherwise the command is printed and those tests skip (they fail
# under CI=true). CHROMIUM may name another executable (tests/web/conftest.py reads it too).
CHROMIUM ?= /usr/bin/chromium
CHROMIUM_INSTALL := apt-get update && apt-get install -y --no-install-recommends chromium
browser:
	@if [ -x "$(CHROMIUM)" ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then echo "make: installing Debian's chromium for the browser tests"; \
		$(CHROMIUM_INSTALL); \
	elif [ -n "$$CI" ] && [ "$$CI" != false ] && [ "$$CI" != 0 ]; then \
		echo "make: installing Debian's chromium for the browser tests (sudo)"; \
		sudo sh -c '$(CHROMIUM_INSTALL)'; \
	else echo "make: $(CHROMIUM) is absent, so the browser tests (tests/web) will skip;" \
		"install it with: sudo sh -c '$(CHROMIUM_INSTALL)'"; fi

# The event tests (tests/event) run a real MQTT broker: Debian's mosquitto (MOSQUITTO names
# another executable). As root, or under CI (through sudo), the package is installed when
# absent; otherwise the command is printed and those tests skip (they fail under CI=true).
MOSQUITTO ?= /usr/sbin/mosquitto
MOSQUITTO_INSTALL := apt-get update && apt-get install -y --no-install-recommends mosquitto
mosquitto-bin:
	@if [ -x "$(MOSQUITTO)" ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then echo "make: installing Debian's mosquitto for the event tests"; \
		$(MOSQUITTO_INSTALL); \
	elif [ -n "$$CI" ] && [ "$$CI" != false ] && [ "$$CI" != 0 ]; then \
		echo "make: installing Debian's mosquitto for the event tests (sudo)"; \
		sudo sh -c '$(MOSQUITTO_INSTALL)'; \
	else echo "make: $(MOSQUITTO) is absent, so the event tests (tests/event) will skip;" \
		"install it with: sudo sh -c '$(MOSQUITTO_INSTALL)'"; fi
# The firmware tests on MicroPython (tests/firmware/test_fw_vm_*) run MicroPython 1.27's
# WebAssembly port, the npm package pinned in tests/firmware/vm/package-lock.json, under
# Debian's Node.js. npm installs it when the lock file changed; without node/npm, as root or
# under CI (through sudo) Debian's nodejs and npm are installed first; otherwise the command
# is printed and those tests skip (they fail under CI=true). NODE/NPM name other executables.
NODE ?= node
NPM ?= npm
MPVM_DIR := tests/firmware/vm
NODE_INSTALL := apt-get update && apt-get install -y --no-install-recommends nodejs npm
MPVM_NPM_CI = cd $(MPVM_DIR) && if [ ! -f node_modules/.package-lock.json ] || \
	[ package-lock.json -nt node_modules/.package-lock.json ]; then \
	echo "make: installing MicroPython 1.27 (npm) for the firmware VM tests"; \
	$(NPM) ci --no-audit --no-fund --loglevel=error; fi
mpvm:
	@if command -v "$(NODE)" >/dev/null 2>&1 && command -v "$(NPM)" >/dev/null 2>&1; then \
		$(MPVM_NPM_CI); \
	elif [ "$$(id -u)" = 0 ]; then echo "make: installing Debian's nodejs and npm for the firmware VM tests"; \
		$(NODE_INSTALL) && $(MPVM_NPM_CI); \
	elif [ -n "$$CI" ] && [ "$$CI" != false ] && [ "$$CI" != 0 ]; then \
		echo "make: installing Debian's nodejs and npm for the firmware VM tests (sudo)"; \
		sudo sh -c '$(NODE_INSTALL)' && $(MPVM_NPM_CI); \
	else echo "make: $(NODE) or $(NPM) is absent, so the firmware VM tests (tests/firmware/test_fw_vm_*)" \
		"will skip; install them with: sudo sh -c '$(NODE_INSTALL)', then run make mpvm"; fi
# The screenshots of docs/display.md (docs/images) are made by the browser tests.
screenshots: $(TEST_STAMP) browser
	$(PY) -m pytest -q tests/web/test_live_browser.py tests/web/test_archive_browser.py tests/web/test_attract.py

corpus: $(TEST_STAMP)
	$(PY) -m pytest -q -m corpus tests
	$(PY) benchmarks/corpus_check.py

bench: $(TEST_STAMP) browser mosquitto-bin mpvm
	$(PY) benchmarks/run_all.py

# Long fault-injection and input fuzz runs (the short forms are part of `make test`).
fuzz: $(TEST_STAMP)
	$(PY) benchmarks/kill_fuzz.py
	$(PY) benchmarks/input_fuzz.py

lint: $(LINT_STAMP)
	$(PY) -m ruff check host firmware tests benchmarks
	$(PY) -m mypy
	$(PY) -m mypy --config-file firmware/mypy.ini

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info host/*.egg-info $(MPVM_DIR)/node_modules

# Copy the firmware to a mounted CircuitPython board (the CIRCUITPY drive). Its
# table_config.py is generated from LAYOUT (a bundled layout name or a .toml file), so
# the board drives the pins and reports the zones that layout says. tablefw goes as .mpy,
# compiled in build/flash by the mpy-cross of the CircuitPython the board runs (its
# boot_out.txt says which): MPY_CROSS names it, else Adafruit's build of that version is
# downloaded once (docs/firmware.md, "What make flash ships"). code.py, boot.py and
# table_config.py stay source. The drive is writable only in development mode (jumper on
# the layout's dev_jumper pin at power-up).
CIRCUITPY ?= /media/$(USER)/CIRCUITPY
LAYOUT ?= standard-2p
MPY_CROSS ?=
flash: $(DEMO_STAMP)
	@test -d "$(CIRCUITPY)" || { echo "make flash: mount the board's CIRCUITPY drive or set CIRCUITPY=/path" >&2; exit 1; }
	@mkdir -p build
	$(PY) -m homeworlds firmware-config $(LAYOUT) -o build/table_config.py
	$(PY) -m homeworlds firmware-build --drive "$(CIRCUITPY)" --config build/table_config.py -o build/flash \
		$(if $(MPY_CROSS),--mpy-cross "$(MPY_CROSS)")
	@{ touch "$(CIRCUITPY)/.flash-test" 2>/dev/null && rm -f "$(CIRCUITPY)/.flash-test"; } || { echo "make flash: $(CIRCUITPY) is read-only: the board is in production mode. Put the development jumper on (docs/hardware.md, 'Development mode'), reset the board, run make flash again" >&2; exit 1; }
	rm -rf "$(CIRCUITPY)/tablefw" && cp -r build/flash/tablefw "$(CIRCUITPY)/"
	cp build/flash/table_config.py build/flash/code.py build/flash/boot.py "$(CIRCUITPY)/"
	@echo "make flash: done ($(LAYOUT)). Autoreload is off: press the board's reset button. Take the jumper off for play (production mode)."

# Install the table on a Raspberry Pi in one command (udev rule, SPI, groups, systemd service).
# Never part of `make test`; the script refuses to run anywhere but on a Pi.
.PHONY: install-pi
install-pi:
	@test -n "$(CONFIG)" || { echo "make install-pi: name the table configuration: make install-pi CONFIG=/path/to/table.toml" >&2; exit 1; }
	sudo hardware/pi/install.sh --config "$(CONFIG)"
