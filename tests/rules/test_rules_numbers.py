"""The rules' numbers, named once (``homeworlds.rules``: ``OVERPOPULATION``, ``HOME_STARS``,
``bank_copies``), are the numbers the engine plays by."""

from __future__ import annotations

import pytest

from homeworlds.rules import (
    HOME_STARS,
    OVERPOPULATION,
    PRESETS,
    TWO_PLAYER_COPIES,
    Catastrophe,
    Color,
    GameState,
    IllegalAction,
    SetupPick,
    bank_copies,
    deal_alignments,
    preset,
)
from homeworlds.table.enroll import copies_for_players

from .helpers import P, position


def test_the_numbers_are_the_rulebooks():
    assert (OVERPOPULATION, HOME_STARS, TWO_PLAYER_COPIES) == (4, 2, 3)
    assert [bank_copies(n) for n in range(2, 7)] == [3, 4, 5, 6, 7]


@pytest.mark.parametrize("players", range(2, 7))
def test_every_bank_holds_bank_copies_of_each_piece(players):
    for name in PRESETS:
        rules = preset(name)
        assert rules.bank_copies(players) == bank_copies(players)
        if rules.min_players <= players <= rules.max_players:
            dealt = deal_alignments(players, seed=1) if rules.goal == "good-evil" else None
            assert GameState(rules, players, alignments=dealt).bank == \
                [bank_copies(players)] * 12
    assert copies_for_players(players) == bank_copies(players)


@pytest.mark.parametrize("yellows", [OVERPOPULATION - 1, OVERPOPULATION])
def test_a_catastrophe_needs_overpopulation_pieces_of_its_colour(yellows):
    ships = "y1y2y3g3"[:2 * (yellows - 1)] + "g3"
    st = position(f"""
        Home (0, y1b2) {ships}-g1
        Enemy (1, r3b1) -r2
    """, to_move=1)
    home = st.system("Home")
    assert home is not None and home.count_color(int(Color.YELLOW)) == yellows
    overpopulated = int(Color.YELLOW) in home.overpopulated_colors()
    assert overpopulated == (yellows >= OVERPOPULATION)
    if overpopulated:
        st.apply_turn([Catastrophe("Home", Color.YELLOW)])
        assert [p.to_text() for p in st.system("Home").star_pieces] == ["b2"]
    else:
        with pytest.raises(IllegalAction, match="not overpopulated"):
            st.apply_turn([Catastrophe("Home", Color.YELLOW)])


def test_a_homeworld_has_home_stars_stars_picked_one_by_one():
    st = GameState(preset("alternating-setup"))
    picks = [("Ann", "star", "y1"), ("Bob", "star", "r1"), ("Ann", "star", "b2"),
             ("Bob", "star", "g2")]
    for name, role, piece in picks:
        st.apply_turn([SetupPick(P(piece), role, name)])
    assert [len(s.stars) for s in st.systems] == [HOME_STARS, HOME_STARS]
    with pytest.raises(IllegalAction, match="two home stars"):
        st.apply_turn([SetupPick(P("g1"), "star", "Ann")])
