"""A departure in a timed game of three or more (issue 28: resign-and-leave, a missed turn)
adjusts the game clocks (docs/clocks.md, "Players who leave"): the clock of a player who
left stops for good, the clock of a seat that missed its turn stops, and the next seat in
the game's clock runs from that moment. A simulated four-seat table with three players,
its scans handed to the session directly and time injected, so every second is exact."""

from __future__ import annotations

from homeworlds.clock import ClockSpec, TurnTime
from homeworlds.display.clock_text import clocks_text
from homeworlds.link import LinkUp, McuInfo, SnapshotReceived
from homeworlds.notation import parse_sdg_action
from homeworlds.rules import GameState, preset
from homeworlds.session import Stage, new_session
from homeworlds.sim import TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout

LAYOUT = builtin_layout("four-seat")
PLAYERS = ("Ann", "Bob", "Cat")
SETUP = ["Homeworld Y1 G2 R3", "Homeworld G3 B3 G1", "Homeworld Y3 B1 B2"]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Table:
    """A three-player session fed perfect scans of a simulated table, with a fake clock."""

    def __init__(self, **control):
        self.clock = Clock()
        registry = make_registry(LAYOUT, 3)
        self.table = VirtualTable(LAYOUT, registry)
        rules = preset("last-standing")
        self.session = new_session(LAYOUT, registry, rules, PLAYERS, clock=self.clock,
                                   settle_s=0.0, clock_spec=ClockSpec.from_dict(control))
        self.driver = TableDriver(self.table, GameState(rules, players=3))
        self.times: list[TurnTime | None] = []
        self.session.events.committed.listen(
            Stage.STORE, lambda _: self.times.append(self.session.last_turn_time))
        self.session.handle(LinkUp(McuInfo("sim", 1, LAYOUT.zone_count, 1, 3), "pty",
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
        seat = self.session.tracker.state.to_move
        self.wait(think)
        turn = tuple(parse_sdg_action(a.strip(), player=PLAYERS[seat]) for a in text.split(";"))
        self.driver.state = self.session.tracker.state.copy()
        after = self.driver.play_turn(turn, hand_over=False)
        self.show()
        self.driver.hand_over(after.to_move)
        self.show()

    def pass_token(self):
        """The players pass the turn token to the seat the tracker names."""
        self.driver.hand_over(self.session.tracker.state.to_move)
        self.show()

    def remaining(self, seat: int) -> int:
        return self.session.clocks.remaining_ms(seat, self.clock.now)

    def running(self) -> list[bool]:
        return [s["running"] for s in self.session.clocks_feed()["seats"]]


def _started(**control) -> Table:
    # Three or more seats play with on_flag = "none" (docs/clocks.md, "Flag fall").
    t = Table(mode="fischer", initial_s=300, increment_s=5, on_flag="none", **control)
    for text in SETUP:
        t.play(text)
    assert t.running() == [True, False, False]
    return t


def test_a_missed_turn_stops_that_clock_and_the_next_seat_s_runs():
    t = _started()
    t.play("Build R1 Ann", think=10)
    assert t.times[-1] == TurnTime(0, 10_000, 295_000)
    t.wait(40)  # Bob's turn runs out in thought; the organiser skips it
    assert t.session.skip_turn() == 1
    assert t.running() == [False, False, True]
    t.pass_token()
    t.wait(30)
    # Bob's clock was charged his 40 s (no increment: he made no turn) and stands still;
    # Cat's has run since the skip.
    assert (t.remaining(0), t.remaining(1), t.remaining(2)) == (295_000, 260_000, 270_000)
    t.play("Trade B2 R2 Cat", think=12)
    assert t.times[-1] == TurnTime(2, 42_000, 263_000)  # Cat's turn, timed from the skip
    assert t.running() == [True, False, False]
    assert t.remaining(1) == 260_000


def test_a_player_who_resigns_and_leaves_has_their_clock_stopped_for_good():
    t = _started()
    t.play("Build R1 Ann", think=10)
    t.wait(25)
    assert t.session.resign(1) is False  # Bob leaves; Ann and Cat play on
    t.pass_token()
    feed = t.session.clocks_feed()["seats"]
    assert [s.get("left", False) for s in feed] == [False, True, False]
    assert t.running() == [False, False, True]
    t.wait(20)
    assert (t.remaining(1), t.remaining(2)) == (275_000, 280_000)
    t.play("Trade B2 R2 Cat", think=5)
    assert t.times[-1] == TurnTime(2, 25_000, 280_000)
    # The turn goes from Cat to Ann, past Bob: Bob's clock never runs again.
    assert t.session.tracker.state.to_move == 0 and t.running() == [True, False, False]
    t.play("Build R1 Ann", think=8)
    assert t.session.tracker.state.to_move == 2 and t.running() == [False, False, True]
    t.wait(100)
    assert t.remaining(1) == 275_000
    assert "Bob 4:35 (left)" in clocks_text(t.session.clocks, PLAYERS, t.clock.now)
    # An undo of Ann's turn keeps Bob out: the clocks are restored with him gone.
    t.session.withdraw_last_turn()
    assert t.session.clocks.departed == (1,)
    assert t.session.clocks_feed()["seats"][1]["left"] is True


def test_a_player_not_to_move_who_leaves_keeps_the_time_they_had():
    t = _started()
    t.wait(15)  # Ann's clock runs
    assert t.session.resign(2) is False  # Cat leaves while Ann is to move
    assert t.running() == [True, False, False]
    t.wait(5)
    assert (t.remaining(0), t.remaining(2)) == (280_000, 300_000)
    t.play("Build R1 Ann")
    assert t.session.tracker.state.to_move == 1 and t.running() == [False, True, False]
    t.play("Build G1 Bob", think=3)
    assert t.session.tracker.state.to_move == 0 and t.running() == [True, False, False]
    assert t.session.clocks_feed()["seats"][2] == {"remaining_ms": 300_000,
                                                   "running": False, "flagged": False,
                                                   "delay_ms": 0, "left": True}
