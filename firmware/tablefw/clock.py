"""Clocks shared by the scan core and the drivers.

Integers, not floats: CircuitPython's floats carry a 22-bit mantissa, so
``time.monotonic()`` loses millisecond resolution after about an hour of
uptime; ``time.monotonic_ns()`` stays exact (on the RP2040 it advances in
steps of 1/32768 s, about 31 us, which is fine enough for ISO 15693 slot
timeouts of a few hundred microseconds).

``monotonic_ms`` paces the scan core; ``ticks_us`` times the RF air
interface. Both are plain integers that never go backwards (CircuitPython
integers are arbitrary precision, so they do not wrap).
"""

import time

try:
    _monotonic_ns = time.monotonic_ns
except AttributeError:  # a port without monotonic_ns
    _monotonic_ns = None


def _fallback_ns():
    # Float seconds: fine for a few hours of uptime, then coarser.
    return int(time.monotonic() * 1000000000)


def monotonic_ms():
    """Milliseconds from an arbitrary start, never going backwards."""
    if _monotonic_ns is not None:
        return _monotonic_ns() // 1000000
    return _fallback_ns() // 1000000


def ticks_us():
    """Microseconds from an arbitrary start, never going backwards."""
    if _monotonic_ns is not None:
        return _monotonic_ns() // 1000
    return _fallback_ns() // 1000


def sleep_ms(ms):
    """Sleep ``ms`` milliseconds (nothing for 0 or less)."""
    if ms > 0:
        time.sleep(ms / 1000)


def sleep_us(us):
    """Sleep at least ``us`` microseconds (nothing for 0 or less). Short
    waits spin on ``ticks_us``: time.sleep rounds to the tick on the board."""
    if us <= 0:
        return
    if us >= 2000:
        time.sleep(us / 1000000)
        return
    end = ticks_us() + us
    while ticks_us() < end:
        pass
