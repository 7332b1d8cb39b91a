"""One table, one game (issue 27, defects 4 and 5): a second `play` for a table whose name
(or serial port) another `play` holds exits at once naming both instead of waiting to take
over; two tables never share a name in a store by default; once the first dies the next
start resumes its unfinished game; and an SDG export names its game, so its turns are never
copied into another game."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from homeworlds.notation import read_sdg_file
from homeworlds.runtime.config import load_config
from homeworlds.runtime.table import TableStartError, build_table
from homeworlds.store import GameStore, LockHeld, StoreError, TableLock, holder_text
from homeworlds.store.export import record_sdg
from tests.integration.play_host import PLAYERS, PlayHost, play_turns, simulated_table
from tests.store.helpers import OPENING, new_game, play_opening, turns_of


def _games(store):
    """(id, table, status, turns) of every stored game; none while the host is still
    creating the file."""
    try:
        db = GameStore.open_read_only(store)
    except StoreError:
        return []
    try:
        return [(g.id, g.table, g.status, g.turns) for g in db.games()]
    finally:
        db.close()


def _stored(store):
    return lambda n: store.exists() and sum(g[3] for g in _games(store)) == n


def test_a_second_play_of_the_same_table_exits_and_the_next_start_resumes_the_game(
        tmp_path, sim_table, capsys):
    sim = sim_table()
    record, store = tmp_path / "game.raw", tmp_path / "games.sqlite"
    driver = sim.driver()
    first = PlayHost(sim.config, record, store=str(store))
    second = None
    try:
        play_turns(driver, OPENING[:2], _stored(store))
        second = PlayHost(sim.config, record, store=str(store))
        second.thread.join(10)
        assert second.outcome == [2], "the second play did not exit: it waits to take over"
        err = capsys.readouterr().err
        assert "is already in use by homeworlds play (pid" in err
        assert err.count(f"configuration {sim.config}") == 2  # the holder and the refused
        # The first table plays on; nothing was written by the second.
        play_turns(driver, OPENING[2:3], _stored(store), first=3)
    finally:
        first.close()
        if second is not None:
            second.close()
    # The first stopped: the next start resumes its unfinished game, never a new one.
    third = PlayHost(sim.config, record, store=str(store))
    try:
        play_turns(driver, OPENING[3:4], _stored(store), first=4)
    finally:
        third.close()
    assert _games(store) == [(1, load_config(sim.config).table_name, "playing", 4)]
    db = GameStore.open_read_only(store)
    try:
        uid = db.games()[0].uid
    finally:
        db.close()
    assert read_sdg_file(record).game == uid  # the export names its game


def test_two_tables_on_one_store_are_refused_unless_named_apart(tmp_path, sim_table, capsys):
    sim = sim_table()
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    store = tmp_path / "games.sqlite"
    with simulated_table(other_dir) as other:
        first = PlayHost(sim.config, tmp_path / "game.raw", store=str(store))
        try:
            play_turns(sim.driver(), OPENING[:1], _stored(store))
            # The other table has its own port and export, but no [store] table: by default
            # it takes the same name (the layout's and this machine's) — refused.
            second = PlayHost(other.config, other_dir / "game.raw", store=str(store))
            second.thread.join(10)
            second.close()
            assert second.outcome == [2], "the other table started on this table's game"
            err = capsys.readouterr().err
            assert f"table {load_config(sim.config).table_name!r} of the game store" in err
            assert f"configuration {sim.config}" in err and f"configuration {other.config}" \
                in err
            assert "[store] table" in err
            # Named apart, both play their own games in the one store.
            other.config.write_text(other.config.read_text() + '[store]\ntable = "club-2"\n')
            second = PlayHost(other.config, other_dir / "game.raw", store=str(store))
            try:
                play_turns(other.driver(), OPENING[:2], lambda n: (2, "club-2", "playing", n)
                           in _games(store))
            finally:
                second.close()
        finally:
            first.close()
    assert sorted((t, n) for _, t, _, n in _games(store)) == sorted(
        [(load_config(sim.config).table_name, 1), ("club-2", 2)])


def test_the_default_table_name_is_the_layout_and_this_machine(tmp_path, sim_table):
    sim = sim_table()
    name = load_config(sim.config).table_name
    assert name.startswith("standard-2p@") and len(name) > len("standard-2p@")


def test_a_table_name_stored_with_another_layout_is_refused(tmp_path, sim_table):
    sim = sim_table(sections='[store]\ntable = "club-1"\n')
    store = tmp_path / "games.sqlite"
    db = GameStore.open(store)
    db.create_game("g1", table="club-1", layout="four-seat", rules="looney", handicaps={},
                   first_seat=0, players=PLAYERS, alignments=None, started="2026-12-06")
    db.close()
    with pytest.raises(TableStartError, match="layout 'four-seat'.*'standard-2p'"):
        build_table(load_config(sim.config), None, tmp_path / "game.raw", store_path=store,
                    source=_NoEvents())
    assert not TableLock(store, "club-1").held  # and its claim was released
    TableLock(store, "club-1").acquire("the test")


def test_a_killed_holder_leaves_no_claim_behind(tmp_path):
    store = tmp_path / "games.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from homeworlds.store import TableLock, holder_text
            TableLock({str(store)!r}, "club-1").acquire(holder_text("configuration a.toml"))
            print("held", flush=True)
            time.sleep(60)
        """)], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep
                                                         .join(sys.path)})
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        with pytest.raises(LockHeld, match=rf"pid {child.pid} .*configuration a\.toml"):
            TableLock(store, "club-1").acquire(holder_text("configuration b.toml"))
        TableLock(store, "club-2").acquire("another table")  # other names are free
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    lock = TableLock(store, "club-1")
    lock.acquire(holder_text("configuration b.toml"))
    assert lock.held
    lock.release()


