"""Simulated table hosts (``homeworlds.event.simtable`` processes) and the comparison of
the hub's store with each table's store."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from homeworlds.store import GameStore
from tests.shared import DATA, REPO

GAMES = sorted((DATA / "games" / "sdg").glob("*.raw"))
TWO_PLAYER_GAMES = [g for g in GAMES if g.stem != "777"]


class TableProcess:
    """A simulated table host; its key is ``directory/<table>.key`` unless ``key_file``
    (``tests.event.tables.issue`` writes one)."""

    def __init__(self, directory: Path, broker_url: str, event: str, table: str, game: Path,
                 *, interval: float, turns: int | None = None, extra: list[str] = (),
                 key_file: Path | None = None):
        self.store = directory / f"{table}.sqlite"
        self.table = table
        key_file = key_file or directory / f"{table}.key"
        assert key_file.is_file(), f"{key_file}: issue the table's key first"
        self.args = [sys.executable, "-m", "homeworlds.event.simtable", "--store",
                     str(self.store), "--broker", broker_url, "--event", event, "--table",
                     table, "--key-file", str(key_file), "--game", str(game),
                     "--interval", str(interval), *extra]
        if turns is not None:
            self.args += ["--turns", str(turns)]
        self.log_path = directory / f"{table}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO / "host") + os.pathsep + str(REPO / "firmware"))
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(self.args, stdout=self.log, stderr=self.log, env=env,
                                        start_new_session=True)

    def kill9(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(5)
        self.log.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()
        if not self.log.closed:
            self.log.close()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def finished(self) -> bool:
        return "all " in self.output() and "turns played" in self.output().split("all ")[-1]


def store_rows(path: Path, table: str | None = None) -> dict[str, list[tuple]]:
    """game uid -> [(number, seat, sdg, position)] and the result, as a store holds them."""
    store = GameStore.open(path)
    try:
        out = {}
        for game in store.games(table):
            result = store.result(game.id)
            out[game.uid] = ([(t.number, t.seat, t.sdg, t.position)
                              for t in store.turns(game.id)],
                             None if result is None else (result.kind, result.winners,
                                                          result.after_turn))
        return out
    finally:
        store.close()


def wait_for(condition, timeout: float, what: str, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
