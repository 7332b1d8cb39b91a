"""CircuitPython code.py: scan the table and report to the host.

Edit table_config.py for your wiring; see docs/firmware.md.
"""

import board
import busio
import digitalio
import usb_cdc
from table_config import CONFIG

from tablefw.app import main

main(CONFIG, board, busio, digitalio, usb_cdc)
