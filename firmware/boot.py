"""CircuitPython boot.py: the protocol's USB channel, production or development mode.

The console (REPL, print output) stays on the first USB serial channel;
protocol lines go over usb_cdc.data so that they never mix.

Production mode (default): the CIRCUITPY drive is read-only to the host.
Development mode: a jumper from DEV_JUMPER (table_config.py; GP28 on the
reference tables) to GND while the board powers up or resets; the drive is
then writable, for `make flash`. Changes here take effect after a hard reset.
"""

import board
import digitalio
import storage
import usb_cdc

from tablefw import bootmode

try:
    from table_config import DEV_JUMPER
except Exception:  # no DEV_JUMPER (a hand-written table_config.py) or a broken file
    DEV_JUMPER = bootmode.DEFAULT_DEV_JUMPER


class Board:
    """The board's modules, as tablefw.bootmode takes them."""

    board: object
    digitalio: object
    storage: object
    usb_cdc: object


hw = Board()
hw.board, hw.digitalio, hw.storage, hw.usb_cdc = board, digitalio, storage, usb_cdc

bootmode.boot(hw, DEV_JUMPER)
