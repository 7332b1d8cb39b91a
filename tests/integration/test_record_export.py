"""The SDG file `play` writes after every turn is an export: written through a fresh
temporary file (a planted `<record>.tmp` symlink is not followed), never replacing a
read-only file, and a failure to write it does not stop the game (the store has it)."""

from __future__ import annotations

import os
import sqlite3
import time

from homeworlds.notation import read_sdg_file
from tests.integration.play_host import PLAYERS, SETTLE_S, PlayHost, sdg_turn, simulated_table

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
    with simulated_table(tmp_path) as sim:
        host = PlayHost(sim.config, record, store=None)
        try:
            driver = sim.driver()
            for k, text in enumerate(TURNS):
                time.sleep(SETTLE_S)
                driver.play_turn(sdg_turn(text, PLAYERS[k % 2]))
                deadline = time.monotonic() + 20
                while not done(k + 1) and time.monotonic() < deadline and \
                        host.thread.is_alive():
                    time.sleep(0.05)
                assert done(k + 1), f"turn {k + 1} was not recorded"
                if k == 0 and after_first is not None:
                    after_first()
        finally:
            host.close()
    return host.outcome


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
