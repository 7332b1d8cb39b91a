"""Game clocks on the seat bars: the bar of the seat to move lights the share of its main
time left, blinks in the last minute, and a fallen flag is a steady red last LED — without
changing what the other bar hints mean."""

from __future__ import annotations

import pytest

from homeworlds.hints import HintViewError, Outcome, render

from .helpers import AMBER, OFF, RED, SEAT0, SEAT1, SETTINGS, bar, lit, view

BAR = SETTINGS.bar
ON0 = lit(SEAT0, BAR)
FLAG = lit(RED, BAR)


@pytest.mark.parametrize("fraction, lit_leds", [
    (1.0, 8), (0.75, 6), (0.74, 6), (0.5, 4), (0.126, 2), (0.01, 1), (0.0, 0)])
def test_the_bar_of_the_seat_to_move_drains_with_its_time(fraction, lit_leds):
    frame = render(view(active_seat=0, clock_fraction=fraction), SETTINGS, 0.0)
    assert bar(frame, 0) == (ON0,) * lit_leds + (OFF,) * (8 - lit_leds)
    assert bar(frame, 1) == (OFF,) * 8  # the other seat's bar keeps its meaning: dark


def test_without_a_clock_the_bar_is_whole():
    assert bar(render(view(active_seat=0), SETTINGS, 0.0), 0) == (ON0,) * 8


def test_the_last_minute_blinks_slower_than_a_mistake():
    period = SETTINGS.clock_period
    assert period > SETTINGS.blink_period
    v = view(active_seat=0, clock_fraction=0.1, clock_low=True)
    assert bar(render(v, SETTINGS, 0.0), 0) == (ON0,) + (OFF,) * 7
    assert bar(render(v, SETTINGS, period * 0.75), 0) == (OFF,) * 8
    assert bar(render(v, SETTINGS, period * 1.25), 0) == (ON0,) + (OFF,) * 7


def test_a_fallen_flag_is_the_last_led_steady_red():
    for now in (0.0, 0.3, 0.7):
        frame = render(view(active_seat=1, flagged_seats={0}), SETTINGS, now)
        assert bar(frame, 0) == (OFF,) * 7 + (FLAG,)
        assert bar(frame, 1) == (lit(SEAT1, BAR),) * 8
    # the game lost on time: the winner's rainbow, the loser's flag
    frame = render(view(active_seat=1, flagged_seats={0}, result=Outcome.win(1)),
                   SETTINGS, 0.0)
    assert bar(frame, 0) == (OFF,) * 7 + (FLAG,)
    assert len(set(bar(frame, 1))) > 1


def test_the_other_bar_hints_keep_their_priority_over_the_clock():
    # a refused hand-over still blinks the whole bar red
    v = view(active_seat=0, clock_fraction=0.5, refused_handover_seat=0)
    assert bar(render(v, SETTINGS, 0.0), 0) == (RED,) * 8
    # link down: every bar amber; the flag stays marked
    v = view(active_seat=0, clock_fraction=0.5, link_down=True, flagged_seats={1})
    frame = render(v, SETTINGS, SETTINGS.link_down_period / 2)
    assert bar(frame, 0) == (lit(AMBER, BAR),) * 8
    assert bar(frame, 1) == (lit(AMBER, BAR),) * 7 + (FLAG,)
    # Red Alert flashes the whole bar; between the flashes the clock shows
    v = view(active_seat=0, clock_fraction=0.5, red_alert_seat=0)
    assert bar(render(v, SETTINGS, 0.0), 0) == (RED,) * 8
    assert bar(render(v, SETTINGS, SETTINGS.alert_period * 0.5), 0) == \
        (ON0,) * 4 + (OFF,) * 4


@pytest.mark.parametrize("fields, words", [
    ({"clock_fraction": 1.5}, "clock_fraction"),
    ({"clock_fraction": -0.1}, "clock_fraction"),
    ({"flagged_seats": {2}}, "flagged_seats"),
])
def test_a_view_with_a_bad_clock_is_refused(fields, words):
    with pytest.raises(HintViewError, match=words):
        view(active_seat=0, **fields)
