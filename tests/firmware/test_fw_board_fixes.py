"""The firmware side of issue 25's fixes: the multiplexer enable driven, the relay settle
waited before the first request, batches no larger than the supply allows, UIDs checked."""

from __future__ import annotations

import random

import pytest

from tablefw import batches
from tablefw import protocol as p
from tablefw.config import ConfigError, build, fields_at_once
from tablefw.readers import pn5180 as driver
from tablefw.readers.mux import GpioMux
from tablefw.scan import Scanner
from tablefw.virtual import VirtualReader

from .fakes import FakePin, make_board, make_digitalio
from .pn5180_emulator import PERFECT, EmulatedPN5180, FakeSpiBus, Pn5180Chip, SimClock
from .test_fw_app import fake_busio, reference_config


def test_the_reference_config_drives_the_multiplexer_enable_low_from_the_first_switch():
    config, _ = reference_config()
    assert config["mux_enable"] == "GP9" and config["mux_settle_us"] == 4000
    digitalio = make_digitalio()
    readers, _, _, _ = build(config, make_board(), fake_busio(FakeSpiBus()), digitalio)
    enable = digitalio.registry["GP9"]
    assert enable.value is True  # EN_N high: disabled until the scanner selects a channel
    mux = readers[0].mux
    assert mux.enable is enable and mux.settle_us == 4000
    mux.select(3)
    assert enable.value is False
    assert fields_at_once(config) == 4


@pytest.mark.parametrize("key, value", [("mux_settle_us", -1), ("mux_settle_us", "4 ms"),
                                        ("fields_at_once", 0), ("fields_at_once", True)])
def test_bad_settle_or_field_counts_are_refused_naming_the_key(key, value):
    config, _ = reference_config()
    config[key] = value
    with pytest.raises(ConfigError, match=key):
        build(config, make_board(), fake_busio(FakeSpiBus()), make_digitalio())


def test_the_first_request_waits_for_the_relay_of_every_reader_on_the_select_lines():
    clock = SimClock()
    pins = [FakePin() for _ in range(4)]
    mux = GpioMux(pins, settle_us=4000)
    chips = [Pn5180Chip({1: ["E004015000000011"]}, mux_pins=pins, clock=clock, model=PERFECT)
             for _ in range(2)]
    readers = [EmulatedPN5180(chip, zones=list(range(16)), mux=mux) for chip in chips]
    for reader in readers:
        reader.prepare()
    switched = clock.ticks_us()
    steps = [reader.scan_steps(1) for reader in readers]  # the first switches, the second does not
    sent = []
    for chip in chips:
        original = chip._send

        def spy(payload, now, original=original):
            sent.append(now)
            original(payload, now)

        chip._send = spy
    for step in steps:
        for _ in step:
            pass
    assert [reader.found for reader in readers] == [["E004015000000011"]] * 2
    assert min(sent) >= switched + 4000 + driver.POWER_UP_US


def test_a_batch_holds_no_more_readers_than_fields_at_once():
    class Stepping(VirtualReader):
        def scan_steps(self, channel, several=False):
            self.select(channel)
            self.found = self.inventory(channel)
            yield

    readers = [Stepping([4 * index + c for c in range(4)], name=f"r{index}") for index in range(4)]
    scanner = Scanner(readers, lambda data: None, clock=lambda: 0, fields_at_once=3)
    schedule = batches.schedule(scanner, 3)  # the batch order (these run pipelined)
    assert max(len(batch) for batch in schedule) == 3
    assert sorted(packed for batch in schedule for packed in batch) == \
        sorted(index << 8 | c for index in range(4) for c in range(4))


def test_a_uid_without_e0_is_reported_once_by_name_and_not_as_a_piece():
    clock = SimClock()
    bad = "1234567890ABCDEF"
    chip = Pn5180Chip({0: [bad]}, clock=clock, model=PERFECT, rng=random.Random(1))
    reader = EmulatedPN5180(chip, zones=[0])
    out = bytearray()
    scanner = Scanner([reader], out.extend, clock=lambda: clock.ticks_us() // 1000, warmup_ms=0)
    for _ in range(20):
        scanner.step()
        clock.advance_us(10_000)
    messages = p.Decoder(accept=p.FROM_MCU).feed(bytes(out))
    errors = [m for m in messages if isinstance(m, p.ErrorReport)]
    assert len(errors) == 1 and errors[0].code == "UID" and bad in errors[0].text
    assert scanner.snapshot() == ((),)


def test_only_boards_that_latch_their_channel_are_scanned_pipelined():
    """The reference config strobes each board's latch: the scan core pipelines. The same
    readers on boards whose LE is tied high (no mux_latch: one shared switch) scan in
    batches, a channel on every reader at once."""
    config, _ = reference_config()
    readers, _, _, _ = build(config, make_board(), fake_busio(FakeSpiBus()), make_digitalio())
    assert Scanner(readers, lambda data: None, SimClock(), fields_at_once=4).pipelined
    del config["mux_latch"]
    readers, _, _, _ = build(config, make_board(), fake_busio(FakeSpiBus()), make_digitalio())
    assert readers[0].mux is readers[1].mux  # the boards follow the same select lines
    scanner = Scanner(readers, lambda data: None, SimClock(), fields_at_once=4)
    assert not scanner.pipelined and scanner._schedule[0] == (0, 1 << 8, 2 << 8, 3 << 8)


def test_a_switch_strobes_its_own_board_after_the_select_lines_are_set():
    config, _ = reference_config()
    digitalio = make_digitalio()
    readers, _, _, _ = build(config, make_board(), fake_busio(FakeSpiBus()), digitalio)
    registry = digitalio.registry
    seen = []

    def written(pin, level):
        if pin == config["mux_latch"] and level:  # the 74HC238 drives one LE high now
            address = [registry[name].value for name in config["nss_decoder"]["address"]]
            select = [registry[name].value for name in config["mux"]]
            seen.append((sum(1 << b for b, v in enumerate(address) if v),
                         sum(1 << b for b, v in enumerate(select) if v)))

    digitalio.listeners.append(written)
    readers[2].mux.select(5)
    readers[1].mux.select(9)
    readers[2].mux.select(5)  # already there: no strobe
    assert seen == [(2, 5), (1, 9)]
    assert registry[config["mux_latch"]].value is False  # every latch closed again
    assert registry[config["mux_enable"]].value is False  # enabled after the first strobe
