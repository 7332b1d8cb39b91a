"""The game lifecycle through `homeworlds play` on the simulated table: resign / draw /
abandon typed on the host's terminal are recorded with who and when; a cleared table
after a finished game starts a new game in the store and the finished one is kept; a
store fault is reported, the game goes on, and the store catches up when it clears."""

from __future__ import annotations

import queue
import re
import sqlite3
import threading
import time

import pytest

from homeworlds.commands import play
from homeworlds.notation import read_sdg_file
from homeworlds.rules import GameState, preset
from homeworlds.runtime.config import load_config
from homeworlds.runtime.table import serve
from homeworlds.sim import TableDriver
from homeworlds.store import GameStore, StoreUnavailable

from ..store.helpers import OPENING, FaultyStore, disk_full, turns_of
from ..store.helpers import wait_for as _wait_for
from .play_host import LAYOUT


class _Host:
    def __init__(self, config_path, record, store, opener=None):
        self.stop = threading.Event()
        self.commands: queue.Queue = queue.Queue()
        config = load_config(config_path)
        output = config.pixels.open_output(config.layout.pixel_count)
        self.thread = threading.Thread(target=lambda: serve(
            config, output, record, self.stop, store_path=store, commands=self.commands,
            store_opener=opener))
        self.thread.start()

    def close(self):
        self.stop.set()
        self.thread.join(10)


def _play_on_a_full_disk(driver, record):
    """Turns 3 and 4 of OPENING while the store's disk is full: each reaches the export."""
    FaultyStore.fault = disk_full()
    for k, turn in enumerate(turns_of(OPENING)[2:4], start=3):
        time.sleep(0.2)
        driver.play_turn(turn)
        _wait_for(lambda n=k: record.exists() and len(read_sdg_file(record).turns) == n,
                  what=f"turn {k} in the export")


def _query(store, sql, params=()):
    if not store.exists():
        return []
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError:
            return []


def _turns(store, game_id=None):
    if game_id is None:
        rows = _query(store, "SELECT COUNT(*) FROM turns")
        return rows[0][0] if rows else 0
    rows = _query(store, "SELECT COUNT(*) FROM turns WHERE game_id = ?", (game_id,))
    return rows[0][0] if rows else 0


@pytest.fixture
def table_setup(sim_table):
    sim = sim_table()
    return sim.table, sim.config


def _play(driver, store, texts, first=1, game_id=None):
    for k, turn in enumerate(turns_of(texts)[first - 1:], start=first):
        time.sleep(0.2)
        driver.play_turn(turn)
        _wait_for(lambda n=k: _turns(store, game_id) >= n, what=f"turn {k}")


def _clear(table):
    for slot in LAYOUT.slots:
        for zone in (slot.star_zone, *slot.ship_zones):
            for uid in table.tags_on(zone):
                table.to_bank(uid)


def test_resign_then_a_cleared_table_starts_a_new_game(tmp_path, table_setup):
    table, config = table_setup
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    host = _Host(config, record, store)
    try:
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:3])
        host.commands.put("resign Bob\n")
        _wait_for(lambda: _query(store, "SELECT status FROM games") == [("resigned",)],
                  what="the resignation")
        _clear(table)
        _wait_for(lambda: len(_query(store, "SELECT id FROM games")) == 2,
                  what="a new game")
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:2], game_id=2)
    finally:
        host.close()
    db = GameStore.open(store)
    first, second = db.games()
    assert (first.status, first.turns, second.status, second.turns) == (
        "resigned", 3, "playing", 2)
    result = db.result(first.id)
    assert (result.kind, result.by_seat, result.winners, result.after_turn) == (
        "resigned", 1, (0,), 3)
    assert result.at.startswith(first.started[:4])
    assert [t.sdg for t in db.turns(first.id)] == OPENING[:3]
    # The finished game's export is kept beside the current one.
    assert len(read_sdg_file(tmp_path / "game-record-game1.raw").turns) == 3
    assert len(read_sdg_file(record).turns) == 2


@pytest.mark.parametrize("command, status", [("draw", "agreed-draw"),
                                             ("abandon", "abandoned")])
def test_draw_and_abandon_are_recorded(tmp_path, table_setup, command, status):
    table, config = table_setup
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    host = _Host(config, record, store)
    try:
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:2])
        host.commands.put(f"{command}\n")
        _wait_for(lambda: _query(store, "SELECT status FROM games") == [(status,)],
                  what=f"the {command}")
    finally:
        host.close()
    rows = _query(store, "SELECT kind, by_seat, after_turn, at IS NOT NULL FROM results")
    assert rows == [(status, None, 2, 1)]


