"""The pipelined scan order (each reader behind a latched multiplexer walks its own
pads), the relay settle waited out without blocking the other readers, the one-frame
restart of the transceiver (WRITE_REGISTER_MULTIPLE) and the IRQ pin that tells an
empty slot without an SPI read (issue 25, item 5)."""

from __future__ import annotations

from tablefw import protocol as p
from tablefw.readers.mux import GpioMux
from tablefw.readers.pn5180 import IRQ_ENABLE, IRQ_PIN_EVENTS
from tablefw.scan import Scanner
from tablefw.settings import Settings

from .fakes import FakePin
from .pn5180_emulator import PERFECT, EmulatedPN5180, Pn5180Chip, SharedResetLine, SimClock

T1 = "E004015000000011"
T2 = "E004015000000022"
T3 = "E004015000000033"
SETTLE_US = 3000


class ChipIrq:
    """The MCU input wired to a chip's IRQ output."""

    def __init__(self, chip):
        self.chip = chip
        self.reads = 0

    @property
    def value(self):
        self.reads += 1
        return self.chip.irq_pin


class Table:
    """Readers of four pads each; ``latched``: every multiplexer has select lines of
    its own (a latch per board), else all share one set."""

    def __init__(self, readers=2, latched=True, settle_us=SETTLE_US, irq=False):
        self.clock = SimClock()
        self.reset = SharedResetLine()
        shared = [FakePin(), FakePin()]
        self.chips, self.readers, self.irqs = [], [], []
        shared_mux = GpioMux(shared, settle_us=settle_us)
        for index in range(readers):
            pins = [FakePin(), FakePin()] if latched else shared
            mux = GpioMux(pins, settle_us=settle_us) if latched else shared_mux
            chip = Pn5180Chip({}, mux_pins=pins, clock=self.clock, model=PERFECT)
            line = ChipIrq(chip) if irq else None
            self.chips.append(chip)
            self.irqs.append(line)
            self.readers.append(
                EmulatedPN5180(
                    chip,
                    zones=[4 * index + c for c in range(4)],
                    mux=mux,
                    reset=self.reset,
                    irq=line,
                    name=f"pn5180#{index}",
                )
            )
        self.reset.chips = list(self.chips)
        self.wire = bytearray()
        self.host = p.Decoder(accept=p.FROM_MCU)
        self.scanner = Scanner(self.readers, self.wire.extend, self.clock, Settings({"snap_ms": 0}))

    def step(self):
        wait = self.scanner.step()
        if wait:
            self.clock.advance(wait)

    def rounds(self, count):
        target = self.scanner.rounds + count
        for _ in range(200 * count):
            if self.scanner.rounds >= target:
                return
            self.step()
        raise AssertionError(f"the scanner did not complete {count} rounds")


def test_readers_with_their_own_switch_are_pipelined_and_shared_lines_are_not():
    assert Table(latched=True).scanner.pipelined
    assert not Table(latched=False).scanner.pipelined


def test_a_reader_with_a_crowded_pad_does_not_hold_up_the_others():
    """Reader 0 has a pad of three tags (a 16-slot round, ~25 ms); reader 1 only empty
    pads. In batches reader 1 waits for reader 0 at every channel; pipelined it goes on."""
    times = {}
    for latched in (False, True):
        table = Table(latched=latched)
        table.chips[0].set_tags(0, [T1, T2, T3])
        table.rounds(2)
        start = table.clock.now_us
        scans = table.scanner.scans
        table.rounds(4)
        times[latched] = (table.clock.now_us - start) / (table.scanner.scans - scans)
        assert table.scanner.snapshot()[0] == (T1, T2, T3)
    # Time per pad scanned: pipelined, reader 1's empty pads no longer wait for reader 0.
    assert times[True] < 0.8 * times[False], times


