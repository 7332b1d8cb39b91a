"""Two tables of a remote game as two real ``homeworlds play`` processes (issue 30, item 4).

Each table is a simulated table here (``VirtualTable`` behind its microcontroller on a pty,
``PtyMcu``) and a ``homeworlds play`` child process built from its own configuration (a
``[remote]`` section, its own store, a ``[display]`` on a free port). The process can be
killed with SIGKILL and started again from the same configuration and store, as a host
that lost power is; its broker link may go through a ``CuttableLink`` (tests/event/proxy.py)
that the test blackholes.

A simulated person sits at each table. At its own seat it lays out the archive game's turn
with its hands (``TableDriver``) and hands the token on; for the other seat it does what
the table shows: the current guidance step as the table's displays get it (the ``/api/
snapshot`` feed's ``hints.guidance``, the same step the LEDs light), carried out with its
hands (``carry_out``), until the table commits the turn.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

from homeworlds.rules import PIECES, GameState, Piece
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, carry_out, make_registry
from homeworlds.table.layout import builtin_layout
from tests.event.broker import free_port

LAYOUT = builtin_layout("standard-2p")


class PlayProcess:
    """One table: the simulated table here, ``homeworlds play`` as a child process."""

    def __init__(self, directory: Path, name: str, role: str, code: str,
                 players: Sequence[str], broker_url: str, first_seat: int, *,
                 keepalive_s: int = 2, clock: str = ""):
        directory.mkdir(parents=True)
        self.directory, self.name, self.role = directory, name, role
        self.seat = 0 if role == "host" else 1
        registry = make_registry(LAYOUT, 2)
        registry.save(directory / "registry.toml")
        self.table = VirtualTable(LAYOUT, registry, token_seat=first_seat)
        self.mcu = PtyMcu(self.table, scan_time=0)
        self.mcu.start()
        code_file = directory / "remote.code"
        code_file.write_text(code + "\n")
        code_file.chmod(0o600)
        self.port = free_port()
        self.config = directory / "table.toml"
        self.config.write_text(
            '[table]\nregistry = "registry.toml"\nrules = "sdg"\n'
            f'players = ["{players[0]}", "{players[1]}"]\n'
            f'[serial]\nport = "{self.mcu.device_path}"\n[pixels]\nsink = "memory"\n'
            f'[store]\ntable = "{name}"\n'
            f'[display]\nenabled = true\nlisten = "127.0.0.1"\nport = {self.port}\n'
            f'[remote]\nbroker = "{broker_url}"\nrole = "{role}"\ncode_file = "remote.code"\n'
            f'keepalive = {keepalive_s}\n{clock}')
        self.store = directory / "games.sqlite"
        self.process: subprocess.Popen | None = None
        self.kills = 0
        self.start()

    # ------------------------------------------------------------------ the process

    def start(self) -> None:
        """``homeworlds play --config table.toml``: the table built from its configuration
        and store (a restart resumes the game the store holds)."""
        assert self.process is None or self.process.poll() is not None
        log = open(self.directory / "play.log", "ab")  # noqa: SIM115 - the child's
        self.process = subprocess.Popen(
            [sys.executable, "-m", "homeworlds", "play", "--config", str(self.config),
             "--record", str(self.directory / "game-record.raw"), "--store", str(self.store)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1"), start_new_session=True)
        log.close()

    def kill(self) -> None:
        """SIGKILL: the host loses power (no clean disconnect: the broker sends its will)."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self.kills += 1

    def stop(self) -> None:
        process = self.process
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)

    def close(self) -> None:
        self.stop()
        self.mcu.close()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, lines: int = 12) -> str:
        path = self.directory / "play.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    # ------------------------------------------------------------------ what it shows

    def snapshot(self) -> dict | None:
        """The table's feed as its displays get it (None: the process is not serving)."""
        try:
            with urlopen(f"http://127.0.0.1:{self.port}/api/snapshot", timeout=2) as answer:
                return json.loads(answer.read())
        except (URLError, OSError, ValueError):
            return None

    def stored(self, columns: str = "number, seat, sdg") -> list[tuple]:
        """The turns the table's store holds (read only: the process owns it)."""
        if not self.store.exists():
            return []
        try:
            connection = sqlite3.connect(f"file:{self.store}?mode=ro", uri=True, timeout=2)
        except sqlite3.Error:
            return []
        try:
            return [tuple(row) for row in connection.execute(
                f"SELECT {columns} FROM turns ORDER BY game_id, number")]
        except sqlite3.Error:
            return []
        finally:
            connection.close()

    def notes(self) -> str:
        """What the host printed (its remote game's notes among them)."""
        path = self.directory / "play.log"
        return path.read_text(errors="replace") if path.exists() else ""


