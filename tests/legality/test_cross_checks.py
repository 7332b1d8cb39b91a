"""Each encoding of the rules derived from ``TurnInProgress`` held to it.

``TurnInProgress`` is the one authority on legality; these re-encode parts of it for
speed or for a narrower question, and each is checked here against it on random
positions of every preset and on archive positions:

- the successor generator (``rules.successors``) against the oracle, which asks the
  authority about a superset of every action at every step;
- the partial-turn matcher's candidates (``partial._candidates``): a superset of every
  accepted action of the pattern's kind;
- turn inference's proposals (``inference``): every legal one-action turn, and random
  longer turns the authority accepts, are found from the board they leave;
- the "can this home fall this turn" bounds: the win-in-one search
  (``rules.winning``), the computer opponent's shortcut (``ai.wins.home_out_of_reach``)
  and its ``find_winning_turn``, against every successor the oracle finds.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from homeworlds.ai import wins as ai_wins
from homeworlds.rules import (
    Action,
    ActionPattern,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Discover,
    GameState,
    HomeworldsError,
    Move,
    ObservedSystem,
    Pass,
    Sacrifice,
    Trade,
    TurnInProgress,
    canonical_key,
    count_successors,
    find_winning_turn,
    infer_turn,
    successors,
)
from homeworlds.rules.fast import EncodedPosition, state_key
from homeworlds.rules.partial import _candidates as partial_candidates
from tests.legality.conceivable import accepted_actions, folded
from tests.legality.positions import (
    ALL_RULES,
    archive_slice_paths,
    random_state,
    random_walk,
    replay_cooked_positions,
)
from tests.successors.oracle import oracle_successor_keys
from tests.successors.randompos import random_position

#: Random positions per rule set (kept small: the oracle is exhaustive).
SEEDS = range(3)
#: Archive positions with more successors than this are left to tests/successors.
ORACLE_LIMIT = 80


def _random_states(rules: str, seeds=SEEDS) -> list[GameState]:
    out = []
    for seed in seeds:
        state = random_state(7000 + seed, ALL_RULES[rules])
        if not state.is_over and not _unsupported(state):
            out.append(state)
    return out


def _unsupported(state: GameState) -> bool:
    """The successor search refuses immediate elimination with three or more players."""
    return state.rules.elimination_check == "immediate" and state.players > 2


def _archive_states(limit: int = ORACLE_LIMIT, rules: str = "strict") -> list[GameState]:
    out = []
    for path in archive_slice_paths():
        for _, state, _ in replay_cooked_positions(path, rules):
            if count_successors(state) <= limit:
                out.append(state)
    return out


# ---- the successor generator ----------------------------------------------------------


def _successor_mismatch(state: GameState) -> str | None:
    layout = EncodedPosition(state).layout
    fast = {}
    for succ in successors(state):
        after = succ.apply(state)
        key = state_key(succ.key, layout)
        assert canonical_key(after) == key, succ.turn
        fast.setdefault(key, succ.turn)
    slow = oracle_successor_keys(state)
    missing = [list(map(str, slow[k])) for k in slow.keys() - fast.keys()]
    extra = [list(map(str, fast[k])) for k in fast.keys() - slow.keys()]
    if missing or extra:
        return (f"{state.describe()}\n{len(missing)} legal turns not generated {missing[:3]}, "
                f"{len(extra)} generated but not legal {extra[:3]}")
    return None


# Random positions of every preset and flag mix: tests/successors/test_oracle.py (which
# uses the same oracle).


def test_successors_include_brain_transference():
    state = _random_states("looney, Brain Transference", range(40))
    state = next(s for s in state if s.to_move == s.rules.handicaps.junior_seat)
    problem = _successor_mismatch(state)
    assert problem is None, problem


def test_successors_match_the_oracle_on_archive_positions():
    states = _archive_states()
    assert len(states) >= 10
    for state in states[::3]:
        problem = _successor_mismatch(state)
        assert problem is None, problem


# ---- the partial-turn matcher ------------------------------------------------------------

_PATTERN_OF = {Pass: ActionPattern("pass"), Catastrophe: ActionPattern("catastrophe"),
               Sacrifice: ActionPattern("sacrifice"), Capture: ActionPattern("capture"),
               Build: ActionPattern("build"), Trade: ActionPattern("convert"),
               Move: ActionPattern("move"), Discover: ActionPattern("move", discovers=True)}


def _partial_misses(tip: TurnInProgress, accepted: set[Action]) -> set[Action]:
    """Accepted actions the partial-turn matcher would never try for their kind."""
    missed = set()
    for kind, pattern in _PATTERN_OF.items():
        # Who declared a catastrophe is not on the board: the table matches what it sees.
        want = {replace(a, declarer=None) if isinstance(a, Catastrophe) else a
                for a in accepted if isinstance(a, kind)}
        missed |= want - folded(tip, partial_candidates(tip, pattern))
    # Brain Transference has no partial notation; it is the only kind left out.
    assert not {a for a in accepted - missed if not isinstance(a, tuple(_PATTERN_OF))} - {
        BrainTransference()}
    return missed


@pytest.mark.parametrize("rules", sorted(ALL_RULES))
def test_partial_turn_candidates_hold_every_accepted_action(rules):
    for state in _random_states(rules):
        rng = random.Random(state.ply)

        def check(tip: TurnInProgress) -> set[Action]:
            accepted = accepted_actions(tip)
            missed = _partial_misses(tip, accepted)
            assert not missed, (tip.start.describe(), list(map(str, tip.actions)),
                                sorted(map(str, missed)))
            return accepted

        for _ in random_walk(state, rng, 2, check=check):
            pass


def test_partial_turn_candidates_on_archive_positions():
    for state in _archive_states(limit=10**9)[::6]:
        tip = state.begin_turn()
        missed = _partial_misses(tip, accepted_actions(tip))
        assert not missed, (state.describe(), sorted(map(str, missed)))


# ---- turn inference -------------------------------------------------------------------------


def _observe(before: GameState, after: GameState) -> list[ObservedSystem]:
    names = {s.key for s in before.systems}
    return [ObservedSystem(s.name if s.key in names else None, s.star_pieces,
                           tuple(s.ship_pieces(k) for k in range(after.players)))
            for s in after.systems]


def _inference_misses(state: GameState, turns) -> list[str]:
    missed = []
    for turn in turns:
        after = state.copy()
        after.apply_turn(turn)
        result = infer_turn(state, _observe(state, after))
        found = None
        if result.turn is not None:
            found = state.copy()
            found.apply_turn(result.turn)
        if found is None or canonical_key(found) != canonical_key(after):
            missed.append("; ".join(map(str, turn)))
    return missed


def _one_action_turns(state: GameState) -> list[tuple]:
    tip = state.begin_turn()
    turns = []
    for action in sorted(accepted_actions(tip), key=str):
        child = tip.copy()
        child.apply(action)
        try:
            child.copy().finish()
        except HomeworldsError:  # an illegal ending: not a turn
            continue
        turns.append((action,))
    return turns


def _random_turns(state: GameState, rng: random.Random, count: int) -> list[tuple]:
    turns = []
    for _ in range(count * 3):
        tips = list(random_walk(state, rng, rng.randint(2, 4)))
        try:
            tips[-1].copy().finish()
        except HomeworldsError:  # an illegal ending: not a turn
            continue
        if tips[-1].actions:
            turns.append(tuple(tips[-1].actions))
        if len(turns) == count:
            break
    return turns


@pytest.mark.parametrize("rules", sorted(ALL_RULES))
def test_inference_finds_every_legal_one_action_turn(rules):
    tried = 0
    for state in _random_states(rules, range(4)):
        turns = _one_action_turns(state)
        tried += len(turns)
        missed = _inference_misses(state, turns)
        assert not missed, (state.describe(), missed[:5])
    assert tried > 0, "no turn was tried: the check tested nothing"


def test_inference_finds_brain_transference():
    states = _random_states("looney, Brain Transference", range(40))
    state = next(s for s in states if s.to_move == s.rules.handicaps.junior_seat)
    assert _inference_misses(state, [(BrainTransference(),)]) == []


@pytest.mark.parametrize("rules", ["strict", "looney", "sdg", "good-evil"])
def test_inference_finds_random_legal_turns(rules):
    tried = 0
    for state in _random_states(rules):
        rng = random.Random(state.ply + 1)
        turns = _random_turns(state, rng, 2)
        tried += len(turns)
        missed = _inference_misses(state, turns)
        assert not missed, (state.describe(), missed[:5])
    assert tried > 0, "no turn was tried: the check tested nothing"


def test_inference_on_archive_positions():
    states = _archive_states(limit=10**9)
    rng = random.Random(5)
    for state in rng.sample(states, 5):
        turns = _one_action_turns(state)
        missed = _inference_misses(state, rng.sample(turns, min(20, len(turns))))
        missed += _inference_misses(state, _random_turns(state, rng, 1))
        assert not missed, (state.describe(), missed[:5])


# ---- can this home fall this turn? ---------------------------------------------------------


def _oracle_wins(state: GameState) -> bool:
    """Does some legal turn eliminate an opponent and leave the mover in the game?"""
    me = state.to_move
    for turn in oracle_successor_keys(state).values():
        after = state.copy()
        after.apply_turn(turn)
        if not after.eliminated[me] and any(
                after.eliminated[s] and not state.eliminated[s] for s in range(state.players)):
            return True
    return False


def _check_win_bounds(state: GameState) -> bool:
    wins = _oracle_wins(state)
    turn = find_winning_turn(state)
    assert (turn is not None) == wins, (state.describe(), turn)
    if state.players == 2:
        opponent = 1 - state.to_move
        assert not (wins and ai_wins.home_out_of_reach(state, opponent)), state.describe()
        assert (ai_wins.find_winning_turn(state) is not None) == wins, state.describe()
    return wins


def test_win_in_one_bounds_on_crowded_random_positions():
    """Every preset and flag mix; crowded positions, so that homes often can fall."""
    wins = checked = 0
    for _, ruleset in sorted(ALL_RULES.items()):
        for seed in range(4):
            rng = random.Random(9000 + seed)
            players = 3 if ruleset.min_players > 2 else 2
            state = random_position(rng, ruleset, players, systems=rng.randrange(0, 2),
                                    ships=rng.randrange(4, 9), crowd=0.6)
            if state.is_over or _unsupported(state) or count_successors(state) > 200:
                continue
            wins += _check_win_bounds(state)
            checked += 1
    assert checked >= 25 and wins >= 5, (checked, wins)


def test_win_in_one_bounds_on_archive_positions():
    states = _archive_states()
    wins = sum(_check_win_bounds(state) for state in states[::3])
    assert wins >= 1
