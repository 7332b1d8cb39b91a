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
from homeworlds.notation import SdgGame, read_sdg, sdg_game, write_sdg
from homeworlds.replay import infer_departures, rules_for_game, setup_relative_numbering
from homeworlds.rules import AmbiguousAction, GameState, IllegalAction, Rules, canonical_key
from homeworlds.runtime.loop import SettleTimeout, TableLoop
from homeworlds.session import (
    AdminCommand,
    ControlError,
    TableControl,
    TableSession,
    new_session,
)
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout


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


class SimulatedHost:
    """The host side under test: its table loop, run until it has caught up with the
    simulated table."""

    #: Seconds a pass waits for the link's next event (the simulated MCU is fast).
    POLL_S = 0.002

    def __init__(self, session: TableSession, link: TableLink, table: VirtualTable,
                 timeout: float):
        self.session = session
        self.loop = TableLoop(link, session, poll_s=self.POLL_S)
        self.table = table
        self.timeout = timeout

    def pump(self, until: Callable[[], bool], what: str) -> None:
        self.loop.run_until(until, timeout=self.timeout, what=what)

    def in_step(self) -> bool:
        view = self.session.view
        if not view.known:
            return False
        sets = self.table.zone_sets()
        return all(view.zones[z] == frozenset(sets[k])
                   for k, z in enumerate(self.table.layout.all_zones))

    def settle(self) -> None:
        self.pump(self.in_step, "see the table settle")


class SimulatedTableGame:
    """A simulated table over a pty with the host session attached: the harness shared by
    ``table-replay``, the demo and the tests. Use as a context manager."""

    def __init__(self, rules: Rules, players: tuple[str, ...], *, first_seat: int = 0,
                 miss_rate: float = 0.05, seed: int = 0, scan_time: int = 0,
                 timeout: float = 20.0, layout_name: str | None = None,
                 output=None, hint_settings=None, clock_spec=None,
                 clock: Callable[[], float] = time.monotonic,
                 heartbeat_timeout: float = 3.0, **session_options):
        self.rules = rules
        self.layout = builtin_layout(layout_name or layout_for_players(len(players)))
        self.layout.check_bank_fits(rules, len(players))
        self.registry = make_registry(self.layout, len(players),
                                      copies=rules.bank_copies(len(players)))
        self.table = VirtualTable(self.layout, self.registry, token_seat=first_seat)
        self.mcu = PtyMcu(self.table, miss_rate=miss_rate, seed=seed, scan_time=scan_time)
        self.link = TableLink(lambda: SerialTransport(self.mcu.device_path),
                              heartbeat_timeout=heartbeat_timeout)
        # The harness waits until the host has seen the whole table before it hands over,
        # so the tracker may judge every change at once.
        self.session = new_session(self.layout, self.registry, rules, players,
                                   first_seat=first_seat, output=output,
                                   hint_settings=hint_settings, settle_s=0.0,
                                   clock_spec=clock_spec, clock=clock, **session_options)
        self.host = SimulatedHost(self.session, self.link, self.table, timeout)
        #: The admin commands, as the web display's admin page and the terminal give them.
        self.control = TableControl(self.session)
        self.driver = TableDriver(self.table, GameState(
            rules, len(players), first_to_move=first_seat,
            alignments=session_options.get("alignments")))

    def __enter__(self) -> SimulatedTableGame:
        self.mcu.start()
        try:
            self.host.settle()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.link.close()
        self.mcu.close()

    def settle(self) -> None:
        self.host.settle()

    def hand_over_and_wait(self, seat: int) -> bool:
        """Move the token to ``seat``; True when the host committed the turn."""
        before = len(self.session.tracker.record)
        self.driver.hand_over(seat)
        self.host.pump(lambda: len(self.session.tracker.record) > before
                       or self.host.in_step() and self.session.status.phase
                       == "handover-refused", "commit or refuse the turn")
        return len(self.session.tracker.record) > before

    def command(self, command: AdminCommand) -> str:
        """An admin command, run as the table loop runs it, then the table settled."""
        said = self.control(command)
        self.settle()
        return said

    def take_departures(self, seat: int) -> list[str]:
        """Before ``seat``'s turn in a game of three or more: the seats the record passes
        over left the game (resigned) or missed their turn, as ``driver.state`` says (the
        transcript's reading, ``replay.infer_departures``). They are given to the host as the
        admin gives them (``resign``, ``skip``); the driver brings the token to ``seat``.
        Returns what the host answered to each."""
        tracker, wanted = self.session.tracker, self.driver.state
        said = []
        while tracker.state.to_move != seat and not tracker.is_over:
            mover = tracker.state.to_move
            if wanted.eliminated[mover] and not tracker.state.eliminated[mover]:
                said.append(self.command(AdminCommand("resign", seat=mover)))
            else:
                said.append(self.command(AdminCommand("skip")))
        self.driver.hand_over(seat)
        return said