def test_the_first_request_goes_out_only_after_the_relay_settled():
    table = Table(readers=1)
    chip = table.chips[0]
    switched = {}
    on = {}
    execute = chip.execute

    def watch(frame):
        if frame[0] == 0x09 and chip.channel() not in on:  # the first SEND_DATA on a pad
            on[chip.channel()] = chip.now
        execute(frame)

    chip.execute = watch
    mux = table.readers[0].mux
    select = mux.select

    def note(channel):
        moved = select(channel)
        if moved:
            switched[channel] = chip.now
            on.pop(chip.channel(), None)
        return moved

    mux.select = note
    table.rounds(2)
    assert switched and on
    for channel, at in switched.items():
        assert on[channel] - at >= SETTLE_US, (channel, on[channel] - at)


def test_while_one_relay_settles_the_other_reader_is_on_air():
    table = Table(readers=2, settle_us=20000)  # a slow relay makes the overlap plain
    table.rounds(2)
    start = table.clock.now_us
    table.rounds(2)
    per_round = (table.clock.now_us - start) / 2
    # Four pads per reader, 20 ms settle each: 80 ms a round if the settles overlap,
    # 160 ms if every reader waited for the other's relay.
    assert per_round < 120_000, per_round


def test_the_transceiver_restarts_in_one_frame():
    table = Table(readers=1, settle_us=0)
    table.chips[0].set_tags(1, [T1, T2])
    table.rounds(3)
    chip = table.chips[0]
    assert chip.violations == []
    assert table.scanner.snapshot()[1] == (T1, T2)
    # Each exchange restarts the transceiver with one WRITE_REGISTER_MULTIPLE (Idle,
    # Transceive, IRQ clear) or, after an answer, only clears the IRQs; Idle and
    # Transceive are no longer frames of their own.
    codes = []
    execute = chip.execute

    def watch(frame):
        codes.append((frame[0], frame[1] if len(frame) > 1 else None))
        execute(frame)

    chip.execute = watch
    exchanges = table.readers[0].exchanges
    table.rounds(1)
    sent = table.readers[0].exchanges - exchanges
    restarts = codes.count((0x03, 0x00))
    clears = codes.count((0x00, 0x03))
    assert restarts > 0 and restarts + clears >= sent
    assert (0x02, 0x00) not in codes and (0x01, 0x00) not in codes  # no lone Idle / Transceive
    assert table.scanner.snapshot()[1] == (T1, T2)


def test_the_irq_pin_tells_an_empty_slot_without_an_spi_read():
    plain, wired = Table(readers=1, settle_us=0), Table(readers=1, settle_us=0, irq=True)
    for table in (plain, wired):
        table.chips[0].set_tags(2, [T1, T3])
        table.rounds(2)
    assert wired.chips[0].regs[IRQ_ENABLE] == IRQ_PIN_EVENTS
    assert wired.scanner.snapshot() == plain.scanner.snapshot()
    assert wired.scanner.snapshot()[2] == (T1, T3)
    assert wired.irqs[0].reads > 0
    # Same exchanges, fewer frames: an empty slot costs no IRQ_STATUS read.
    assert wired.readers[0].exchanges == plain.readers[0].exchanges
    assert wired.chips[0].commands < plain.chips[0].commands - wired.readers[0].exchanges // 2
    assert wired.chips[0].violations == []


def test_a_reader_is_reset_only_while_no_other_is_on_air():
    table = Table(readers=2)
    table.rounds(2)
    table.chips[1].dead = True
    for _ in range(200):
        table.step()
    table.chips[1].dead = False
    resets = table.reset.pulses
    aired = []
    pulse = SharedResetLine.value.fset

    def watch(line, level):
        if not level and line.value:
            aired.append(table.scanner._pipeline._running[0] is not None)
        pulse(line, level)

    SharedResetLine.value = property(SharedResetLine.value.fget, watch)
    try:
        table.clock.advance(1500)
        table.rounds(3)
    finally:
        SharedResetLine.value = property(SharedResetLine.value.fget, pulse)
    assert table.reset.pulses > resets
    assert aired and not any(aired)
    assert not table.scanner.faulted[1]
