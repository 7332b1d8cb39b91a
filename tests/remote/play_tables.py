"""Two tables of a remote game as ``homeworlds play`` builds them (``build_table`` from a
``[remote]`` configuration), each on its simulated table behind a real pty, its loop in a
thread of its own. A host can be stopped and built again from its configuration and store,
as a restarted ``play`` is."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

from homeworlds.runtime.config import load_config
from homeworlds.runtime.table import RunningTable, build_table
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, carry_out, make_registry
from homeworlds.store import GameStore
from homeworlds.table.layout import builtin_layout

LAYOUT = builtin_layout("standard-2p")


class SimulatedPlay:
    """One table as ``homeworlds play`` builds it, on a simulated table behind a pty; the
    configuration's ``[table]``, ``[serial]`` and ``[store]`` are written here, the rest
    (``extra``: its ``[remote]`` or ``[event]``) by the kind of table."""

    def __init__(self, directory: Path, name: str, players, token_seat: int, extra: str,
                 commands: queue.Queue[str] | None = None):
        self.directory, self.name = directory, name
        registry = make_registry(LAYOUT, 2)
        registry.save(directory / "registry.toml")
        self.table = VirtualTable(LAYOUT, registry, token_seat=token_seat)
        self.mcu = PtyMcu(self.table, scan_time=0)
        self.mcu.start()
        (directory / "table.toml").write_text(
            '[table]\nregistry = "registry.toml"\nrules = "sdg"\n'
            f'players = ["{players[0]}", "{players[1]}"]\n'
            f'[serial]\nport = "{self.mcu.device_path}"\n'
            f'[store]\ntable = "{name}"\n' + extra)
        self.commands = commands
        self.running: RunningTable | None = None

    def start(self) -> None:
        """``homeworlds play``: the table built from its configuration and store."""
        config = load_config(self.directory / "table.toml")
        self.running = build_table(config, None, self.directory / "game-record.raw",
                                   store_path=self.directory / "games.sqlite",
                                   commands=self.commands)
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.running.run, args=(self.stop_event,),
                                       daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """The host stops (its side leaves the broker, its store is closed)."""
        assert self.running is not None
        self.stop_event.set()
        self.thread.join(10)
        self.running.close()
        self.running = None

    @property
    def session(self):
        assert self.running is not None
        return self.running.session

    @property
    def game(self):
        assert self.running is not None and self.running.remote is not None
        return self.running.remote.game

    def in_step(self) -> bool:
        view = self.session.view
        if not view.known or not self.session.judged:
            return False
        sets = self.table.zone_sets()
        return all(view.zones[z] == frozenset(sets[k])
                   for k, z in enumerate(LAYOUT.all_zones))

    def stored(self) -> list[tuple[int, int, str]]:
        """(number, seat, SDG) of every turn of this table's latest game in its store."""
        store = GameStore.open(self.directory / "games.sqlite")
        try:
            game = store.latest_game(self.name)
            return [] if game is None else [(t.number, t.seat, t.sdg)
                                            for t in store.turns(game.id)]
        finally:
            store.close()

    def close(self) -> None:
        if self.running is not None:
            self.stop()
        self.mcu.close()


class PlayTable(SimulatedPlay):
    """A table of a remote game started with a code (``[remote]``)."""

    def __init__(self, directory: Path, name: str, role: str, code: str, players,
                 broker_url: str, first_seat: int):
        directory.mkdir()
        code_file = directory / "remote.code"
        code_file.write_text(code + "\n")
        code_file.chmod(0o600)
        super().__init__(
            directory, name, players, first_seat,
            f'[remote]\nbroker = "{broker_url}"\nrole = "{role}"\ncode_file = "remote.code"\n')
        self.start()


def wait(until, what: str, tables, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; " + "; ".join(
                f"{t.name}: {list(t.session.notices)[-4:]}" for t in tables
                if t.running is not None))
        time.sleep(0.01)


def play_own(mover: PlayTable, turn, following: int, reference, slots, tables) -> None:
    session = mover.session
    committed = len(session.tracker.record)
    driver = TableDriver(mover.table, reference, slots)
    driver.play_turn(turn, hand_over=False)
    wait(mover.in_step, f"{mover.name} sees the turn", tables)
    driver.hand_over(following)
    wait(lambda: len(session.tracker.record) > committed, f"{mover.name} commits", tables)


def follow(follower: PlayTable, tables, max_steps: int = 40) -> None:
    session = follower.session
    committed = len(session.tracker.record)
    for _ in range(max_steps):
        wait(lambda: len(session.tracker.record) > committed or (
            (g := session.guidance_shown()) is not None and g.phase == "guiding"
            and follower.in_step()), f"{follower.name}: a step", tables)
        if len(session.tracker.record) > committed:
            return
        shown = session.guidance_shown()
        if shown is None or shown.phase != "guiding":
            continue
        carry_out(follower.table, shown.to_json()["current"])
        # The host has judged the table since (a new judgement is a new object): a step is
        # never carried out twice.
        wait(lambda done=shown: follower.in_step() and (
            len(session.tracker.record) > committed or session.guidance_shown() is not done),
             f"{follower.name} sees the step", tables)
    raise AssertionError(f"{follower.name}: the turn was not committed")
