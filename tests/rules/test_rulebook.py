"""Each rule checked on the rulebooks' own examples and named plays."""

from __future__ import annotations

import pytest

from homeworlds.rules import (
    Build,
    Capture,
    Catastrophe,
    Color,
    Discover,
    GameState,
    Homeworld,
    IllegalAction,
    IllegalTurn,
    Move,
    Pass,
    Sacrifice,
    Trade,
    preset,
)
from tests.rules.helpers import P, position, ships


def test_medium_yellow_borrows_small_reds_power_to_capture():
    st = position("""
        Alpha (0, b1g2) g3-
        Xeno (b3) y2r1-g2
        Beta (1, y1b2) -g3
    """)
    st.apply_turn([Capture(P("g2"), "Xeno")])
    assert ships(st, "Xeno", 0) == ["g2", "r1", "y2"]
    assert ships(st, "Xeno", 1) == []


def test_capture_needs_a_ship_at_least_as_large():
    st = position("""
        Alpha (0, b1g2) g3-
        Xeno (b3) y2r1-g3
        Beta (1, y1b2) -g3
    """)
    with pytest.raises(IllegalAction, match="smaller"):
        st.apply_turn([Capture(P("g3"), "Xeno")])


def test_capture_of_an_equal_size_ship():
    st = position("""
        Alpha (0, r1g2) r2-
        Beta (1, y1b2) -g3
        Gamma (b3) r2-y2
    """)
    st.apply_turn([Capture(P("y2"), "Gamma")])
    assert ships(st, "Gamma", 0) == ["r2", "y2"]


def test_opponents_ship_gives_no_technology():
    st = position("""
        Alpha (0, b1g2) g3-
        Xeno (b3) y2-r1g1
        Beta (1, y1b2) -g3
    """)
    with pytest.raises(IllegalAction, match="no red technology"):
        st.apply_turn([Capture(P("g1"), "Xeno")])


def test_bluebird_two_ships_of_one_colour_overpopulate_a_home():
    # The attacker sacrifices a large yellow for three moves: one blue ship hops twice
    # (through a waypoint that then fades), another hops once, and the defender's
    # home, holding two blue ships and nothing else, overpopulates in blue.
    st = position("""
        Att (0, y2g1) y3b3g3-
        Way (r3) b1-
        Def (1, g1r2) -b2b2
    """, rules="strict")
    st.apply_turn([
        Sacrifice(P("y3"), "Att"),
        Move(P("b3"), "Att", "Way"),
        Move(P("b3"), "Way", "Def"),
        Move(P("b1"), "Way", "Def"),
        Catastrophe("Def", Color.BLUE),
    ])
    assert st.system("Way") is None, "the emptied waypoint fades"
    assert st.result is not None and st.result.kind == "opponent-eliminated"
    assert st.result.winners == (0,)
    assert st.total_pieces() == [3] * 12


def test_factory_sacrifice_a_large_green_and_rebuild_it():
    st = position("""
        Home (0, g1b2) g3g2g2g2-
        Far (y3) g1g1-
        Enemy (1, r1y2) -r3
    """)
    assert st.bank[P("g3").index] == 2
    st.apply_turn([
        Sacrifice(P("g3"), "Home"),
        Build(P("g3"), "Home"),
        Build(P("g3"), "Home"),
        Build(P("g3"), "Far"),
    ])
    assert ships(st, "Home", 0) == ["g2", "g2", "g2", "g3", "g3"]
    assert ships(st, "Far", 0) == ["g1", "g1", "g3"]


def test_terraforming_sacrificed_yellow_becomes_the_new_star():
    # No y2 is in the bank until the sacrifice returns one; the discovery then uses it.
    st = position("""
        Home (0, b1g3) y2y2g2-
        Other (y2) -r1
        Enemy (1, r1b3) -g3
    """)
    assert st.bank[P("y2").index] == 0
    with pytest.raises(IllegalAction, match="no y2 is left"):
        st.copy().apply_turn([Discover(P("g2"), "Home", P("y2"), "Terra")])
    st.apply_turn([
        Sacrifice(P("y2"), "Home"),
        Discover(P("g2"), "Home", P("y2"), "Terra"),
    ])
    terra = st.system("Terra")
    assert terra is not None and [p.to_text() for p in terra.star_pieces] == ["y2"]


def test_teleporting_a_green():
    # Sacrifice a green far away; the piece comes back as a build where another green is.
    st = position("""
        Home (0, r1b3) g2-
        Far (y2) g1-
        Enemy (1, r3b2) -g3
    """)
    st.apply_turn([Sacrifice(P("g1"), "Far"), Build(P("g1"), "Home")])
    assert st.system("Far") is None
    assert ships(st, "Home", 0) == ["g1", "g2"]