#: The built-in layout a simulated game of so many players is played on.
LAYOUTS_BY_PLAYERS = {2: "standard-2p", 3: "four-seat", 4: "four-seat", 5: "six-seat",
                      6: "six-seat"}


def layout_for_players(players: int) -> str:
    try:
        return LAYOUTS_BY_PLAYERS[players]
    except KeyError:
        raise ValueError(f"Homeworlds is played by 2 to 6 players, not {players}") from None


def table_replay_game(game: SdgGame, rules: Rules | None = None, *, file: str = "",
                      miss_rate: float = 0.05, seed: int = 0, timeout: float = 20.0,
                      per_action: bool = True, scan_time: int = 0,
                      layout_name: str | None = None) -> TableReplayResult:
    """Play ``game`` on the simulated table (``layout_name``, else the built-in layout for
    its player count, ``layout_for_players``) and compare what the host recorded with the
    transcript. In a game of three or more, the seats a transcript passes over are given to
    the host as the admin gives them: a player who never moves again resigned and left,
    the others missed that turn (``replay.infer_departures``)."""
    rules = rules_for_game(game, rules)
    players = len(game.players)
    result = TableReplayResult(file, len(game.turns))
    number = setup_relative_numbering(game)
    first = game.turns[0].seat if game.turns else 0
    reference = GameState(rules, players, first_to_move=first, alignments=game.alignments)
    references: list[tuple] = []
    sim = SimulatedTableGame(rules, game.players, first_seat=first, miss_rate=miss_rate,
                             seed=seed, scan_time=scan_time, timeout=timeout,
                             layout_name=layout_name, alignments=game.alignments)
    session, driver, host = sim.session, sim.driver, sim.host
    try:
        with sim:
            for index, turn in enumerate(game.turns):
                if players > 2 and turn.seat != reference.to_move and not reference.is_over:
                    infer_departures(reference, game, index, turn.seat)
                    driver.state = reference.copy()
                    sim.take_departures(turn.seat)
                try:
                    reference.apply_turn(turn.actions)
                except (IllegalAction, AmbiguousAction) as exc:
                    result.stopped = f"turn {number(turn)} is illegal in the transcript: {exc}"
                    break
                references.append(canonical_key(reference))
                driver.begin_turn()
                for action in turn.actions:
                    driver.act(action)
                    if per_action:
                        host.settle()
                driver.end_turn(hand_over=False)
                host.settle()
                t0 = time.perf_counter()
                following = reference.to_move if not reference.is_over \
                    else (turn.seat + 1) % players
                committed = sim.hand_over_and_wait(following)
                result.handover_seconds.append(time.perf_counter() - t0)
                if not committed:
                    result.refused.append(number(turn))
                    result.stopped = f"turn {number(turn)} refused: {session.status.message}"
                    break
                result.inferred += 1
                if canonical_key(session.tracker.state) == references[-1]:
                    result.matched += 1
    except SettleTimeout as exc:
        result.stopped = str(exc)
    except ControlError as exc:
        result.stopped = f"the host refused a departure: {exc}"
    result.record_equal = _record_replays_equal(session, references, rules, game)
    return result


def _record_replays_equal(session: TableSession, references: list, rules: Rules,
                          game: SdgGame) -> bool:
    """The host's record, written in SDG and read back, has the transcript's movers turn by
    turn and replays to the same positions (a game of three or more as the transcript
    replays: seats passed over left or missed the turn)."""
    record = session.tracker.record
    if len(record) != len(references):
        return False
    text = write_sdg(sdg_game(game.players, [t for _, t in record], seats=[s for s, _ in record],
                              alignments=game.alignments))
    again = read_sdg(text)
    if [t.seat for t in again.turns] != [t.seat for t in game.turns[:len(again.turns)]]:
        return False
    first = again.turns[0].seat if again.turns else 0
    state = GameState(rules, len(game.players), first_to_move=first,
                      alignments=again.alignments)
    for index, (turn, want) in enumerate(zip(again.turns, references, strict=True)):
        if len(game.players) > 2 and turn.seat != state.to_move and not state.is_over:
            infer_departures(state, again, index, turn.seat)
        try:
            state.apply_turn(turn.actions)
        except (IllegalAction, AmbiguousAction):
            return False
        if canonical_key(state) != want:
            return False
    return True
