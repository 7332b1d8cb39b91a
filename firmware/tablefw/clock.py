"""Clocks shared by the scan core and the drivers.

Integers, not floats: CircuitPython's floats carry a 22-bit mantissa, so
``time.monotonic()`` loses millisecond resolution after about an hour of
uptime; ``time.monotonic_ns()`` stays exact (on the RP2040 it advances in
steps of 1/32768 s, about 31 us, which is fine enough for ISO 15693 slot
timeouts of a few hundred microseconds).

``monotonic_ms`` paces the scan core; ``ticks_us`` times the RF air
interface. Both are plain integers that never go backwards (CircuitPython
integers are arbitrary precision, so they do not wrap). MicroPython, which
runs the firmware in the tests, has no ``monotonic_ns``: there the wrapping
``time.ticks_us()`` is counted up instead.
"""

import time

try:
    from time import monotonic_ns as _monotonic_ns  # CircuitPython, CPython
except ImportError:  # MicroPython: only the wrapping ticks_us()
    # time.ticks_us() wraps (every 2**30 us, about 18 minutes); the difference of two
    # readings less than half a period apart is exact, and the scan loop reads the
    # clock many times a second.
    _ticks = time.ticks_us  # type: ignore[attr-defined]  # MicroPython's time
    _ticks_diff = time.ticks_diff  # type: ignore[attr-defined]
    _unwrapped = [_ticks(), 0]  # last reading, microseconds counted so far

    def ticks_us():
        """Microseconds from an arbitrary start, never going backwards."""
        now = _ticks()
        _unwrapped[1] += _ticks_diff(now, _unwrapped[0])
        _unwrapped[0] = now
        return _unwrapped[1]

    def monotonic_ms():
        """Milliseconds from an arbitrary start, never going backwards."""
        return ticks_us() // 1000

else:

    def monotonic_ms():
        """Milliseconds from an arbitrary start, never going backwards."""
        return _monotonic_ns() // 1000000

    def ticks_us():
        """Microseconds from an arbitrary start, never going backwards."""
        return _monotonic_ns() // 1000


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
