"""Successor generation on hand-made positions: counts, turns, keys, filters, laziness."""

from __future__ import annotations

import inspect

import pytest

from homeworlds.rules import (
    Build,
    Capture,
    Catastrophe,
    Color,
    Discover,
    Move,
    Pass,
    Sacrifice,
    Trade,
    canonical_key,
    count_successors,
    successor_keys,
    successors,
)
from homeworlds.rules.fast import EncodedPosition, state_key

from .conftest import position


def check_turns(state, succs):
    """Every turn applies through GameState and lands on its successor's key."""
    layout = EncodedPosition(state).layout
    for succ in succs:
        after = state.copy()
        after.apply_turn(succ.turn)
        assert canonical_key(after) == state_key(succ.key, layout), succ.turn


def test_lone_ships_count_by_hand():
    # Seat 0 has one g3 at home (y1 b2): it can pass, build g1, trade? no blue ship... it has
    # blue star access: trade g3 for r3/y3/b3 (3), build g1 (green ship at home), move? yellow
    # star: discover with g3 to a size-3 star from the bank; home sizes are 1 and 2, so stars of
    # size 3 connect: r3 y3 g3 b3, but g3 is used by both ships... and sacrifice g3 is suicide.
    state = position("""
        Home0 (0, y1b2) g3-
        Home1 (1, y3b1) -g3
    """, rules="strict")
    got = {tuple(map(str, s.turn)) for s in successors(state)}
    texts = {"; ".join(t) for t in got}
    assert "pass" in texts
    assert "build g1 at Home0" in texts
    assert {"trade g3 for r3 at Home0", "trade g3 for y3 at Home0",
            "trade g3 for b3 at Home0"} <= texts
    # Discovery with the home's only ship empties the home: illegal under strict.
    assert not any(t.startswith("discover") for t in texts)
    assert count_successors(state) == len(got) == 5


def test_looney_allows_self_elimination_successors():
    state = position("""
        Home0 (0, y1b2) g3-
        Home1 (1, y3b1) -g3
    """, rules="looney")
    texts = {"; ".join(map(str, s.turn)) for s in successors(state)}
    # Flying the only ship away loses at once under looney, but it is a legal turn.
    assert any(t.startswith("discover") for t in texts)
    assert count_successors(state) == len(texts)


def test_identical_ships_and_names_give_one_successor():
    # Two identical systems: whatever is done at one, done at the other, is the same position.
    state = position("""
        Home0 (0, y1b2) g3r2-
        Home1 (1, y3b1) -g3
        Alpha (b3) r1-
        Beta (b3) r1-
    """, rules="strict")
    keys = successor_keys(state)
    assert count_successors(state) == len(keys)
    turns = [s.turn for s in successors(state, first_kind=Trade)]
    alpha = {str(t[0].new) for t in turns if t[0].system == "Alpha"}
    beta = {str(t[0].new) for t in turns if t[0].system == "Beta"}
    assert alpha == {"y1", "g1", "b1"}
    assert beta == set()


def test_every_turn_applies_and_matches_its_key():
    state = position("""
        Home0 (0, y1b2) g3r2y2-b1
        Home1 (1, y3b1) r1-g3y1
        Alpha (g2) y1-b1
        Beta (r3) b2-
    """, rules="strict")
    succs = list(successors(state))
    assert len(succs) == count_successors(state) > 100
    assert len({s.key for s in succs}) == len(succs)
    check_turns(state, succs)


def test_pass_is_one_successor_and_equal_results_merge():
    # "sacrifice g1; build g1" with two g1 at home gives back the very same position as a pass.
    state = position("""
        Home0 (0, y1b2) g1g1-
        Home1 (1, y3b1) -g3
    """, rules="strict")
    keys = [s.key for s in successors(state)]
    assert keys.count(canonical_key(state)) == 1


