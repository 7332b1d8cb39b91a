"""The PN5180 driver wired to the chip model of :mod:`homeworlds.sim.pn5180_chip`.

The chip model (states, air time, IRQ and RX_STATUS bits, collisions, resets,
read probabilities) lives with the simulator so that the simulated table and
these tests use one model. Here: the seams that connect a driver to it, and
the cost of every SPI frame on the simulated clock (transfer time at the SPI
clock plus CircuitPython's overhead per call, :mod:`homeworlds.sim.scan_timing`).
"""

from __future__ import annotations

from homeworlds.sim import SimClock
from homeworlds.sim.emulated_readers import EmulatedPN5180
from homeworlds.sim.pn5180_chip import PERFECT, Pn5180Chip, ReadModel, SharedResetLine, Tag, le_uid
from homeworlds.sim.scan_timing import spi_frame_us

__all__ = ["PERFECT", "EmulatedPN5180", "FakeSpiBus", "Pn5180Chip", "ReadModel", "SharedResetLine",
           "SimClock", "Tag", "le_uid"]


class FakeSpiBus:
    """busio.SPI whose devices are Pn5180Chips selected by their CS pin.

    ``cs`` is the pin object, or a callable returning it (for pins that
    are created later, inside the code under test). Transfers cost time on
    ``clock`` (at the configured baud rate, plus the per-call overhead)."""

    def __init__(self, clock: SimClock | None = None,
                 call_overhead_us: float | None = None) -> None:
        self.clock = clock if clock is not None else SimClock()
        self.call_overhead_us = call_overhead_us
        self.devices: list[tuple[object, Pn5180Chip]] = []
        self.locked = False
        self.configured = None

    def attach(self, cs, chip: Pn5180Chip) -> None:
        chip.clock = self.clock
        self.devices.append((cs, chip))

    def _selected(self) -> Pn5180Chip:
        chosen = [chip for cs, chip in self.devices if not (cs() if callable(cs) else cs).value]
        assert len(chosen) == 1, f"exactly one chip select must be low, got {len(chosen)}"
        return chosen[0]

    def try_lock(self) -> bool:
        if self.locked:
            return False
        self.locked = True
        return True

    def unlock(self) -> None:
        self.locked = False

    def configure(self, baudrate=100000, polarity=0, phase=0, bits=8):
        assert self.locked, "configure() without the lock"
        self.configured = (baudrate, polarity, phase)

    def _spend(self, count: int) -> None:
        baudrate = self.configured[0] if self.configured else 100000
        self.clock.advance_us(spi_frame_us(count, baudrate, self.call_overhead_us))

    def write(self, data) -> None:
        assert self.locked, "write() without the lock"
        self._spend(len(data))
        self._selected().execute(bytes(data))

    def readinto(self, buffer, write_value=0) -> None:
        assert self.locked, "readinto() without the lock"
        self._spend(len(buffer))
        data = self._selected().read(len(buffer))
        buffer[:] = data
