"""`homeworlds play` against the simulated microcontroller on a pty, with a memory LED sink:
turns are recorded after every commit, and a restarted host resumes the game."""

from __future__ import annotations

import time

from homeworlds.cli import main
from homeworlds.notation import read_sdg_file
from homeworlds.rules import GameState, preset
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout
from tests.integration.play_host import PlayHost, sdg_turn, turns_in
from tests.store.helpers import wait_for

LAYOUT = builtin_layout("standard-2p")


def test_without_configuration_it_says_what_is_missing(capsys):
    assert main(["play"]) == 2
    assert "no configuration given" in capsys.readouterr().err


def test_without_registry_it_says_to_enroll(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text('[table]\nregistry = "missing.toml"\n[serial]\nport = "/dev/null"\n')
    assert main(["play", "--config", str(config)]) == 2
    assert "run `homeworlds enroll`" in capsys.readouterr().err


def test_without_port_it_refuses_rather_than_simulating(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text('[table]\nrules = "looney"\n')
    assert main(["play", "--config", str(config)]) == 2
    assert "serial.port" in capsys.readouterr().err


def test_play_records_every_turn_and_resumes_after_a_restart(tmp_path):
    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    table = VirtualTable(LAYOUT, registry)
    record = tmp_path / "game.raw"
    with PtyMcu(table, scan_time=0) as mcu:
        config = tmp_path / "table.toml"
        config.write_text(
            '[table]\nregistry = "registry.toml"\nrules = "looney"\nplayers = ["Ann", "Bob"]\n'
            f'[serial]\nport = "{mcu.device_path}"\n[pixels]\nsink = "memory"\n')
        driver = TableDriver(table, GameState(preset("looney")))
        host = PlayHost(config, record)
        try:
            for k, text in enumerate(["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3",
                                      "Build G1 Ann"]):
                time.sleep(0.3)  # let the host see the pieces before the token moves
                driver.play_turn(sdg_turn(text, ("Ann", "Bob")[k % 2]))
                wait_for(lambda n=k + 1: turns_in(record) == n)
        finally:
            host.close()
        # The host restarts mid-game: it resumes from the record and goes on.
        host = PlayHost(config, record)
        try:
            time.sleep(0.3)
            driver.play_turn(sdg_turn("Build G1 Bob", "Bob"))
            wait_for(lambda: turns_in(record) == 4)
        finally:
            host.close()
    game = read_sdg_file(record)
    assert [t.texts for t in game.turns][-2:] == [("Build G1 Ann",), ("Build G1 Bob",)]


def test_play_sends_the_scanner_settings_and_again_after_the_table_restarts(tmp_path):
    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    table = VirtualTable(LAYOUT, registry)
    with PtyMcu(table, scan_time=0, warmup_ms=100) as mcu:
        config = tmp_path / "table.toml"
        config.write_text(
            '[table]\nregistry = "registry.toml"\n'
            f'[serial]\nport = "{mcu.device_path}"\n[pixels]\nsink = "memory"\n'
            '[scanner]\ndebounce_off = 6\nhb_ms = 700\n')
        host = PlayHost(config, tmp_path / "game.raw")
        try:
            wait_for(lambda: mcu.mcu.scanner.settings.debounce_off == 6)
            assert mcu.mcu.scanner.settings.hb_ms == 700
            with mcu.mcu.lock:
                mcu.mcu.reset(mid_line=True)  # a watchdog reset in the middle of a line
            assert mcu.mcu.scanner.settings.debounce_off != 6
            wait_for(lambda: mcu.mcu.scanner.settings.debounce_off == 6)
            assert mcu.mcu.scanner.settings.hb_ms == 700
        finally:
            host.close()
