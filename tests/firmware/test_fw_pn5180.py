"""PN5180 driver against the chip emulator."""

from __future__ import annotations

import pytest

from tablefw import protocol as p
from tablefw.readers import ReaderError
from tablefw.readers import pn5180 as d
from tablefw.readers.mux import GpioMux
from tablefw.scan import Scanner

from .fakes import FakePin
from .pn5180_emulator import EmulatedPN5180, FakeSpiBus, Pn5180Chip, SimClock, le_uid

# Low nibbles 1, 2, 3: three different slots of the first round.
T1 = "E004015000000011"
T2 = "E004015000000022"
T3 = "E004015000000033"
# Same lowest nibble (slot 5 of the first round), different second nibble.
S1 = "E004015000000015"
S2 = "E004015000000025"
# Same lowest byte: they collide again in the first masked round.
D1 = "E004015000000177"
D2 = "E004015000000277"


def reader_with(antennas: dict[int, list[str]], channels: int = 1, **options):
    pins = [FakePin() for _ in range(3)] if channels > 1 else None
    chip = Pn5180Chip(antennas, mux_pins=pins, clock=SimClock())
    mux = GpioMux(pins) if pins else None
    reader = EmulatedPN5180(chip, zones=list(range(channels)), mux=mux, **options)
    return reader, chip


def scan(reader, channel=0):
    reader.select(channel)
    return reader.inventory(channel)


def test_uid_bytes_arrive_least_significant_first():
    assert d.uid_text(b"\x00\x00" + le_uid(T1)) == T1


def test_empty_pad_costs_one_short_probe():
    reader, chip = reader_with({0: []})
    assert scan(reader) is None
    assert chip.requests == [(d.FLAGS_1_SLOT, 0, 0)]  # no 16-slot round
    assert chip.violations == []


def test_one_tag_is_read_from_the_probe_alone():
    reader, chip = reader_with({0: [T2]})
    assert scan(reader) == [T2]
    assert chip.requests == [(d.FLAGS_1_SLOT, 0, 0)]  # a clean single answer: no 16-slot round
    assert chip.violations == []


def test_several_tags_in_different_slots():
    reader, chip = reader_with({0: [T3, T1, T2]})
    assert scan(reader) == [T1, T2, T3]
    assert chip.requests == [(d.FLAGS_1_SLOT, 0, 0), (d.FLAGS_16_SLOTS, 0, 0)]
    assert chip.violations == []


def test_colliding_tags_are_separated_with_a_mask():
    reader, chip = reader_with({0: [S1, S2, T3]})
    assert scan(reader) == [S1, S2, T3]
    assert (d.FLAGS_16_SLOTS, 4, 0x5) in chip.requests
    assert chip.violations == []


def test_deeper_collisions_take_longer_masks():
    reader, chip = reader_with({0: [D1, D2]})
    assert scan(reader) == [D1, D2]
    assert [r[1] for r in chip.requests] == [0, 0, 4, 8]
    assert chip.requests[-1] == (d.FLAGS_16_SLOTS, 8, 0x77)
    assert chip.violations == []


def test_fifteen_ship_tags_on_one_pad():
    tags = ["E0040150%08X" % (0x1000 * i + 7 * i) for i in range(15)]
    reader, chip = reader_with({0: tags})
    assert scan(reader) == sorted(tags)
    assert chip.violations == []


def test_multiplexed_antennas_see_only_their_own_tags():
    reader, chip = reader_with({0: [T1], 1: [], 2: [T2, T3]}, channels=3)
    assert scan(reader, 2) == [T2, T3]
    assert scan(reader, 1) is None
    assert scan(reader, 0) == [T1]
    assert chip.violations == []


def test_field_is_off_between_scans():
    reader, chip = reader_with({0: [T1]})
    scan(reader)
    assert chip.rf is False


def test_inventory_of_an_unselected_channel_is_refused():
    reader, _ = reader_with({0: [T1], 1: [T2]}, channels=2)
    reader.select(0)
    with pytest.raises(ReaderError, match="channel 0 is selected") as caught:
        reader.inventory(1)
    assert caught.value.code == "MUX"


def test_missing_chip_is_reported():
    reader, chip = reader_with({0: [T1]})
    chip.dead = True
    with pytest.raises(ReaderError) as caught:
        scan(reader)
    assert caught.value.code == "NOCHIP"


def test_chip_dying_mid_scan_raises_and_reinitialises_next_time():
    reader, chip = reader_with({0: [T1]})
    assert scan(reader) == [T1]
    chip.dead = True
    with pytest.raises(ReaderError) as caught:
        scan(reader)
    assert caught.value.code in ("CHIP", "NOCHIP")
    assert reader.ready is False
    chip.dead = False
    chip.rf_config = None  # a power-cycled chip forgot its RF configuration
    assert scan(reader) == [T1]
    assert chip.violations == []


def test_real_spi_seam_with_busy_handshake():
    bus = FakeSpiBus()
    cs, busy = FakePin(True), FakePin(False)
    chip = Pn5180Chip({0: [T1, T2]})
    bus.attach(cs, chip)
    reader = d.PN5180(bus, cs, busy, zones=[0], clock=bus.clock)
    reader.select(0)
    assert reader.inventory(0) == [T1, T2]
    assert bus.configured == (7000000, 0, 0)
    assert cs.value is True and not bus.locked
    assert chip.violations == []


def test_busy_stuck_high_is_a_fault():
    bus = FakeSpiBus()
    cs, busy = FakePin(True), FakePin(True)
    bus.attach(cs, Pn5180Chip())
    clock = bus.clock

    def busy_value():  # BUSY reads take time too
        clock.advance_us(100)
        return True

    busy = type("StuckBusy", (), {"value": property(lambda self: busy_value())})()
    reader = d.PN5180(bus, cs, busy, zones=[0], clock=clock, busy_timeout_ms=20)
    with pytest.raises(ReaderError, match="BUSY stays high") as caught:
        reader.select(0)
    assert caught.value.code == "BUSY"


def test_scanner_over_two_emulated_readers_reports_tags_and_faults():
    mux_pins = [FakePin() for _ in range(2)]
    clock = SimClock()
    chips = [Pn5180Chip({0: [T1], 1: [S1, S2]}, mux_pins=mux_pins, clock=clock),
             Pn5180Chip({0: [], 1: [T3]}, mux_pins=mux_pins, clock=clock)]
    mux = GpioMux(mux_pins)  # select lines shared by both readers
    readers = [EmulatedPN5180(chips[0], zones=[0, 1], mux=mux),
               EmulatedPN5180(chips[1], zones=[2, 3], mux=mux)]
    wire = bytearray()
    scanner = Scanner(readers, wire.extend, clock)
    host = p.Decoder(accept=p.FROM_MCU)
    for _ in range(12):
        scanner.step()
        clock.advance(10)
    messages = host.feed(bytes(wire))
    wire.clear()
    snapshot = [m for m in messages if isinstance(m, p.Snapshot)][0]
    assert snapshot.zones == ((T1,), (S1, S2), (), (T3,))

    chips[1].dead = True
    for _ in range(6):
        scanner.step()
        clock.advance(10)
    errors = [m for m in host.feed(bytes(wire)) if isinstance(m, p.ErrorReport)]
    assert [(e.reader, e.code) for e in errors] == [(1, "CHIP")]
    assert chips[0].violations == [] and chips[1].violations == []
