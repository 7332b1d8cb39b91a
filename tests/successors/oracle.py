"""A slow, independent successor oracle: every action sequence through ``TurnInProgress``.

At every step it proposes a superset of the legal actions that knows no rule beyond
"an action names pieces that are there": every action of every kind with each of the
mover's ships and each enemy ship on the board, every piece to build, every colour to
trade to (any size, the same colour too), every star to discover (bank or not), every
destination (the same system too), every catastrophe colour, the pass and Brain
Transference. The rules engine (``TurnInProgress.apply`` / ``finish``) decides what is
legal, so the oracle shares no logic with ``homeworlds.rules.successors`` or
``moves.legal_actions``; ``tests/legality`` checks on many positions that these
candidates contain every action the authority accepts out of all conceivable ones.
Intermediate positions are merged by (canonical key, turn progress) to keep it usable on
small positions.
"""

from __future__ import annotations

from collections.abc import Iterator

from homeworlds.rules import (
    PIECES,
    Action,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Color,
    Discover,
    GameState,
    HomeworldsError,
    Move,
    Pass,
    Sacrifice,
    Trade,
    TurnInProgress,
    canonical_key,
)


def oracle_candidates(tip: TurnInProgress, fresh: str = "Zz-new") -> Iterator[Action]:
    """Every action naming pieces that are on the board (``fresh``: a discovery's name)."""
    st = tip.state
    seat = tip.seat
    yield Pass()
    yield BrainTransference()
    for s in st.systems:
        for c in Color:
            yield Catastrophe(s.name, c)
            for declarer in range(st.players):
                yield Catastrophe(s.name, c, declarer)
        for k in range(12):
            yield Build(PIECES[k], s.name)
            for owner in range(st.players):
                if s.ships[owner][k]:
                    yield Capture(PIECES[k], s.name, None)
                    yield Capture(PIECES[k], s.name, owner)
            if not s.ships[seat][k]:
                continue
            yield Sacrifice(PIECES[k], s.name)
            for q in range(12):
                yield Trade(PIECES[k], PIECES[q], s.name)
                yield Discover(PIECES[k], s.name, PIECES[q], fresh)
            for d in st.systems:
                yield Move(PIECES[k], s.name, d.name)


def oracle_successor_keys(state: GameState) -> dict[tuple, tuple]:
    """Canonical key -> one turn, for every legal turn of the player to move."""
    results: dict[tuple, tuple] = {}
    seen: set = set()
    counter = [0]

    def progress(tip):
        st = tip.state
        return (canonical_key(st), tip.free_action_used, tip.sacrifice_color,
                tip.sacrifice_left, tip.closed_by_catastrophe, tip.passed,
                tuple(st.eliminated), st.result is not None, st.brain_transference_used)

    def visit(tip):
        if tip.actions:
            try:
                done = tip.copy().finish()
            except HomeworldsError:
                done = None
            if done is not None:
                results.setdefault(canonical_key(done), tuple(tip.actions))
        counter[0] += 1
        fresh = f"Zz{counter[0]}"
        for action in oracle_candidates(tip, fresh):
            child = tip.copy()
            try:
                child.apply(action)
            except HomeworldsError:
                continue
            mark = progress(child)
            if mark in seen:
                continue
            seen.add(mark)
            visit(child)

    visit(TurnInProgress(state))
    return results
