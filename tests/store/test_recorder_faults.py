"""Faults keep the game going: while the store cannot be written the turns wait in memory
in order, the fault is reported, writes are retried, and once the fault clears nothing is
lost. Faults are injected at the store's write seam, and made real: a read-only file (the
kernel refuses the write), a file-size limit (the kernel's EFBIG: the disk is full for
SQLite) and a lock held by another program."""

from __future__ import annotations

import os
import pwd
import resource
import shutil
import signal
import sqlite3
import tempfile
import traceback
from pathlib import Path

import pytest

from homeworlds.rules import preset
from homeworlds.store import GameRecorder, GameStore, StoreUnavailable

from .helpers import OPENING, PLAYERS, FaultyStore, disk_full, positions, turns_of


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture(autouse=True)
def no_fault():
    FaultyStore.fault = None
    yield
    FaultyStore.fault = None


def _recorder(path, clock=None, opener=FaultyStore.open):
    recorder = GameRecorder(path, table="club-1", layout="standard-2p", opener=opener,
                            clock=clock or Clock(), retry_s=2.0)
    recorder.open()
    return recorder


def _play(recorder, turns, start=1):
    states = positions(turns)
    for number in range(start, len(turns) + 1):
        recorder.turn(number, (number - 1) % 2, turns[number - 1], states[number - 1],
                      PLAYERS, {})


def _stored_sdg(path):
    store = GameStore.open(path)
    try:
        return [t.sdg for g in store.games() for t in store.turns(g.id)]
    finally:
        store.close()


@pytest.mark.parametrize("fault, words", [
    (disk_full(), "disk is full"),
    (sqlite3.OperationalError("attempt to write a readonly database"), "read-only"),
    (sqlite3.OperationalError("database is locked"), "locked"),
    (sqlite3.DatabaseError("database disk image is malformed"), "corrupted"),
    (OSError(28, "No space left on device"), "disk is full"),
])
def test_an_injected_fault_is_reported_and_nothing_is_lost(tmp_path, fault, words):
    path = tmp_path / "games.sqlite"
    clock = Clock()
    recorder = _recorder(path, clock)
    recorder.start_game(preset("looney"), PLAYERS)
    turns = turns_of(OPENING)
    _play(recorder, turns[:2])
    assert recorder.fault is None
    FaultyStore.fault = fault
    _play(recorder, turns[:4], start=3)
    assert words in recorder.fault and "turn 3" in recorder.fault
    assert recorder.unsaved == 2
    assert _stored_sdg(path) == OPENING[:2]
    clock.now += 1.0
    recorder.poll()  # too early: no retry
    assert recorder.unsaved == 2
    FaultyStore.fault = None
    clock.now += 1.0
    recorder.poll()
    assert recorder.fault is None and recorder.unsaved == 0
    _play(recorder, turns, start=5)
    assert _stored_sdg(path) == OPENING


def test_a_store_that_cannot_be_opened_is_opened_when_it_can(tmp_path):
    missing = tmp_path / "not-yet"
    clock = Clock()
    recorder = _recorder(missing / "games.sqlite", clock, opener=GameStore.open)
    assert "cannot be opened" in recorder.fault
    recorder.start_game(preset("looney"), PLAYERS)
    turns = turns_of(OPENING)
    _play(recorder, turns[:3])
    assert recorder.unsaved == 4  # the game and three turns
    missing.mkdir()
    clock.now += 2.0
    recorder.poll()
    assert recorder.fault is None
    _play(recorder, turns, start=4)
    assert _stored_sdg(missing / "games.sqlite") == OPENING


def test_a_lock_held_by_another_program(tmp_path):
    path = tmp_path / "games.sqlite"
    clock = Clock()
    recorder = _recorder(path, clock, opener=GameStore.open)
    recorder.start_game(preset("looney"), PLAYERS)
    turns = turns_of(OPENING)
    _play(recorder, turns[:2])
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    _play(recorder, turns[:3], start=3)
    assert "locked" in recorder.fault
    other.execute("ROLLBACK")
    other.close()
    clock.now += 2.0
    recorder.poll()
    assert recorder.fault is None
    assert _stored_sdg(path) == OPENING[:3]


