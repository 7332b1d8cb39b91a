"""Run a board drive's code.py (or boot.py) on MicroPython, as CircuitPython would.

    run_code.py DRIVE CIRCUITPYTHON [boot.py]

DRIVE is the board's drive (code.py, boot.py, table_config.py, tablefw/),
CIRCUITPYTHON the fake hardware modules (on the board they are built in). code.py
runs until the test stops it at a watchdog feed (KeyboardInterrupt, as Ctrl-C
would). The heap is measured by heap.py, not here.
"""

import os
import sys

drive = sys.argv[1]
sys.path.insert(0, sys.argv[2])
sys.path.insert(0, drive)
os.chdir(drive)
script = sys.argv[3] if len(sys.argv) > 3 else "code.py"

import hostboard  # noqa: E402
import microcontroller  # noqa: E402

try:
    with open(script) as source:
        exec(compile(source.read(), script, "exec"), {"__name__": "__main__"})
except KeyboardInterrupt:
    print("stopped at feed", microcontroller.watchdog.feeds)
print("requests", hostboard.calls)
