"""``homeworlds play`` run by a test: a simulated table with its microcontroller on a pty
(``simulated_table``: the registry, the ``PtyMcu`` and the table's configuration every such
test needs) and the host in a thread of the test process (``PlayHost``), talking to it as it
would to the real one, stopped by ``close``."""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from homeworlds.commands import play
from homeworlds.notation import parse_sdg_action, read_sdg_file
from homeworlds.rules import Alignments, GameState, preset
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout
from tests.store.helpers import wait_for

LAYOUT = builtin_layout("standard-2p")
PLAYERS = ("Ann", "Bob")
#: Seconds between a turn and the next token move: the host sees the pieces first.
SETTLE_S = 0.3


def sdg_turn(text: str, player: str) -> tuple:
    """A turn in SDG notation, actions separated by ``;``, played by ``player``."""
    return tuple(parse_sdg_action(a.strip(), player=player) for a in text.split(";"))


def turns_in(record: Path) -> int:
    """How many turns the game record holds (0 before it exists)."""
    return len(read_sdg_file(record).turns) if record.exists() else 0


def table_config(port: str, *, rules: str = "looney", players: Sequence[str] = PLAYERS,
                 table: str = "", sections: str = "", layout: str = "standard-2p") -> str:
    """The table's configuration: its ``layout``, registry (``registry.toml`` beside it),
    ``rules``, ``players``, the serial ``port`` and the memory LED sink; ``table``: more
    lines of the ``[table]`` section, ``sections``: more sections."""
    names = ", ".join(f'"{p}"' for p in players)
    return (f'[table]\nlayout = "{layout}"\nregistry = "registry.toml"\nrules = "{rules}"\n'
            f'players = [{names}]\n'
            f'{table}[serial]\nport = "{port}"\n[pixels]\nsink = "memory"\n{sections}')


@dataclass
class SimulatedTable:
    table: VirtualTable
    mcu: PtyMcu
    #: the table's configuration file (``table_config``)
    config: Path
    rules: str
    players: int = 2

    def driver(self, alignments: Alignments | None = None) -> TableDriver:
        """Hands that play recorded turns on the table, from the start of a game."""
        return TableDriver(self.table, GameState(preset(self.rules), self.players,
                                                 alignments=alignments))


@contextmanager
def simulated_table(directory: Path, *, rules: str = "looney",
                    players: Sequence[str] = PLAYERS, table: str = "", sections: str = "",
                    scan_time: float = 0, layout: str = "standard-2p",
                    **mcu_options) -> Iterator[SimulatedTable]:
    """A built-in table (``layout``, the standard two-seat one by default) with its
    registry saved in ``directory``, its simulated microcontroller on a pty
    (``mcu_options``: more ``PtyMcu`` settings) and its configuration (``table_config``)
    at ``directory / "table.toml"``."""
    shape = LAYOUT if layout == LAYOUT.name else builtin_layout(layout)
    registry = make_registry(shape, len(players),
                             copies=preset(rules).bank_copies(len(players)))
    registry.save(directory / "registry.toml")
    virtual = VirtualTable(shape, registry)
    with PtyMcu(virtual, scan_time=scan_time, **mcu_options) as mcu:
        config = directory / "table.toml"
        config.write_text(table_config(mcu.device_path, rules=rules, players=players,
                                       table=table, sections=sections, layout=layout))
        yield SimulatedTable(virtual, mcu, config, rules, len(players))


def play_turns(driver: TableDriver, texts: Sequence[str], done: Callable[[int], bool], *,
               players: Sequence[str] = PLAYERS, first: int = 1,
               timeout: float = 20.0) -> None:
    """Play ``texts`` (turns ``first``, ``first + 1``, ... by the seats in turn) and wait
    after each until ``done(number)`` says the host has it."""
    for k, text in enumerate(texts):
        number = first + k
        time.sleep(SETTLE_S)
        driver.play_turn(sdg_turn(text, players[(number - 1) % len(players)]))
        wait_for(lambda n=number: done(n), timeout, f"turn {number} to be recorded")


class PlayHost:
    def __init__(self, config, record, **options):
        """``options``: the other arguments of ``homeworlds play`` (``store``, ``listen``)."""
        self.stop = threading.Event()
        #: what ``play`` returned (its exit status), once it has
        self.outcome: list[int] = []
        args = argparse.Namespace(config=str(config), record=str(record), **options)
        self.thread = threading.Thread(
            target=lambda: self.outcome.append(play.run(args, stop=self.stop)))
        self.thread.start()

    def close(self):
        self.stop.set()
        self.thread.join(10)