def test_a_store_fault_keeps_the_game_going_and_nothing_is_lost(tmp_path, table_setup,
                                                                 capsys):
    table, config = table_setup
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    FaultyStore.fault = None
    host = _Host(config, record, store, opener=FaultyStore.open)
    try:
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:2])
        _play_on_a_full_disk(driver, record)
        assert _turns(store) == 2
        FaultyStore.fault = None
        _wait_for(lambda: _turns(store) == 4, timeout=10, what="the retried writes")
        _play(driver, store, OPENING, first=5)
    finally:
        FaultyStore.fault = None
        host.close()
    captured = capsys.readouterr()
    assert "NOT SAVED" in captured.err and "disk is full" in captured.err
    assert "saved again, nothing was lost" in captured.out
    db = GameStore.open(store)
    assert [t.sdg for t in db.turns(1)] == OPENING


def test_after_a_restart_a_finished_game_waits_for_the_cleared_table(tmp_path, table_setup,
                                                                     capsys):
    table, config = table_setup
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    host = _Host(config, record, store)
    try:
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:2])
        host.commands.put("resign Ann\n")
        _wait_for(lambda: _query(store, "SELECT status FROM games") == [("resigned",)],
                  what="the resignation")
    finally:
        host.close()
    host = _Host(config, record, store)
    try:
        _wait_for(lambda: "game 1 is over (resigned)" in capsys.readouterr().out,
                  what="the host to show the finished game")
        assert len(_query(store, "SELECT id FROM games")) == 1
        _clear(table)
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:1], game_id=2)
    finally:
        host.close()
    assert _query(store, "SELECT id, status FROM games") == [(1, "resigned"), (2, "playing")]
    assert _turns(store, 1) == 2


def test_a_corrupted_store_is_refused_and_a_new_one_beside_it_goes_on(tmp_path, table_setup,
                                                                       capsys):
    table, config = table_setup
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    host = _Host(config, record, store)
    try:
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:3])
    finally:
        host.close()
    damaged = b"this is no longer a database " * 200
    store.write_bytes(damaged)
    for suffix in ("-wal", "-shm"):
        store.with_name(store.name + suffix).unlink(missing_ok=True)
    assert play.run(_args(config, record, store), stop=threading.Event()) == 2
    err = capsys.readouterr().err
    assert "not a readable game store" in err and "left untouched" in err and "--store" in err
    assert store.read_bytes() == damaged
    # A new store beside it: the game goes on from the SDG export.
    beside = tmp_path / "games-new.sqlite"
    host = _Host(config, record, beside)
    try:
        _play(driver, beside, OPENING, first=4)
    finally:
        host.close()
    assert [t.sdg for t in GameStore.open(beside).turns(1)] == OPENING


def _args(config, record, store):
    import argparse
    return argparse.Namespace(config=str(config), record=str(record), store=str(store))


def test_turns_the_store_missed_when_the_host_stopped_are_taken_from_the_export(
        tmp_path, table_setup, capsys):
    """The store was full when the host was stopped: the turns it lacks are in the SDG
    export, and the next start copies them into the store and goes on."""
    table, config = table_setup
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    FaultyStore.fault = None
    host = _Host(config, record, store, opener=FaultyStore.open)
    try:
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:2])
        _play_on_a_full_disk(driver, record)
    finally:
        host.close()
        FaultyStore.fault = None
    assert _turns(store) == 2
    assert re.search(r"\d+ writes could not be saved", capsys.readouterr().err)
    host = _Host(config, record, store)
    try:
        _wait_for(lambda: _turns(store) == 4, what="the turns copied from the export")
        _play(driver, store, OPENING, first=5)
    finally:
        host.close()
    assert [t.sdg for t in GameStore.open(store).turns(1)] == OPENING


def test_a_store_that_cannot_be_opened_at_start_does_not_start_a_second_game(
        tmp_path, table_setup, capsys):
    """The store holds an unfinished game but is locked when the host starts: the host
    must not begin another game beside it (the unfinished one would no longer be the
    table's latest); it says so and exits 2, the store unchanged."""
    table, config = table_setup
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    host = _Host(config, record, store)
    try:
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:2])
    finally:
        host.close()
    opens = []

    def locked_once(path):
        opens.append(path)
        if len(opens) == 1:
            raise StoreUnavailable(str(path), "database is locked")
        return GameStore.open(path)

    cfg = load_config(config)
    stop = threading.Event()
    stop.set()
    rc = serve(cfg, None, record, stop, store_path=store, store_opener=locked_once)
    assert rc == 2
    assert "locked" in capsys.readouterr().err
    assert _query(store, "SELECT id, status FROM games") == [(1, "playing")]
    assert _turns(store, 1) == 2
