"""The store file: created durable, one transaction per turn, finished games never changed,
corrupted / foreign / newer files refused and left untouched, older ones migrated."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from homeworlds.rules import preset
from homeworlds.store import GameRecorder, GameStore, StoredResult, StoreError, StoreRefused
from homeworlds.store import database as db_module
from homeworlds.store.database import StoreConflict
from homeworlds.store.records import position_to_json

from .helpers import OPENING, PLAYERS, commit, new_game, play_opening, positions, turns_of


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_new_store_is_durable_and_versioned(tmp_path):
    store = GameStore.open(tmp_path / "games.sqlite")
    conn = store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA user_version").fetchone()[0] == db_module.SCHEMA_VERSION
    store.close()


def test_turns_positions_and_result_are_kept(tmp_path):
    path = tmp_path / "games.sqlite"
    store = GameStore.open(path)
    new_game(store)
    turns = turns_of(OPENING)
    for number, (turn, state) in enumerate(zip(turns, positions(turns), strict=True), 1):
        commit(store, "g1", number, turn, state)
    store.close()
    store = GameStore.open(path)
    (game,) = store.games()
    assert (game.players, game.rules, game.status, game.turns) == (PLAYERS, "looney",
                                                                   "playing", 6)
    assert game.alignments == (None, None)
    stored = store.turns(game.id)
    assert [t.sdg for t in stored] == [text for text in OPENING]
    assert stored[-1].position == position_to_json(positions(turns)[-1])


def test_a_finished_game_is_never_changed(tmp_path):
    store = GameStore.open(tmp_path / "games.sqlite")
    new_game(store)
    turns = turns_of(OPENING[:2])
    for number, (turn, state) in enumerate(zip(turns, positions(turns), strict=True), 1):
        commit(store, "g1", number, turn, state)
    store.finish_game("g1", StoredResult("resigned", (0,), 1, "2026-11-24T12:05:00+00:00", 2))
    game = store.games()[0]
    assert (game.status, game.ended) == ("resigned", "2026-11-24T12:05:00+00:00")
    assert store.result(game.id) == StoredResult("resigned", (0,), 1,
                                                 "2026-11-24T12:05:00+00:00", 2)
    more = turns_of(OPENING[:3])[2]
    with pytest.raises(StoreConflict, match="finished"):
        commit(store, "g1", 3, more, positions(turns_of(OPENING[:3]))[-1])
    with pytest.raises(StoreConflict, match="already finished"):
        store.finish_game("g1", StoredResult("abandoned", (), None, "later", 2))
    assert store.turns(game.id)[-1].number == 2


def test_a_turn_is_written_once_and_never_replaced(tmp_path):
    store = GameStore.open(tmp_path / "games.sqlite")
    new_game(store)
    turns = turns_of(OPENING[:2])
    states = positions(turns)
    commit(store, "g1", 1, turns[0], states[0])
    commit(store, "g1", 1, turns[0], states[0])  # a retried write: nothing changes
    with pytest.raises(StoreConflict, match="different turn 1"):
        commit(store, "g1", 1, turns[1], states[1])
    with pytest.raises(StoreConflict, match="cannot follow"):
        commit(store, "g1", 3, turns[1], states[1])
    assert [t.number for t in store.turns(1)] == [1]


def test_a_corrupted_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "games.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 64)
    before = _digest(path)
    with pytest.raises(StoreRefused) as error:
        GameStore.open(path)
    message = str(error.value)
    assert str(path) in message and "left untouched" in message and "new store" in message
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]
    # ... and a new store can be started beside it.
    beside = GameStore.open(tmp_path / "games-2.sqlite")
    new_game(beside)
    assert len(beside.games()) == 1


def test_a_store_with_a_damaged_page_is_refused_untouched(tmp_path):
    path = tmp_path / "games.sqlite"
    store = GameStore.open(path)
    new_game(store)
    turns = turns_of(OPENING)
    for number, (turn, state) in enumerate(zip(turns, positions(turns), strict=True), 1):
        commit(store, "g1", number, turn, state)
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) >= 3 * page
    data[2 * page:3 * page] = b"\xa5" * page  # the b-tree page of a table is garbage now
    path.write_bytes(bytes(data))
    before = _digest(path)
    with pytest.raises(StoreRefused, match="corrupted|not a readable"):
        GameStore.open(path)
    assert _digest(path) == before


def test_a_foreign_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes(text)")
    with pytest.raises(StoreRefused, match="not a Homeworlds game store"):
        GameStore.open(path)


def test_a_store_from_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "games.sqlite"
    GameStore.open(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {db_module.SCHEMA_VERSION + 1}")
    before = _digest(path)
    with pytest.raises(StoreRefused, match="newer"):
        GameStore.open(path)
    assert _digest(path) == before


def test_an_older_store_is_migrated(tmp_path, monkeypatch):
    path = tmp_path / "games.sqlite"
    store = GameStore.open(path)
    new_game(store)
    store.close()
    # The next schema version adds a column; its migration brings old stores along.
    version = db_module.SCHEMA_VERSION
    monkeypatch.setattr(db_module, "SCHEMA_VERSION", version + 1)
    monkeypatch.setattr(db_module, "MIGRATIONS", {
        version: "ALTER TABLE games ADD COLUMN venue TEXT DEFAULT 'club';"})
    store = GameStore.open(path)
    conn = store._conn
    assert conn.execute("PRAGMA user_version").fetchone()[0] == version + 1
    assert conn.execute("SELECT venue FROM games").fetchall() == [("club",)]
    assert store.games()[0].players == PLAYERS


def test_an_older_store_without_a_migration_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "games.sqlite"
    GameStore.open(path).close()
    monkeypatch.setattr(db_module, "SCHEMA_VERSION", db_module.SCHEMA_VERSION + 1)
    before = _digest(path)
    with pytest.raises(StoreRefused, match="cannot be migrated"):
        GameStore.open(path)
    assert _digest(path) == before


def test_resume_point_has_the_record_and_the_last_star_tags(tmp_path):
    recorder = GameRecorder(tmp_path / "games.sqlite", table="club-1", layout="standard-2p")
    recorder.open()
    recorder.start_game(preset("looney"), PLAYERS)
    turns = turns_of(OPENING[:3])
    for number, (turn, state) in enumerate(zip(turns, positions(turns), strict=True), 1):
        recorder.turn(number, (number - 1) % 2, turn, state, PLAYERS,
                      {"Ann": {"E004A1", "E004A2"}})
    recorder.handover(3, {5: ["E004B7"], 7: ["E004C1", "E004C2"]})
    recorder.close()
    again = GameRecorder(tmp_path / "games.sqlite", table="club-1", layout="standard-2p")
    again.open()
    point = again.resume_point()
    assert [turn for _, turn in point.record] == turns
    assert point.star_tags == {"Ann": ["E004A1", "E004A2"]}
    assert point.pending_handover.zones == {5: ["E004B7"], 7: ["E004C1", "E004C2"]}
    assert point.position == position_to_json(positions(turns)[-1])


def test_alternating_setup_picks_are_stored_and_read_back(tmp_path, capsys):
    from homeworlds.cli import main
    from homeworlds.rules import GameState, Piece, SetupPick

    rules = preset("alternating-setup")
    picks = [("star", "y1"), ("star", "r1"), ("star", "b2"), ("star", "y2"), ("ship", "g3"),
             ("ship", "g3")]
    turns = [(SetupPick(Piece.from_text(p), role, PLAYERS[k % 2]),)
             for k, (role, p) in enumerate(picks)]
    state = GameState(rules)
    path = tmp_path / "games.sqlite"
    recorder = GameRecorder(path, table="club-1", layout="standard-2p")
    recorder.open()
    recorder.start_game(rules, PLAYERS)
    for number, turn in enumerate(turns, start=1):
        state.push(turn)
        recorder.turn(number, (number - 1) % 2, turn, state.copy(), PLAYERS, {})
    recorder.close()
    again = GameRecorder(path, table="club-1", layout="standard-2p")
    again.open()
    assert [t for _, t in again.resume_point().record] == turns
    # The export writes the picks as SDG's single setup picks, under a Rules line.
    assert main(["games", "--store", str(path), "export", "1"]) == 0
    out = capsys.readouterr().out
    assert "Rules: alternating-setup" in out
    assert "1) Ann: Star Y1" in out and "6) Bob: Ship G3" in out
    assert main(["games", "--store", str(path), "export", "1", "--format", "json"]) == 0


def test_one_turn_and_the_turns_after_a_number_are_read(tmp_path):
    store = GameStore.open(tmp_path / "games.sqlite")
    play_opening(store, "g1", 6)
    game_id = store.games()[0].id
    assert store.turn(game_id, 3) == store.turns(game_id)[2]
    assert store.turn(game_id, 3).sdg == "Build G1 Ann"
    assert store.turn(game_id, 7) is None and store.turn(game_id + 1, 1) is None
    assert [t.number for t in store.turns(game_id, after=4)] == [5, 6]
    assert [t.number for t in store.turns(game_id, after=1, limit=2)] == [2, 3]
    assert store.turns(game_id, after=6) == [] and store.turns(game_id, limit=0) == []
    store.close()


def test_a_store_opened_read_only_is_read_and_never_changed(tmp_path):
    path = tmp_path / "games.sqlite"
    store = GameStore.open(path)
    play_opening(store, "g1", 3)
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    before = _digest(path)
    reader = GameStore.open_read_only(path)
    try:
        assert [g.uid for g in reader.games()] == ["g1"]
        assert len(reader.turns(reader.games()[0].id)) == 3
        with pytest.raises(StoreError):  # it cannot write
            new_game(reader, "g2")
    finally:
        reader.close()
    assert _digest(path) == before


def test_read_only_refuses_what_it_cannot_read_as_it_is(tmp_path, monkeypatch):
    with pytest.raises(StoreRefused, match="unable to open"):
        GameStore.open_read_only(tmp_path / "absent.sqlite")
    assert not (tmp_path / "absent.sqlite").exists()
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes(text)")
    with pytest.raises(StoreRefused, match="not a Homeworlds game store"):
        GameStore.open_read_only(foreign)
    older = tmp_path / "older.sqlite"
    GameStore.open(older).close()
    monkeypatch.setattr(db_module, "SCHEMA_VERSION", db_module.SCHEMA_VERSION + 1)
    monkeypatch.setattr(db_module, "MIGRATIONS", {db_module.SCHEMA_VERSION - 1: ""})
    with pytest.raises(StoreRefused, match="run `homeworlds play` on it once"):
        GameStore.open_read_only(older)
