"""Every shipped layout round-trips: layout -> table_config.py -> the board's HELLO ->
the host's handshake accepts it; the firmware builds the config on a Pico's pins."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from homeworlds.link import HandshakeRefused, LinkState, LinkUp, SnapshotReceived, TableLink
from homeworlds.sim import SimError, SimulatedMcu, VirtualTable, make_registry
from homeworlds.table.fwconfig import read_config_text, render_table_config
from homeworlds.table.layout import builtin_layout, builtin_layout_names
from homeworlds.table.wiring import BOARD_PINS
from tablefw.config import build
from tests.firmware.fakes import make_board, make_digitalio

from .linkbench import LinkBench

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"

# firmware/table_config.py as shipped before the wiring came from the layout: six
# 8-way readers, 44 zones, the multiplexer on the BUSY pins of hardware/README.md.
OLD_SHIPPED_CONFIG = {
    "reader": "pn5180", "zones": 44,
    "spi": {"clock": "GP18", "mosi": "GP19", "miso": "GP16"}, "reset": "GP22",
    "mux": ["GP2", "GP3", "GP4"],
    "readers": [
        {"cs": "GP17", "busy": "GP20", "zones": [0, 1, 2, 3, 4, 5, 6, 7]},
        {"cs": "GP5", "busy": "GP6", "zones": [8, 9, 10, 11, 12, 13, 14, 15]},
        {"cs": "GP7", "busy": "GP8", "zones": [16, 17, 18, 19, 20, 21, 22, 23]},
        {"cs": "GP9", "busy": "GP10", "zones": [24, 25, 26, 27, 28, 29, 30, 31]},
        {"cs": "GP11", "busy": "GP12", "zones": [32, 33, 34, 35, 36, 37, 38, 39]},
        {"cs": "GP13", "busy": "GP21", "zones": [40, 41, 42, 43]},
    ],
    "buttons": ["GP14", "GP15"],
}


def generated_config(name: str) -> dict:
    layout = builtin_layout(name)
    text = render_table_config(layout, name)
    namespace: dict = {}
    exec(compile(text, f"table_config.py ({name})", "exec"), namespace)  # as the board imports it
    return namespace["CONFIG"]


@pytest.mark.parametrize("name", builtin_layout_names())
def test_layout_to_firmware_config_to_hello_to_accepted_handshake(name):
    layout = builtin_layout(name)
    table = VirtualTable(layout, make_registry(layout, layout.seat_count))
    mcu = SimulatedMcu(table, firmware_config=generated_config(name))
    bench = LinkBench(mcu, expected_zones=layout.zone_count)
    bench.ready()
    up = bench.of_type(LinkUp)[0]
    assert up.hello.zones == layout.zone_count
    assert up.hello.readers == len(layout.readers)
    assert up.hello.buttons == sum(seat.button is not None for seat in layout.seats)
    assert bench.of_type(HandshakeRefused) == []
    snapshot = bench.of_type(SnapshotReceived)[-1]
    # Every pad the layout has is scanned by the reader the config gives it.
    assert {zone: frozenset(uids) for zone, uids in enumerate(table.zone_sets())} == \
        dict(snapshot.zones)


@pytest.mark.parametrize("name", builtin_layout_names())
def test_generated_config_builds_on_a_pico(name):
    layout = builtin_layout(name)
    config = generated_config(name)
    digitalio = make_digitalio()
    board = make_board(list(BOARD_PINS[layout.mcu.board]))
    readers, buttons, _, zone_count = build(config, board, _busio(), digitalio)
    assert zone_count == layout.zone_count
    assert [tuple(z for z in r.zones if z is not None) for r in layout.readers] == \
        [r.zones for r in readers]
    for reader in layout.readers:  # the pins facing PN5180 BUSY outputs are inputs
        assert digitalio.registry[reader.pins.busy].direction == "input"
    outputs = {pin for pin, io in digitalio.registry.items() if io.direction == "output"}
    assert not outputs & {reader.pins.busy for reader in layout.readers}
    assert len(buttons) == len(layout.mcu.buttons)


def _busio():
    from types import SimpleNamespace
    return SimpleNamespace(SPI=lambda clock, MOSI=None, MISO=None: SimpleNamespace(),
                           UART=lambda *a, **k: SimpleNamespace())


def test_the_shipped_table_config_is_the_one_generated_from_standard_2p():
    shipped = (FIRMWARE / "table_config.py").read_text(encoding="utf-8")
    assert shipped == render_table_config(builtin_layout("standard-2p"), "standard-2p")
    config = read_config_text(shipped)
    assert config["zones"] == 56 and len(config["readers"]) == 4
    assert [r["zones"] for r in config["readers"]] == [
        list(range(0, 15)), list(range(15, 30)), list(range(30, 42)),
        [*range(44, 56), 42, 43]]  # the turn tokens on the bank tray's reader, channels 12-13


def test_the_old_shipped_config_is_refused_by_the_handshake():
    layout = builtin_layout("standard-2p")
    table = VirtualTable(layout, make_registry(layout))
    mcu = SimulatedMcu(table, firmware_config=OLD_SHIPPED_CONFIG)
    bench = LinkBench(mcu, expected_zones=layout.zone_count)
    bench.until(lambda: bench.link.state is LinkState.REFUSED)
    refused = bench.of_type(HandshakeRefused)[0]
    assert "reports 44 zones but the layout has 56" in refused.reason


def test_a_config_the_firmware_refuses_is_named():
    layout = builtin_layout("standard-2p")
    table = VirtualTable(layout, make_registry(layout))
    config = generated_config("standard-2p")
    config["readers"][1]["cs"] = 0
    with pytest.raises(SimError,
                       match=r"readers\[1\]\.cs: decoder output 0 is already used by "
                             r"readers\[0\]\.cs"):
        SimulatedMcu(table, firmware_config=config)


@pytest.mark.parametrize("name", builtin_layout_names())
def test_round_trip_over_a_pty_with_the_host_link(name):
    from homeworlds.link import SerialTransport
    from homeworlds.sim import PtyMcu

    layout = builtin_layout(name)
    table = VirtualTable(layout, make_registry(layout, layout.seat_count))
    mcu = PtyMcu(table, scan_time=1, warmup_ms=200, firmware_config=generated_config(name))
    with mcu:
        link = TableLink(lambda: SerialTransport(mcu.device_path), expected_zones=layout.zone_count)
        events = []
        deadline = time.monotonic() + 20
        while link.state is not LinkState.READY and time.monotonic() < deadline:
            events += link.poll(0.05)
        link.close()
    assert link.stats.handshake_refusals == 0
    up = [e for e in events if isinstance(e, LinkUp)][0]
    assert up.hello.zones == layout.zone_count and up.hello.readers == len(layout.readers)


def test_sim_mcu_command_refuses_a_config_the_firmware_refuses(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "table_config.py"
    text = render_table_config(builtin_layout("standard-2p"), "standard-2p")
    path.write_text(text.replace('"busy": "GP3"', '"busy": "GP17"'))
    result = subprocess.run([sys.executable, "-m", "homeworlds", "sim-mcu", "--pty",
                             "--firmware-config", str(path)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 1
    assert "readers[1].busy: pin GP17 is already used by nss_decoder.enable" in result.stderr
