"""Two simulated tables of one remote game, each with its own store and its own link to a
real mosquitto (tests/event/broker.py): one plays its player's turns from an archive game
with its hands (``TableDriver``), the other's lights lay them out and its simulated person
follows them (``carry_out``)."""

from __future__ import annotations

import time
from pathlib import Path

from homeworlds.event.settings import parse_broker_url
from homeworlds.remote.connection import (
    RemoteConnection,
    record_departure,
    stored_reading,
)
from homeworlds.remote.game import CHANNEL, RemoteGame, RemotePlayer
from homeworlds.remote.invitation import Invitation
from homeworlds.replay import rules_for_game
from homeworlds.rules import GameState, Rules
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.session import ComputerSeat, Stage
from homeworlds.sim import TableDriver, carry_out
from homeworlds.store import GameRecorder, GameStore
from homeworlds.store.identity import StoredIdentity

GAMES = Path(__file__).parent.parent / "data" / "games" / "sdg"
GAME = GAMES / "3426.raw"


class RemoteTable:
    """One table of the remote game: simulated table, session, store, remote side."""

    def __init__(self, directory: Path, name: str, invitation: Invitation, role: str,
                 seat: int, rules: Rules, players: tuple[str, ...], first_seat: int,
                 broker_url: str, clock_spec=None, *, seats: tuple[int, ...] | None = None,
                 alignments=None, keepalive_s: int = 10):
        self.seats = seats or (seat,)
        self.name, self.seat, self.role = name, seat, role
        self.invitation, self.broker_url = invitation, broker_url
        #: the broker link's keepalive (``[remote] keepalive``)
        self.keepalive_s = keepalive_s
        self.holder: list[RemoteGame] = []
        self.sim = SimulatedTableGame(
            rules, players, first_seat=first_seat, miss_rate=0.0, seed=seat,
            computer_seats={s: ComputerSeat() for s in range(len(players))
                            if s not in self.seats}, clock_spec=clock_spec,
            alignments=alignments,
            player_factory=lambda *a: RemotePlayer(lambda: self.holder[0]))
        self.session = self.sim.session
        self.recorder = GameRecorder(directory / f"{name}.sqlite", table=name,
                                     layout=self.sim.layout.name)
        self.recorder.open()
        self.recorder.start_game(rules, players, first_seat)
        self.sim.control.recorder = self.recorder  # the admin's resign / skip are stored
        tracker = self.session.tracker
        self.session.events.committed.listen(Stage.STORE, self._store_turn)
        #: When turn n was committed here, and when this table first showed a step of the
        #: other table's turn n (the latency figure: one clock, one process).
        self.committed_at: dict[int, float] = {}
        self.first_guidance: dict[int, float] = {}
        self.session.events.committed.listen(Stage.ANNOUNCE, lambda c: self.committed_at
                                             .setdefault(len(tracker.record), time.monotonic()))
        self.connection: RemoteConnection | None = None
        self.connect()
        self.sim.__enter__()  # the simulated microcontroller runs; the host has seen it

    def _store_turn(self, commit) -> None:
        """As ``play`` stores a turn (runtime.table), with its time on a timed game."""
        tracker, timed = self.session.tracker, self.session.last_turn_time
        self.recorder.turn(len(tracker.record), commit.seat, commit.turn, commit.state,
                           tracker.players, tracker.star_tags,
                           elapsed_ms=timed.elapsed_ms if timed else None,
                           clock_ms=timed.clock_ms if timed else None)

    def connect(self) -> None:
        """A (new) remote side and its broker link: as a restarted host makes them, from
        the invitation and what the store kept (sequence numbers, the other side's)."""
        assert self.recorder.store is not None
        identity = StoredIdentity(self.recorder.store)
        key = self.invitation.key(self.role)
        peers = {r: self.invitation.key(r).key_id for r in self.invitation.roles
                 if r != self.role}
        game = RemoteGame(self.session, self.invitation, self.role, self.seats,
                          reserve=lambda n: identity.reserve(key.key_id, n),
                          seen={r: identity.seen(k).get(CHANNEL, 0) for r, k in peers.items()},
                          record_seen_by=lambda r, h: identity.record_seen(peers[r], CHANNEL, h),
                          deal_file=self.recorder.path.with_suffix(".deal"))
        game.on_departure = lambda d, ended: record_departure(self.recorder, self.session, d,
                                                              ended)
        if not self.holder:
            # What ``game.attach()`` does, through the holder: a restarted side takes over.
            events = self.session.events
            events.committed.listen(Stage.PUBLISH, lambda c: self.game.committed(c))
            events.tick.listen(Stage.CONTROL, lambda: self.game.poll())
            self.session.pause_sources.append(lambda: self.game.pause_reason())
        game.stored_clocks = lambda number: stored_reading(
            identity.store, self.recorder.game_id, number, len(self.session.tracker.players),
            self.session.timekeeper.game_spec)
        game.guard_seat()  # the new side takes over the other seat and its clock readings
        self.holder[:] = [game]
        self.connection = RemoteConnection(game, parse_broker_url(self.broker_url),
                                           keepalive_s=self.keepalive_s)
        self.connection.start()

    @property
    def game(self) -> RemoteGame:
        return self.holder[0]

    def disconnect(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def pump_once(self) -> None:
        sim = self.sim
        for event in sim.link.poll(0.002):
            self.session.handle(event)
        self.session.tick()
        shown = self.session.guidance_shown()
        number = len(self.session.tracker.record) + 1
        if shown is not None and shown.phase == "guiding" and number not in \
                self.first_guidance and self.game.ready_turn(number) is not None:
            self.first_guidance[number] = time.monotonic()

    def in_step(self) -> bool:
        return self.sim.host.in_step() and self.session.judged

    def stored_turns(self) -> list[tuple[int, int, str]]:
        store = GameStore.open(self.recorder.path)
        try:
            game = store.latest_game(self.name)
            return [] if game is None else [(t.number, t.seat, t.sdg)
                                            for t in store.turns(game.id)]
        finally:
            store.close()

    def stored_departures(self) -> list[tuple[int, str, int]]:
        store = GameStore.open(self.recorder.path)
        try:
            game = store.latest_game(self.name)
            return [] if game is None else store.departures(game.id)
        finally:
            store.close()

    def close(self) -> None:
        self.disconnect()
        self.game.close()
        self.recorder.close()
        self.sim.__exit__(None, None, None)


def pump(tables, until, what, timeout=30.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; " + "; ".join(
                f"{t.name}: {t.session.status.message!r} {list(t.session.notices)[-4:]}"
                for t in tables))
        for table in tables:
            table.pump_once()


