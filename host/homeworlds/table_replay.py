"""Recorded games played on the simulated table, end to end.

Each transcript turn is handled physically on a ``VirtualTable`` by the ``TableDriver``
(lifting, carrying, placing, flipping captured ships, returning pieces to the bank tray),
action by action; the simulated microcontroller scans it with read misses and reports over
a real pty; the host's ``TableSession`` (link → table view → tracker) must infer every turn
from what it sees and record it. Nothing but the serial lines passes from the simulated
table to the host.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from homeworlds.link import SerialTransport, TableLink
from homeworlds.notation.sdg import SdgGame, read_sdg, sdg_game, write_sdg
from homeworlds.replay import rules_for_game, setup_relative_numbering
from homeworlds.rules.errors import AmbiguousAction, IllegalAction
from homeworlds.rules.inference import board_key
from homeworlds.rules.presets import Rules
from homeworlds.rules.state import GameState
from homeworlds.session import TableSession
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout


class SettleTimeout(RuntimeError):
    pass


@dataclass
class TableReplayResult:
    file: str
    turns: int
    inferred: int = 0
    matched: int = 0
    refused: list[int] = field(default_factory=list)
    record_equal: bool = False
    #: why the replay stopped early, if it did (an illegal transcript turn, a timeout)
    stopped: str | None = None
    #: seconds from each hand-over to the host's commit
    handover_seconds: list[float] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"file": self.file, "turns": self.turns, "inferred": self.inferred,
                "matched": self.matched, "refused": self.refused,
                "record_equal": self.record_equal}


class _Host:
    """The host side under test, polled until it has caught up with the table."""

    def __init__(self, session: TableSession, link: TableLink, table: VirtualTable,
                 timeout: float):
        self.session = session
        self.link = link
        self.table = table
        self.timeout = timeout

    def pump(self, until: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + self.timeout
        while not until():
            if time.monotonic() > deadline:
                raise SettleTimeout(f"the host did not {what} within {self.timeout:g} s")
            for event in self.link.poll(0.002):
                self.session.handle(event)

    def in_step(self) -> bool:
        view = self.session.view
        if not view.known:
            return False
        sets = self.table.zone_sets()
        return all(view.zones[z] == frozenset(sets[k])
                   for k, z in enumerate(self.table.layout.all_zones))

    def settle(self) -> None:
        self.pump(self.in_step, "see the table settle")


def table_replay_game(game: SdgGame, rules: Rules | None = None, *, file: str = "",
                      miss_rate: float = 0.05, seed: int = 0, timeout: float = 20.0,
                      per_action: bool = True, scan_time: int = 0) -> TableReplayResult:
    rules = rules_for_game(game, rules)
    players = len(game.players)
    result = TableReplayResult(file, len(game.turns))
    if players != 2:
        result.stopped = "table-replay drives two-player games on the standard-2p layout"
        return result
    number = setup_relative_numbering(game)
    layout = builtin_layout("standard-2p")
    registry = make_registry(layout, players)
    first = game.turns[0].seat if game.turns else 0
    table = VirtualTable(layout, registry, token_seat=first)
    reference = GameState(rules, players, first_to_move=first)
    references: list[tuple] = []
    with PtyMcu(table, miss_rate=miss_rate, seed=seed, scan_time=scan_time) as mcu:
        link = TableLink(lambda: SerialTransport(mcu.device_path))
        session = TableSession(layout, registry, rules, game.players, first_seat=first)
        host = _Host(session, link, table, timeout)
        try:
            host.settle()
            driver = TableDriver(table, reference)
            for turn in game.turns:
                try:
                    reference.apply_turn(turn.actions)
                except (IllegalAction, AmbiguousAction) as exc:
                    result.stopped = f"turn {number(turn)} is illegal in the transcript: {exc}"
                    break
                references.append(board_key(reference))
                driver.begin_turn()
                for action in turn.actions:
                    driver.act(action)
                    if per_action:
                        host.settle()
                driver.end_turn(hand_over=False)
                host.settle()
                before = len(session.tracker.record)
                t0 = time.perf_counter()
                if not reference.is_over:
                    driver.hand_over(reference.to_move)
                else:
                    driver.hand_over(1 - turn.seat)
                host.pump(lambda b=before: len(session.tracker.record) > b
                          or host.in_step() and session.status.phase == "handover-refused",
                          "commit or refuse the turn")
                result.handover_seconds.append(time.perf_counter() - t0)
                if len(session.tracker.record) == before:
                    result.refused.append(number(turn))
                    result.stopped = (f"turn {number(turn)} refused: "
                                      f"{session.status.message}")
                    break
                result.inferred += 1
                if board_key(session.tracker.state) == references[-1]:
                    result.matched += 1
        except SettleTimeout as exc:
            result.stopped = str(exc)
        finally:
            link.close()
    result.record_equal = _record_replays_equal(session, references, rules, game)
    return result


def _record_replays_equal(session: TableSession, references: list, rules: Rules,
                          game: SdgGame) -> bool:
    """The host's record, written in SDG and read back, replays to the same positions."""
    record = session.tracker.record
    if len(record) != len(references):
        return False
    text = write_sdg(sdg_game(game.players, [t for _, t in record], seats=[s for s, _ in record]))
    again = read_sdg(text)
    first = again.turns[0].seat if again.turns else 0
    state = GameState(rules, len(game.players), first_to_move=first)
    for turn, want in zip(again.turns, references, strict=True):
        try:
            state.apply_turn(turn.actions)
        except (IllegalAction, AmbiguousAction):
            return False
        if board_key(state) != want:
            return False
    return True
