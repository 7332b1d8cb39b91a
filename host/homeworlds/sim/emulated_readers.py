"""Real PN5180 drivers over emulated chips: the readers of a simulated table
when it is asked to model the hardware (``SimulatedMcu(reader_model="pn5180")``).

Each reader of the layout gets a :class:`~homeworlds.sim.pn5180_chip.Pn5180Chip`
on a simulated clock, its own antenna multiplexer channels (select lines shared
by all readers, as on the reference table) and one reset line shared by all
chips. The firmware's own ``tablefw.readers.pn5180.PN5180`` drives them; every
SPI frame costs the time :mod:`homeworlds.sim.scan_timing` gives it.

How a piece lies decides how well its tag is read (:class:`ReadModel`): stars and
turn tokens stand on their base (tag flat on the pad), ships lie on their side
(tag at right angles to the field), bank pieces are stacked (the n-th piece sits
n levels up).
"""

from __future__ import annotations

import random

from homeworlds.sim.pn5180_chip import Pn5180Chip, ReadModel, SharedResetLine, Tag
from homeworlds.sim.scan_timing import BUS_LOCK_US, ZONE_OVERHEAD_US, spi_frame_us
from homeworlds.table.layout import Layout, ZoneKind
from tablefw.readers.mux import GpioMux
from tablefw.readers.pn5180 import PN5180


class EmulatedPN5180(PN5180):
    """The real driver with its SPI seam wired to a Pn5180Chip; each frame costs
    simulated time. ``options`` go to the driver (the clock defaults to the chip's)."""

    def __init__(self, chip: Pn5180Chip, call_overhead_us: float | None = None,
                 zone_overhead_us: float = 0.0, **options) -> None:
        options.setdefault("clock", chip.clock)
        self._bus_locked = False
        self._burst = False
        super().__init__(**options)
        self.chip = chip
        self.call_overhead_us = call_overhead_us
        self.zone_overhead_us = zone_overhead_us

    def _transceive(self, frame, read_len=0):
        clock = self.chip.clock
        if not self._bus_locked:  # try_lock + configure, as the real seam does
            self._bus_locked = True
            clock.advance_us(BUS_LOCK_US)
        clock.advance_us(spi_frame_us(len(frame), self.baudrate, self.call_overhead_us))
        self.chip.execute(bytes(frame))
        answer = b""
        if read_len:
            clock.advance_us(spi_frame_us(read_len, self.baudrate, self.call_overhead_us))
            answer = self.chip.read(read_len)
        if not self._burst:
            self._release_bus()
        return answer

    def _release_bus(self):
        self._bus_locked = False  # nothing to unlock: the chip is wired to the seam directly

    def scan_steps(self, channel, several=False):
        # The scan core's own work for this zone (debounce, reporting), on the board's clock.
        self.chip.clock.advance_us(self.zone_overhead_us)
        yield from PN5180.scan_steps(self, channel, several)


class IrqLine:
    """The MCU input a chip's IRQ output goes to; each reading costs ``read_us``."""

    def __init__(self, chip: Pn5180Chip, read_us: float) -> None:
        self.chip = chip
        self.read_us = read_us

    @property
    def value(self) -> bool:
        self.chip.clock.advance_us(self.read_us)
        return self.chip.irq_pin


class SelectLine:
    """A mux select output."""

    def __init__(self) -> None:
        self.value = False


class EmulatedTable:
    """The readers of ``layout`` as emulated PN5180s; ``tags(zone, uids)`` puts
    tags on a pad."""

    def __init__(self, layout: Layout, clock, *, model: ReadModel | None = None, seed: int = 0,
                 latched: bool = False, irq_read_us: float | None = None):
        self.layout = layout
        self.clock = clock
        self.model = model if model is not None else ReadModel()
        channels = max(reader.channels for reader in layout.readers)
        self.select_lines = [SelectLine() for _ in range(max(1, (channels - 1).bit_length()))]
        mux = GpioMux(self.select_lines)
        self.chips: list[Pn5180Chip] = []
        self.readers: list[EmulatedPN5180] = []
        self.reset_line = SharedResetLine()
        for reader in layout.readers:
            lines = self.select_lines
            if latched:
                lines = [SelectLine() for _ in self.select_lines]
                mux = GpioMux(lines)
            chip = Pn5180Chip({}, mux_pins=lines, clock=clock, model=self.model,
                              rng=random.Random(seed * 7919 + reader.index))
            zones = [zone for zone in reader.zones if zone is not None]
            name = f"reader {reader.index}" + (f" ({reader.label})" if reader.label else "")
            irq = IrqLine(chip, irq_read_us) if irq_read_us is not None else None
            driver = EmulatedPN5180(chip, zones=zones, mux=mux if len(zones) > 1 else None, irq=irq,
                                    reset=self.reset_line, name=name,
                                    zone_overhead_us=ZONE_OVERHEAD_US)
            self.chips.append(chip)
            self.readers.append(driver)
        self.reset_line.chips = list(self.chips)

    def _place(self, zone: int) -> tuple[Pn5180Chip, int]:
        wiring = self.layout.wiring(zone)
        reader = self.readers[wiring.reader]
        return self.chips[wiring.reader], reader.zones.index(zone)

    def set_tags(self, zone: int, uids: tuple[str, ...]) -> None:
        chip, channel = self._place(zone)
        kind = self.layout.zone_role(zone).kind
        if kind is ZoneKind.SHIPS:
            tags = [Tag(uid, "side") for uid in uids]
        elif kind is ZoneKind.BANK:
            tags = [Tag(uid, "flat", level) for level, uid in enumerate(uids)]
        else:
            tags = [Tag(uid) for uid in uids]
        chip.set_tags(channel, tags)

    def fault(self, reader: int, scans: int | None) -> None:
        chip = self.chips[reader]
        if scans is None:
            chip.dead = True
        else:
            for _ in range(scans):
                chip.fail_next_send()

    def clear_fault(self, reader: int) -> None:
        self.chips[reader].dead = False
