"""``moves.legal_actions`` lists exactly what ``TurnInProgress.apply`` accepts.

(And the successor oracle's candidates, ``tests/successors/oracle.py``, contain it.)

Completeness and soundness at once: every conceivable action (all kinds, all pieces,
systems, colours, sizes and seats, see ``conceivable.py``) is tried on the authority,
and the ones it accepts must be the ones ``legal_actions`` lists — on random positions
of every preset and flag mix, mid-turn too, and on archive positions.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from homeworlds.rules import (
    Action,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Discover,
    Move,
    Pass,
    Sacrifice,
    Trade,
    TurnInProgress,
    legal_actions,
)
from tests.legality.conceivable import NEW_NAME, accepted_actions, folded
from tests.legality.positions import (
    ALL_RULES,
    archive_slice_paths,
    random_state,
    random_walk,
    recorded_tips,
    replay_cooked_positions,
)
from tests.shared import SHARED, shared_path
from tests.successors.oracle import oracle_candidates

KINDS = (Pass, BrainTransference, Catastrophe, Sacrifice, Capture, Move, Discover, Build, Trade)


def _where(action: Action) -> str | None:
    if isinstance(action, (Move, Discover)):
        return action.origin
    return getattr(action, "system", None)


def _color(action: Action) -> int | None:
    """The colour ``legal_actions(color=...)`` selects an action by."""
    if isinstance(action, Catastrophe):
        return int(action.color)
    if isinstance(action, Sacrifice):
        return int(action.piece.color)
    return {Capture: 0, Move: 1, Discover: 1, Build: 2, Trade: 3}.get(type(action))


def _difference(tip: TurnInProgress, listed: list[Action]) -> str:
    want = accepted_actions(tip)
    got = folded(tip, listed)
    missing = sorted(map(str, want - got))
    extra = sorted(map(str, got - want))
    return (f"{len(missing)} accepted but not listed {missing[:6]}, "
            f"{len(extra)} listed but refused {extra[:6]}")


def check_tip(tip: TurnInProgress) -> set[Action]:
    """The whole list and every filter of it against the authority; returns what it accepts."""
    listed = list(legal_actions(tip))
    got = folded(tip, listed)
    assert len(got) == len(listed), f"an action is listed twice: {sorted(map(str, listed))}"
    want = accepted_actions(tip)
    if got != want:
        raise AssertionError(f"{tip.state.describe()}\nafter {list(map(str, tip.actions))}: "
                             + _difference(tip, listed))
    # The filters select from the same list.
    for kind in KINDS:
        assert folded(tip, legal_actions(tip, kinds=(kind,))) == {
            a for a in want if isinstance(a, kind)}, kind.__name__
    for system in tip.state.systems:
        assert folded(tip, legal_actions(tip, system=system.name)) == {
            a for a in want if _where(a) is not None
            and _where(a).casefold() == system.key}, system.name
    for color in range(4):
        assert folded(tip, legal_actions(tip, color=color)) == {
            a for a in want if _color(a) == color}, color
    # The successor oracle's candidates hold every accepted action (its superset claim).
    candidates = folded(tip, oracle_candidates(tip, NEW_NAME))
    assert want <= candidates, f"the oracle never proposes {sorted(map(str, want - candidates))}"
    return want


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(sorted(ALL_RULES)),
       steps=st.integers(0, 4))
@example(seed=6071051, rules="alternating-setup", steps=2)  # a walk that discovers twice
def test_random_positions_list_exactly_the_accepted_actions(seed, rules, steps):
    state = random_state(seed, ALL_RULES[rules])
    if state.is_over:
        return
    for _ in random_walk(state, random.Random(seed), steps, check=check_tip):
        pass


def test_archive_slice_lists_exactly_the_accepted_actions():
    """Every position of the archive slice in tests/data, before each recorded action."""
    tips = 0
    for path in archive_slice_paths():
        for _, state, turn in replay_cooked_positions(path):
            for tip in recorded_tips(state, turn):
                check_tip(tip)
                tips += 1
    assert tips > 150


def test_shared_archive_sample_lists_exactly_the_accepted_actions():
    cooked = shared_path("games", "cooked")
    rng = random.Random(11)
    paths = rng.sample(sorted(cooked.glob("*.cooked")), 8)
    tips = 0
    for path in paths:
        positions = list(replay_cooked_positions(path, rules=rng.choice(["strict", "looney"])))
        for _, state, turn in rng.sample(positions, min(4, len(positions))):
            for tip in recorded_tips(state, turn):
                check_tip(tip)
                tips += 1
    assert tips > 40, SHARED
