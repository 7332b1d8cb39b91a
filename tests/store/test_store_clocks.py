"""The store keeps each turn's time and the game's time control, exports them, and brings a
version-1 store (written before game clocks) along."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from homeworlds.clock import ClockSpec
from homeworlds.rules import preset
from homeworlds.store import GameRecorder, GameStore
from homeworlds.store.export import export_game
from homeworlds.store.schema import SCHEMA_VERSION

from .helpers import OPENING, PLAYERS, positions, turns_of

V1_DUMP = Path(__file__).parent.parent / "data" / "store-v1.sql"
FISCHER = ClockSpec.from_dict({"mode": "fischer", "initial_s": 300, "increment_s": 5})


def _record(path, clock=FISCHER, times=None):
    recorder = GameRecorder(path, table="club-1", layout="standard-2p")
    recorder.open()
    recorder.start_game(preset("looney"), PLAYERS, clock=clock.to_dict() if clock else None)
    turns = turns_of(OPENING)
    for number, (turn, state) in enumerate(zip(turns, positions(turns), strict=True), 1):
        elapsed, left = (times or {}).get(number, (None, None))
        recorder.turn(number, (number - 1) % 2, turn, state, PLAYERS, {},
                      elapsed_ms=elapsed, clock_ms=left)
    return recorder


TIMES = {3: (12_000, 293_000), 4: (31_500, 273_500), 5: (2_250, 295_750),
         6: (301_000, 0)}


def test_each_turns_time_and_the_time_control_are_stored_and_exported(tmp_path):
    recorder = _record(tmp_path / "games.sqlite", times=TIMES)
    store = recorder.store
    game = store.latest_game("club-1")
    assert ClockSpec.from_dict(game.clock) == FISCHER
    turns = store.turns(game.id)
    assert [(t.elapsed_ms, t.clock_ms) for t in turns] == \
        [(None, None), (None, None)] + [TIMES[n] for n in (3, 4, 5, 6)]
    data = json.loads(export_game(store, game, "json"))
    assert data["clock"] == FISCHER.to_dict()
    assert [(t["elapsed_ms"], t["clock_ms"]) for t in data["turns"]][2:] == \
        [TIMES[n] for n in (3, 4, 5, 6)]
    # SDG has no clock convention: the export is the game's moves alone
    assert "293" not in export_game(store, game, "sdg")
    # a restart finds each seat's clock after its last timed turn
    point = recorder.resume_point()
    assert point.clock_ms == (295_750, 0)
    recorder.close()


def test_an_untimed_game_stores_no_times(tmp_path):
    recorder = _record(tmp_path / "games.sqlite", clock=None)
    game = recorder.store.latest_game("club-1")
    assert game.clock is None
    assert {(t.elapsed_ms, t.clock_ms) for t in recorder.store.turns(game.id)} == {(None, None)}
    assert recorder.resume_point().clock_ms == (None, None)
    recorder.close()


def test_a_negative_time_is_refused_by_the_schema(tmp_path):
    recorder = _record(tmp_path / "games.sqlite", times={3: (-5, 1000)})
    assert recorder.unsaved and "CHECK" in recorder.fault  # kept in memory, not written
    recorder.close()


def test_a_flag_fall_is_a_won_game_of_kind_flag(tmp_path):
    recorder = _record(tmp_path / "games.sqlite", times=TIMES)
    recorder.finish("flag", (0,), 1, 6)
    game = recorder.store.latest_game("club-1")
    assert game.status == "won"
    result = recorder.store.result(game.id)
    assert (result.kind, result.winners, result.by_seat) == ("flag", (0,), 1)
    data = json.loads(export_game(recorder.store, game, "json"))
    assert data["result"]["kind"] == "flag" and data["result"]["by"] == "Bob"
    recorder.close()


def _v1_store(path):
    conn = sqlite3.connect(path)
    conn.executescript(V1_DUMP.read_text())
    conn.close()


def test_a_version_1_store_is_migrated_and_its_game_goes_on_timed(tmp_path):
    path = tmp_path / "games.sqlite"
    _v1_store(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    before = conn.execute("SELECT number, seat, sdg, position, committed FROM turns "
                          "ORDER BY number").fetchall()
    conn.close()
    recorder = GameRecorder(path, table="club-1", layout="standard-2p")
    recorder.open()
    store = recorder.store
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    point = recorder.resume_point()
    game = point.game
    assert game.players == PLAYERS and game.clock is None and not game.finished
    turns = store.turns(game.id)
    assert [(t.number, t.seat, t.sdg, json.dumps(t.position, sort_keys=True), t.committed)
            for t in turns] == before
    assert {(t.elapsed_ms, t.clock_ms) for t in turns} == {(None, None)}
    assert point.clock_ms == (None, None)
    # the migrated store takes timed turns
    recorder.continue_game(game)
    all_turns = turns_of(OPENING)
    recorder.turn(4, 1, all_turns[3], positions(all_turns)[3], PLAYERS, {},
                  elapsed_ms=4_000, clock_ms=296_000)
    assert recorder.fault is None
    assert (store.turns(game.id)[-1].elapsed_ms, store.turns(game.id)[-1].clock_ms) == \
        (4_000, 296_000)
    recorder.close()
    # and it opens as a current store afterwards, without migrating again
    again = GameStore.open(path)
    assert len(again.turns(game.id)) == 4
    again.close()


def test_games_shows_the_time_control_each_turns_time_and_the_flag(tmp_path, capsys):
    from homeworlds.cli import main

    path = tmp_path / "games.sqlite"
    recorder = _record(path, times=TIMES)
    recorder.finish("flag", (0,), 1, 6)
    recorder.close()
    assert main(["games", "--store", str(path), "list"]) == 0
    assert "Bob's flag fell (Ann wins)" in capsys.readouterr().out
    assert main(["games", "--store", str(path), "show", "1"]) == 0
    out = capsys.readouterr().out
    assert "clock: 5:00 + 5 s a turn (Fischer)" in out
    assert "3) Ann: Build G1 Ann  [0:12, clock 4:53]" in out
    assert "6) Bob: Build G2 Bob  [5:01, clock 0.0]" in out
    assert "2) Bob: Homeworld R1 Y2 G3\n" in out