def _in_child(work, *, user: str | None = None, fsize: int | None = None) -> None:
    """Run ``work`` in a forked child (as ``user``, or with a file-size limit); re-raise
    its failure here."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        os.close(read)
        status = 0
        try:
            if fsize is not None:
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
                resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, hard))
            if user is not None:
                entry = pwd.getpwnam(user)
                os.setgid(entry.pw_gid)
                os.setuid(entry.pw_uid)
            work()
            os.write(write, b"ok")
        except BaseException:
            os.write(write, traceback.format_exc().encode()[-4000:])
            status = 1
        finally:
            os.close(write)
            os._exit(status)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 4096):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    report = b"".join(chunks).decode()
    assert report == "ok", report


def test_a_read_only_store_file_keeps_the_game_until_it_is_writable(tmp_path, request):
    """The kernel refuses the writes (as an unprivileged user: root ignores file modes)."""
    user = None
    if os.geteuid() == 0:
        # A directory the unprivileged user can reach (pytest's own is root's only).
        tmp_path = Path(tempfile.mkdtemp(prefix="hw-readonly-"))
        request.addfinalizer(lambda: shutil.rmtree(tmp_path, ignore_errors=True))
        user = "nobody"
        os.chown(tmp_path, pwd.getpwnam(user).pw_uid, pwd.getpwnam(user).pw_gid)
    path = tmp_path / "games.sqlite"

    def work():
        clock = Clock()
        recorder = _recorder(path, clock, opener=GameStore.open)
        recorder.start_game(preset("looney"), PLAYERS)
        turns = turns_of(OPENING)
        _play(recorder, turns[:2])
        recorder.close()
        os.chmod(path, 0o444)
        recorder = _recorder(path, clock, opener=GameStore.open)
        if recorder.fault is None:
            recorder.continue_game(recorder.resume_point().game)
        else:
            recorder.uid = _game_uid(path)
        _play(recorder, turns[:4], start=3)
        assert recorder.fault is not None and ("read-only" in recorder.fault
                                               or "cannot be opened" in recorder.fault), \
            recorder.fault
        assert recorder.unsaved >= 2
        # Writable again: the file and the journal files SQLite made in its image.
        for name in ("games.sqlite", "games.sqlite-wal", "games.sqlite-shm"):
            if (tmp_path / name).exists():
                os.chmod(tmp_path / name, 0o644)
        clock.now += 2.0
        recorder.poll()
        assert recorder.fault is None, recorder.fault
        _play(recorder, turns, start=5)
        recorder.close()
        assert _stored_sdg(path) == OPENING

    _in_child(work, user=user)


def _game_uid(path):
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT uid FROM games").fetchone()[0]


def test_a_full_disk_keeps_the_game_until_there_is_room(tmp_path):
    """A file-size limit makes the kernel refuse the growing write (EFBIG), as a full
    disk would; raising it again is the room coming back."""
    path = tmp_path / "games.sqlite"
    seed = GameRecorder(path, table="club-1", layout="standard-2p")
    seed.open()
    seed.start_game(preset("looney"), PLAYERS)
    turns = turns_of(OPENING)
    _play(seed, turns[:2])
    seed.store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    seed.close()
    zones = {z: [f"E0040000{z:04X}{k:04X}" for k in range(8)] for z in range(60)}

    def work():
        clock = Clock()
        recorder = _recorder(path, clock, opener=GameStore.open)
        assert recorder.fault is None, recorder.fault
        recorder.continue_game(recorder.resume_point().game)
        # The journal grows (a WAL is only checkpointed every 1000 pages) until the
        # limit is reached.
        for _ in range(200):
            recorder.handover(2, zones)
            if recorder.fault is not None:
                break
        assert recorder.fault is not None, "the limit was never reached"
        assert "full" in recorder.fault or "disk I/O" in recorder.fault, recorder.fault
        _play(recorder, turns[:4], start=3)
        assert recorder.unsaved >= 3
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
        clock.now += 2.0
        recorder.poll()
        assert recorder.fault is None, recorder.fault
        _play(recorder, turns, start=5)
        recorder.close()

    _in_child(work, fsize=64 * 1024)
    assert _stored_sdg(path) == OPENING


def test_a_write_error_is_a_fault_not_a_crash(tmp_path):
    store = FaultyStore.open(tmp_path / "games.sqlite")
    FaultyStore.fault = disk_full()
    with pytest.raises(StoreUnavailable, match="disk is full"):
        store.create_game("x", table="t", layout="l", rules="looney", handicaps={},
                          first_seat=0, players=PLAYERS, alignments=None, started="now")
    FaultyStore.fault = None
    assert store.games() == []
    store.create_game("x", table="t", layout="l", rules="looney", handicaps={},
                      first_seat=0, players=PLAYERS, alignments=None, started="now")
    assert len(store.games()) == 1
