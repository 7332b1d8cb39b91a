"""PN532 driver against the chip emulator."""

from __future__ import annotations

import pytest

from tablefw.readers import ReaderError
from tablefw.readers import pn532 as d
from tablefw.readers.mux import GpioMux

from .fakes import FakePin, TickingClock
from .pn532_emulator import EmulatedPN532, FakeUart, Pn532Chip, Target

NTAG = Target(bytes.fromhex("04A1B2C3D4E5F6"))
NTAG_2 = Target(bytes.fromhex("04112233445566"))
CLASSIC = Target(bytes.fromhex("DEADBEEF"))
DESFIRE = Target(bytes.fromhex("04010203040506"), sel_res=0x20)  # ISO 14443-4: sends an ATS


def reader_with(antennas, channels=1, **options):
    pins = [FakePin() for _ in range(2)] if channels > 1 else None
    chip = Pn532Chip(antennas, mux_pins=pins)
    clock = TickingClock()
    reader = EmulatedPN532(chip, zones=list(range(channels)), mux=GpioMux(pins) if pins else None,
                           clock=clock, sleep=clock.sleep, **options)
    return reader, chip


def scan(reader, channel=0):
    reader.select(channel)
    return reader.inventory(channel)


def test_frames_follow_the_manual():
    assert d.command_frame(0x02) == bytes.fromhex("0000ff02fed4022a00")
    assert d.command_frame(0x4A, b"\x02\x00") == bytes.fromhex("0000ff04fcd44a0200e000")


def test_uids_are_right_aligned_in_16_hex_digits():
    assert d.uid_text(NTAG.nfcid) == "0004A1B2C3D4E5F6"
    assert d.uid_text(CLASSIC.nfcid) == "00000000DEADBEEF"
    assert d.uid_text(bytes(range(1, 11))) == "030405060708090A"


def test_initialisation_wakes_the_chip_and_limits_activation_retries():
    reader, chip = reader_with({0: []})
    reader.recover()
    assert chip.awake and chip.sam
    assert chip.retries == 1
    assert reader.firmware_version == "1.6"
    assert chip.violations == []


def test_empty_pad_answers_at_once():
    reader, chip = reader_with({0: []})
    assert scan(reader) is None
    assert chip.violations == []


def test_one_and_two_tags():
    reader, chip = reader_with({0: [NTAG], 1: [NTAG_2, CLASSIC]}, channels=2)
    assert scan(reader, 0) == ["0004A1B2C3D4E5F6"]
    assert scan(reader, 1) == ["0004112233445566", "00000000DEADBEEF"]
    assert chip.violations == []


def test_at_most_two_targets_are_listed():
    reader, _ = reader_with({0: [NTAG, NTAG_2, CLASSIC]})
    assert len(scan(reader)) == 2
    single, _ = reader_with({0: [NTAG, NTAG_2]}, max_targets=1)
    assert scan(single) == ["0004A1B2C3D4E5F6"]


def test_target_with_ats_is_skipped_correctly():
    reader, _ = reader_with({0: [DESFIRE, NTAG]})
    assert scan(reader) == ["0004010203040506", "0004A1B2C3D4E5F6"]


def test_the_same_tags_are_found_on_every_scan():
    reader, _ = reader_with({0: [NTAG]})
    assert [scan(reader) for _ in range(3)] == [["0004A1B2C3D4E5F6"]] * 3


def test_a_chip_that_ignores_the_retry_limit_times_out_instead_of_hanging():
    reader, chip = reader_with({0: []}, timeout_ms=30)
    reader.recover()
    chip.retries = 0xFF  # as after a power cycle: waits for a target forever
    with pytest.raises(ReaderError, match="no answer within 30 ms") as caught:
        scan(reader)
    assert caught.value.code == "TIMEOUT"
    assert reader.ready is False  # re-initialised on the next scan
    assert scan(reader) is None


def test_absent_chip():
    reader, chip = reader_with({0: [NTAG]})
    chip.dead = True
    with pytest.raises(ReaderError, match="no ACK") as caught:
        scan(reader)
    assert caught.value.code == "TIMEOUT"


def test_corrupted_answer_is_a_protocol_fault():
    reader, chip = reader_with({0: [NTAG]})
    reader.recover()
    original = chip._answer

    def corrupting(command, data=b""):
        original(command, data)
        chip.outgoing[-2] ^= 0x40  # the DCS byte

    chip._answer = corrupting
    with pytest.raises(ReaderError, match="checksum") as caught:
        scan(reader)
    assert caught.value.code == "PROTOCOL"


@pytest.mark.parametrize(
    "answer",
    [b"", b"\x01\x01\x00\x44", b"\x01\x01\x00\x44\x00\x05\x01\x02\x03\x04\x05",
     b"\x01\x01\x00\x44\x20\x04\x01\x02\x03\x04"],
)
def test_malformed_target_lists_are_protocol_faults(answer):
    reader, _ = reader_with({0: []})
    with pytest.raises(ReaderError) as caught:
        reader.parse_targets(answer)
    assert caught.value.code == "PROTOCOL"


def test_real_uart_seam():
    chip = Pn532Chip({0: [NTAG, CLASSIC]})
    clock = TickingClock()
    reader = d.PN532(FakeUart(chip), zones=[0], clock=clock, sleep=clock.sleep)
    reader.select(0)
    assert reader.inventory(0) == ["0004A1B2C3D4E5F6", "00000000DEADBEEF"]
    assert chip.violations == []


def test_options_are_checked():
    with pytest.raises(ValueError, match="max_targets"):
        d.PN532(None, zones=[0], max_targets=3)
    with pytest.raises(ValueError, match="255 waits forever"):
        d.PN532(None, zones=[0], passive_retries=255)
    with pytest.raises(ValueError, match="need an antenna multiplexer"):
        d.PN532(None, zones=[0, 1])
