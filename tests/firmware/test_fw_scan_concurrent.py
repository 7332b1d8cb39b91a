"""The scan core driving PN5180 drivers over emulated chips: concurrent batches,
priority rescans, slow zones, the heartbeat's round time, shared resets."""

from __future__ import annotations

from tablefw import protocol as p
from tablefw.chanmap import ChannelMap
from tablefw.readers.mux import GpioMux
from tablefw.scan import Scanner
from tablefw.settings import Settings

from .fakes import FakePin
from .pn5180_emulator import PERFECT, EmulatedPN5180, Pn5180Chip, SharedResetLine, SimClock

T1 = "E004015000000011"
T2 = "E004015000000022"
T3 = "E004015000000033"


class Table:
    """Two or three PN5180s with four pads each, select lines and RST shared."""

    def __init__(self, readers=2, slow_zones=(), settings=None):
        self.clock = SimClock()
        self.pins = [FakePin(), FakePin()]
        self.reset = SharedResetLine()
        mux = GpioMux(self.pins)
        self.chips = []
        self.readers = []
        for index in range(readers):
            chip = Pn5180Chip({}, mux_pins=self.pins, clock=self.clock, model=PERFECT)
            self.chips.append(chip)
            self.readers.append(EmulatedPN5180(chip, zones=[4 * index + c for c in range(4)],
                                               mux=mux,
                                               reset=self.reset, name=f"pn5180#{index}"))
        self.reset.chips = list(self.chips)
        self.wire = bytearray()
        self.host = p.Decoder(accept=p.FROM_MCU)
        self.scanner = Scanner(self.readers, self.wire.extend, self.clock,
                               Settings(settings or {"snap_ms": 0}), slow_zones=slow_zones)

    def place(self, zone, uids):
        self.chips[zone // 4].set_tags(zone % 4, uids)

    def step(self):
        wait = self.scanner.step()
        if wait:
            self.clock.advance(wait)

    def rounds(self, count):
        target = self.scanner.rounds + count
        for _ in range(50 * count):
            if self.scanner.rounds >= target:
                return
            self.step()
        raise AssertionError(f"the scanner did not complete {count} rounds")

    def received(self):
        data = bytes(self.wire)
        self.wire.clear()
        return self.host.feed(data)


def zone_lines(messages):
    return [m for m in messages if isinstance(m, p.ZoneState)]


def test_a_batch_scans_one_channel_of_every_reader_at_once():
    table = Table(readers=3)
    table.place(1, [T1])
    table.place(9, [T2, T3])
    table.rounds(4)
    assert table.scanner.snapshot()[1] == (T1,) and table.scanner.snapshot()[9] == (T2, T3)
    assert table.scanner.concurrent
    # A round is four batches of three concurrent scans, not twelve scans in turn.
    assert len(table.scanner._schedule) == 4
    assert all(chip.violations == [] for chip in table.chips)


def test_a_piece_put_down_is_confirmed_in_the_next_batch_not_a_round_later():
    table = Table()
    table.rounds(4)
    table.received()
    table.place(6, [T1])
    for _ in range(20):  # at most a few rounds
        if table.scanner.debouncers[6].candidates():
            break
        table.step()
    assert table.scanner.debouncers[6].candidates() == (T1,)
    rounds = table.scanner.rounds
    seen_at = table.clock()
    table.step()  # the priority batch
    assert zone_lines(table.received()) == [p.ZoneState(6, [T1])]
    assert table.scanner.rounds == rounds
    assert table.clock() - seen_at < 15


def test_slow_zones_are_scanned_every_few_rounds_and_staggered():
    table = Table(slow_zones=(4, 5, 6, 7))
    for zone in (4, 5, 6, 7):
        table.place(zone, [T1[:-2] + f"{zone:02X}"])
    table.rounds(9)
    start = [len(table.chips[1].requests), len(table.chips[0].requests)]
    table.rounds(8)
    slow, fast = len(table.chips[1].requests) - start[0], len(table.chips[0].requests) - start[1]
    assert fast == 8 * 4  # every pad of reader 0, each round (one probe each: empty pads)
    assert slow == 8  # each of reader 1's four pads every fourth round: eight scans
    assert len(table.scanner.snapshot()[7]) == 1


def test_heartbeat_refresh_is_the_measured_round_time():
    table = Table()
    table.place(2, [T1, T2])
    table.rounds(3)
    table.received()
    beats = []
    for _ in range(2000):
        if len(beats) >= 2:
            break
        table.step()
        beats += [m for m in table.received() if isinstance(m, p.Heartbeat)]
    assert beats[-1].refresh_ms >= table.scanner.round_ms > 0
    assert beats[-1].refresh_ms < 2 * table.scanner.round_ms + 20


def test_a_reader_recovering_on_the_shared_reset_does_not_empty_the_others():
    table = Table(readers=3)
    table.place(0, [T1])
    table.place(5, [T2])
    table.rounds(4)
    table.received()
    table.chips[2].dead = True
    table.rounds(2)
    table.chips[2].dead = False
    table.clock.advance(2000)  # past retry_ms: the scanner recovers reader 2 (RST pulse)
    table.rounds(6)
    assert table.reset.pulses >= 1
    messages = table.received()
    assert [m.reader for m in messages if isinstance(m, p.ErrorReport)] == [2]
    assert zone_lines(messages) == []  # no piece vanished from reader 0 or 1
    assert table.scanner.faulted == [False, False, False]
    assert all(chip.violations == [] for chip in table.chips)


def test_readers_whose_channels_map_to_other_positions_are_not_on_air_together():
    clock = SimClock()
    pins = [FakePin(), FakePin()]
    mux = GpioMux(pins)
    chips = [Pn5180Chip({0: [T1], 1: [], 2: [], 3: []}, mux_pins=pins, clock=clock),
             Pn5180Chip({0: [], 1: [], 2: [], 3: [T2]}, mux_pins=pins, clock=clock)]
    readers = [EmulatedPN5180(chips[0], zones=[0, 1], mux=ChannelMap(mux, [0, 1])),
               EmulatedPN5180(chips[1], zones=[2, 3], mux=ChannelMap(mux, [3, 2]))]
    scanner = Scanner(readers, lambda data: None, clock, Settings({"snap_ms": 0}))
    for _ in range(16):
        scanner.step()
    assert scanner.snapshot() == ((T1,), (), (T2,), ())
    assert all(chip.violations == [] for chip in chips)
