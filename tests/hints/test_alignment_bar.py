"""Good/Evil: a player learns their secret alignment on their own bar (002, Good and Evil:
each player's alignment is secret until the end), by pressing their seat's button while it is
not their turn; pressed on their own turn, the button still hands over."""

from __future__ import annotations

from homeworlds.link.events import ButtonPressed
from homeworlds.rules import deal_alignments, preset
from homeworlds.session import ALIGNMENT_SHOWN_S, new_session
from homeworlds.sim import make_registry

from .helpers import LAYOUT, OFF, SEAT0, SETTINGS, bar, lit

WHITE, VIOLET = (255, 255, 255), (150, 0, 255)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _session(rules: str, alignments=None):
    clock = Clock()
    session = new_session(LAYOUT, make_registry(LAYOUT, 2), preset(rules), ("Ann", "Bob"),
                          clock=clock, alignments=alignments, settle_s=0.0)
    session.watch.link_up = True  # as after the table's HELLO (link down turns every bar amber)
    return session, clock


def _press(session, seat: int) -> None:
    session.handle(ButtonPressed(LAYOUT.seats[seat].button, 1, at=0.0))


def test_the_seat_not_to_move_sees_its_alignment_on_its_bar_alone_for_a_while():
    dealt = deal_alignments(2, 3)
    session, clock = _session("good-evil", dealt)
    assert session.tracker.state.to_move == 0
    _press(session, 1)
    frame = session.render()
    colour = WHITE if dealt[1] == "good" else VIOLET
    assert bar(frame, 1) == (lit(colour, SETTINGS.bar),) * 8
    assert bar(frame, 0) == (lit(SEAT0, SETTINGS.bar),) * 8  # seat 0's bar: whose turn, as ever
    clock.now += ALIGNMENT_SHOWN_S + 0.1
    assert bar(session.render(), 1) == (OFF,) * 8


def test_the_button_of_the_seat_to_move_still_hands_over_and_shows_nothing():
    session, _ = _session("good-evil", deal_alignments(2, 3))
    _press(session, 0)
    assert session.handover_seat == 0  # the press goes to the tracker as a hand-over
    assert bar(session.render(), 0) == (lit(SEAT0, SETTINGS.bar),) * 8


def test_without_alignments_a_press_is_only_a_press():
    session, _ = _session("looney")
    _press(session, 1)
    assert session.handover_seat == 1
    assert bar(session.render(), 1) == (OFF,) * 8
