"""The PN5180 driver against the datasheet model of the chip: the defects of
issue 8, and the chip model's own rules.

Every test in the first part failed with the driver before issue 8 (see
docs/firmware.md, "PN5180 emulator"): timeouts counted in whole milliseconds
from the SPI command instead of from the end of transmission, SEND_DATA for
an EOF while the chip still waited to receive, RX_STATUS error bits ignored,
readers on a shared reset line not reloading their RF configuration, the
field left on after an error, a 16-slot round after a clean single answer.
"""

from __future__ import annotations

import random

import pytest

from homeworlds.sim import pn5180_chip as chip_model
from tablefw.readers import ReaderError
from tablefw.readers import pn5180 as d
from tablefw.readers.mux import GpioMux

from .fakes import FakePin
from .pn5180_emulator import (
    PERFECT,
    EmulatedPN5180,
    Pn5180Chip,
    ReadModel,
    SharedResetLine,
    SimClock,
    Tag,
)

T1 = "E004015000000011"
T2 = "E004015000000022"
S1 = "E004015000000015"  # S1 and S2 answer in the same slot of the first round
S2 = "E004015000000025"


def reader_with(antennas, clock=None, model=PERFECT, reset=None, **options):
    clock = clock or SimClock()
    chip = Pn5180Chip(antennas, clock=clock, model=model, rng=random.Random(1))
    reader = EmulatedPN5180(chip, zones=[0], reset=reset, **options)
    return reader, chip


def scan(reader):
    reader.select(0)
    return reader.inventory(0)


# ---------------------------------------------------------------- defects of issue 8


def test_a_tag_answering_after_the_requests_air_time_is_seen():
    # The request alone is 1.6 ms on air, the answer starts 0.32 ms after it.
    reader, chip = reader_with({0: [T1]})
    assert scan(reader) == [T1]
    assert chip.violations == []


def test_an_empty_pad_costs_the_probe_and_a_short_wait_only():
    reader, chip = reader_with({0: []})
    reader.select(0)
    start = chip.clock.ticks_us()
    assert reader.inventory(0) is None
    spent = chip.clock.ticks_us() - start
    air = chip_model.request_air_us(3)
    assert air < spent < air + 2500  # request, t1 + SOF timeout, RF off and the SPI frames
    assert chip.requests == [(d.FLAGS_1_SLOT, 0, 0)]


def test_every_eof_follows_idle_then_transceive():
    # Two tags: the probe collides, a 16-slot round follows with 14 empty slots.
    reader, chip = reader_with({0: [T1, T2]}, sof_timeout_ms=5)
    assert scan(reader) == [T1, T2]
    assert chip.general_errors == 0
    assert chip.violations == []


def test_an_unflagged_collision_is_split_not_read_as_a_phantom_uid():
    model = ReadModel(flat=1.0, side=1.0, per_level=1.0, garble=0.0, unflagged_collision=1.0)
    reader, chip = reader_with({0: [S1, S2]}, model=model, sof_timeout_ms=5)
    assert scan(reader) == [S1, S2]
    assert (d.FLAGS_16_SLOTS, 4, 0x5) in chip.requests


def test_a_garbled_answer_in_a_round_is_read_again_not_reported():
    reader, chip = reader_with({0: [T1, T2]}, sof_timeout_ms=5)
    chip.set_tags(0, [T1, T2])
    # The probe collides; then slot 1 (T1) arrives with a CRC error.
    chip.garble_next(1)
    assert scan(reader) == [T1, T2]
    assert (d.FLAGS_16_SLOTS, 4, 0x1) in chip.requests


def test_a_broken_off_answer_is_not_a_tag():
    reader, chip = reader_with({0: [T1]}, sof_timeout_ms=5)
    chip.garble_next(1)
    found = scan(reader)
    assert found == [T1]  # read again, cleanly


def test_readers_on_a_shared_reset_line_reload_their_rf_configuration():
    clock = SimClock()
    line = SharedResetLine()
    reader_a, chip_a = reader_with({0: [T1]}, clock=clock, reset=line)
    reader_b, chip_b = reader_with({0: [T2]}, clock=clock, reset=line)
    line.chips = [chip_a, chip_b]
    reader_a.recover()
    reader_b.recover()  # resets chip A too
    assert chip_a.rf_config is None
    assert scan(reader_a) == [T1]
    assert scan(reader_b) == [T2]
    assert chip_a.resets == 2


def test_the_field_goes_off_when_a_scan_fails():
    reader, chip = reader_with({0: [T1]})
    assert scan(reader) == [T1]
    reader.select(0)
    chip.fail_next_send()
    with pytest.raises(ReaderError) as caught:
        reader.inventory(0)
    assert caught.value.code == "CHIP"
    assert chip.rf is False
    assert scan(reader) == [T1]  # recovers on the next scan


def test_a_clean_single_answer_needs_no_sixteen_slot_round():
    reader, chip = reader_with({0: [T1]})
    scan(reader)
    assert chip.requests == [(d.FLAGS_1_SLOT, 0, 0)]


# ---------------------------------------------------------------- concurrency


def test_readers_scanned_concurrently_find_the_same_tags_sooner():
    def table(clock):
        readers, chips = [], []
        for tags in ([T1, T2], [S1], [S1, S2, T1]):
            reader, chip = reader_with({0: tags}, clock=clock)
            readers.append(reader)
            chips.append(chip)
        return readers, chips

    clock = SimClock()
    readers, _ = table(clock)
    sequential = [scan(reader) for reader in readers]
    sequential_us = clock.ticks_us()

    clock = SimClock()
    readers, chips = table(clock)
    steps = [reader.scan_steps(0) for reader in readers]
    while steps:
        for gen in list(steps):
            try:
                next(gen)
            except StopIteration:
                steps.remove(gen)
    assert [reader.found for reader in readers] == sequential
    assert clock.ticks_us() < 0.75 * sequential_us
    assert all(chip.violations == [] and chip.rf is False for chip in chips)


