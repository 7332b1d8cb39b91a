"""CircuitPython boot.py: a second USB serial channel for the protocol.

The console (REPL, print output) stays on the first channel; protocol lines
go over usb_cdc.data so that they never mix. Changes here take effect after
a hard reset of the board.
"""

import usb_cdc

usb_cdc.enable(console=True, data=True)
