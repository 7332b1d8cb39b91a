"""``homeworlds pad-test`` over the simulated MCU on a real pty."""

from __future__ import annotations

import re
import threading
import time

import pytest

from homeworlds.bringup.padtest import AMBER, GREEN, RED, PadMonitor
from homeworlds.cli import main
from homeworlds.commands import pad_test
from homeworlds.link import SerialTransport, SnapshotReceived, TableLink, ZoneChanged
from homeworlds.pixels import ColorCorrection, MemorySink, PixelOutput
from homeworlds.rules import Piece
from homeworlds.runtime.config import load_config
from homeworlds.sim import PtyMcu
from tablefw.settings import SETTINGS

from .conftest import write_config

RATE = re.compile(r"^\s+(E0[0-9A-F]{14})\s+([\d.]+)% read, (\d+) missed reads", re.M)


def _rates(out: str) -> dict[str, float]:
    block = out.split("=== after")[-1]
    return {uid: float(rate) / 100 for uid, rate, _ in RATE.findall(block)}


def test_once_reports_every_tag_of_the_chosen_pads(capsys, config_file, table, layout):
    code = main(["pad-test", "--config", str(config_file), "--once", "--settle", "5",
                 "--zones", "44-46"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "link up on /dev/" in out
    assert "zone 44 (bank compartment r1), reader 3 channel 0:" in out
    assert "zone 47" not in out  # only the zones asked for
    rates = _rates(out)
    expected = {uid for zone in (44, 45, 46) for uid in table.tags_on(zone)}
    assert set(rates) == expected and len(expected) == 9
    assert all(rate == 1.0 for rate in rates.values()), out  # no misses on a perfect table


def test_missed_reads_show_as_read_rates(capsys, tmp_path, table, registry):
    """A pad that misses 30 % of reads reports about 70 %, tag by tag."""
    with PtyMcu(table, scan_time=1, miss_rate=0.3, seed=5) as mcu:
        config = write_config(tmp_path, mcu.device_path, registry)
        code = main(["pad-test", "--config", str(config), "--once", "--settle", "5",
                     "--zones", "44-55", "--no-leds"])
        debounce = mcu.mcu.scanner.settings.debounce_on, mcu.mcu.scanner.settings.debounce_off
    out = capsys.readouterr().out
    assert code == 0, out
    rates = _rates(out)
    assert len(rates) == 36  # every bank piece
    mean = sum(rates.values()) / len(rates)
    assert 0.6 < mean < 0.8, out
    # Every tag shows misses (dozens of reads each at 30 %: none reads them all).
    assert all(0.3 < rate < 1.0 for rate in rates.values()), out
    # The firmware's debounce is back to what it was.
    assert debounce == (SETTINGS["debounce_on"][0], SETTINGS["debounce_off"][0])


def test_a_pads_ring_sector_lights_while_a_tag_is_read(tmp_path, mcu, table, layout, registry):
    config = load_config(write_config(tmp_path, mcu.device_path, registry))
    sink = MemorySink(layout.pixel_count)
    output = PixelOutput(sink, ColorCorrection(), max_fps=None)
    uid = table.take_from_bank(Piece.from_text("g2"))
    ship_zone = layout.ship_zone(4, 1)  # north's ship pad of slot 4
    table.place(uid, ship_zone)
    link = TableLink(lambda: SerialTransport(mcu.device_path))
    stop = threading.Event()
    lit: list[tuple] = []

    def watch():
        while not stop.wait(0.05):
            frame = sink.last
            if frame is not None and frame[layout.slots[4].ring[12]] != (0, 0, 0):
                lit.append(frame)
                stop.set()

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        code = pad_test.serve(config, link, output, duration=8, interval=100, stop=stop)
    finally:
        stop.set()
        watcher.join()
    assert code == 0
    assert lit, "the ring never lit"
    ring = layout.slots[4].ring
    frame = lit[0]
    # Ring of 16 pixels, three sectors (star, south ships, north ships): north = pixels 10-15.
    assert [frame[i] for i in ring[10:]] == [GREEN] * 6
    assert all(frame[i] == (0, 0, 0) for i in ring[:10])
    assert sink.last == tuple([(0, 0, 0)] * layout.pixel_count)  # blanked when done


def test_monitor_colours_a_pad_by_its_worst_tag(layout):
    monitor = PadMonitor(layout)
    zone = layout.slots[0].star_zone
    monitor.handle(SnapshotReceived({zone: frozenset({"E004015000000001"})}, at=0.0))
    assert monitor.frame(1.0)[layout.slots[0].ring[0]] == GREEN
    # Missed for a fifth of the time: 80 % -> amber.
    monitor.handle(ZoneChanged(zone, frozenset(), at=8.0))
    monitor.handle(ZoneChanged(zone, frozenset({"E004015000000001"}), at=10.0))
    assert monitor.pads(10.0)[0].tags[0].read_rate == pytest.approx(0.8)
    assert monitor.pads(10.0)[0].tags[0].dropouts == 1
    assert monitor.frame(10.0)[layout.slots[0].ring[0]] == AMBER
    monitor.handle(ZoneChanged(zone, frozenset(), at=10.5))
    monitor.handle(ZoneChanged(zone, frozenset({"E004015000000001"}), at=15.0))
    assert monitor.frame(15.0)[layout.slots[0].ring[0]] == RED
    # Taken away for good: the figures stop at the moment it left, the lamp goes dark.
    monitor.handle(ZoneChanged(zone, frozenset(), at=16.0))
    tag = monitor.pads(30.0)[0].tags[0]
    assert tag.gone and tag.read_rate == pytest.approx(9.5 / 16)
    assert tag.dropouts == 2
    assert monitor.frame(30.0)[layout.slots[0].ring[0]] == (0, 0, 0)


def test_lamps_of_token_and_bank_pads(layout):
    monitor = PadMonitor(layout)
    assert monitor.lamp(layout.token_zone(1)) == layout.seats[1].bar
    assert monitor.lamp(layout.bank_zone(Piece.from_text("b3"))) == ()
    assert monitor.lamp(layout.slots[2].star_zone) == layout.slots[2].ring[:5]


def test_a_silent_table_exits_1(capsys, tmp_path, mcu, table):
    table.unplug()
    config = write_config(tmp_path, mcu.device_path)
    assert main(["pad-test", "--config", str(config), "--duration", "1", "--no-leds"]) == 1
    assert "never answered" in capsys.readouterr().err


def test_a_malformed_zone_list_is_a_usage_error(capsys, config_file):
    with pytest.raises(SystemExit) as caught:
        main(["pad-test", "--config", str(config_file), "--once", "--zones", "3,x"])
    assert caught.value.code == 2
    assert "not a zone list such as 0,3,12-14: '3,x'" in capsys.readouterr().err


def test_a_zone_the_layout_lacks_is_refused(capsys, config_file):
    assert main(["pad-test", "--config", str(config_file), "--once", "--zones", "999"]) == 2
    assert "layout 'standard-2p' has no zone 999 (zones 0-55)" in capsys.readouterr().err


def test_raw_reads_are_asked_for_again_after_the_firmware_restarts(tmp_path, mcu, registry):
    config = load_config(write_config(tmp_path, mcu.device_path, registry))
    scanner_settings = lambda: mcu.mcu.scanner.settings  # noqa: E731  (replaced on a reset)
    link = TableLink(lambda: SerialTransport(mcu.device_path))
    stop = threading.Event()
    seen: list[tuple[int, int]] = []

    def restart_then_watch():
        deadline = time.monotonic() + 10
        while scanner_settings().debounce_on != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        seen.append((scanner_settings().debounce_on, scanner_settings().debounce_off))
        mcu.mcu.reset()  # back at the firmware's own debounce
        while scanner_settings().debounce_on != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        seen.append((scanner_settings().debounce_on, scanner_settings().debounce_off))
        stop.set()

    helper = threading.Thread(target=restart_then_watch)
    helper.start()
    try:
        code = pad_test.serve(config, link, None, duration=12, interval=100, stop=stop)
    finally:
        stop.set()
        helper.join()
    assert code == 0
    assert seen == [(1, 1), (1, 1)]
