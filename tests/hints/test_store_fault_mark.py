"""The "not saved" mark: while the game store cannot be written, the first LED of every
bar blinks amber (docs/leds.md), over whatever the bar shows; the rest is unchanged."""

from __future__ import annotations

from homeworlds.hints import render

from .helpers import AMBER, LAYOUT, MIDGAME_SLOTS, OFF, SETTINGS, bar, midgame, view


def _frames(**fields):
    game = midgame()
    on = render(view(game=game, system_at=MIDGAME_SLOTS, active_seat=0, **fields),
                SETTINGS, 0.05)
    off = render(view(game=game, system_at=MIDGAME_SLOTS, active_seat=0, **fields),
                 SETTINGS, 0.25)
    return on, off


def test_the_first_led_of_every_bar_blinks_amber():
    on, off = _frames(store_fault=True)
    for seat in range(len(LAYOUT.seats)):
        assert bar(on, seat)[0] == AMBER
        assert bar(off, seat)[0] == OFF


def test_everything_else_is_as_without_the_fault():
    with_fault, _ = _frames(store_fault=True)
    without, _ = _frames()
    firsts = {LAYOUT.seats[s].bar[0] for s in range(len(LAYOUT.seats))}
    assert all(with_fault[i] == without[i] for i in range(len(without)) if i not in firsts)
    assert all(without[i] != AMBER for i in firsts)


def test_the_mark_shows_over_a_link_down_bar():
    on, _ = _frames(store_fault=True, link_down=True)
    assert bar(on, 0)[0] == AMBER and bar(on, 0)[1] != AMBER
