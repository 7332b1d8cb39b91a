"""Every message about where a game is kept is true when it is printed (issue 27, defect
7): with the store's card read-only, full or removed, the host never says "the store keeps
the game" or "the export holds the game" unless it does; when neither can be written it
says so, keeps the turns in memory, and prints the whole game in SDG on stop. Faults are
injected at the store's write seam (``FaultyStore``) and the export's (``export_writer``),
and one is made real: the store file removed under the running table."""

from __future__ import annotations

import errno
import queue
import sqlite3
import threading
import time

import pytest

from homeworlds.notation import read_sdg, read_sdg_file
from homeworlds.runtime.config import load_config
from homeworlds.runtime.table import serve
from homeworlds.store import GameStore
from homeworlds.store.export import write_atomically

from ..store.helpers import OPENING, FaultyStore, disk_full, turns_of, wait_for


class _ExportFault:
    """The export's file write, failing while ``fault`` holds an OSError."""

    def __init__(self):
        self.fault: OSError | None = None

    def __call__(self, path, text):
        if self.fault is not None:
            raise self.fault
        write_atomically(path, text)


class _Host:
    def __init__(self, config_path, record, store, export_writer):
        self.stop = threading.Event()
        config = load_config(config_path)
        output = config.pixels.open_output(config.layout.pixel_count)
        self.thread = threading.Thread(target=lambda: serve(
            config, output, record, self.stop, store_path=store, commands=queue.Queue(),
            store_opener=FaultyStore.open, export_writer=export_writer))
        self.thread.start()

    def close(self):
        self.stop.set()
        self.thread.join(10)


FAULTS = {
    "read-only filesystem": (sqlite3.OperationalError("attempt to write a readonly database"),
                             OSError(errno.EROFS, "Read-only file system"), "read-only"),
    "disk full": (disk_full(), OSError(errno.ENOSPC, "No space left on device"),
                  "disk is full"),
    "removed card": (sqlite3.OperationalError("disk I/O error"),
                     OSError(errno.EIO, "Input/output error"), "card removed?"),
}


@pytest.fixture(autouse=True)
def no_fault():
    FaultyStore.fault = None
    yield
    FaultyStore.fault = None


def _play(sim, record, store, *, store_fault, export_fault, capsys):
    """Turns 1-2 saved everywhere, then the faults, then turns 3-4; the host is stopped.
    Returns (stdout, stderr) and the export's writer."""
    writer = _ExportFault()
    host = _Host(sim.config, record, store, writer)
    driver = sim.driver()
    turns = turns_of(OPENING[:4])
    outs: list[str] = []
    errs: list[str] = []

    def read() -> None:
        captured = capsys.readouterr()
        outs.append(captured.out)
        errs.append(captured.err)

    try:
        for number, turn in enumerate(turns, start=1):
            if number == 3:
                FaultyStore.fault = store_fault
                writer.fault = export_fault
            time.sleep(0.3)
            driver.play_turn(turn)

            def told(n=number):
                read()
                return f"turn {n}: " in "".join(outs)
            wait_for(told, what=f"turn {number} on the terminal")
    finally:
        host.close()
    read()
    return "".join(outs), "".join(errs)


def _stored_turns(store) -> int:
    db = GameStore.open_read_only(store)
    try:
        return sum(g.turns for g in db.games())
    finally:
        db.close()


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_when_neither_store_nor_export_can_be_written_the_host_says_so_and_prints_the_game(
        tmp_path, sim_table, capsys, fault):
    store_fault, export_fault, words = FAULTS[fault]
    sim = sim_table()
    store, record = tmp_path / "games.sqlite", tmp_path / "game.raw"
    out, err = _play(sim, record, store, store_fault=store_fault, export_fault=export_fault,
                     capsys=capsys)
    assert "NOT SAVED" in err and words in err
    # Nothing claims the game is kept where it is not.
    assert "the store keeps the game" not in err + out
    assert "holds the game" not in err + out and "holds every turn" not in err + out
    assert "NEITHER the store nor the export" in err
    assert "kept in memory" in err + out
    # On stop: the whole game in SDG, every turn the table showed.
    printed = read_sdg(out[out.index("Homeworlds Online"):])
    assert [" ; ".join(t.texts) for t in printed.turns] == [
        " ; ".join(t.strip() for t in text.split(";")) for text in OPENING[:4]]
    assert _stored_turns(store) == 2 and len(read_sdg_file(record).turns) == 2