def _content(system) -> tuple:
    return (tuple(sorted(system.stars)), tuple(map(tuple, system.ships)), system.home_of)


def transcript_slots(table: RemoteTable, reference: GameState) -> dict[str, int]:
    return slots_by_content(table.session, reference)


def slots_by_content(session, reference: GameState) -> dict[str, int]:
    """The transcript's system names -> the slots the table shows them on (the table
    names a discovered system its own way; the same position has the same systems)."""
    if session.observation is None:
        return {}
    slots = session.tracker.slot_of_system(session.observation)
    by_content: dict[tuple, list[int]] = {}
    for system in session.tracker.state.systems:
        by_content.setdefault(_content(system), []).append(slots[system.name])
    return {system.name: by_content[_content(system)].pop()
            for system in reference.systems}


def play_own_turn(mover: RemoteTable, turn, following: int, tables,
                  reference: GameState) -> None:
    """The mover's player makes ``turn`` (the transcript's, ``reference`` the position
    before it in the transcript's names) with their hands and hands the token on."""
    session = mover.session
    committed = len(session.tracker.record)
    mover.sim.driver = TableDriver(mover.sim.table, reference,
                                   transcript_slots(mover, reference))
    mover.sim.driver.play_turn(turn, hand_over=False)
    pump(tables, mover.in_step, f"{mover.name} sees the turn")
    mover.sim.driver.hand_over(following)
    pump(tables, lambda: len(session.tracker.record) > committed
         or mover.in_step() and session.status.phase == "handover-refused",
         f"{mover.name} commits")
    assert len(session.tracker.record) > committed, session.status.message


def follow_remote_turn(follower: RemoteTable, tables, max_steps=40) -> list[str]:
    """The follower's person carries out the other table's turn as its lights show it."""
    session = follower.session
    committed = len(session.tracker.record)
    words = []
    for _ in range(max_steps):
        pump(tables, lambda: len(session.tracker.record) > committed or (
            (g := session.guidance_shown()) is not None and g.phase == "guiding"
            and not g.suggestion and follower.in_step()), f"{follower.name}: a step")
        if len(session.tracker.record) > committed:
            return words
        shown = session.guidance_shown()
        words.append(shown.text)
        carry_out(follower.sim.table, shown.to_json()["current"])
        pump(tables, follower.in_step, f"{follower.name} sees the step")
    raise AssertionError(f"{follower.name}: the turn was not committed: {words}")


