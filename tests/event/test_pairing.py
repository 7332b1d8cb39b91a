from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from homeworlds.event.pairing import (
    Outcome,
    PairingError,
    buchholz,
    round_robin,
    standings,
    standings_with_tiebreak,
    swiss,
)

NAMES = [f"p{k}" for k in range(12)]


@pytest.mark.parametrize("n", range(2, 12))
def test_round_robin_meets_every_pair_exactly_once(n):
    players = NAMES[:n]
    rounds = round_robin(players)
    assert len(rounds) == (n if n % 2 else n - 1)
    meetings = [frozenset(p) for r in rounds for p in r if p[1] is not None]
    assert sorted(map(sorted, meetings)) == sorted(
        sorted(c) for c in itertools.combinations(players, 2))
    for r in rounds:
        seen = [x for p in r for x in p if x is not None]
        assert sorted(seen) == sorted(players)  # everyone plays (or sits out) once a round
    byes = [p[0] for r in rounds for p in r if p[1] is None]
    assert len(byes) == len(set(byes)) == (n if n % 2 else 0)


def test_round_robin_refuses_duplicates_and_loners():
    with pytest.raises(PairingError, match="named twice"):
        round_robin(["Ann", "ann"])
    with pytest.raises(PairingError, match="at least two"):
        round_robin(["Ann"])


def test_swiss_pairs_by_score_and_gives_the_bye_to_the_lowest():
    players = ["Ann", "Bob", "Cid", "Dee", "Eve"]
    outcomes = [Outcome("Ann", "Bob", "Ann"), Outcome("Cid", "Dee", "Cid"),
                Outcome("Eve", None, "Eve")]
    pairs = swiss(players, outcomes)
    # Ann, Cid, Eve have 1 point; Bob, Dee 0. Eve had the bye: Dee (last, no bye) gets it.
    assert pairs[-1] == ("Dee", None)
    assert ("Ann", "Cid") in pairs
    assert ("Eve", "Bob") in pairs


def test_swiss_backtracks_to_avoid_a_repeat():
    players = ["A", "B", "C", "D"]
    # Greedy would pair A-B (both top) again; A-C, B-D also met: only A-D, B-C remain.
    outcomes = [Outcome("A", "B", "A"), Outcome("C", "D", "C"),
                Outcome("A", "C", "A"), Outcome("B", "D", "B")]
    assert swiss(players, outcomes) == [("A", "D"), ("B", "C")]


def test_swiss_says_when_no_pairing_is_left():
    players = ["A", "B"]
    with pytest.raises(PairingError, match="repeat"):
        swiss(players, [Outcome("A", "B", None)])


def test_standings_count_draws_and_byes():
    table = standings(["A", "B", "C"], [Outcome("A", "B", None), Outcome("C", None, "C")])
    assert table == [("C", 1.0), ("A", 0.5), ("B", 0.5)]


@given(st.integers(2, 9), st.integers(0, 2**32 - 1))
def test_swiss_rounds_never_repeat_until_round_robin_length(n, seed):
    import random
    rng = random.Random(seed)
    players = NAMES[:n]
    outcomes: list[Outcome] = []
    for _ in range(n - 1 if n % 2 == 0 else n):
        try:
            pairs = swiss(players, outcomes)
        except PairingError:
            break
        seen = [x for p in pairs for x in p if x is not None]
        assert sorted(seen) == sorted(players)
        for a, b in pairs:
            assert b is None or frozenset((a, b)) not in {
                frozenset((o.a, o.b)) for o in outcomes}
            outcomes.append(Outcome(a, b, a if b is None else rng.choice([a, b, None])))
    byes = [o.a for o in outcomes if o.b is None]
    assert len(byes) == len(set(byes))


def test_buchholz_sums_the_opponents_points_and_breaks_ties():
    # Ann beat Bob, Cid beat Dan, then Ann drew Cid, Bob beat Dan; Eve had a bye twice.
    outcomes = [Outcome("Ann", "Bob", "Ann"), Outcome("Cid", "Dan", "Cid"),
                Outcome("Eve", None, "Eve"), Outcome("Ann", "Cid", None),
                Outcome("Bob", "Dan", "Bob"), Outcome("Eve", None, "Eve")]
    players = ["Ann", "Bob", "Cid", "Dan", "Eve"]
    assert buchholz(players, outcomes) == {"Ann": 2.5, "Bob": 1.5, "Cid": 1.5, "Dan": 2.5,
                                           "Eve": 0.0}
    # Ann, Cid and Eve: Eve 2, Ann 1.5, Cid 1.5 points; Ann and Cid tie, Ann's opponents
    # scored more.
    assert [row[0] for row in standings_with_tiebreak(players, outcomes)] == \
        ["Eve", "Ann", "Cid", "Bob", "Dan"]
