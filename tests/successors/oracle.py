"""A slow, independent successor oracle: every action sequence through ``TurnInProgress``.

It proposes a superset of candidate actions at every step and lets the rules
engine (``TurnInProgress.apply`` / ``finish``) decide what is legal, so it shares
no logic with ``homeworlds.rules.successors`` beyond the rules themselves.
Intermediate positions are merged by (canonical key, turn progress) to keep it
usable on small positions.
"""

from __future__ import annotations

from homeworlds.rules.actions import (
    Build,
    Capture,
    Catastrophe,
    Discover,
    Move,
    Pass,
    Sacrifice,
    Trade,
)
from homeworlds.rules.errors import HomeworldsError
from homeworlds.rules.fast import canonical_key
from homeworlds.rules.pieces import PIECES, Color
from homeworlds.rules.state import GameState, TurnInProgress


def _clone(tip: TurnInProgress) -> TurnInProgress:
    new = TurnInProgress.__new__(TurnInProgress)
    new.start = tip.start
    new.state = tip.state.copy()
    new.seat = tip.seat
    new.actions = list(tip.actions)
    new.free_action_used = tip.free_action_used
    new.sacrifice_color = tip.sacrifice_color
    new.sacrifice_left = tip.sacrifice_left
    new.closed_by_catastrophe = tip.closed_by_catastrophe
    new.passed = tip.passed
    return new


def _candidates(tip: TurnInProgress, fresh: str):
    st = tip.state
    seat = tip.seat
    yield Pass()
    for s in st.systems:
        for c in range(4):
            yield Catastrophe(s.name, Color(c))
        mine = [k for k in range(12) if s.ships[seat][k]]
        for k in mine:
            yield Sacrifice(PIECES[k], s.name)
            for q in range(k % 3, 12, 3):
                if q != k:
                    yield Trade(PIECES[k], PIECES[q], s.name)
            for d in st.systems:
                if d is not s:
                    yield Move(PIECES[k], s.name, d.name)
            for star in range(12):
                if st.bank[star]:
                    yield Discover(PIECES[k], s.name, PIECES[star], fresh)
        for k in range(12):
            yield Build(PIECES[k], s.name)
            for owner in range(st.players):
                if owner != seat and s.ships[owner][k]:
                    yield Capture(PIECES[k], s.name, owner if st.players > 2 else None)


def oracle_successor_keys(state: GameState) -> dict[tuple, tuple]:
    """Canonical key -> one turn, for every legal turn of the player to move."""
    results: dict[tuple, tuple] = {}
    seen: set = set()
    counter = [0]

    def progress(tip):
        st = tip.state
        return (canonical_key(st), tip.free_action_used, tip.sacrifice_color,
                tip.sacrifice_left, tip.closed_by_catastrophe, tip.passed,
                tuple(st.eliminated), st.result is not None)

    def visit(tip):
        if tip.actions:
            try:
                done = _clone(tip).finish()
            except HomeworldsError:
                done = None
            if done is not None:
                results.setdefault(canonical_key(done), tuple(tip.actions))
        counter[0] += 1
        fresh = f"Zz{counter[0]}"
        for action in _candidates(tip, fresh):
            if isinstance(action, Pass) and (tip.free_action_used or tip.actions):
                continue  # giving up sacrifice actions = stopping; later passes change nothing
            child = _clone(tip)
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
