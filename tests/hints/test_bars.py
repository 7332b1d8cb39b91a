"""Seat bars: whose turn, refused hand-over, link down, result, Red Alert."""

from __future__ import annotations

from homeworlds.hints import HintSettings, Outcome, render
from homeworlds.rules import GameResult

from .helpers import (
    AMBER,
    MIDGAME_SLOTS,
    OFF,
    RED,
    SEAT0,
    SEAT1,
    SETTINGS,
    bar,
    lit,
    midgame,
    ring,
    view,
)

BAR = SETTINGS.bar


def test_active_seat_bar_glows_in_the_players_colour_and_the_others_are_dark():
    frame = render(view(active_seat=0), SETTINGS, 0.0)
    assert bar(frame, 0) == (lit(SEAT0, BAR),) * 8 == ((0, 120, 204),) * 8
    assert bar(frame, 1) == (OFF,) * 8
    frame = render(view(active_seat=1), SETTINGS, 0.0)
    assert bar(frame, 0) == (OFF,) * 8
    assert bar(frame, 1) == (lit(SEAT1, BAR),) * 8
    assert frame[232:240] == bar(frame, 1)   # seat 1's bar is pixels 232-239


def test_no_active_seat_leaves_all_bars_dark():
    frame = render(view(), SETTINGS, 0.0)
    assert bar(frame, 0) == bar(frame, 1) == (OFF,) * 8


def test_seat_colours_come_from_the_view_then_the_settings():
    frame = render(view(active_seat=1, seat_colors=((10, 20, 30), "#ff8000")), SETTINGS, 0.0)
    assert bar(frame, 1) == (lit((255, 128, 0), BAR),) * 8
    custom = HintSettings(seat_colors=("#ffffff", [0, 255, 0]), bar=1.0)
    assert bar(render(view(active_seat=1), custom, 0.0), 1) == ((0, 255, 0),) * 8
    # The home marks of the rings use the same colours.
    frame = render(view(game=midgame(), system_at=MIDGAME_SLOTS, seat_colors=((0, 0, 200),)),
                   SETTINGS, 0.0)
    assert ring(frame, 3)[7] == lit((0, 0, 200), SETTINGS.idle)


def test_refused_hand_over_flashes_the_bar_red():
    blink = SETTINGS.blink_period
    on = render(view(active_seat=0, refused_handover_seat=0), SETTINGS, 0.0)
    assert bar(on, 0) == (RED,) * 8
    off = render(view(active_seat=0, refused_handover_seat=0), SETTINGS, blink / 2)
    assert bar(off, 0) == (OFF,) * 8
    assert bar(on, 1) == bar(off, 1) == (OFF,) * 8


def test_link_down_turns_every_bar_amber_breathing():
    period = SETTINGS.link_down_period
    low = render(view(active_seat=0, link_down=True), SETTINGS, 0.0)
    high = render(view(active_seat=0, link_down=True), SETTINGS, period / 2)
    assert bar(high, 0) == bar(high, 1) == (lit(AMBER, BAR),) * 8
    assert bar(low, 0) == bar(low, 1) == (lit(AMBER, SETTINGS.pulse_low * BAR),) * 8
    # It outranks a refused hand-over and the result; the rings keep showing the game.
    frame = render(view(game=midgame(), system_at=MIDGAME_SLOTS, link_down=True,
                        refused_handover_seat=0, result=Outcome.win(1)), SETTINGS, period / 2)
    assert bar(frame, 0) == bar(frame, 1) == (lit(AMBER, BAR),) * 8
    assert ring(frame, 5) == ring(render(view(game=midgame(), system_at=MIDGAME_SLOTS),
                                         SETTINGS, period / 2), 5)


def _celebrating(pixels) -> bool:
    """A rainbow: saturated, fully bright colours that differ along the bar."""
    return len(set(pixels)) > 4 and all(max(p) == 255 and min(p) == 0 for p in pixels)


def test_winners_bar_celebrates_and_the_losers_is_dark():
    period = SETTINGS.celebrate_period
    a = render(view(active_seat=0, result=Outcome.win(1)), SETTINGS, 0.0)
    b = render(view(active_seat=0, result=Outcome.win(1)), SETTINGS, period / 4)
    assert _celebrating(bar(a, 1)) and _celebrating(bar(b, 1))
    assert bar(a, 1) != bar(b, 1)            # it moves
    assert bar(b, 1)[2:] == bar(a, 1)[:6]    # along the bar by a quarter of its 8 pixels
    assert bar(a, 0) == (OFF,) * 8           # the loser's bar, active or not, is dark
    # One whole period later the animation is where it started.
    assert render(view(result=Outcome.win(1)), SETTINGS, period) == \
        render(view(result=Outcome.win(1)), SETTINGS, 0.0)


def test_draw_celebrates_on_both_bars():
    frame = render(view(result=Outcome.draw()), SETTINGS, 0.3)
    assert _celebrating(bar(frame, 0)) and _celebrating(bar(frame, 1))


def test_result_is_taken_from_the_game_when_the_view_has_none():
    state = midgame()
    state.result = GameResult("opponent-eliminated", (0,), 12)
    frame = render(view(game=state, system_at=MIDGAME_SLOTS, active_seat=1), SETTINGS, 0.0)
    assert _celebrating(bar(frame, 0)) and bar(frame, 1) == (OFF,) * 8
    state.result = GameResult("draw", (), 12)
    frame = render(view(game=state, system_at=MIDGAME_SLOTS), SETTINGS, 0.0)
    assert _celebrating(bar(frame, 0)) and _celebrating(bar(frame, 1))


def test_red_alert_double_flashes_the_endangered_players_bar():
    period = SETTINGS.alert_period
    v = view(active_seat=1, red_alert_seat=1)
    # Flashes at 0-10 % and 20-30 % of the period; the turn colour between and after.
    assert bar(render(v, SETTINGS, 0.0), 1) == (RED,) * 8
    assert bar(render(v, SETTINGS, 0.15 * period), 1) == (lit(SEAT1, BAR),) * 8
    assert bar(render(v, SETTINGS, 0.25 * period), 1) == (RED,) * 8
    assert bar(render(v, SETTINGS, 0.6 * period), 1) == (lit(SEAT1, BAR),) * 8
    assert bar(render(v, SETTINGS, 0.0), 0) == (OFF,) * 8


def test_red_alert_on_a_seat_not_on_turn_flashes_over_a_dark_bar():
    v = view(active_seat=0, red_alert_seat=1)
    assert bar(render(v, SETTINGS, 0.0), 1) == (RED,) * 8
    assert bar(render(v, SETTINGS, 0.6 * SETTINGS.alert_period), 1) == (OFF,) * 8


def test_red_alert_can_be_switched_off_in_the_settings():
    off = HintSettings(red_alert=False)
    frame = render(view(active_seat=1, red_alert_seat=1), off, 0.0)
    assert bar(frame, 1) == (lit(SEAT1, BAR),) * 8


def test_refused_hand_over_outranks_red_alert():
    frame = render(view(active_seat=1, red_alert_seat=1, refused_handover_seat=1),
                   SETTINGS, SETTINGS.blink_period / 2)   # blink off, heartbeat off too
    assert bar(frame, 1) == (OFF,) * 8
