"""The SDG file `play` writes after every turn is an export: written through a fresh
temporary file (a planted `<record>.tmp` symlink is not followed), never replacing a
read-only file, and a failure to write it does not stop the game (the store has it)."""

from __future__ import annotations

import argparse
import os
import sqlite3
import threading
import time

from homeworlds.commands import play
from homeworlds.notation.sdg import read_sdg_file
from homeworlds.rules import GameState, preset
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout
from tests.integration.play_host import sdg_turn

LAYOUT = builtin_layout("standard-2p")
TURNS = ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3", "Build G1 Ann"]


def _stored(tmp_path):
    path = tmp_path / "games.sqlite"
    if not path.exists():
        return 0
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        try:
            return conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


def _play_three_turns(tmp_path, record, done, after_first=None):
    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    table = VirtualTable(LAYOUT, registry)
    with PtyMcu(table, scan_time=0) as mcu:
        config = tmp_path / "table.toml"
        config.write_text(
            '[table]\nregistry = "registry.toml"\nrules = "looney"\nplayers = ["Ann", "Bob"]\n'
            f'[serial]\nport = "{mcu.device_path}"\n[pixels]\nsink = "memory"\n')
        stop = threading.Event()
        args = argparse.Namespace(config=str(config), record=str(record), store=None)
        outcome = []
        host = threading.Thread(target=lambda: outcome.append(play.run(args, stop=stop)))
        host.start()
        try:
            driver = TableDriver(table, GameState(preset("looney")))
            for k, text in enumerate(TURNS):
                time.sleep(0.3)
                driver.play_turn(sdg_turn(text, ("Ann", "Bob")[k % 2]))
                deadline = time.monotonic() + 20
                while not done(k + 1) and time.monotonic() < deadline and host.is_alive():
                    time.sleep(0.05)
                assert done(k + 1), f"turn {k + 1} was not recorded"
                if k == 0 and after_first is not None:
                    after_first()
        finally:
            stop.set()
            host.join(10)
    return outcome


def test_a_planted_temporary_symlink_is_not_followed(tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n")
    record = tmp_path / "game.raw"
    (tmp_path / "game.raw.tmp").symlink_to(victim)
    _play_three_turns(tmp_path, record, lambda n: record.exists()
                      and len(read_sdg_file(record).turns) == n)
    assert victim.read_text() == "keep me\n"
    assert [t.texts[0] for t in read_sdg_file(record).turns] == TURNS


def _make_read_only_once_written(record):
    # The export follows the store's commit: wait until it holds the first turn, or the
    # chmod can come before the file exists (seen on a loaded machine).
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if record.exists() and len(read_sdg_file(record).turns) == 1:
            break
        time.sleep(0.05)
    os.chmod(record, 0o444)


def test_a_read_only_record_is_not_replaced_and_the_game_goes_on(tmp_path, capsys):
    record = tmp_path / "game.raw"
    outcome = _play_three_turns(tmp_path, record, lambda n: _stored(tmp_path) == n,
                                after_first=lambda: _make_read_only_once_written(record))
    assert [t.texts[0] for t in read_sdg_file(record).turns] == TURNS[:1]
    assert outcome == [0]
    assert "read-only: not replaced" in capsys.readouterr().err
