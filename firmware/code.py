"""CircuitPython code.py: scan the table and report to the host.

The wiring is in table_config.py, generated from the layout file with
``homeworlds firmware-config LAYOUT`` (docs/hardware.md). Autoreload off,
watchdog, restart on any failure: see tablefw/lifecycle.py and docs/firmware.md.
"""

import supervisor

# First of all: a write to CIRCUITPY must never restart the scanner mid-game.
supervisor.runtime.autoreload = False

import board  # noqa: E402
import busio  # noqa: E402
import digitalio  # noqa: E402
import microcontroller  # noqa: E402
import usb_cdc  # noqa: E402
import watchdog  # noqa: E402

from tablefw import lifecycle  # noqa: E402
from tablefw.app import main  # noqa: E402


class Board:
    """The board's modules, as tablefw.lifecycle takes them."""

    board: object
    busio: object
    digitalio: object
    usb_cdc: object
    microcontroller: object
    supervisor: object
    watchdog: object


hw = Board()
hw.board, hw.busio, hw.digitalio, hw.usb_cdc = board, busio, digitalio, usb_cdc
hw.microcontroller, hw.supervisor, hw.watchdog = microcontroller, supervisor, watchdog


lifecycle.run(hw, lifecycle.load_table_config, main)
