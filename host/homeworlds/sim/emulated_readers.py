"""Real PN5180 drivers over emulated chips: the readers of a simulated table
when it is asked to model the hardware (``SimulatedMcu(reader_model="pn5180")``).

Each reader of the layout gets a :class:`~homeworlds.sim.pn5180_chip.Pn5180Chip`
on a simulated clock, its own relay multiplexer (:mod:`homeworlds.sim.board`:
select lines and enable shared by all readers, as on the reference table, each board's
decoder latch strobed from the latch decoder or tied transparent as its netlist says,
relays with their datasheet timing), its IRQ output on an MCU input where the layout
wires one, one reset line shared by all chips, and the 5 V supply they all draw from.
The firmware's own ``tablefw.readers.pn5180.PN5180`` drives them; every
SPI frame costs the time :mod:`homeworlds.sim.scan_timing` gives it.

How a piece lies decides how well its tag is read (:class:`ReadModel`): stars and
turn tokens stand on their base (tag flat on the pad), ships lie on their side
(tag at right angles to the field), bank pieces are stacked (the n-th piece sits
n levels up).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace

from homeworlds.sim.board import DecoderOutput, Line, PulledNet, RelayMux, Supply, ether
from homeworlds.sim.pn5180_chip import Pn5180Chip, ReadModel, SharedResetLine, Tag
from homeworlds.sim.scan_timing import BUS_LOCK_US, ZONE_OVERHEAD_US, spi_frame_us
from homeworlds.table.board import Board, Relay, describe
from homeworlds.table.layout import Layout, ZoneKind
from tablefw.chipselect import LatchStrobe
from tablefw.readers.mux import GpioMux
from tablefw.readers.pn5180 import PN5180, bus_holders


class GcClock:
    """Garbage collections of the board's heap: a pause of ``pause_us`` every ``every_ms``
    of scanning, charged when a pad's scan starts (where the firmware allocates)."""

    def __init__(self, clock, pause_us: float, every_ms: float) -> None:
        self.clock = clock
        self.pause_us = pause_us
        self.every_us = every_ms * 1000
        self.next_at = clock.now_us + self.every_us
        self.collections = 0

    def tick(self) -> None:
        if self.clock.now_us >= self.next_at:
            self.clock.advance_us(self.pause_us)
            self.collections += 1
            self.next_at = self.clock.now_us + self.every_us


class EmulatedPN5180(PN5180):
    """The real driver with its SPI seam wired to a Pn5180Chip; each frame costs
    simulated time. ``options`` go to the driver (the clock defaults to the chip's).

    ``call_overhead_us``: the board's work per command frame (default: the timing
    model's); ``answer_overhead_us``: per answer frame (a register read is a command
    frame and an answer frame); ``lock_us``: taking the bus; ``zone_overhead_us``: the
    scan core's bookkeeping per pad; ``gc``: the heap's collections."""

    def __init__(self, chip: Pn5180Chip, call_overhead_us: float | None = None,
                 zone_overhead_us: float = 0.0, answer_overhead_us: float | None = None,
                 lock_us: float = BUS_LOCK_US, gc: GcClock | None = None, **options) -> None:
        options.setdefault("clock", chip.clock)
        self._bus_locked = False
        self._burst = False
        super().__init__(**options)
        self.chip = chip
        self.call_overhead_us = call_overhead_us
        if answer_overhead_us is None:
            answer_overhead_us = call_overhead_us
        self.answer_overhead_us = answer_overhead_us
        self.lock_us = lock_us
        self.zone_overhead_us = zone_overhead_us
        self.gc = gc

    def _transceive(self, frame, read_len=0):
        clock = self.chip.clock
        if not self._bus_locked:  # try_lock + configure unless another reader holds the bus
            self._bus_locked = True
            holders = bus_holders(clock)  # the readers of one board share its clock
            if holders[0] == 0:
                clock.advance_us(self.lock_us)
            holders[0] += 1
        clock.advance_us(spi_frame_us(len(frame), self.baudrate, self.call_overhead_us))
        self.chip.execute(bytes(frame))
        answer = b""
        if read_len:
            clock.advance_us(spi_frame_us(read_len, self.baudrate, self.answer_overhead_us))
            answer = self.chip.read(read_len)
        if not self._burst:
            self._release_bus()
        return answer

    def _release_bus(self):
        if self._bus_locked:  # nothing to unlock: the chip is wired to the seam directly
            self._bus_locked = False
            holders = bus_holders(self.chip.clock)
            holders[0] = max(0, holders[0] - 1)

    def scan_steps(self, channel, several=False):
        # The scan core's own work for this zone (debounce, reporting), on the board's clock.
        if self.gc is not None:
            self.gc.tick()
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


