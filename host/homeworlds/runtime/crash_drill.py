"""Crash drill: a recorded game played on the simulated table against a real
``homeworlds play`` process that is killed (SIGKILL) at seeded moments.

The simulated MCU runs here on a pty; ``play`` runs as a child process with its own game
store. For each turn the drill handles the table like a player (``TableDriver``); at the
turns the seed picks it kills the host

- ``mid-turn``: after some of the turn's actions (the rest is played while the host is
  down, or after it is back);
- ``after-handover``: within a moment of the token moving on;
- ``during-write``: as soon as the store journals the hand-over, i.e. while the host
  infers and commits the turn;

restarts it and waits until the store holds the turn. At the end every stored turn is
checked against the played game (seat, and the board it leads to). Nothing may be lost.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import BinaryIO

from homeworlds.notation import SdgGame
from homeworlds.rules import GameState, preset
from homeworlds.rules.inference import board_key
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, make_registry
from homeworlds.store.records import position_to_json, turn_from_sdg
from homeworlds.table.layout import builtin_layout

MOMENTS = ("mid-turn", "after-handover", "during-write")


@dataclass
class DrillResult:
    game: str
    turns_played: int = 0
    turns_stored: int = 0
    kills: int = 0
    kills_survived: int = 0
    moments: dict[str, int] = field(default_factory=dict)
    #: the turns during which the host was killed
    kill_turns: list[int] = field(default_factory=list)
    #: turns of the played game the store lacks or holds differently
    turns_lost: int = 0
    problems: list[str] = field(default_factory=list)
    #: the largest peak resident memory of a host process (kB, from /proc)
    peak_rss_kb: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems and self.turns_lost == 0


class CrashDrill:
    def __init__(self, game: SdgGame, workdir: Path, *, seed: int, kills: int,
                 max_turns: int | None = None, python: str = sys.executable,
                 rules: str = "looney", moments: Sequence[str] | None = None,
                 timeout: float = 30.0, log: Callable[[str], None] | None = None):
        self.game = game
        self.workdir = Path(workdir)
        self.rng = random.Random(seed)
        self.turns = list(game.turns[:max_turns] if max_turns else game.turns)
        self.kills = min(kills, len(self.turns))
        self.python = python
        self.rules = rules
        #: the moments of the kills, in order (default: drawn by the seed)
        self.moments = list(moments) if moments else None
        self.timeout = timeout
        self.log = log or (lambda _: None)
        self.store = self.workdir / "games.sqlite"
        self.record = self.workdir / "game-record.raw"
        self._host: subprocess.Popen | None = None
        self._host_log: BinaryIO | None = None

    # ------------------------------------------------------------------ host process

    def _start_host(self, config: Path) -> None:
        self._host_log = open(self.workdir / "host.log", "ab")  # noqa: SIM115
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self._host = subprocess.Popen(
            [self.python, "-m", "homeworlds", "play", "--config", str(config),
             "--record", str(self.record), "--store", str(self.store)],
            stdin=subprocess.DEVNULL, stdout=self._host_log, stderr=subprocess.STDOUT,
            env=env, start_new_session=True)

    def _kill_host(self, result: DrillResult) -> None:
        host, host_log = self._host, self._host_log
        assert host is not None and host_log is not None  # killed only while it runs
        result.peak_rss_kb = max(result.peak_rss_kb, _peak_rss_kb(host.pid))
        os.kill(host.pid, signal.SIGKILL)
        host.wait(10)
        host_log.close()
        result.kills += 1

    def _stop_host(self, result: DrillResult) -> None:
        host = self._host
        if host is None or host.poll() is not None:
            return
        result.peak_rss_kb = max(result.peak_rss_kb, _peak_rss_kb(host.pid))
        host.send_signal(signal.SIGTERM)
        try:
            host.wait(10)
        except subprocess.TimeoutExpired:
            host.kill()
            host.wait(10)
        if self._host_log is not None:
            self._host_log.close()

    # ------------------------------------------------------------------ the store

    def _read(self, sql: str, params: Sequence = ()) -> list[tuple]:
        if not self.store.exists():
            return []
        try:
            conn = sqlite3.connect(f"file:{self.store}?mode=ro", uri=True, timeout=1.0)
        except sqlite3.Error:
            return []
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.Error:
            return []  # not created yet, or busy
        finally:
            conn.close()

    def stored_turns(self) -> int:
        rows = self._read("SELECT COUNT(*) FROM turns")
        return rows[0][0] if rows else 0

    def _journalled(self, after_turn: int) -> bool:
        return bool(self._read("SELECT 1 FROM observations WHERE after_turn = ?",
                               (after_turn,)))

    def _stored_at_least(self, turns: int) -> bool:
        return self.stored_turns() >= turns

    def _wait(self, predicate: Callable[[], bool], poll: float = 0.02) -> bool:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            if self._host is not None and self._host.poll() is not None:
                return predicate()
            time.sleep(poll)
        return False

    # ------------------------------------------------------------------ the drill

    def run(self) -> DrillResult:
        t0 = time.perf_counter()
        result = DrillResult(self.game.source or "game")
        layout = builtin_layout("standard-2p")
        registry = make_registry(layout, 2)
        self.workdir.mkdir(parents=True, exist_ok=True)
        registry.save(self.workdir / "registry.toml")
        table = VirtualTable(layout, registry)
        chosen = sorted(self.rng.sample(range(1, len(self.turns) + 1), self.kills))
        moments = ([self.moments[k % len(self.moments)] for k in range(self.kills)]
                   if self.moments else [self.rng.choice(MOMENTS) for _ in chosen])
        kill_at = dict(zip(chosen, moments, strict=True))
        players = self.game.players
        with PtyMcu(table, scan_time=0) as mcu:
            config = self.workdir / "table.toml"
            config.write_text(
                f'[table]\nregistry = "registry.toml"\nrules = "{self.rules}"\n'
                f'players = ["{players[0]}", "{players[1]}"]\n'
                f'[serial]\nport = "{mcu.device_path}"\n[pixels]\nsink = "memory"\n')
            driver = TableDriver(table, GameState(preset(self.rules)))
            self._start_host(config)
            try:
                for number, turn in enumerate(self.turns, start=1):
                    time.sleep(0.15)  # the host sees the table before the next turn
                    moment = kill_at.get(number)
                    if moment is None:
                        driver.play_turn(turn.actions)
                    else:
                        self._killed_turn(driver, turn.actions, number, moment, config,
                                          result)
                    result.turns_played = number
                    if not self._wait(partial(self._stored_at_least, number)):
                        result.problems.append(
                            f"turn {number} was not stored within {self.timeout:g} s "
                            f"(host log: {self.workdir / 'host.log'})")
                        break
            finally:
                self._stop_host(result)
        self._check(result)
        result.seconds = time.perf_counter() - t0
        return result

    def _killed_turn(self, driver: TableDriver, actions, number: int, moment: str,
                     config: Path, result: DrillResult) -> None:
        result.moments[moment] = result.moments.get(moment, 0) + 1
        result.kill_turns.append(number)
        self.log(f"turn {number}: kill {moment}")
        if moment == "mid-turn":
            done = self.rng.randrange(len(actions))
            driver.begin_turn()
            for action in actions[:done]:
                driver.act(action)
            time.sleep(self.rng.uniform(0.0, 0.3))
            self._kill_host(result)
            back_first = self.rng.random() < 0.5
            if back_first:  # the host comes back while the turn is half done
                self._start_host(config)
                time.sleep(self.rng.uniform(0.0, 1.0))
            for action in actions[done:]:
                driver.act(action)
            driver.end_turn()
            if not back_first:
                self._start_host(config)
        elif moment == "after-handover":
            driver.play_turn(actions)
            time.sleep(self.rng.uniform(0.0, 0.15))
            self._kill_host(result)
            self._start_host(config)
        else:
            driver.play_turn(actions)
            self._wait(lambda: self._journalled(number - 1) or self.stored_turns() >= number,
                       poll=0.001)
            self._kill_host(result)
            self._start_host(config)

    def _check(self, result: DrillResult) -> None:
        """Every turn played is in the store, by the same seat, leading to the same board."""
        games = self._read("SELECT id FROM games ORDER BY id")
        if len(games) != 1:
            result.problems.append(f"the store holds {len(games)} games, not 1")
        rows = self._read("SELECT t.number, t.seat, t.sdg, t.position FROM turns t "
                          "ORDER BY t.game_id, t.number")
        result.turns_stored = len(rows)
        played = GameState(preset(self.rules))
        stored = GameState(preset(self.rules))
        lost = 0
        first_bad = None
        for index, turn in enumerate(self.turns[:result.turns_played]):
            played.push(turn.actions)
            if index >= len(rows):
                lost += 1
                first_bad = first_bad or index + 1
                continue
            number, seat, sdg, position = rows[index]
            try:
                stored.push(turn_from_sdg(sdg, seat, self.game.players))
            except Exception as exc:  # the drill reports, it does not stop
                result.problems.append(f"stored turn {number} does not replay: {exc}")
                lost += len(self.turns[:result.turns_played]) - index
                first_bad = first_bad or index + 1
                break
            if number != index + 1 or seat != turn.seat:
                result.problems.append(f"stored turn {number} is seat {seat}'s; the played "
                                       f"turn {index + 1} was seat {turn.seat}'s")
                lost += 1
                first_bad = first_bad or index + 1
            elif board_key(stored) != board_key(played):
                result.problems.append(f"turn {number}: the store's board differs from the "
                                       "played one")
                lost += 1
                first_bad = first_bad or index + 1
            elif json.loads(position) != position_to_json(stored):
                result.problems.append(f"turn {number}: the stored position does not match "
                                       "its turns")
        if len(rows) > result.turns_played:
            result.problems.append(f"the store holds {len(rows)} turns; "
                                   f"{result.turns_played} were played")
        result.turns_lost = lost
        good = len(rows) if first_bad is None else first_bad - 1
        result.kills_survived = sum(1 for n in result.kill_turns if n <= good)


def _peak_rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