def test_catastrophe_removes_one_star_of_a_home_which_stays_a_home():
    st = position("""
        Home (0, y1b2) y1y2g3-y3
        Enemy (1, r3b1) -r2
    """, to_move=1)
    # It is seat 1's turn; four yellows at seat 0's home.
    st.apply_turn([Catastrophe("Home", Color.YELLOW)])
    home = st.system("Home")
    assert home is not None and home.home_of == 0
    assert [p.to_text() for p in home.star_pieces] == ["b2"]
    assert ships(st, "Home", 0) == ["g3"]
    assert st.result is None


def test_supernova_destroys_star_and_every_ship():
    st = position("""
        Home (0, b1g3) g3-
        Nova (r2) r1r1g1-r3
        Enemy (1, y1b2) -g3
    """)
    st.apply_turn([Catastrophe("Nova", Color.RED)])
    assert st.system("Nova") is None
    assert st.total_pieces() == [3] * 12
    assert st.bank[P("g1").index] == 3, "the non-red ship returns to the bank too"


def test_piece_returned_earlier_in_turn_is_in_the_bank_for_later_actions():
    # Archive game 710's mistake: after the y1s return to the bank, a y2 may not be built.
    text = """
        Home (0, b1g3) y3g1-
        Pop (y2) y1-y1y1
        Enemy (1, r1b2) -g3
    """
    st = position(text)
    st.copy().apply_turn([Build(P("y2"), "Home")])  # legal while no y1 is in the bank
    with pytest.raises(IllegalAction, match="smallest yellow in the bank, y1"):
        st.apply_turn([Catastrophe("Pop", Color.YELLOW), Build(P("y2"), "Home")])
    st.apply_turn([Catastrophe("Pop", Color.YELLOW), Build(P("y1"), "Home")])
    assert ships(st, "Home", 0) == ["g1", "y1", "y3"]


def test_same_colour_trade_refused():
    st = position("""
        Home (0, b1g3) g3-
        Enemy (1, r1b2) -g3
    """)
    with pytest.raises(IllegalAction, match="change the ship's colour"):
        st.apply_turn([Trade(P("g3"), P("g3"), "Home")])


def test_trade_keeps_size():
    st = position("""
        Home (0, b1g3) g3-
        Enemy (1, r1b2) -g3
    """)
    with pytest.raises(IllegalAction, match="keep the ship's size"):
        st.apply_turn([Trade(P("g3"), P("r2"), "Home")])


def test_build_refused_when_only_the_star_has_the_colour():
    st = position("""
        Home (0, g1b2) y3-
        Enemy (1, r1b3) -g3
    """)
    with pytest.raises(IllegalAction, match="green ship of your own"):
        st.apply_turn([Build(P("g1"), "Home")])


def test_move_needs_a_connection():
    st = position("""
        Home (0, g1b2) y3-
        Near (r3) -g1
        Far (b1) -g2
        Enemy (1, r1b3) -g3
    """)
    st.copy().apply_turn([Move(P("y3"), "Home", "Near")])
    with pytest.raises(IllegalAction, match="not connected"):
        st.apply_turn([Move(P("y3"), "Home", "Far")])


def test_only_one_free_action():
    st = position("""
        Home (0, g1y2) g3y1-
        Enemy (1, r1b3) -g3
    """)
    with pytest.raises(IllegalAction, match="one free action"):
        st.apply_turn([Build(P("g1"), "Home"), Build(P("y2"), "Home")])


def test_sacrifice_actions_must_match_its_colour_and_number():
    st = position("""
        Home (0, g1y2) g3y1g1-
        Enemy (1, r1b3) -g3
    """)
    with pytest.raises(IllegalAction, match="gives move actions, not build"):
        st.copy().apply_turn([Sacrifice(P("y1"), "Home"), Build(P("g1"), "Home")])
    with pytest.raises(IllegalAction, match="used up"):
        st.apply_turn([Sacrifice(P("g1"), "Home"), Build(P("g1"), "Home"),
                       Build(P("g1"), "Home")])


def test_unused_sacrifice_actions_may_be_skipped_or_passed():
    st = position("""
        Home (0, g1y2) g3g2-
        Enemy (1, r1b3) -g3
    """)
    st.copy().apply_turn([Sacrifice(P("g2"), "Home")])
    st.apply_turn([Sacrifice(P("g2"), "Home"), Pass(), Build(P("g1"), "Home")])
    assert ships(st, "Home", 0) == ["g1", "g3"]


def test_catastrophe_needs_four_of_a_colour_counting_stars():
    st = position("""
        Home (0, g1y2) g3g2-
        Enemy (1, r1b3) -g3
    """)
    with pytest.raises(IllegalAction, match="not overpopulated"):
        st.copy().apply_turn([Catastrophe("Home", Color.GREEN)])
    st2 = position("""
        Home (0, g1y2) g3g2y1-
        Other (y3) g1-
        Enemy (1, r1b3) -g3
    """)
    st2.apply_turn([Move(P("g1"), "Other", "Home"), Catastrophe("Home", Color.GREEN)])
    home = st2.system("Home")
    assert [p.to_text() for p in home.star_pieces] == ["y2"]
    assert ships(st2, "Home", 0) == ["y1"]


