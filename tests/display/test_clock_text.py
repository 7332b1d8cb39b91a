"""The clocks as a line of text: what the terminal, the demo and the play log show."""

from __future__ import annotations

from homeworlds.clock import ClockSpec, GameClocks
from homeworlds.display.clock_text import clocks_text, seat_clock_text

DELAY = ClockSpec.from_dict({"mode": "delay", "initial_s": 300, "delay_s": 5})


def test_the_running_clock_is_marked_and_the_delay_named():
    clocks = GameClocks.new(DELAY, 2).start(1, now=0.0)
    assert clocks_text(clocks, ("Ann", "Bob"), 2.0) == "clocks: Ann 5:00 | Bob 5:00 (delay) ◂"
    assert clocks_text(clocks, ("Ann", "Bob"), 65.0) == "clocks: Ann 5:00 | Bob 4:00 ◂"


def test_pauses_flags_and_the_end_are_said_in_words():
    clocks = GameClocks.new(DELAY, 2).start(0, now=0.0).pause("link-down", 1.0)
    assert clocks_text(clocks, ("Ann", "Bob"), 9.0) == \
        "clocks: Ann 5:00 | Bob 5:00  (paused: the table's link is down)"
    flagged = GameClocks.new(DELAY, 2).start(0, now=0.0).flag(400.0)
    assert seat_clock_text(flagged, 0, 400.0) == "FLAG"
    stopped, _ = flagged.hand_over(None, 401.0)
    assert clocks_text(stopped, ("Ann", "Bob"), 500.0) == \
        "clocks: Ann FLAG | Bob 5:00  (stopped: the game is over)"
    assert clocks_text(GameClocks.new(DELAY, 2), ("Ann", "Bob"), 0.0) == \
        "clocks: Ann 5:00 | Bob 5:00  (not running yet)"
    assert clocks_text(None, ("Ann", "Bob"), 0.0) == ""