class _NoEvents:
    def poll(self, timeout: float = 0.0):
        return []


def _config_with_store_table(sim_table):
    return sim_table(sections='[store]\ntable = "club-1"\n')


def test_an_unnamed_export_of_an_earlier_game_is_not_copied_into_a_new_one(tmp_path, sim_table):
    """Defect 5's restart: game 1 played 6 turns; game 2 began (its first hand-over
    journalled, no turn yet) while the export still held game 1's turns. The restart must
    resume game 2 as it is, not copy game 1's turns into it."""
    sim = _config_with_store_table(sim_table)
    store, record = tmp_path / "games.sqlite", tmp_path / "game.raw"
    db = GameStore.open(store)
    play_opening(db, "g1", turns=6)
    new_game(db, "g2")
    db.journal_observation("g2", 0, "2026-12-06T05:00:00+00:00", {})
    db.close()
    record.write_text(record_sdg(PLAYERS, _seated(turns_of(OPENING)), rules="looney"))
    running = build_table(load_config(sim.config), None, record, store_path=store,
                          source=_NoEvents())
    try:
        assert running.recorder.uid == "g2"
        assert len(running.session.tracker.record) == 0
    finally:
        running.close()
    assert [(g, n) for g, _, _, n in _games(store)] == [(1, 6), (2, 0)]


def test_an_export_naming_another_game_is_not_copied_even_when_it_begins_alike(tmp_path,
                                                                               sim_table):
    sim = _config_with_store_table(sim_table)
    store, record = tmp_path / "games.sqlite", tmp_path / "game.raw"
    db = GameStore.open(store)
    play_opening(db, "g1", turns=6)
    play_opening(db, "g2", turns=2)  # the same opening: the store's turns begin the export
    db.close()
    played = _seated(turns_of(OPENING))
    record.write_text(record_sdg(PLAYERS, played, rules="looney", game="g1"))
    running = build_table(load_config(sim.config), None, record, store_path=store,
                          source=_NoEvents())
    running.close()
    assert [(g, n) for g, _, _, n in _games(store)] == [(1, 6), (2, 2)]
    # An export that names the resumed game is caught up as before.
    record.write_text(record_sdg(PLAYERS, played[:4], rules="looney", game="g2"))
    running = build_table(load_config(sim.config), None, record, store_path=store,
                          source=_NoEvents())
    running.close()
    assert [(g, n) for g, _, _, n in _games(store)] == [(1, 6), (2, 4)]


def test_an_export_of_another_tables_game_is_kept_aside_and_a_new_game_begins(tmp_path,
                                                                             sim_table):
    """The store holds no game of this table, and the export names a game the store holds
    (another table's): its turns are not copied into a new game of this table; the export
    is kept under that game's number."""
    sim = _config_with_store_table(sim_table)
    store, record = tmp_path / "games.sqlite", tmp_path / "game.raw"
    db = GameStore.open(store)
    play_opening(db, "g9", turns=3, table="club-9")
    db.close()
    record.write_text(record_sdg(PLAYERS, _seated(turns_of(OPENING[:3])), rules="looney",
                                 game="g9"))
    running = build_table(load_config(sim.config), None, record, store_path=store,
                          source=_NoEvents())
    try:
        assert len(running.session.tracker.record) == 0
        assert running.recorder.uid != "g9"
    finally:
        running.close()
    assert _games(store) == [(1, "club-9", "playing", 3)]
    assert read_sdg_file(tmp_path / "game-game1.raw").game == "g9"


def _seated(turns):
    return [(k % 2, t) for k, t in enumerate(turns)]
