"""`homeworlds play` against the simulated microcontroller on a pty, with a memory LED sink:
turns are recorded after every commit, and a restarted host resumes the game."""

from __future__ import annotations

from homeworlds.cli import main
from homeworlds.notation import read_sdg_file
from tests.integration.play_host import PlayHost, play_turns, turns_in
from tests.store.helpers import wait_for


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


def test_play_records_every_turn_and_resumes_after_a_restart(tmp_path, sim_table):
    sim = sim_table()
    record = tmp_path / "game.raw"
    driver = sim.driver()
    host = PlayHost(sim.config, record)
    try:
        play_turns(driver, ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3", "Build G1 Ann"],
                   lambda n: turns_in(record) == n)
    finally:
        host.close()
    # The host restarts mid-game: it resumes from the record and goes on.
    host = PlayHost(sim.config, record)
    try:
        play_turns(driver, ["Build G1 Bob"], lambda n: turns_in(record) == n, first=4)
    finally:
        host.close()
    game = read_sdg_file(record)
    assert [t.texts for t in game.turns][-2:] == [("Build G1 Ann",), ("Build G1 Bob",)]


def test_play_sends_the_scanner_settings_and_again_after_the_table_restarts(tmp_path,
                                                                          sim_table):
    sim = sim_table(warmup_ms=100, sections="[scanner]\ndebounce_off = 6\nhb_ms = 700\n")
    mcu = sim.mcu.mcu
    host = PlayHost(sim.config, tmp_path / "game.raw")
    try:
        wait_for(lambda: mcu.scanner.settings.debounce_off == 6)
        assert mcu.scanner.settings.hb_ms == 700
        with mcu.lock:
            mcu.reset(mid_line=True)  # a watchdog reset in the middle of a line
        assert mcu.scanner.settings.debounce_off != 6
        wait_for(lambda: mcu.scanner.settings.debounce_off == 6)
        assert mcu.scanner.settings.hb_ms == 700
    finally:
        host.close()