def test_a_store_fault_with_the_export_written_says_the_export_holds_the_game(
        tmp_path, sim_table, capsys):
    sim = sim_table()
    store, record = tmp_path / "games.sqlite", tmp_path / "game.raw"
    out, err = _play(sim, record, store, store_fault=disk_full(), export_fault=None,
                     capsys=capsys)
    assert "NOT SAVED" in err and f"the export {record} holds every turn" in err
    assert "the store keeps the game" not in err + out
    assert f"the export {record} holds the game (4 turns)" in err
    assert "Homeworlds Online" not in out  # the export has it: nothing to print
    assert len(read_sdg_file(record).turns) == 4


def test_an_export_fault_with_the_store_written_says_the_store_keeps_the_game(
        tmp_path, sim_table, capsys):
    sim = sim_table()
    store, record = tmp_path / "games.sqlite", tmp_path / "game.raw"
    out, err = _play(sim, record, store, store_fault=None,
                     export_fault=OSError(errno.ENOSPC, "No space left on device"),
                     capsys=capsys)
    assert "was not written" in err and "(the store keeps the game)" in err
    assert "NOT SAVED" not in err and "NEITHER" not in err
    assert _stored_turns(store) == 4


def test_a_store_file_removed_under_the_table_is_not_written_as_if_saved(tmp_path, sim_table,
                                                                         capsys):
    """A real fault: the store file is deleted while the host has it open. SQLite would go
    on writing to the deleted file, where nobody finds the turns again; the host must say
    NOT SAVED instead, and keep the turns."""
    sim = sim_table()
    store, record = tmp_path / "games.sqlite", tmp_path / "game.raw"
    writer = _ExportFault()
    host = _Host(sim.config, record, store, writer)
    driver = sim.driver()
    try:
        for number, turn in enumerate(turns_of(OPENING[:3]), start=1):
            if number == 3:
                for suffix in ("", "-wal", "-shm"):
                    store.with_name(store.name + suffix).unlink(missing_ok=True)
            time.sleep(0.3)
            driver.play_turn(turn)
            wait_for(lambda n=number: record.exists() and len(read_sdg_file(record).turns) == n,
                     what=f"turn {number} in the export")
    finally:
        host.close()
    err = capsys.readouterr().err
    assert "NOT SAVED" in err
    assert "the store file is gone" in err and "the store keeps the game" not in err
    assert not store.exists()  # not made anew: the game is not split over two stores
    assert f"the export {record} holds the game (3 turns)" in err


def test_turns_caught_up_from_the_export_are_not_called_stored_while_the_store_fails(
        tmp_path, sim_table, capsys):
    """On a restart the export holds turns 3-4 beyond the store's two; the disk is still
    full: the host must not say they were copied into the store."""
    from homeworlds.runtime.table import build_table
    from homeworlds.store.export import record_sdg

    from ..store.helpers import PLAYERS, play_opening

    sim = sim_table(sections='[store]\ntable = "club-1"\n')
    store, record = tmp_path / "games.sqlite", tmp_path / "game.raw"
    db = GameStore.open(store)
    play_opening(db, "g1", turns=2)
    db.close()
    played = [(k % 2, t) for k, t in enumerate(turns_of(OPENING[:4]))]
    record.write_text(record_sdg(PLAYERS, played, rules="looney", game="g1"))
    FaultyStore.fault = disk_full()

    class NoEvents:
        def poll(self, timeout: float = 0.0):
            return []

    running = build_table(load_config(sim.config), None, record, store_path=store,
                          store_opener=FaultyStore.open, source=NoEvents())
    try:
        out = capsys.readouterr().out
        assert "which the store lacked: NOT yet in the store" in out and "disk is full" in out
        assert "copied into the store" not in out
        assert len(running.session.tracker.record) == 4
    finally:
        FaultyStore.fault = None
        running.close()
    assert _stored_turns(store) == 4  # written on the stop, once the disk had room
