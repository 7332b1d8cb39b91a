"""kill -9 of a process in the middle of store writes, at seeded moments: every turn whose
commit had returned is in the store, the store passes SQLite's integrity check, its turns
are contiguous and complete, and the next process goes on from where the store stops."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

from homeworlds.store import GameStore

WRITER = r"""
import sys
from homeworlds.rules.presets import preset
from homeworlds.rules.state import GameState
from homeworlds.store import GameRecorder
from homeworlds.store.records import position_to_json
from homeworlds.notation.sdg import parse_sdg_action

path = sys.argv[1]
recorder = GameRecorder(path, table="t", layout="standard-2p")
recorder.open()
point = recorder.resume_point()
if point is None:
    recorder.start_game(preset("looney"), ("Ann", "Bob"))
    start = 1
else:
    recorder.continue_game(point.game)
    start = len(point.record) + 1
state = GameState(preset("looney"))
turn = (parse_sdg_action("Pass"),)
zones = {z: [f"E00400{z:06X}{k:04X}" for k in range(4)] for z in range(40)}
for number in range(start, start + 100000):
    recorder.handover(number - 1, zones)
    recorder.store.commit_turn(recorder.uid, number, (number - 1) % 2, "Pass",
                               position_to_json(state), {}, "now")
    print(number, flush=True)
"""


def _run_until_killed(path, delay):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    acknowledged = 0
    deadline = time.monotonic() + 30
    started = None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        acknowledged = int(line)
        started = started or time.monotonic()
        if time.monotonic() - started >= delay:
            os.kill(proc.pid, signal.SIGKILL)
            break
    # Lines already written before the kill were acknowledged too.
    for line in proc.stdout:
        acknowledged = int(line)
    proc.wait(10)
    return acknowledged


def test_kill_9_during_writes_loses_no_acknowledged_turn(tmp_path):
    rng = random.Random(9)
    path = tmp_path / "games.sqlite"
    for _ in range(3):
        acknowledged = _run_until_killed(path, rng.uniform(0.05, 0.4))
        assert acknowledged > 0
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        store = GameStore.open(path)
        (game,) = store.games()
        numbers = [t.number for t in store.turns(game.id)]
        assert numbers == list(range(1, len(numbers) + 1))
        assert len(numbers) >= acknowledged
        assert all(t.position and t.sdg == "Pass" for t in store.turns(game.id))
        store.close()
