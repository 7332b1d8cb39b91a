"""Positions to hold the derived encodings to the authority: random ones and archive ones."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from homeworlds.rules import (
    PRESETS,
    Action,
    Discover,
    GameState,
    IllegalAction,
    Rules,
    TurnInProgress,
    fresh_system_name,
    preset,
)
from tests.legality.conceivable import accepted_actions
from tests.positions import replay_cooked
from tests.shared import DATA
from tests.successors.randompos import random_position

ARCHIVE_SLICE = DATA / "games" / "cooked"

#: Flag combinations no preset uses, so that each flag is exercised on its own.
FLAG_MIXES: dict[str, Rules] = {
    "strict, immediate elimination": replace(preset("strict"), elimination_check="immediate"),
    "looney, catastrophes at the ends": replace(preset("looney"), catastrophe_timing="ends"),
    "looney, catastrophes after the action": replace(preset("looney"), catastrophe_timing="after"),
    "sdg, no empty home mid-turn": replace(preset("sdg"), home_may_be_empty_midturn=False),
    "looney, no suicide": replace(preset("looney"), self_elimination_allowed=False),
    "good-evil, no pass": replace(preset("good-evil"), whole_turn_pass=False),
    "looney, Brain Transference": preset("looney").with_handicaps(brain_transference=True,
                                                                  junior_seat=0),
    "strict, Brain Transference": preset("strict").with_handicaps(brain_transference=True,
                                                                  junior_seat=1),
}

#: Every preset and flag mix, by name.
ALL_RULES: dict[str, Rules] = {**PRESETS, **FLAG_MIXES}


def random_state(seed: int, rules: Rules, *, players: int | None = None) -> GameState:
    """A random position after setup (overpopulations are frequent on purpose)."""
    rng = random.Random(seed)
    if players is None:
        players = rng.choice([n for n in (2, 3) if rules.min_players <= n <= rules.max_players])
    return random_position(rng, rules, players, systems=rng.randrange(0, 3),
                           ships=rng.randrange(2, 9), crowd=0.5)


def random_walk(state: GameState, rng: random.Random, steps: int,
                check: Callable[[TurnInProgress], set[Action]] = accepted_actions,
                ) -> Iterator[TurnInProgress]:
    """Turns in progress after 0, 1, ... ``steps`` actions, each picked at random among
    what ``check`` returns: by default the actions the authority accepts (so a walk also
    reaches what no generator lists); a checking function may return that set too."""
    tip = state.begin_turn()
    for _ in range(steps + 1):
        yield tip
        options = sorted(check(tip), key=str)
        if not options:
            return
        action = rng.choice(options)
        if isinstance(action, Discover):
            # The folded spelling's name is the one conceivable_actions keeps unused.
            action = replace(action, name=fresh_system_name(tip.state))
        tip = tip.copy()
        tip.apply(action)


def replay_cooked_positions(path: Path, rules: str = "strict"
                            ) -> Iterator[tuple[int, GameState, tuple]]:
    """(index, position, the turn recorded there) for each turn of a cooked game."""
    for index, state, turn in replay_cooked(path, rules):
        if turn is not None:
            yield index, state, turn


def recorded_tips(state: GameState, turn: tuple) -> Iterator[TurnInProgress]:
    """The turn in progress before each action of a recorded turn (the table's partial turns)."""
    tip = state.begin_turn()
    for action in turn:
        yield tip
        tip = tip.copy()
        try:
            tip.apply(action)
        except IllegalAction:
            return
    yield tip


def archive_slice_paths() -> list[Path]:
    return sorted(ARCHIVE_SLICE.glob("*.cooked"))
