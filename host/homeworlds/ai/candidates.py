"""The turns the computer considers: distinct successors, within a time budget.

Busy positions have up to a million distinct successors, almost all of them
sacrifices of a big ship followed by every combination of two or three
actions. The opponent therefore asks the lazy successor API group by group:
first every turn whose first action is free (pass, catastrophes, capture,
move, discover, build, trade — a few hundred at most), then the sacrifices,
one (system, colour) group at a time, smallest estimated group first, while
the budget lasts. A sacrifice group too big for the time left is skipped and
reported, never cut in the middle (a half-enumerated group would favour
whichever turns the search happens to reach first).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from homeworlds.rules import (
    Build,
    Capture,
    Catastrophe,
    Discover,
    GameState,
    Move,
    Pass,
    Sacrifice,
    Successor,
    Trade,
    successors,
)

#: Turn kinds by first non-catastrophe action, cheapest first; sacrifices come after.
FREE_KINDS = (Pass, Catastrophe, Capture, Build, Trade, Move, Discover)

#: How many units of ``sacrifice_groups``' estimate fit in a second. Measured on archive
#: positions: the generator yields 35-55k distinct successors per second, and the estimate
#: is an upper bound that runs two to ten times high; the scoring that follows costs about
#: as much again as generating.
ESTIMATE_PER_SECOND = 40_000.0


@dataclass(slots=True)
class CandidateSet:
    """Distinct successors found, and what was left out for lack of time."""

    successors: list[Successor] = field(default_factory=list)
    #: (system name, colour index, estimated successors) of sacrifice groups not searched.
    skipped: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.skipped


def candidate_successors(state: GameState, budget: float | None = None) -> CandidateSet:
    """Distinct successors of ``state``: all of them when ``budget`` is None, else those
    that fit in ``budget`` seconds (every free-action turn, then sacrifice groups)."""
    out = CandidateSet()
    seen: set[tuple] = set()

    def take(found) -> None:
        for succ in found:
            if succ.key not in seen:
                seen.add(succ.key)
                out.successors.append(succ)

    if budget is None:
        take(successors(state))
        return out
    deadline = time.perf_counter() + budget
    for kind in FREE_KINDS:
        take(successors(state, first_kind=kind))
    for name, color, estimate in sorted(sacrifice_groups(state), key=lambda g: g[2]):
        left = deadline - time.perf_counter()
        if estimate > left * ESTIMATE_PER_SECOND:
            out.skipped.append((name, color, estimate))
            continue
        take(successors(state, first_kind=Sacrifice, system=name, color=color))
    return out


def sacrifice_groups(state: GameState) -> list[tuple[str, int, int]]:
    """Each (system, ship colour) the mover could sacrifice from, with a rough estimate of
    the successors it leads to: (single actions of that colour) ** size, summed."""
    me = state.to_move
    single = [_single_actions(state, me, c) for c in range(4)]
    groups = []
    for s in state.systems:
        fleet = s.ships[me]
        for c in range(4):
            sizes = [i % 3 + 1 for i in range(c * 3, c * 3 + 3) if fleet[i]]
            if not sizes:
                continue
            n = max(single[c], 1)
            estimate, term = 1, 1
            for depth in range(1, max(sizes) + 1):
                term = term * n // depth if depth > 1 else n
                estimate += term
            groups.append((s.name, c, estimate))
    return groups


def _single_actions(state: GameState, me: int, color: int) -> int:
    """How many actions of ``color`` a sacrifice would offer right now (upper bound)."""
    n = 0
    bank_kinds = sum(1 for k in range(12) if state.bank[k])
    for s in state.systems:
        fleet = s.ships[me]
        kinds = sum(1 for k in range(12) if fleet[k])
        if not kinds:
            continue
        if color == 0:
            largest = max(k % 3 + 1 for k in range(12) if fleet[k])
            n += sum(1 for seat in range(state.players) if seat != me
                     for k in range(12) if s.ships[seat][k] and k % 3 + 1 <= largest)
        elif color == 1:
            links = sum(1 for d in state.systems if d is not s and s.connected_to(d))
            n += kinds * (links + bank_kinds)
        elif color == 2:
            n += sum(1 for c in range(4) if any(fleet[c * 3:c * 3 + 3]))
        else:
            n += kinds * 3
    return n


__all__ = ["FREE_KINDS", "CandidateSet", "candidate_successors", "sacrifice_groups"]