def test_filters_select_by_first_action():
    state = position("""
        Home0 (0, y1b2) g3r2y2-b1
        Home1 (1, y3b1) r1-g3y1
        Alpha (g2) y1-b1
    """, rules="strict")
    everything = successor_keys(state)
    by_kind = {}
    for kind in (Pass, Sacrifice, Capture, Move, Discover, Build, Trade, Catastrophe):
        found = list(successors(state, first_kind=kind))
        for s in found:
            first = next(a for a in s.turn if not isinstance(a, Catastrophe))
            assert isinstance(first, kind)
        by_kind[kind] = {s.key for s in found}
    assert set().union(*by_kind.values()) == everything
    yellow = list(successors(state, color=Color.YELLOW))
    assert yellow and all(
        (a.piece.color if isinstance(a, Sacrifice) else Color.YELLOW) == Color.YELLOW
        for a in (next(x for x in s.turn if not isinstance(x, Catastrophe)) for s in yellow))
    at_alpha = list(successors(state, system="Alpha"))
    for s in at_alpha:
        first = s.turn[0]
        where = first.origin if isinstance(first, (Move, Discover)) else first.system
        assert where == "Alpha"
    assert at_alpha


def test_successors_is_lazy():
    state = position("""
        Home0 (0, y1b2) g3r2y2-b1
        Home1 (1, y3b1) r1-g3y1
    """, rules="strict")
    gen = successors(state)
    assert inspect.isgenerator(gen)
    first = next(gen)
    assert first.turn == (Pass(),)


def test_bad_filter_and_finished_game_are_refused():
    state = position("""
        Home0 (0, y1b2) g3-
        Home1 (1, y3b1) -g3
    """, rules="strict")
    with pytest.raises(ValueError, match="no system named"):
        list(successors(state, system="Nowhere"))
    with pytest.raises(ValueError, match="first_kind"):
        list(successors(state, first_kind=int))
    done = position("""
        Home0 (0, y1b2) r3-
        Home1 (1, y3r1) r3-y1
    """, rules="strict")
    (win,) = [s for s in successors(done, first_kind=Capture)]
    done.apply_turn(win.turn)
    assert done.is_over
    with pytest.raises(ValueError, match="over"):
        count_successors(done)


def test_catastrophes_at_the_ends_under_strict_anywhere_under_looney():
    text = """
        Home0 (0, y1b2) g3y2-b1
        Home1 (1, y3b1) -g3
        Alpha (r2) r1r1-r1
    """
    strict = position(text, "strict")
    looney = position(text, "looney")
    # Alpha is overpopulated in red: catastrophes may open or close a turn under strict,
    # and also sit between the actions of a sacrifice under looney.
    s_turns = [s.turn for s in successors(strict)]
    assert any(isinstance(t[0], Catastrophe) for t in s_turns)
    for t in s_turns:
        kinds = [isinstance(a, Catastrophe) for a in t]
        if False in kinds:
            first_other = kinds.index(False)
            last_other = len(kinds) - 1 - kinds[::-1].index(False)
            assert not any(kinds[first_other:last_other + 1]), t
    l_turns = [s.turn for s in successors(looney)]
    assert any(isinstance(t[0], Sacrifice) and any(isinstance(a, Catastrophe) for a in t[1:-1])
               for t in l_turns)
    assert count_successors(looney) > count_successors(strict)
    check_turns(looney, list(successors(looney)))


def test_builds_take_the_smallest_and_trades_change_colour():
    state = position("""
        Home0 (0, g1b2) g3y3-
        Home1 (1, y3b1) -g2
    """, rules="strict")
    for s in successors(state):
        for a in s.turn:
            if isinstance(a, Build):
                assert a.piece.size == 1 or a.piece.color == Color.GREEN
            if isinstance(a, Trade):
                assert a.old.color != a.new.color and a.old.size == a.new.size


@pytest.mark.parametrize("rules", ["strict", "looney", "good-evil", "alternating-setup"])
def test_filters_partition_everything_with_catastrophes(rules):
    # Home1 is overpopulated in blue: catastrophe-only turns exist (after a pass under the
    # "after" timing of good-evil) and every kind of first action can precede them.
    state = position("""
        Home0 (0, y1b2) g3r2y2-b1
        Home1 (1, y3b1) b2b3-b3g1
        Alpha (g2) y1-b1
    """, rules)
    everything = successor_keys(state)
    union = set()
    for kind in (Pass, Sacrifice, Capture, Move, Discover, Build, Trade, Catastrophe):
        union |= {s.key for s in successors(state, first_kind=kind)}
    assert union == everything
    cats_only = [s.turn for s in successors(state, first_kind=Catastrophe)]
    # 003 allows no pass: "the active player must choose exactly one of the following".
    assert bool(cats_only) == (rules != "alternating-setup")
    assert all(isinstance(a, (Catastrophe, Pass)) for t in cats_only for a in t)