class EmulatedTable:
    """The readers of ``layout`` as emulated PN5180s on the board the layout, the
    netlists and hardware/parts.toml describe (:mod:`homeworlds.sim.board`);
    ``set_tags(zone, uids)`` puts tags on a pad.

    The drivers are set up as the firmware's configuration for the layout sets them up
    (:func:`homeworlds.table.fwconfig.firmware_config`): the multiplexer enable pin, the
    relay settle time, the number of fields on at once. ``settle_us``, ``mux_enable``
    and ``fields_at_once`` override them (a test planting another design).
    ``led_amps``: what the LEDs draw from the shared supply (default: the host's cap).
    ``board``: the board as built (default: :func:`homeworlds.table.board.describe` of the
    layout; ``describe(layout).transparent()`` is the wiring before issue 25). Its netlist
    says where each multiplexer's latch enable ``LE`` goes: tied high, the board follows
    the shared select lines; on the header, it latches them when the latch decoder strobes
    it. ``latched``: the firmware drives the boards as latched ones (a strobe per board:
    the scan core's pipelined order; default: as the board is wired - True planted on a
    transparent board is the old wiring under the new firmware). ``irq``: the chips' IRQ
    outputs go to MCU inputs (default: the readers whose layout entry names an ``irq``
    pin), each reading costing ``irq_read_us`` (default: the band's pin reading).
    ``costs``: one band of the board's per-operation costs
    (``homeworlds.table.scancosts.load_costs().band("likely")``): command and answer frames, bus
    lock, clock and pin readings, bookkeeping per pad, GC pauses, relay and field
    settle; None keeps the simulator's defaults. (``settle_us`` and ``irq_read_us``
    given as well win over it.) ``relay``: another switch part than the netlist's
    (:class:`homeworlds.table.board.Relay` figures), for a design under study.
    """

    def __init__(self, layout: Layout, clock, *, model: ReadModel | None = None, seed: int = 0,
                 settle_us: int | None = None, mux_enable: bool | None = None,
                 fields_at_once: int | None = None, led_amps: float | None = None,
                 latched: bool | None = None, irq: bool | None = None,
                 irq_read_us: float | None = None, board: Board | None = None,
                 costs: Mapping[str, float] | None = None, relay: Relay | None = None):
        self.clock = clock
        self.model = model if model is not None else ReadModel()
        self.board = board if board is not None else describe(layout)
        layout = self.layout = self.board.layout
        mux_board = self.board.mux
        switch = relay if relay is not None else mux_board.relay
        if costs is not None and relay is None:
            # The band's relay: its contacts settle when the band says (the operate time
            # scaled to it, the bounce kept; it releases no later than it settles).
            settle = int(costs["relay_settle_us"])
            switch = replace(switch, operate_us=max(0, settle - switch.bounce_us),
                             release_us=min(switch.release_us, settle))
        # A layout without [mcu] does not say how the board is wired: its multiplexers
        # are taken as enabled by the firmware, as a builder would wire them.
        if mux_enable is None:
            mux_enable = layout.mcu is None or mux_board.can_enable
        frame_us = answer_us = None
        lock_us, zone_us, power_up_us = BUS_LOCK_US, ZONE_OVERHEAD_US, None
        self.gc: GcClock | None = None
        if costs is not None:
            frame_us = costs["command_frame_us"]
            answer_us = max(0.0, costs["register_read_us"] - frame_us)
            lock_us, zone_us = costs["bus_lock_us"], costs["zone_us"]
            power_up_us = int(costs["field_settle_us"])
            if settle_us is None:
                settle_us = int(costs["relay_settle_us"])
            clock.read_cost_us = costs["clock_read_us"]
            self.gc = GcClock(clock, costs["gc_pause_us"], costs["gc_every_ms"])
        self.pin_read_us = costs["pin_read_us"] if costs is not None else 0.0
        if settle_us is None:
            settle_us = switch.settle_us
        self.settle_us = settle_us
        self.fields_at_once = (fields_at_once if fields_at_once is not None
                               else self.board.fields_at_once)
        channels = max(reader.channels for reader in layout.readers)
        lines = max(1, (channels - 1).bit_length())
        self.muxes: list[RelayMux] = []
        # Every MCU pin write costs the board a call into C (the band's pin figure).
        pin_us = self.pin_read_us
        self.select_lines = [Line(False, self._lines_changed, clock, pin_us)
                             for _ in range(lines)]
        self.enable_line: Line | PulledNet
        if mux_enable:
            self.enable_line = Line(True, self._lines_changed, clock, pin_us)
        else:
            self.enable_line = PulledNet(bool(mux_board.enable_pulled is not False))
        mux = GpioMux(self.select_lines, enable=self.enable_line if mux_enable else None,
                      settle_us=settle_us)
        if latched is None:
            latched = self.board.mux.latched
        self.latched = latched
        # The latch decoder on the NSS decoder's address lines (or lines of its own where
        # the layout has no NSS decoder: a board under study).
        mcu = layout.mcu
        address = (len(mcu.nss_decoder.address)
                   if mcu is not None and mcu.nss_decoder is not None else
                   max(1, (len(layout.readers) - 1).bit_length()))
        self.latch_address = [Line(False, self._lines_changed, clock, pin_us)
                              for _ in range(address)]
        self.latch_enable = Line(address > 3, self._lines_changed, clock, pin_us)
        self.strobe = LatchStrobe(self.latch_address, self.latch_enable) if latched else None
        wired_irq = set(self.board.irq_readers)
        if irq_read_us is None:
            irq_read_us = self.pin_read_us
        self.chips: list[Pn5180Chip] = []
        self.readers: list[EmulatedPN5180] = []
        self.reset_line = SharedResetLine()
        for reader in layout.readers:
            select = self.select_lines
            output = _latch_output(reader, mcu)
            if self.strobe is not None:
                mux = GpioMux(select, enable=self.enable_line if mux_enable else None,
                              settle_us=settle_us, strobe=self.strobe, output=output)
            chip = Pn5180Chip({}, mux_pins=select, clock=clock, model=self.model,
                              rng=random.Random(seed * 7919 + reader.index))
            zones = [zone for zone in reader.zones if zone is not None]
            if len(zones) > 1:
                # LE of this board: tied high (transparent) or the latch decoder's output.
                le = (DecoderOutput(self.latch_address, self.latch_enable, output,
                                    active=address <= 3)
                      if mux_board.latch_wiring == "header" else
                      PulledNet(mux_board.latch_wiring == "high"))
                relay_mux = RelayMux(select, self.enable_line, switch, clock, latch=le)
                self.muxes.append(relay_mux)
                chip.route = relay_mux.route
                chip.mux_pins = relay_mux.decoder_inputs  # what its decoder sees: the latch
            name = f"reader {reader.index}" + (f" ({reader.label})" if reader.label else "")
            wired = reader.index in wired_irq if irq is None else irq
            irq_line = IrqLine(chip, irq_read_us) if wired else None
            timing = {} if power_up_us is None else {"power_up_us": power_up_us}
            driver = EmulatedPN5180(chip, zones=zones, mux=mux if len(zones) > 1 else None,
                                    irq=irq_line,
                                    reset=self.reset_line, name=name, call_overhead_us=frame_us,
                                    answer_overhead_us=answer_us, lock_us=lock_us, gc=self.gc,
                                    zone_overhead_us=zone_us, **timing)
            self.chips.append(chip)
            self.readers.append(driver)
        self.reset_line.chips = list(self.chips)
        self.supply = Supply(self.board, self.chips, self.muxes, led_amps)
        sensed = ether(self.chips)
        for chip in self.chips:
            chip.external_field = sensed
            chip.on_field = self.supply.check

    @property
    def pipelined(self) -> bool:
        """Whether the firmware's scan core runs these readers pipelined."""
        return self.strobe is not None

    def _lines_changed(self) -> None:
        for relay_mux in getattr(self, "muxes", ()):
            relay_mux.changed()
        supply = getattr(self, "supply", None)
        if supply is not None:
            supply.check()

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


def _latch_output(reader, mcu) -> int:
    """The latch decoder output of ``reader``'s multiplexer: its NSS decoder output (the
    reader's index where the layout has no NSS decoder)."""
    pins = reader.pins
    if mcu is not None and pins is not None and pins.nss_output is not None:
        return int(pins.nss_output)
    return int(reader.index)
