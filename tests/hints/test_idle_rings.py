"""Idle rings: star sizes and colours, binary homes, home marks, empty slots."""

from __future__ import annotations

from homeworlds.hints import HintView, render
from homeworlds.rules import GameState, Move, Piece
from homeworlds.table.layout import Layout

from .helpers import (
    BLUE,
    EMPTY_SLOTS,
    GREEN,
    LAYOUT,
    MIDGAME_SLOTS,
    OFF,
    RED,
    SEAT0,
    SEAT1,
    SETTINGS,
    YELLOW,
    lit,
    midgame,
    position,
    ring,
    system,
    view,
)

IDLE = SETTINGS.idle


def test_frame_has_one_rgb_triple_per_pixel_of_the_strip():
    frame = render(view(game=midgame(), system_at=MIDGAME_SLOTS), SETTINGS, 0.0)
    assert type(frame) is tuple and len(frame) == LAYOUT.pixel_count == 240
    assert all(type(p) is tuple and len(p) == 3 and all(0 <= c <= 255 for c in p)
               for p in frame)


def test_no_game_no_turn_leaves_every_pixel_dark():
    assert render(view(), SETTINGS, 0.0) == ((0, 0, 0),) * 240


def test_single_star_systems_light_a_third_two_thirds_or_the_whole_ring():
    frame = render(view(game=midgame(), system_at=MIDGAME_SLOTS), SETTINGS, 0.0)
    # Alpha, a large green star: the whole ring.
    assert ring(frame, 5) == (lit(GREEN, IDLE),) * 16
    # Beta, a medium blue star: two thirds (11 of 16 pixels) from position 0.
    assert ring(frame, 1) == (lit(BLUE, IDLE),) * 11 + (OFF,) * 5
    state = position(system("Alice", "b1y2", "g3", "", home_of=0),
                     system("Bob", "r1g3", "", "b3", home_of=1),
                     system("Small", "r1", "y1", ""))
    frame = render(view(game=state, system_at={3: "Alice", 10: "Bob", 6: "Small"}),
                   SETTINGS, 0.0)
    # A small red star: a third (5 of 16 pixels).
    assert ring(frame, 6) == (lit(RED, IDLE),) * 5 + (OFF,) * 11


def test_binary_home_is_two_arcs_each_ending_in_a_home_mark_of_the_owner():
    frame = render(view(game=midgame(), system_at=MIDGAME_SLOTS), SETTINGS, 0.0)
    mark = lit(SEAT0, IDLE)
    # Alice: b1 (a third of the 7-pixel half: 2), mark, y2 (two thirds: 5), mark.
    assert ring(frame, 3) == ((lit(BLUE, IDLE),) * 2 + (OFF,) * 5 + (mark,)
                              + (lit(YELLOW, IDLE),) * 5 + (OFF,) * 2 + (mark,))
    # Bob, seat 1's home: r1 then g3 (whole half); marks in seat 1's colour.
    mark1 = lit(SEAT1, IDLE)
    assert ring(frame, 10) == ((lit(RED, IDLE),) * 2 + (OFF,) * 5 + (mark1,)
                               + (lit(GREEN, IDLE),) * 7 + (mark1,))


def test_home_keeps_its_marks_and_an_empty_half_after_losing_a_star():
    # Bob lost his green star: one arc left, the other half dark, both marks stay.
    state = position(system("Alice", "b1y2", "g3", "", home_of=0),
                     system("Bob", "r1", "", "b3", home_of=1),
                     system("Solo", "r1", "", "y1"))
    frame = render(view(game=state, system_at={3: "Alice", 10: "Bob", 9: "Solo"}),
                   SETTINGS, 0.0)
    mark1 = lit(SEAT1, IDLE)
    assert ring(frame, 10) == (lit(RED, IDLE),) * 2 + (OFF,) * 5 + (mark1,) + (OFF,) * 7 + (mark1,)
    # An ordinary system with the same single star looks different: one arc, no marks.
    assert ring(frame, 9) == (lit(RED, IDLE),) * 5 + (OFF,) * 11


