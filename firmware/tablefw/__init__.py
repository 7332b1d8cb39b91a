"""Portable firmware core: runs on CircuitPython and CPython.

Modules: ``protocol`` (the serial line codec, shared with the host),
``scan`` (reader scheduling, debounce, change detection, heartbeat),
``debounce``, ``settings``, ``buttons``, ``virtual`` (a reader whose tags
tests and the simulator place), ``readers`` (PN5180 and PN532 drivers),
``config`` (builds readers from the board's table_config.py).
No module here imports hardware at import time.
"""

__version__ = "0.1.0"