def test_strict_catastrophe_only_at_the_ends_of_a_turn():
    text = """
        Home (0, g1y2) g3g2y1y1-
        Pop (r2) r1r1r1-
        Enemy (1, y1b3) -g3
    """
    # looney: a catastrophe between two sacrifice actions is fine
    st = position(text, rules="looney")
    st.apply_turn([Sacrifice(P("g2"), "Home"), Build(P("g1"), "Home"),
                   Catastrophe("Pop", Color.RED), Build(P("g1"), "Home")])
    st = position(text, rules="strict")
    with pytest.raises(IllegalAction, match="catastrophes must come after"):
        st.apply_turn([Sacrifice(P("g2"), "Home"), Build(P("g1"), "Home"),
                       Catastrophe("Pop", Color.RED), Build(P("g1"), "Home")])


def test_home_may_be_abandoned_mid_turn_under_looney_but_not_strict():
    text = """
        Home (0, g1y2) y3-
        Depot (g3) y2-
        Way (b3) -g1
        Enemy (1, r1b2) -g3
    """
    turn = [Sacrifice(P("y2"), "Depot"), Move(P("y3"), "Home", "Way"),
            Move(P("y3"), "Way", "Home")]
    st = position(text, rules="looney")
    st.apply_turn(turn)
    assert ships(st, "Home", 0) == ["y3"] and st.result is None
    with pytest.raises(IllegalAction, match="empty"):
        position(text, rules="strict").apply_turn(turn)


def test_ending_the_turn_with_no_ship_at_home():
    text = """
        Home (0, g1y2) y3-
        Way (b3) -g1
        Enemy (1, r1b2) -g3
    """
    st = position(text, rules="sdg")
    st.apply_turn([Move(P("y3"), "Home", "Way")])
    assert st.result.kind == "self-eliminated" and st.result.winners == (1,)
    with pytest.raises(IllegalTurn, match="suicide"):
        position(text, rules="good-evil").apply_turn([Move(P("y3"), "Home", "Way")])


def test_both_homes_lost_together_is_a_draw():
    st = position("""
        Home (0, g1y2) g2g3-g1
        Enemy (1, g3b1) g2g1-g2
    """, rules="sdg")
    st.apply_turn([Catastrophe("Home", Color.GREEN), Catastrophe("Enemy", Color.GREEN)])
    assert st.result is not None and st.result.kind == "draw"
    assert st.total_pieces() == [3] * 12


def test_whole_turn_pass():
    st = position("""
        Home (0, g1y2) y3g3-
        Enemy (1, r1b2) -g3
    """)
    st.apply_turn([Pass()])
    assert st.to_move == 1
    with pytest.raises(IllegalAction, match="passed"):
        st.copy().apply_turn([Pass(), Build(P("g1"), "Enemy")])
    # A closing "Pass" after the turn's action (as SDG records it) changes nothing.
    st.apply_turn([Build(P("g1"), "Enemy"), Pass()])
    assert ships(st, "Enemy", 1) == ["g1", "g3"]


def test_push_and_pop_restore_the_position():
    st = position("""
        Home (0, g1y2) y3g3-
        Enemy (1, r1b2) -g3
    """)
    before = st.describe()
    st.push([Build(P("g1"), "Home")])
    assert st.describe() != before and st.to_move == 1
    assert st.pop() == (Build(P("g1"), "Home"),)
    assert st.describe() == before and st.to_move == 0


def test_illegal_turn_leaves_state_unchanged():
    st = position("""
        Home (0, g1y2) y3g3-
        Enemy (1, r1b2) -g3
    """)
    before = st.describe()
    with pytest.raises(IllegalAction):
        st.apply_turn([Build(P("g1"), "Home"), Build(P("g1"), "Home")])
    assert st.describe() == before


def test_setup_rules_per_preset():
    looney = GameState(preset("looney"))
    with pytest.raises(IllegalAction, match="size 3"):
        looney.apply_turn([Homeworld((P("y1"), P("b2")), P("g2"), "A")])
    looney.apply_turn([Homeworld((P("y1"), P("b2")), P("g3"), "A")])
    sdg = GameState(preset("sdg"))
    sdg.apply_turn([Homeworld((P("y1"),), P("g2"), "A")])
    with pytest.raises(IllegalAction, match="two stars"):
        GameState(preset("looney")).apply_turn([Homeworld((P("y1"),), P("g3"), "A")])


def test_bank_grows_with_players():
    assert GameState(preset("good-evil"), players=4,
                     alignments=("good", "evil", "evil", "good")).bank == [5] * 12
    assert GameState(preset("sdg")).bank == [3] * 12
