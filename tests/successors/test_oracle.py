"""The fast search against a brute-force oracle over TurnInProgress, for every preset."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from homeworlds.rules import (
    BrainTransference,
    canonical_key,
    count_successors,
    preset,
    successors,
)
from homeworlds.rules.fast import EncodedPosition, state_key

from .oracle import oracle_successor_keys
from .randompos import random_position


def _compare(state):
    layout = EncodedPosition(state).layout
    fast = {}
    for succ in successors(state):
        after = succ.apply(state)  # every generated turn is legal for GameState...
        key = state_key(succ.key, layout)
        assert canonical_key(after) == key, succ.turn  # ...and lands where it says
        fast.setdefault(key, succ.turn)
    slow = oracle_successor_keys(state)
    missing = [slow[k] for k in slow.keys() - fast.keys()]
    extra = [fast[k] for k in fast.keys() - slow.keys()]
    return missing, extra


@pytest.mark.parametrize("rules", ["strict", "looney", "sdg", "alternating-setup", "good-evil"])
def test_two_player_presets_match_the_oracle(rules):
    checked = 0
    for seed in range(7):
        rng = random.Random(1000 + seed)
        state = random_position(rng, preset(rules), systems=rng.randrange(0, 3),
                                ships=rng.randrange(2, 6), crowd=0.5)
        if state.is_over:
            continue
        missing, extra = _compare(state)
        assert not missing and not extra, (seed, state.describe(), missing[:3], extra[:3])
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("rules", ["last-standing", "sinister", "good-evil"])
def test_three_player_presets_match_the_oracle(rules):
    checked = 0
    for seed in range(4):
        rng = random.Random(2000 + seed)
        state = random_position(rng, preset(rules), players=3, systems=rng.randrange(0, 2),
                                ships=rng.randrange(2, 5), crowd=0.4)
        if state.is_over:
            continue
        missing, extra = _compare(state)
        assert not missing and not extra, (seed, state.describe(), missing[:3], extra[:3])
        checked += 1
    assert checked >= 3


FLAG_MIXES = {
    "strict, immediate elimination": ("strict", {"elimination_check": "immediate"}),
    "looney, catastrophes at the ends": ("looney", {"catastrophe_timing": "ends"}),
    "looney, catastrophes after the action": ("looney", {"catastrophe_timing": "after"}),
    "sdg, no empty home mid-turn": ("sdg", {"home_may_be_empty_midturn": False}),
    "looney, no suicide": ("looney", {"self_elimination_allowed": False}),
    "strict, catastrophes any time": ("strict", {"catastrophe_timing": "anytime"}),
    "good-evil, no pass": ("good-evil", {"whole_turn_pass": False}),
}


@pytest.mark.parametrize("mix", sorted(FLAG_MIXES))
def test_each_flag_works_on_its_own(mix):
    """Flag combinations no preset uses: each rule flag is honoured independently."""
    base, flags = FLAG_MIXES[mix]
    rules = replace(preset(base), **flags)
    checked = 0
    for seed in range(6):
        rng = random.Random(3000 + seed)
        state = random_position(rng, rules, systems=rng.randrange(0, 2),
                                ships=rng.randrange(3, 7), crowd=0.6)
        if state.is_over or count_successors(state) > 1500:
            continue  # the oracle is slow on big positions
        missing, extra = _compare(state)
        assert not missing and not extra, (seed, state.describe(), missing[:3], extra[:3])
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("base", ["strict", "looney", "alternating-setup", "good-evil"])
def test_brain_transference_matches_the_oracle_under_every_two_player_preset(base):
    """000's Brain Transference handicap (the junior player to move, crowded positions so
    that catastrophes may follow it) under each preset's timing, home and suicide rules."""
    checked = transfers = 0
    for seed in range(8):
        rng = random.Random(4000 + seed)
        state = random_position(rng, preset(base), systems=rng.randrange(0, 2),
                                ships=rng.randrange(3, 7), crowd=0.6)
        state.rules = preset(base).with_handicaps(brain_transference=True,
                                                  junior_seat=state.to_move)
        if state.is_over or count_successors(state) > 150:
            continue
        missing, extra = _compare(state)
        assert not missing and not extra, (seed, state.describe(), missing[:3], extra[:3])
        transfers += sum(1 for s in successors(state, first_kind=BrainTransference))
        checked += 1
    assert checked >= 4 and transfers > checked, (checked, transfers)
