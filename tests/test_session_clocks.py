"""The table session runs the game clocks: the seat to move's clock runs from the hand-over,
pauses on link loss, reader faults and mistakes, and a flag fall ends the game as the time
control says. The table is the simulated one, its scans handed to the session directly and
time injected, so every second is exact."""

from __future__ import annotations

import pytest

from homeworlds.clock import ClockSpec, TurnTime
from homeworlds.link.events import LinkDown, LinkUp, McuInfo, ReaderFault, SnapshotReceived
from homeworlds.notation.sdg import parse_sdg_action
from homeworlds.rules import GameState, Piece, preset
from homeworlds.session import READER_FAULT_HOLD_S, Stage, new_session
from homeworlds.sim import TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout

LAYOUT = builtin_layout("standard-2p")
PLAYERS = ("Ann", "Bob")
SETUP = ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3"]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Table:
    """A session fed perfect scans of a simulated table, with an injected clock."""

    def __init__(self, **control):
        self.clock = Clock()
        registry = make_registry(LAYOUT, 2)
        self.table = VirtualTable(LAYOUT, registry)
        self.session = new_session(LAYOUT, registry, preset("looney"), PLAYERS,
                                   clock=self.clock, settle_s=0.0,
                                   clock_spec=ClockSpec.from_dict(control))
        self.driver = TableDriver(self.table, GameState(preset("looney")))
        self.flags: list[int] = []
        self.session.events.flag.listen(Stage.ANNOUNCE, self.flags.append)
        self.times: list[TurnTime | None] = []
        self.session.events.committed.listen(
            Stage.STORE, lambda _: self.times.append(self.session.last_turn_time))
        self.link_up()

    def link_up(self):
        self.session.handle(LinkUp(McuInfo("sim", 1, LAYOUT.zone_count, 1, 2), "pty",
                                   at=self.clock.now))
        self.show()

    def show(self):
        zones = {zone: frozenset(tags) for zone, tags in
                 zip(LAYOUT.all_zones, self.table.zone_sets(), strict=True)}
        self.session.handle(SnapshotReceived(zones, at=self.clock.now))
        self.session.tick()

    def wait(self, seconds: float):
        self.clock.now += seconds
        self.session.tick()

    def play(self, text: str, *, think: float = 0.0):
        player = PLAYERS[self.driver.state.to_move]
        self.wait(think)
        turn = tuple(parse_sdg_action(a.strip(), player=player) for a in text.split(";"))
        after = self.driver.play_turn(turn, hand_over=False)
        self.show()
        self.driver.hand_over(after.to_move)
        self.show()

    def remaining(self, seat: int) -> int:
        return self.session.clocks.remaining_ms(seat, self.clock.now)


def test_setup_is_untimed_and_the_clock_runs_for_the_seat_to_move():
    t = Table(mode="fischer", initial_s=60, increment_s=5)
    t.play(SETUP[0], think=30)
    t.play(SETUP[1], think=40)
    assert t.times == [None, None]  # setup turns are not timed
    assert (t.remaining(0), t.remaining(1)) == (60_000, 60_000)
    t.play("Build G1 Ann", think=12)
    assert t.times[-1] == TurnTime(0, 12_000, 53_000)
    t.wait(7)
    assert (t.remaining(0), t.remaining(1)) == (53_000, 53_000)
    assert t.session.clocks_feed()["seats"][1]["running"]


def test_timed_setup_starts_the_clock_at_once():
    t = Table(mode="sudden-death", initial_s=60, timed_setup=True)
    t.play(SETUP[0], think=10)
    assert t.times == [TurnTime(0, 10_000, 50_000)]


def test_a_link_loss_pauses_the_clock():
    t = Table(mode="sudden-death", initial_s=60)
    for text in SETUP:
        t.play(text)
    t.wait(5)
    t.session.handle(LinkDown("silence", 1.0, at=t.clock.now))
    t.wait(300)
    assert t.remaining(0) == 55_000
    assert t.session.clocks_feed()["paused"] == "link-down"
    t.link_up()
    t.wait(2)
    assert t.remaining(0) == 53_000 and t.session.clocks_feed()["paused"] is None


def test_a_reader_fault_pauses_the_clock_until_the_reader_falls_silent():
    t = Table(mode="sudden-death", initial_s=60)
    for text in SETUP:
        t.play(text)
    t.session.handle(ReaderFault(0, "TIMEOUT", "no answer", at=t.clock.now))
    t.wait(1)
    assert t.session.clocks_feed()["paused"] == "reader-fault"
    t.wait(READER_FAULT_HOLD_S)
    assert t.session.clocks_feed()["paused"] is None
    t.wait(10)
    # paused from the report until the hold ran out; charged from then on
    assert t.remaining(0) == 60_000 - round((1 + 10) * 1000)
    # a request the firmware rejected is no reader fault
    t.session.handle(ReaderFault(None, "BADREQ", "bad request", at=t.clock.now))
    t.wait(1)
    assert t.session.clocks_feed()["paused"] is None