def wait(until: Callable[[], object], what: str, tables: Sequence[PlayProcess],
         timeout: float = 30.0, poll: float = 0.02):
    deadline = time.monotonic() + timeout
    while True:
        value = until()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}:\n" + "\n".join(
                f"--- {t.name} ({'running' if t.alive() else 'down'}, stored "
                f"{len(t.stored())}):\n{t.log_tail()}" for t in tables))
        time.sleep(poll)


def _content(stars, ships) -> tuple:
    return (tuple(sorted(map(str, stars))), tuple(tuple(sorted(map(str, s))) for s in ships))


def slots_on_table(table: VirtualTable, reference: GameState) -> dict[str, int]:
    """The reference position's system names -> the slots of ``table`` that show them,
    read off the pieces lying there (the table names its systems its own way; the same
    position has the same systems)."""
    registry = table.registry

    def pieces(zone: int) -> list[Piece]:
        return [info.piece for uid in table.tags_on(zone)
                if (info := registry.lookup(uid)) is not None and info.is_piece]

    by_content: dict[tuple, list[int]] = {}
    for slot in LAYOUT.slots:
        stars = pieces(slot.star_zone)
        if stars:
            ships = [pieces(slot.ship_zone(seat)) for seat in range(2)]
            by_content.setdefault(_content(stars, ships), []).append(slot.index)
    out = {}
    for system in reference.systems:
        ships = [[PIECES[i] for i, n in enumerate(counts) for _ in range(n)]
                 for counts in system.ships]
        found = by_content.get(_content([PIECES[i] for i in system.stars], ships))
        if not found:
            raise AssertionError(f"{system.name} ({system}) is on no slot of the table")
        home = LAYOUT.seats[system.home_of].home_slot if system.home_of is not None else None
        out[system.name] = home if home in found else found[0]
        found.remove(out[system.name])
    return out


def committed(table: PlayProcess) -> int:
    snap = table.snapshot()
    return -1 if snap is None else len(snap["turn_log"])


def play_own(mover: PlayProcess, actions, following: int, reference: GameState,
             number: int, tables: Sequence[PlayProcess], timeout: float = 30.0) -> None:
    """The mover's player lays out turn ``number`` (the transcript's ``actions``,
    ``reference`` the position before it) and hands the token on; the store keeps it."""
    driver = TableDriver(mover.table, reference, slots_on_table(mover.table, reference))
    driver.play_turn(actions, hand_over=False)
    driver.hand_over(following)
    wait(lambda: len(mover.stored()) >= number, f"{mover.name} commits turn {number}", tables,
         timeout)


def follow(follower: PlayProcess, number: int, tables: Sequence[PlayProcess],
           timeout: float = 60.0, after_first_step: Callable[[], None] | None = None
           ) -> list[str]:
    """The follower's person carries out turn ``number`` of the other table step by step
    as the table shows it, until its store holds the turn. Returns the steps' words.
    ``after_first_step``: run once the person has carried out the first step (a fault
    half way through laying a turn out)."""
    done_key = None
    words: list[str] = []
    deadline = time.monotonic() + timeout
    while len(follower.stored()) < number:
        if time.monotonic() > deadline:
            wait(lambda: False, f"{follower.name} commits turn {number} (steps {words})",
                 tables, 0)
        snap = follower.snapshot()
        guidance = None if snap is None else snap["hints"]["guidance"]
        if snap is None or len(snap["turn_log"]) >= number or guidance is None \
                or guidance.get("phase") != "guiding" or guidance.get("hint") \
                or not guidance.get("current"):
            time.sleep(0.03)
            continue
        key = (len(snap["turn_log"]), guidance.get("steps_left"), guidance.get("text"),
               json.dumps(guidance["current"], sort_keys=True))
        if key == done_key:
            time.sleep(0.02)  # the table has not seen the last step yet
            continue
        carry_out(follower.table, guidance["current"])
        words.append(guidance.get("text", ""))
        done_key = key
        if after_first_step is not None:
            after_first_step()
            after_first_step = None
    return words
