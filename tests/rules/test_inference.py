"""Turn inference finds the hidden steps a player never shows on the table."""

from __future__ import annotations

import random

from homeworlds.rules import Build, Catastrophe, Color, Discover, Move, Sacrifice
from homeworlds.rules.inference import ObservedSystem, board_key, explain_partial, infer_turn
from homeworlds.rules.state import GameState
from tests.rules.helpers import P, position


def observe(before: GameState, after: GameState) -> list[ObservedSystem]:
    """The board as the table reports it: known systems by name, new ones unnamed."""
    names = {s.key for s in before.systems}
    return [ObservedSystem(s.name if s.key in names else None, s.star_pieces,
                           tuple(s.ship_pieces(k) for k in range(after.players)))
            for s in after.systems]


def _check(before: GameState, turn) -> tuple:
    after = before.copy()
    after.apply_turn(turn)
    result = infer_turn(before, observe(before, after))
    assert result.found, result.differences
    check = before.copy()
    check.apply_turn(result.turn)
    assert board_key(check) == board_key(after)  # the same board, whatever new systems are called
    return result.turn


def test_hop_through_a_system_discovered_and_abandoned_in_the_same_turn():
    st = position("""
        Home (0, g1y2) y3y2g3-
        Enemy (1, r1b2) -g3
        Far (g1) -y1
    """)
    # y2 sacrificed: two moves; a new b3 system is discovered and left again; it fades.
    turn = (Sacrifice(P("y2"), "Home"), Discover(P("y3"), "Home", P("b3"), "Hop"),
            Move(P("y3"), "Hop", "Far"))
    found = _check(st, turn)
    assert any(isinstance(a, Discover) for a in found)


def test_sacrificed_piece_rebuilt_is_found():
    st = position("""
        Home (0, g1b2) g3g2g2g2-
        Far (y3) g1g1-
        Enemy (1, r1y2) -r3
    """)
    turn = (Sacrifice(P("g3"), "Home"),) + tuple(Build(P("g3"), s)
                                                for s in ("Home", "Home", "Far"))
    found = _check(st, turn)
    assert isinstance(found[0], Sacrifice) and found[0].piece == P("g3")


def test_catastrophe_the_player_never_showed():
    st = position("""
        Home (0, g1y2) g3g2y1-
        Other (y3) g1-
        Enemy (1, r1b3) -g3
    """)
    found = _check(st, (Move(P("g1"), "Other", "Home"), Catastrophe("Home", Color.GREEN)))
    assert Catastrophe("Home", Color.GREEN) in found


def test_no_legal_turn_names_the_differing_systems():
    st = position("""
        Home (0, g1y2) g3-
        Enemy (1, r1b3) -g3
    """)
    after = st.copy()
    after.apply_turn([Build(P("g1"), "Home")])
    seen = observe(st, after)
    # Pretend a g2 appeared instead of the g1 (the smallest green must be built).
    seen[0] = ObservedSystem("Home", seen[0].stars, ((P("g3"), P("g2")), ()))
    result = infer_turn(st, seen)
    assert not result.found
    assert [d.name for d in result.differences] == ["Home"]
    assert "g2" in result.differences[0].observed


def test_partial_turn_mid_sacrifice_reports_actions_left():
    st = position("""
        Home (0, g1y2) y3g3-
        Near (b3) -g1
        Enemy (1, r1b2) -g3
    """)
    tip = st.begin_turn()
    tip.apply(Sacrifice(P("y3"), "Home"))
    tip.apply(Move(P("g3"), "Home", "Near"))
    mid = tip.state
    seen = [ObservedSystem(s.name, s.star_pieces, tuple(s.ship_pieces(k) for k in range(2)))
            for s in mid.systems]
    result = explain_partial(st, seen)
    assert result.ok and result.progress.sacrifice_left == 2


def test_archive_turns_are_all_inferred(shared_dir):
    from homeworlds.notation.cooked import read_cooked_file
    from homeworlds.rules.presets import preset

    files = sorted((shared_dir / "games" / "cooked").glob("*.cooked"))
    for path in random.Random(11).sample(files, 25):
        game = read_cooked_file(path)
        st = GameState.from_position(game.systems, preset("strict"))
        for turn in game.turns:
            if st.is_over:
                break
            after = st.copy()
            after.apply_turn(turn)
            assert infer_turn(st, observe(st, after)).found, (path.name, turn)
            st = after