# ---------------------------------------------------------------- the chip model


def chip_in_transceive(antennas=None):
    chip = Pn5180Chip(antennas or {}, clock=SimClock())
    chip.execute(bytes([d.LOAD_RF_CONFIG, d.RF_TX_ISO15693, d.RF_RX_ISO15693]))
    chip.execute(bytes([d.RF_ON, d.RF_ON_NO_COLLISION_AVOIDANCE]))
    chip.execute(bytes([d.WRITE_REGISTER, d.IRQ_CLEAR]) + d.IRQ_ALL.to_bytes(4, "little"))
    chip.clock.advance_us(1100)
    chip.execute(bytes([d.WRITE_REGISTER_OR_MASK, d.SYSTEM_CONFIG]) + (3).to_bytes(4, "little"))
    return chip


def irq(chip):
    chip.execute(bytes([d.READ_REGISTER, d.IRQ_STATUS]))
    return int.from_bytes(chip.read(4), "little")


def test_chip_air_time_follows_iso15693():
    assert round(chip_model.request_air_us(3)) == 1624  # 5 bytes with CRC, SOF, EOF
    assert round(chip_model.answer_air_us()) == 3738
    chip = chip_in_transceive({0: [T1]})
    chip.execute(bytes([d.SEND_DATA, 0, d.FLAGS_1_SLOT, d.CMD_INVENTORY, 0]))
    chip.clock.advance_us(1600)
    assert irq(chip) == 0  # still on air
    chip.clock.advance_us(30)
    assert irq(chip) == d.IRQ_TX
    chip.clock.advance_us(330)
    assert irq(chip) & d.IRQ_RX_SOF
    chip.clock.advance_us(3800)
    assert irq(chip) & d.IRQ_RX
    assert chip.state == chip_model.WAIT_TRANSMIT


def test_chip_refuses_send_data_while_waiting_to_receive():
    chip = chip_in_transceive({0: []})
    chip.execute(bytes([d.SEND_DATA, 0, d.FLAGS_1_SLOT, d.CMD_INVENTORY, 0]))
    chip.clock.advance_us(5000)
    assert chip.state == chip_model.WAIT_RECEIVE  # nobody answered
    chip.execute(bytes([d.SEND_DATA, 0, d.FLAGS_1_SLOT, d.CMD_INVENTORY, 0]))
    assert irq(chip) & d.IRQ_GENERAL_ERROR
    assert len(chip.requests) == 1


def test_chip_flags_collisions_of_two_tags_in_one_slot():
    chip = chip_in_transceive({0: [S1, S2]})
    chip.execute(bytes([d.SEND_DATA, 0, d.FLAGS_1_SLOT, d.CMD_INVENTORY, 0]))
    chip.clock.advance_us(6000)
    chip.execute(bytes([d.READ_REGISTER, d.RX_STATUS]))
    assert int.from_bytes(chip.read(4), "little") & d.RX_COLLISION


def test_chip_reset_forgets_the_rf_configuration():
    chip = chip_in_transceive({0: [T1]})
    chip.reset()
    assert chip.rf_config is None and chip.rf is False and chip.state == chip_model.IDLE


def test_tags_on_their_side_and_stacked_are_read_less_often():
    model = ReadModel()
    flat, side, high = Tag(T1), Tag(T1, "side"), Tag(T1, "flat", 3)
    assert model.hears(flat) > model.hears(high) > 0.5
    assert model.hears(flat) > model.hears(side) > 0.5
    rng = random.Random(3)
    reads = {"flat": 0, "side": 0}
    for pose in reads:
        for _ in range(300):
            chip = Pn5180Chip({0: [Tag(T1, pose)]}, clock=SimClock(),
                              model=ReadModel(side=0.8, garble=0), rng=rng)
            reader = EmulatedPN5180(chip, zones=[0])
            reads[pose] += scan(reader) == [T1]
    assert reads["flat"] > 290 and 200 < reads["side"] < 270


def test_multiplexer_switch_restarts_the_tags_power_up():
    pins = [FakePin()]
    chip = Pn5180Chip({0: [T1], 1: [T2]}, mux_pins=pins, clock=SimClock())
    reader = EmulatedPN5180(chip, zones=[0, 1], mux=GpioMux(pins))
    assert scan(reader) == [T1]
    reader.select(1)
    assert reader.inventory(1) == [T2]
    assert chip.violations == []


def test_a_pad_known_to_hold_several_tags_skips_the_probe():
    reader, chip = reader_with({0: [T1, T2]})
    for _ in reader.scan_steps(0, several=True):
        pass
    assert reader.found == [T1, T2]
    assert chip.requests == [(d.FLAGS_16_SLOTS, 0, 0)]


@pytest.mark.parametrize("flags", [0x24, 0x27])  # low data rate; two subcarriers
def test_chip_receives_no_answer_to_a_request_for_another_answer_form(flags):
    chip = chip_in_transceive({0: [T1]})
    chip.execute(bytes([d.SEND_DATA, 0, flags, d.CMD_INVENTORY, 0]))
    chip.clock.advance_us(6000)
    assert not irq(chip) & (d.IRQ_RX | d.IRQ_RX_SOF)
    assert chip.violations and "answer is not one subcarrier" in chip.violations[0]
