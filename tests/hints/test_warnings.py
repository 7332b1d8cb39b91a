"""Overpopulation pulses, mistakes blink, and the priority between them."""

from __future__ import annotations

from homeworlds.hints import HintSettings, render

from .helpers import (
    BLUE,
    GREEN,
    MIDGAME_SLOTS,
    OFF,
    RED,
    SETTINGS,
    YELLOW,
    lit,
    midgame,
    position,
    ring,
    system,
    view,
)

PULSE = SETTINGS.pulse_period
BLINK = SETTINGS.blink_period


def midgame_frame(now: float, **extra):
    return render(view(game=midgame(), system_at=MIDGAME_SLOTS, **extra), SETTINGS, now)


def test_overpopulated_system_pulses_in_the_overpopulated_colour():
    # Delta has four green pieces. Trough at the start of the period, peak half-way.
    assert ring(midgame_frame(0.0), 8) == (lit(GREEN, SETTINGS.pulse_low),) * 16
    assert ring(midgame_frame(PULSE / 2), 8) == (GREEN,) * 16
    assert ring(midgame_frame(PULSE), 8) == (lit(GREEN, SETTINGS.pulse_low),) * 16
    quarter = ring(midgame_frame(PULSE / 4), 8)[0]
    assert lit(GREEN, SETTINGS.pulse_low)[1] < quarter[1] < GREEN[1]


def test_overpopulation_counts_stars_and_every_players_ships():
    # Three yellow ships of two players plus a yellow star: four yellows.
    state = position(system("Alice", "b1y2", "g3", "", home_of=0),
                     system("Bob", "r1g3", "", "b3", home_of=1),
                     system("Busy", "y1", "y1y2", "y3"),
                     system("Calm", "b2", "y1y2", "y3"))
    frame = render(view(game=state, system_at={3: "Alice", 10: "Bob", 6: "Busy", 7: "Calm"}),
                   SETTINGS, PULSE / 2)
    assert ring(frame, 6) == (YELLOW,) * 16
    assert ring(frame, 7) == (lit(BLUE, SETTINGS.idle),) * 11 + (OFF,) * 5   # only three


def test_two_overpopulated_colours_split_the_ring():
    state = position(system("Alice", "b1y2", "g3", "", home_of=0),
                     system("Bob", "r1g3", "", "b3", home_of=1),
                     system("Mess", "r2", "r1r2y1y2", "r3y1y3"))
    frame = render(view(game=state, system_at={3: "Alice", 10: "Bob", 4: "Mess"}),
                   SETTINGS, PULSE / 2)
    assert ring(frame, 4) == (RED,) * 8 + (YELLOW,) * 8


def test_an_overpopulated_home_pulses_instead_of_showing_its_stars():
    state = position(system("Alice", "b1y2", "y1y3y2", "", home_of=0),
                     system("Bob", "r1g3", "", "b3", home_of=1))
    frame = render(view(game=state, system_at={3: "Alice", 10: "Bob"}), SETTINGS, PULSE / 2)
    assert ring(frame, 3) == (YELLOW,) * 16


def test_mistake_slots_blink_red_on_then_off():
    on = midgame_frame(0.0, mistake_slots=frozenset({1, 9}))
    assert ring(on, 1) == ring(on, 9) == (RED,) * 16
    off = midgame_frame(BLINK / 2, mistake_slots=frozenset({1, 9}))
    assert ring(off, 1) == ring(off, 9) == (OFF,) * 16
    assert ring(midgame_frame(BLINK, mistake_slots=frozenset({1})), 1) == (RED,) * 16
    # Other slots are not affected by the blink.
    assert ring(on, 5) == ring(off, 5) == (lit(GREEN, SETTINGS.idle),) * 16


def test_mistake_outranks_overpopulation():
    on = midgame_frame(0.0, mistake_slots=frozenset({8}))
    assert ring(on, 8) == (RED,) * 16
    off = midgame_frame(BLINK / 2, mistake_slots=frozenset({8}))
    assert ring(off, 8) == (OFF,) * 16


def test_mistakes_blink_even_without_a_game():
    frame = render(view(mistake_slots=frozenset({0, 13})), SETTINGS, 0.0)
    assert ring(frame, 0) == ring(frame, 13) == (RED,) * 16


def test_mistake_blink_is_a_different_pattern_from_a_red_overpopulation():
    # The same red, told apart by rhythm: the mistake is fully off half of the time,
    # an overpopulation never goes dark.
    state = position(system("Alice", "b1y2", "g3", "", home_of=0),
                     system("Bob", "r1g3", "", "b3", home_of=1),
                     system("Reds", "r2", "r1r2", "r3"))
    frame_view = view(game=state, system_at={3: "Alice", 10: "Bob", 4: "Reds"},
                      mistake_slots=frozenset({0}))
    samples = [render(frame_view, SETTINGS, t / 20 * PULSE) for t in range(20)]
    assert any(ring(f, 0)[0] == OFF for f in samples)
    assert all(ring(f, 4)[0] != OFF for f in samples)


def test_periods_and_levels_come_from_the_settings():
    slow = HintSettings(blink_period=2.0, pulse_low=0.5)
    frame = render(view(game=midgame(), system_at=MIDGAME_SLOTS,
                        mistake_slots=frozenset({1})), slow, 0.5)
    assert ring(frame, 1) == (RED,) * 16        # still in the first half of a 2 s blink
    assert ring(frame, 8) != ring(render(view(game=midgame(), system_at=MIDGAME_SLOTS),
                                         SETTINGS, 0.5), 8)
    assert ring(render(view(game=midgame(), system_at=MIDGAME_SLOTS), slow, 0.0), 8) == \
        (lit(GREEN, 0.5),) * 16