def two_tables(directory: Path, broker_url: str, game, clock_spec=None, *,
               guest_broker_url: str | None = None, keepalive_s: int = 10
               ) -> tuple[RemoteTable, RemoteTable]:
    """The host table (seat 0) invites; the guest (seat 1) types the code it showed.
    ``guest_broker_url``: where the guest reaches the broker (a relay the test cuts)."""
    invitation = Invitation.new()
    joined = Invitation.from_code(invitation.code)
    rules = rules_for_game(game, None)
    first = game.turns[0].seat
    host = RemoteTable(directory, "home", invitation, "host", 0, rules, game.players, first,
                       broker_url, clock_spec)
    guest = RemoteTable(directory, "away", joined, "guest", 1, rules, game.players, first,
                        guest_broker_url or broker_url, clock_spec, keepalive_s=keepalive_s)
    return host, guest


def reference_before(game, index: int) -> GameState:
    """The transcript's position before turn ``index`` (its own system names)."""
    state = GameState(rules_for_game(game, None), 2, first_to_move=game.turns[0].seat)
    for turn in game.turns[:index]:
        state.apply_turn(turn.actions)
    return state


def play(tables, game, turns: int, start: int = 0) -> None:
    """Turns ``start`` to ``turns`` of ``game``: the mover's hands make each, the other
    table follows its lights; after each, both records and both stores are equal."""
    host, guest = tables
    by_seat = {0: host, 1: guest}
    for index in range(start, turns):
        turn = game.turns[index]
        mover, follower = by_seat[turn.seat], by_seat[1 - turn.seat]
        following = game.turns[index + 1].seat if index + 1 < len(game.turns) \
            else 1 - turn.seat
        play_own_turn(mover, turn.actions, following, tables, reference_before(game, index))
        follow_remote_turn(follower, tables)
        assert host.session.tracker.record == guest.session.tracker.record
        assert host.stored_turns() == guest.stored_turns()
        assert len(host.stored_turns()) == index + 1


def latencies(tables) -> list[float]:
    """Seconds from a turn's commit at one table to the other table's first step of it."""
    out = []
    for mover, follower in (tables, tables[::-1]):
        for number, shown in follower.first_guidance.items():
            if number in mover.committed_at:
                out.append(shown - mover.committed_at[number])
    return out


def clock_gap(tables) -> float:
    """The largest difference, in seconds, between the two tables' readings of one seat's
    clock at one moment (one process: one monotonic clock compares them)."""
    host, guest = tables
    now = time.monotonic()
    return max(abs(host.session.clocks.remaining_s(seat, now)
                   - guest.session.clocks.remaining_s(seat, now)) for seat in (0, 1))


#: Seconds after both tables resumed for the hellos in flight (a few round trips on a local
#: broker) before the clocks are compared.
RESUME_SETTLE_S = 0.2


def silent_cut(tables, link, hold_s: float = 1.0, timeout: float = 30.0) -> dict[str, float]:
    """The guest's network goes silent (``link.blackhole()``: nothing closed) while a clock
    runs, until both tables noticed and paused; ``hold_s`` later it comes back. Seconds:
    the clock gap just before (``before``), while both stand still (``apart``: how far
    apart the two pauses were), on resumption (``resumed``); when each table noticed
    after the cut (``host_noticed``: the broker's last will, ``guest_noticed``: its own
    keepalive); ``drift``: how much the clocks moved while both stood still."""
    host, guest = tables
    assert host.session.clocks.running and guest.session.clocks.running
    before = clock_gap(tables)
    cut = time.monotonic()
    link.blackhole()
    noticed: dict[str, float] = {}

    def both_paused() -> bool:
        for table in tables:
            if table.game.paused is not None and table.name not in noticed:
                noticed[table.name] = time.monotonic() - cut
        return len(noticed) == 2 and not any(t.session.clocks.running for t in tables)

    pump(tables, both_paused, "both tables notice the silent link and pause", timeout)
    apart = clock_gap(tables)
    standing = [t.session.clocks.remaining_ms(s, time.monotonic()) for t in tables
                for s in (0, 1)]
    end = time.monotonic() + hold_s
    pump(tables, lambda: time.monotonic() >= end, "the cut to last")
    drift = max(abs(a - b) for a, b in zip(standing, [
        t.session.clocks.remaining_ms(s, time.monotonic()) for t in tables for s in (0, 1)],
        strict=True)) / 1000
    link.restore()
    pump(tables, lambda: all(t.game.paused is None and t.session.clocks.running
                             for t in tables), "both tables resume their clocks", timeout)
    # The hellos of a resumption may cross: a side can run again a message before the
    # other's reading reaches it. Clocks are compared once the messages in flight arrived.
    end = time.monotonic() + RESUME_SETTLE_S
    pump(tables, lambda: time.monotonic() >= end, "the hellos in flight to arrive")
    return {"before": before, "apart": apart, "resumed": clock_gap(tables), "drift": drift,
            "host_noticed": noticed[host.name], "guest_noticed": noticed[guest.name]}
