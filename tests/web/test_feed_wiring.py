"""The feed carries what the rest of the table knows: the game clocks (a change of who
runs, a pause or a flag sends a snapshot; the time ticking away does not), a timed turn's
clock time, and the computer's thinking and guidance."""

from __future__ import annotations

import threading

from homeworlds.ai import GreedyPlayer
from homeworlds.feed import SnapshotEvent, TurnEvent
from homeworlds.link import LinkDown
from homeworlds.rules import preset
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.session import ComputerSeat
from homeworlds.web.live import attach_feed
from tests.integration.seat_helpers import wait_for
from tests.test_session_clocks import SETUP, Table


def _fed(**control):
    table = Table(**control)
    events: list = []
    _hub, producer, _control, _queue = attach_feed(table.session, table="t",
                                                   rules_name="looney", sinks=[events.append])
    return table, producer, events


def _snapshots(events):
    return [e for e in events if isinstance(e, SnapshotEvent)]


def test_the_clocks_are_in_the_snapshot_and_only_a_change_of_their_state_sends_one():
    t, producer, events = _fed(mode="fischer", initial_s=60, increment_s=5)
    for text in SETUP:
        t.play(text)
    clocks = producer.latest.clocks
    assert clocks["paused"] is None
    assert [s["running"] for s in clocks["seats"]] == [True, False]
    assert [s["remaining_ms"] for s in clocks["seats"]] == [60_000, 60_000]
    sent = len(events)
    t.wait(4)
    t.wait(4)
    assert len(events) == sent  # the time ticking away sends nothing
    t.session.handle(LinkDown("unplugged", 1.0, at=t.clock.now))
    t.session.tick()
    clocks = _snapshots(events)[-1].clocks
    assert clocks["paused"] == "link-down"
    assert [s["running"] for s in clocks["seats"]] == [False, False]
    assert clocks["seats"][0]["remaining_ms"] == 52_000
    t.wait(30)  # paused: no time is charged
    t.link_up()
    clocks = _snapshots(events)[-1].clocks
    assert clocks["paused"] is None and clocks["seats"][0]["running"]
    assert clocks["seats"][0]["remaining_ms"] == 52_000
    t.play("Build G1 Ann", think=5)
    turn = [e for e in events if isinstance(e, TurnEvent)][-1]
    # The turn's time is the mover's clock (13 s, the pause not counted), not the wall
    # clock's few milliseconds of this test.
    assert turn.elapsed_ms == t.times[-1].elapsed_ms == 13_000
    clocks = producer.latest.clocks
    assert [s["running"] for s in clocks["seats"]] == [False, True]
    assert clocks["seats"][0]["remaining_ms"] == 60_000 - 13_000 + 5_000  # the increment


def test_a_flag_fall_sends_a_snapshot_with_the_flag():
    t, producer, events = _fed(mode="sudden-death", initial_s=10, on_flag="none")
    for text in SETUP:
        t.play(text)
    sent = len(events)
    t.wait(11)
    assert len(events) > sent
    clocks = producer.latest.clocks
    assert clocks["seats"][0]["flagged"] and clocks["seats"][0]["remaining_ms"] == 0
    assert not clocks["seats"][1]["flagged"]


def test_an_untimed_table_has_no_clocks_and_times_turns_by_the_wall_clock():
    t, producer, events = _fed()
    t.play(SETUP[0])
    assert producer.latest.clocks is None
    turn = next(e for e in events if isinstance(e, TurnEvent))
    assert turn.elapsed_ms is not None and turn.elapsed_ms < 60_000


class _SlowPlayer:
    """A computer that takes a moment to choose (so the thinking can be seen)."""

    def __init__(self, release: threading.Event):
        self.release = release
        self.player = GreedyPlayer(seed=5, names=("Ann", "Hal"))

    def choose_turn(self, state):
        self.release.wait(20)
        return self.player.choose_turn(state)


class _PhonePlayer(_SlowPlayer):
    """A seat played from a phone, as ``PhoneSeat.player_factory`` makes it: it waits for
    the phone's turn (here: a computer's, when released) and says what it waits for."""

    waiting_text = "waiting for the turn from the phone…"


def test_a_seat_played_from_a_phone_is_not_called_the_computer_anywhere():
    """The terminal's status line, the feed (the web page) and the LEDs: while the phone's
    turn is awaited, and while its turn is laid out here."""
    from homeworlds.display.guidance_text import guidance_text

    release = threading.Event()
    sim = SimulatedTableGame(preset("looney"), ("Ann", "Hal"), miss_rate=0.0, seed=11,
                             computer_seats={1: ComputerSeat(level=1)},
                             player_factory=lambda *args: _PhonePlayer(release))
    with sim:
        _hub, producer, _c, _q = attach_feed(sim.session, table="t", rules_name="looney")
        person = GreedyPlayer(seed=3, names=("Ann", "Hal"))
        sim.driver.play_turn(person.choose_turn(sim.session.tracker.state), hand_over=False)
        sim.settle()
        assert sim.hand_over_and_wait(1)
        wait_for(sim, lambda: (producer.latest.hints.guidance or {}).get("phase")
                 == "thinking", "the waiting in the feed")
        guidance = producer.latest.hints.guidance
        assert guidance["text"] == "Hal: waiting for the turn from the phone…"
        assert guidance["played_from"] == "the phone"
        shown = sim.session.guidance_shown()
        assert guidance_text(shown, ("Ann", "Hal")) == "Hal: waiting for the turn from the phone…"
        # The LEDs: Hal's whole bar breathes in Hal's colour, no comet (no dark LED).
        session = sim.session
        bar = session.layout.seats[1].bar
        frames = [session.lights.render(session.hint_view(), t * 0.25) for t in range(12)]
        assert all(frame[i] != (0, 0, 0) for frame in frames for i in bar)
        assert all(len({frame[i] for i in bar}) == 1 for frame in frames)
        release.set()
        wait_for(sim, lambda: (producer.latest.hints.guidance or {}).get("phase")
                 == "guiding", "a step in the feed")
        guidance = producer.latest.hints.guidance
        assert guidance["played_from"] == "the phone"
        line = guidance_text(sim.session.guidance_shown(), ("Ann", "Hal"))
        assert line is not None and line.startswith("Hal (from the phone), step 1 of ")
        assert "computer" not in line