def test_home_stars_show_smaller_first_whatever_order_they_were_listed():
    a = position(system("Alice", "y2b1", "g3", "", home_of=0),
                 system("Bob", "r1g3", "", "b3", home_of=1))
    b = position(system("Alice", "b1y2", "g3", "", home_of=0),
                 system("Bob", "g3r1", "", "b3", home_of=1))
    slots = {3: "Alice", 10: "Bob"}
    assert render(view(game=a, system_at=slots), SETTINGS, 0.0) == \
        render(view(game=b, system_at=slots), SETTINGS, 0.0)


def test_empty_slots_and_unknown_systems_stay_dark_when_nothing_is_lifted():
    slots = dict(MIDGAME_SLOTS)
    slots[0] = "NotInThePosition"
    frame = render(view(game=midgame(), system_at=slots), SETTINGS, 0.0)
    for slot in [*EMPTY_SLOTS]:
        assert ring(frame, slot) == (OFF,) * 16, slot


def test_systems_are_found_by_name_without_regard_to_case():
    slots = {slot: name.upper() for slot, name in MIDGAME_SLOTS.items()}
    assert render(view(game=midgame(), system_at=slots), SETTINGS, 0.0) == \
        render(view(game=midgame(), system_at=MIDGAME_SLOTS), SETTINGS, 0.0)


def test_a_system_shows_on_whichever_slot_it_is_placed():
    # Star-towing: the same position with Alpha moved from slot 5 to slot 13.
    moved = dict(MIDGAME_SLOTS)
    del moved[5]
    moved[13] = "Alpha"
    frame = render(view(game=midgame(), system_at=moved), SETTINGS, 0.0)
    assert ring(frame, 13) == (lit(GREEN, IDLE),) * 16
    assert ring(frame, 5) == (OFF,) * 16


def test_turn_state_is_shown_when_no_game_is_given():
    state = midgame()
    turn = state.begin_turn()
    turn.apply(Move(Piece.from_text("y1"), "Gamma", "Beta"))  # Gamma fades: no ships left
    frame = render(HintView(LAYOUT, turn=turn, system_at=MIDGAME_SLOTS), SETTINGS, 0.0)
    assert ring(frame, 12) == (OFF,) * 16          # Gamma's star is back in the bank
    assert ring(frame, 1) == (lit(BLUE, IDLE),) * 11 + (OFF,) * 5


def _variant_layout(**replacements: str) -> Layout:
    text = LAYOUT.to_toml_text()
    for old, new in replacements.items():
        assert old in text
        text = text.replace(old, new)
    return Layout.from_toml_text(text, "variant")


def test_reversed_and_irregular_rings_run_patterns_in_their_listed_order():
    shuffled = [8 + i for i in (3, 1, 4, 0, 5, 9, 2, 6, 15, 7, 10, 11, 13, 12, 14, 8)]
    layout = _variant_layout(**{
        "ring = { first = 8, count = 16 }": "ring = " + str(shuffled),
        "ring = { first = 24, count = 16 }": "ring = { first = 24, count = 16, reverse = true }",
        "pixel_count = 240": "pixel_count = 250",
    })
    state: GameState = position(system("Alice", "b1y2", "g3", "", home_of=0),
                                system("Bob", "r1g3", "", "b3", home_of=1),
                                system("Beta", "b2", "b1", ""), system("Small", "r1", "y1", ""))
    frame = render(HintView(layout, game=state, system_at={3: "Alice", 10: "Bob",
                                                           0: "Beta", 1: "Small"}),
                   SETTINGS, 0.0)
    assert len(frame) == 250 and frame[240:] == ((0, 0, 0),) * 10   # spare pixels stay dark
    assert ring(frame, 0, layout) == (lit(BLUE, IDLE),) * 11 + (OFF,) * 5
    assert ring(frame, 1, layout) == (lit(RED, IDLE),) * 5 + (OFF,) * 11
    assert frame[39] == lit(RED, IDLE) and frame[24] == OFF   # reversed: position 0 is pixel 39
