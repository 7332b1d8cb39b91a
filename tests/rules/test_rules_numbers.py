"""The rules' numbers, named once (``homeworlds.rules``: ``OVERPOPULATION``, ``HOME_STARS``,
``TWO_PLAYER_COPIES``, ``ICEHOUSE_SET_COPIES``), are the numbers the engine plays by."""

from __future__ import annotations

import pytest

from homeworlds.rules import (
    HOME_STARS,
    ICEHOUSE_SET_COPIES,
    OVERPOPULATION,
    PRESETS,
    TWO_PLAYER_COPIES,
    Catastrophe,
    Color,
    GameState,
    IllegalAction,
    SetupPick,
    deal_alignments,
    preset,
)

from .helpers import P, position


def test_the_numbers_are_the_rulebooks():
    assert (OVERPOPULATION, HOME_STARS, TWO_PLAYER_COPIES, ICEHOUSE_SET_COPIES) == (4, 2, 3, 5)


@pytest.mark.parametrize("players", range(2, 7))
def test_every_bank_holds_the_rules_copies_of_each_piece(players):
    for name in PRESETS:
        rules = preset(name)
        if not rules.min_players <= players <= rules.max_players:
            continue
        copies = rules.bank_copies(players)
        if players == 2:
            assert copies == TWO_PLAYER_COPIES
        elif rules.bank == "icehouse-set":
            assert copies == ICEHOUSE_SET_COPIES
        dealt = deal_alignments(players, seed=1) if rules.goal == "good-evil" else None
        assert GameState(rules, players, alignments=dealt).bank == [copies] * 12


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