def test_the_computer_thinking_and_its_steps_are_in_the_snapshot():
    release = threading.Event()
    sim = SimulatedTableGame(preset("looney"), ("Ann", "Hal"), miss_rate=0.0, seed=11,
                             computer_seats={1: ComputerSeat(level=1)},
                             player_factory=lambda *args: _SlowPlayer(release))
    with sim:
        events: list = []
        _hub, producer, _c, _q = attach_feed(sim.session, table="t", rules_name="looney",
                                             sinks=[events.append])
        person = GreedyPlayer(seed=3, names=("Ann", "Hal"))
        sim.driver.play_turn(person.choose_turn(sim.session.tracker.state), hand_over=False)
        sim.settle()
        assert sim.hand_over_and_wait(1)
        wait_for(sim, lambda: (producer.latest.hints.guidance or {}).get("phase")
                 == "thinking", "the thinking in the feed")
        guidance = producer.latest.hints.guidance
        assert guidance["seat"] == 1 and guidance["hint"] is False
        assert guidance["text"] == "Hal (the computer) is thinking…"
        release.set()
        wait_for(sim, lambda: (producer.latest.hints.guidance or {}).get("phase")
                 == "guiding", "a step in the feed")
        guidance = producer.latest.hints.guidance
        shown = sim.session.guidance_shown()
        assert guidance["seat"] == 1 and guidance["text"] == shown.text
        assert guidance["text"].startswith("Take a ")  # a homeworld's star from the bank
        assert guidance["steps_left"] == guidance["steps_total"] >= 3
        assert guidance["current"]["kind"] == "from-bank"


def test_an_undo_keeps_the_time_on_the_clocks_and_the_mover_of_the_withdrawn_turn_runs_again():
    """Without the clocks being carried over, the tracker's earlier position looked like a
    new game: both clocks went back to their full time."""
    from homeworlds.session import AdminCommand, TableControl

    t, producer, events = _fed(mode="sudden-death", initial_s=100)
    for text in SETUP:
        t.play(text)
    t.play("Build G1 Ann", think=7)
    t.wait(3)  # Bob thinks
    control = TableControl(t.session, producer=producer)
    assert control(AdminCommand("undo")).startswith("turn 3 withdrawn")
    t.session.tick()
    assert [t.remaining(0), t.remaining(1)] == [93_000, 97_000]
    # The turn is Ann's again (the table shows her build as her turn so far): her clock
    # runs on from her 93 s, Bob's keeps his.
    clocks = producer.latest.clocks
    assert [s["running"] for s in clocks["seats"]] == [True, False]
    assert [s["remaining_ms"] for s in clocks["seats"]] == [93_000, 97_000]
    t.wait(5)
    assert [t.remaining(0), t.remaining(1)] == [88_000, 97_000]


def test_where_a_seat_played_elsewhere_plays_from():
    """The other table's seat and a phone's seat say where their turns come from (their
    ``waiting_text``), which the lights and displays name instead of the computer."""
    from homeworlds.remote.game import RemotePlayer
    from homeworlds.session.advisor import played_from

    assert played_from(RemotePlayer(lambda: None)) == "the other table"
    phone = RemotePlayer(lambda: None)
    phone.waiting_text = "waiting for the turn from the phone…"  # as PhoneSeat makes it
    assert played_from(phone) == "the phone"

    class Named:
        waiting_text = "waiting…"
        played_from = "table 7"

    assert played_from(Named()) == "table 7"
    assert played_from(type("Vague", (), {"waiting_text": "waiting…"})()) == "elsewhere"


def test_a_turn_from_a_phone_that_fails_is_not_reported_as_the_computer_s():
    """What the table notes when a seat played elsewhere cannot give or lay out its turn
    names that seat and where it is played, not the computer."""
    from homeworlds.rules import Build, Piece

    class Gone:
        waiting_text = "waiting for the turn from the phone…"

        def choose_turn(self, state):
            raise RuntimeError("the phone's seat was closed")

    class Impossible(Gone):
        def choose_turn(self, state):
            return (Build(Piece.from_text("b3"), "Nowhere"),)

    for player, says in ((Gone(), "Hal's turn from the phone did not come: RuntimeError: "
                                  "the phone's seat was closed"),
                         (Impossible(), "Hal's turn from the phone is refused by the rules")):
        sim = SimulatedTableGame(preset("looney"), ("Ann", "Hal"), miss_rate=0.0, seed=11,
                                 computer_seats={1: ComputerSeat(level=1)},
                                 player_factory=lambda *args, p=player: p)
        with sim:
            person = GreedyPlayer(seed=3, names=("Ann", "Hal"))
            sim.driver.play_turn(person.choose_turn(sim.session.tracker.state),
                                 hand_over=False)
            sim.settle()
            assert sim.hand_over_and_wait(1)
            notices = sim.session.notices
            wait_for(sim, lambda s=says, ns=notices: any(s in n for n in ns), says)
            assert not any("computer" in n for n in notices), list(notices)