def test_the_clock_pauses_while_the_table_asks_to_correct_a_refused_hand_over():
    t = Table(mode="sudden-death", initial_s=60)
    for text in SETUP:
        t.play(text)
    t.wait(4)
    # Ann puts a ship in a bank piece's place nowhere legal: a g3 from the bank to her home
    uid = t.table.take_from_bank(Piece.from_text("g3"))
    home = t.driver.slot("Ann")
    t.table.place(uid, LAYOUT.ship_zone(home, 0))
    t.show()
    t.driver.hand_over(1)
    t.show()
    assert t.session.status.phase == "handover-refused"
    t.wait(120)
    assert t.session.clocks_feed()["paused"] == "mistake"
    assert t.remaining(0) == 56_000 and not t.flags
    # corrected: the extra ship goes back, Ann builds properly, and her clock ran on
    t.table.move_token(0)
    t.table.to_bank(uid)
    t.show()
    assert t.session.clocks_feed()["paused"] is None
    t.play("Build G1 Ann", think=6)
    assert t.times[-1] == TurnTime(0, 10_000, 50_000)


def test_a_flag_fall_loses_the_game():
    t = Table(mode="sudden-death", initial_s=60)
    for text in SETUP:
        t.play(text)
    t.play("Build G1 Ann", think=20)
    t.wait(59.9)
    assert not t.flags
    t.wait(0.2)
    assert t.flags == [1]
    tracker = t.session.tracker
    assert tracker.is_over and tracker.ended_by == "flag"
    assert tracker.state.result.kind == "flag" and tracker.state.result.winners == (0,)
    assert "Bob's flag fell" in t.session.status.message
    assert not t.session.clocks.started and t.session.clocks.flagged == (1,)
    t.wait(30)  # nothing falls twice, nothing runs
    assert t.flags == [1] and t.remaining(0) == 40_000


def test_in_casual_play_the_flag_shows_and_the_game_goes_on():
    t = Table(mode="sudden-death", initial_s=60, on_flag="none")
    for text in SETUP:
        t.play(text)
    t.play("Build G1 Ann", think=61)
    assert t.flags == [0]
    assert not t.session.tracker.is_over
    assert t.times[-1] == TurnTime(0, 61_000, 0)
    t.play("Build G1 Bob", think=3)
    assert t.remaining(1) == 57_000 and t.session.clocks_feed()["seats"][0]["flagged"]


def test_in_casual_fischer_play_the_flagged_seat_gets_no_increment():
    t = Table(mode="fischer", initial_s=60, increment_s=5, on_flag="none")
    for text in SETUP:
        t.play(text)
    t.play("Build G1 Ann", think=61)
    assert t.flags == [0]
    assert t.times[-1] == TurnTime(0, 61_000, 0)  # no increment after the flag
    t.play("Build G1 Bob", think=3)
    assert t.times[-1] == TurnTime(1, 3_000, 62_000)  # the seat in time gets its 5 s
    t.play("Build G1 Ann", think=2)
    assert t.times[-1].clock_ms == 0 and t.remaining(0) == 0
    seats = t.session.clocks_feed()["seats"]
    assert seats[0]["flagged"] and seats[0]["remaining_ms"] == 0


def test_a_change_waiting_to_settle_is_judged_before_the_flag():
    t = Table(mode="sudden-death", initial_s=60)
    t.session.watch.settle_s = 0.5
    for text in SETUP:
        t.play(text)
        t.wait(0.5)
    # Ann's clock started when Bob's setup turn settled, 0.5 s ago; the token moves 0.2 s
    # before her flag would fall
    t.play("Build G1 Ann", think=59.3)
    t.wait(0.3)  # past the flag time, the table not settled yet
    t.wait(0.3)  # settled: the hand-over came first
    assert not t.flags and len(t.session.tracker.record) == 3
    assert t.times[-1].clock_ms == pytest.approx(200, abs=1)


def test_a_resumed_game_restores_the_clocks_and_does_not_charge_the_downtime():
    t = Table(mode="fischer", initial_s=60, increment_s=5)
    for text in SETUP:
        t.play(text)
    t.play("Build G1 Ann", think=20)
    t.play("Build G1 Bob", think=30)
    record = list(t.session.tracker.record)
    stored = (t.times[-2].clock_ms, t.times[-1].clock_ms)
    assert stored == (45_000, 35_000)
    # the host restarts an hour later
    again = Table(mode="fischer", initial_s=60, increment_s=5)
    again.table, again.driver = t.table, t.driver
    again.clock.now = t.clock.now + 3600
    again.session.tracker.resume(record, t.session.tracker.star_tags)
    again.session.restore_clocks(stored)
    again.show()
    again.wait(4)
    assert (again.remaining(0), again.remaining(1)) == (41_000, 35_000)
    again.play("Build G1 Ann", think=0)
    assert again.times[-1] == TurnTime(0, 4_000, 46_000)


def test_the_hint_view_drains_the_bar_of_the_seat_to_move():
    t = Table(mode="sudden-death", initial_s=100)
    for text in SETUP:
        t.play(text)
    t.wait(25)
    view = t.session.hint_view()
    assert view.clock_fraction == pytest.approx(0.75) and not view.clock_low
    t.wait(40)
    assert t.session.hint_view().clock_low
    t.wait(40)
    view = t.session.hint_view()
    assert view.flagged_seats == {0} and view.clock_fraction is None
