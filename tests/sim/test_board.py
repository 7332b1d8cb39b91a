"""The board simulated as built (issue 25, items 1 and 2): each fault of the old design is
planted and shown failing, and the fixed design passes.

The old design, as it was before issue 25: no pin drove the multiplexers' EN_N (R2 pulls
it up), the driver sent its first request 1.1 ms after switching channels (no relay
settle), RF_ON went out with collision avoidance on (parameter 0x00) and every reader's
field was on at once whatever the supply budget, tags that missed an EOF were lost, and a
UID was never checked. The planted variants below reproduce each of those.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from homeworlds.sim import SimClock, SimulatedMcu, VirtualTable, make_registry
from homeworlds.sim.emulated_readers import EmulatedPN5180, EmulatedTable
from homeworlds.sim.pn5180_chip import PERFECT, Pn5180Chip, ReadModel
from homeworlds.table.board import describe
from homeworlds.table.fwconfig import FirmwareConfigError, firmware_config, wiring_table
from homeworlds.table.layout import Layout, Power, builtin_layout
from tablefw import protocol as p
from tablefw.readers import ReaderError
from tablefw.readers import pn5180 as driver

PIECES_UIDS = 37


def _mid_game(layout: Layout) -> VirtualTable:
    import sys

    from tests.shared import REPO

    sys.path.insert(0, str(REPO / "benchmarks"))
    import scan_bench

    table = VirtualTable(layout, make_registry(layout, len(layout.seats)))
    scan_bench.mid_game(table, layout, random.Random(7))
    return table


def _mcu(layout: Layout, **plant) -> tuple[SimulatedMcu, VirtualTable]:
    """The simulated MCU on the board ``layout`` describes; ``plant``: EmulatedTable
    overrides that put an old design back."""
    table = _mid_game(layout)
    mcu = SimulatedMcu(table, reader_model="pn5180", seed=7)
    if plant:
        mcu.emulated = EmulatedTable(layout, mcu.clock, model=mcu.emulated.model, seed=7, **plant)
        mcu.readers = mcu.emulated.readers  # type: ignore[assignment]
        mcu.scanner = mcu._boot()
        mcu.sync_from_table()
    return mcu, table


def _seen(mcu: SimulatedMcu) -> int:
    return sum(len(zone) for zone in mcu.scanner.snapshot())


def _errors(mcu: SimulatedMcu) -> list[p.ErrorReport]:
    return [m for m in p.Decoder(accept=p.FROM_MCU).feed(mcu.read()) if isinstance(m,
                                                                                   p.ErrorReport)]


def _without_enable(layout: Layout) -> Layout:
    assert layout.mcu is not None
    without = replace(layout, mcu=replace(layout.mcu, mux_enable=None))
    return Layout.from_toml_text(without.to_toml_text())


# ---------------------------------------------------------------- 1. the enable


@pytest.mark.parametrize("name", ["standard-2p", "four-seat"])
def test_the_multiplexer_enable_is_a_pin_of_the_generated_config_and_the_wiring_table(name):
    layout = builtin_layout(name)
    config = firmware_config(layout)
    assert config["mux_enable"] == "GP9"
    assert "| MUX EN_N | GP9 |" in wiring_table(layout)


def test_a_layout_whose_enable_no_pin_drives_is_refused_naming_the_pull_up():
    old = _without_enable(builtin_layout("standard-2p"))
    with pytest.raises(FirmwareConfigError) as caught:
        firmware_config(old)
    text = str(caught.value)
    assert "mcu.mux_enable" in text and "R2" in text and "every pad reads empty" in text


def test_an_enable_driven_by_no_pin_leaves_every_pad_empty_and_the_driven_one_reads_all():
    old, _ = _mcu(_without_enable(builtin_layout("standard-2p")))
    old.run_for(3000)
    assert _seen(old) == 0  # the old design: EN_N stays high, no relay closes
    new, table = _mcu(builtin_layout("standard-2p"))
    new.run_for(3000)
    assert _seen(new) == PIECES_UIDS == sum(len(zone) for zone in table.zone_sets())


# ---------------------------------------------------------------- 2. relay settle


def test_the_relay_settle_comes_from_the_relays_datasheet():
    board = describe(builtin_layout("standard-2p"))
    relay = board.mux.relay
    assert (relay.part, relay.operate_us, relay.bounce_us, relay.release_us) == \
        ("G6K-2F-RF DC5", 3000, 1000, 3000)
    assert firmware_config(builtin_layout("standard-2p"))["mux_settle_us"] == 4000


def test_without_the_relay_settle_no_tag_is_read_and_with_it_every_tag_is():
    old, _ = _mcu(builtin_layout("standard-2p"), settle_us=0)
    old.run_for(3000)
    assert _seen(old) == 0  # the first request goes out before the relay closed
    new, _ = _mcu(builtin_layout("standard-2p"))
    new.run_for(3000)
    assert _seen(new) == PIECES_UIDS


# ---------------------------------------------------------------- 3. fields at once


class _CollisionAvoidingPN5180(EmulatedPN5180):
    """The old RF_ON: parameter 0x00 (collision avoidance on), no check of the field."""

    def rf_on(self):
        self._transceive(bytes([driver.RF_ON, 0x00]))


def test_rf_on_with_collision_avoidance_fails_beside_a_neighbours_field():
    clock = SimClock()
    chips = [Pn5180Chip({0: ["E004015000000011"]}, clock=clock, model=PERFECT) for _ in range(2)]
    for chip in chips:
        chip.external_field = lambda me: any(other.rf for other in chips if other is not me)
    first = EmulatedPN5180(chips[0], zones=[0])
    old = _CollisionAvoidingPN5180(chips[1], zones=[0])
    first.prepare()
    old.prepare()
    first.select(0)  # its field is on
    old.select(0)
    assert chips[1].rf is False and chips[1].rf_refused == 1
    assert old.inventory(0) is None  # the old driver reads an empty pad and says nothing
    new = EmulatedPN5180(chips[1], zones=[0])
    new.prepare()
    new.select(0)  # RF_ON 0x01: no collision avoidance
    assert chips[1].rf is True
    assert new.inventory(0) == ["E004015000000011"]


def test_a_field_that_does_not_come_on_is_a_reader_error():
    chip = Pn5180Chip({0: []}, model=PERFECT)
    chip.external_field = lambda me: True
    reader = EmulatedPN5180(chip, zones=[0])
    reader.prepare()
    original = driver._FRAME_RF_ON
    try:
        driver._FRAME_RF_ON = bytes([driver.RF_ON, 0x00])  # ask with collision avoidance
        with pytest.raises(ReaderError) as caught:
            reader.select(0)
    finally:
        driver._FRAME_RF_ON = original
    assert caught.value.code == "RFON" and "RF_ACTIVE_ERROR" in caught.value.message


def test_the_supply_budget_decides_how_many_fields_are_on_at_once():
    layout = builtin_layout("standard-2p")
    board = describe(layout)
    assert board.fields_at_once == 4  # 1.2 A: 4 x 250 mA + 4 x (21 mA coil + 15 mA bias)
    assert board.scanner_draw(4) <= 1.2
    # The old budget (pixels.reserved_amps = 1 A) cannot feed four fields: three then.
    old = describe(replace(layout, power=Power("LRS-50-5", 1.0)))
    assert old.scanner_draw(4) > 1.0
    assert old.fields_at_once == 3
    assert firmware_config(replace(layout, power=Power("LRS-50-5", 1.0)))["fields_at_once"] == 3


def test_fields_past_the_supply_rating_brown_the_readers_out_and_the_budget_keeps_them_in():
    layout = builtin_layout("standard-2p")
    # The LEDs take all but 1.1 A of the 10 A supply: four fields (1.145 A with the
    # relays) are too many, three are not.
    old, _ = _mcu(layout, led_amps=8.9, fields_at_once=4)
    old.run_for(2000)
    assert old.emulated is not None and old.emulated.supply.brownouts > 0
    assert {e.code for e in _errors(old)} & {"TIMEOUT", "CHIP", "RFON"}
    new, _ = _mcu(layout, led_amps=8.9, fields_at_once=3)
    new.run_for(3000)
    assert new.emulated is not None and new.emulated.supply.brownouts == 0
    assert _seen(new) == PIECES_UIDS


# ---------------------------------------------------------------- 5. EOF misses


def _completeness(reader: EmulatedPN5180, uids: list[str], scans: int) -> float:
    complete = 0
    for _ in range(scans):
        reader.select(0)
        if reader.inventory(0) == uids:
            complete += 1
    return complete / scans


@pytest.mark.parametrize("base", [0x10, 0x18])
def test_tags_that_miss_an_eof_are_found_again_within_the_scan(base, monkeypatch):
    uids = [f"E0040150000000{base + i:02X}" for i in range(8)]
    model = replace(PERFECT, eof_miss=0.02)

    def reader(seed):
        chip = Pn5180Chip({0: uids}, model=model, rng=random.Random(seed))
        return EmulatedPN5180(chip, zones=[0])

    new = _completeness(reader(1), uids, 300)
    monkeypatch.setattr(driver, "TRAILING_SLOTS", 0)
    old_reader = reader(1)
    old_reader.max_repeats = 0
    old = _completeness(old_reader, uids, 300)
    assert old < 0.9  # the old driver: about a third of the scans miss a tag
    assert new >= 0.99


# ---------------------------------------------------------------- UIDs


def test_a_uid_that_does_not_start_with_e0_is_reported_by_name_not_reported_as_a_piece():
    layout = builtin_layout("standard-2p")
    table = VirtualTable(layout, make_registry(layout, 2))
    mcu = SimulatedMcu(table, reader_model="pn5180", seed=3,
                       read_model=ReadModel(flat=1.0, side=1.0, per_level=1.0, garble=0.0,
                                            unflagged_collision=0.0))
    mcu.settle()
    mcu.read()
    bad = "1234567890ABCDEF"
    mcu.emulated.set_tags(0, (bad,))  # type: ignore[union-attr]
    mcu.run_for(2000)
    messages = p.Decoder(accept=p.FROM_MCU).feed(mcu.read())
    errors = [m for m in messages if isinstance(m, p.ErrorReport) and m.code == "UID"]
    assert len(errors) == 1 and bad in errors[0].text and "E0" in errors[0].text
    assert all(bad not in m.uids for m in messages if isinstance(m, p.ZoneState))


# ---------------------------------------------------------------- 6. latches and IRQ lines


def _old_netlist(tmp_path):
    """hardware/netlist/mux16.toml as it was before the latch strobe: U1.LE tied to +5 V,
    no LE on the control header, no R3."""
    from homeworlds.table.board import MUX_NETLIST

    text = MUX_NETLIST.read_text(encoding="utf-8")
    text = text.replace('"+5V" = ["J18.VCC", "U1.VCC", ', '"+5V" = ["J18.VCC", "U1.VCC", "U1.LE", ')
    text = text.replace('"LE" = ["J18.LE", "U1.LE", "R3.2"]\n', "")
    text = text.replace('"GND" = ["J18.GND", "U1.GND", "R3.1", ', '"GND" = ["J18.GND", "U1.GND", ')
    text = text.replace('R3 = "RC0603FR-0710KL"\n', "")
    text = text.replace('"7 EN_N out", "8 LE out"]', '"7 EN_N out"]')
    path = tmp_path / "mux16-le-high.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_netlist_says_whether_each_board_latches_its_channel(tmp_path):
    layout = builtin_layout("standard-2p")
    new = describe(layout)
    assert (new.mux.latch_wiring, new.mux.latch_pull_part, new.mux.latch_pin) == \
        ("header", "R3", "GP22")
    assert new.mux.latched and new.irq_readers == (0, 1, 2, 3)
    old = describe(layout, mux_netlist=_old_netlist(tmp_path))
    assert old.mux.latch_wiring == "high" and not old.mux.latched


def test_the_generator_refuses_a_latch_no_pin_drives_and_a_strobe_for_tied_latches(tmp_path,
                                                                                   monkeypatch):
    from homeworlds.table import fwconfig

    layout = builtin_layout("standard-2p")
    assert layout.mcu is not None
    unstrobed = Layout.from_toml_text(replace(layout, mcu=replace(layout.mcu, mux_latch=None))
                                      .to_toml_text())
    with pytest.raises(FirmwareConfigError) as caught:
        firmware_config(unstrobed)
    text = str(caught.value)
    assert "mcu.mux_latch: missing: LE of the multiplexers (U1.LE, pulled down by R3" in text
    assert "every pad reads empty" in text
    old = _old_netlist(tmp_path)
    monkeypatch.setattr(fwconfig, "describe", lambda lay: describe(lay, mux_netlist=old))
    with pytest.raises(FirmwareConfigError) as caught:
        firmware_config(layout)
    text = str(caught.value)
    assert "mcu.mux_latch: U1.LE of mux16 is tied high: the latch is transparent" in text
    assert "must not be pipelined" in text
    # The old board without the strobe: a config the firmware scans in batches.
    config = firmware_config(unstrobed)
    assert "mux_latch" not in config


@pytest.mark.parametrize("name", ["standard-2p", "four-seat"])
def test_the_generated_config_strobes_every_latch_and_wires_every_irq(name):
    layout = builtin_layout(name)
    config = firmware_config(layout)
    assert config["mux_latch"] == layout.mcu.mux_latch
    assert [entry["cs"] for entry in config["readers"]] == list(range(len(layout.readers)))
    assert all("irq" in entry for entry in config["readers"])
    table = wiring_table(layout)
    assert f"| MUX LE strobe | {layout.mcu.mux_latch} | G1 (active high" in table
    assert f"| IRQ 0–{len(layout.readers) - 1} |" in table


def test_pipelined_on_boards_whose_le_is_tied_high_misses_tags_and_on_latched_boards_reads_all():
    """The old wiring (every 74HCT4514's LE tied high) under a pipelined scan: each board
    follows the shared select lines, so one reader's switch moves the others' relays in the
    middle of their reads. The wiring as built latches each board's channel."""
    layout = builtin_layout("standard-2p")
    transparent = describe(layout).transparent()
    old, table = _mcu(layout, board=transparent, latched=True)
    assert old.scanner.pipelined
    old.run_for(3000)
    assert _seen(old) < PIECES_UIDS // 2  # relays switched under the readers
    batches, _ = _mcu(layout, board=transparent)
    assert not batches.scanner.pipelined  # the old wiring is scanned in batches, and reads all
    batches.run_for(3000)
    assert _seen(batches) == PIECES_UIDS
    new, table = _mcu(layout)
    assert new.scanner.pipelined
    new.run_for(3000)
    assert _seen(new) == PIECES_UIDS == sum(len(zone) for zone in table.zone_sets())
    assert all(mux.switches > 15 for mux in new.emulated.muxes)
    # Without strobes the latched boards hold their power-up channel: every reader reads
    # channel 0's tags on every pad.
    unstrobed, _ = _mcu(layout, latched=False)
    unstrobed.run_for(3000)
    assert unstrobed.scanner.snapshot() != table.zone_sets()


def test_the_irq_lines_save_an_spi_read_per_empty_slot(monkeypatch):
    """With each PN5180's IRQ output on an MCU input, an empty slot is told by a pin reading;
    without the line, by an IRQ_STATUS read over SPI."""
    reads = {}
    for irq in (False, True):
        mcu, _ = _mcu(builtin_layout("standard-2p"), irq=irq)
        calls = [0]
        for reader in mcu.emulated.readers:
            original = reader._read_irq

            def counted(original=original, calls=calls):
                calls[0] += 1
                return original()

            monkeypatch.setattr(reader, "_read_irq", counted)
        mcu.run_for(3000)
        assert _seen(mcu) == PIECES_UIDS
        assert all((r.irq is not None) == irq for r in mcu.emulated.readers)
        reads[irq] = calls[0] / max(1, mcu.scanner.scans)
    assert reads[True] < 0.6 * reads[False]  # register reads per pad scanned
