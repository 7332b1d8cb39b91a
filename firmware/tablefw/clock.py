"""Millisecond clock shared by the scan core and the drivers.

Integers, not floats: CircuitPython's floats carry a 22-bit mantissa, so
``time.monotonic()`` loses millisecond resolution after about an hour of
uptime; ``time.monotonic_ns()`` stays exact.
"""

import time


def monotonic_ms():
    """Milliseconds from an arbitrary start, never going backwards."""
    try:
        return time.monotonic_ns() // 1000000
    except AttributeError:  # a port without monotonic_ns
        return int(time.monotonic() * 1000)


def sleep_ms(ms):
    """Sleep ``ms`` milliseconds (nothing for 0 or less)."""
    if ms > 0:
        time.sleep(ms / 1000)
