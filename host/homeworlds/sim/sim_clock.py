"""Virtual time for the simulated microcontroller and the emulated chips.

:class:`SimClock` moves only when told; the in-process MCU (``sim.mcu``) and the PN5180
model (``sim.pn5180_chip``) share one, so a chip's air time and the scanner's timing add
up on the same clock.
"""

from __future__ import annotations

from homeworlds.sim.scan_timing import CLOCK_READ_US


class SimClock:
    """Virtual time that moves only when told (``advance``): integer milliseconds
    when called, microseconds underneath for the emulated chips. Drivers read it
    with ``ticks_us()``, and each such reading costs ``read_cost_us`` (what a
    clock reading costs on the board), so a driver polling the clock moves on."""

    def __init__(self, now: int = 0, read_cost_us: float = CLOCK_READ_US):
        self.now_us = int(now) * 1000
        self.read_cost_us = read_cost_us

    @property
    def now(self) -> int:
        return self.now_us // 1000

    def __call__(self) -> int:
        return self.now_us // 1000

    def ticks_us(self) -> int:
        self.now_us += int(round(self.read_cost_us))
        return self.now_us

    def advance(self, ms: int) -> None:
        if ms < 0:
            raise ValueError(f"time does not run backwards ({ms} ms)")
        self.now_us += int(ms) * 1000

    def advance_us(self, us: float) -> None:
        if us < 0:
            raise ValueError(f"time does not run backwards ({us} us)")
        self.now_us += int(round(us))

    def sleep(self, ms: float) -> None:
        self.advance_us(max(0.0, ms) * 1000)

    def sleep_us(self, us: float) -> None:
        self.advance_us(max(0.0, us))
