"""Successor counts against the C++ reference engine's counts (shared/games)."""

from __future__ import annotations

import random

import pytest

from homeworlds.rules import canonical_key, count_successors, successors
from homeworlds.rules.fast import EncodedPosition, state_key

from .conftest import position_file, replay_positions

SAMPLE_SEED = 20240611
SAMPLE_GAMES = 40
SAMPLE_LIMIT = 20_000
CORPUS_LIMIT = 100_000


@pytest.mark.parametrize("name, count", [("perf-27635-moves.txt", 27_635),
                                         ("perf-33332-moves.txt", 33_332)])
def test_perf_positions_exact(shared, name, count):
    state = position_file(shared / "positions" / "perf" / name, rules="strict")
    assert count_successors(state) == count


def _mismatches(shared, branching_factors, games, limit):
    bad = []
    checked = 0
    for game in games:
        want = branching_factors[game]
        seen = 0
        for index, state in replay_positions(shared / "games" / "cooked" / f"{game}.cooked",
                                             rules="strict"):
            seen += 1
            if want[index] > limit:
                continue
            got = count_successors(state)
            checked += 1
            if got != want[index]:
                bad.append(f"game {game} position {index}: {got} successors, expected "
                           f"{want[index]}")
        if seen != len(want):
            bad.append(f"game {game}: {seen} positions before the game ended, expected "
                       f"{len(want)}")
    return bad, checked


def test_branching_factors_on_a_seeded_sample(shared, branching_factors):
    games = random.Random(SAMPLE_SEED).sample(sorted(branching_factors), SAMPLE_GAMES)
    bad, checked = _mismatches(shared, branching_factors, games, SAMPLE_LIMIT)
    assert checked > 1000
    assert not bad, "\n".join(bad[:20])


@pytest.mark.corpus
def test_branching_factors_every_game(shared, branching_factors):
    bad, checked = _mismatches(shared, branching_factors, sorted(branching_factors), CORPUS_LIMIT)
    assert checked > 90_000
    assert not bad, "\n".join(bad[:50])


def test_generated_turns_apply_and_reach_their_keys(shared, branching_factors):
    """Sampled successors of sampled archive positions, through GameState.apply_turn."""
    rng = random.Random(SAMPLE_SEED + 1)
    games = rng.sample(sorted(branching_factors), 12)
    states = [position_file(shared / "positions" / "perf" / "perf-27635-moves.txt", rules="strict")]
    for game in games:
        positions = list(replay_positions(shared / "games" / "cooked" / f"{game}.cooked",
                                          rules="strict"))
        states += [s for _, s in rng.sample(positions, min(3, len(positions)))]
    applied = 0
    for state in states:
        layout = EncodedPosition(state).layout
        succs = list(successors(state))
        for succ in rng.sample(succs, min(150, len(succs))):
            after = state.copy()
            after.apply_turn(succ.turn)
            assert canonical_key(after) == state_key(succ.key, layout), succ.turn
            applied += 1
    assert applied > 1000
