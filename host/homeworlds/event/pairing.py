"""Pairings of an event's rounds, and its standings (pure functions; docs/event.md,
"Rounds and results").

Round robin: the circle method (one player stays, the others turn round), a bye when the
number of players is odd. Swiss: players by score (then by name, for a stable order), each
paired with the nearest in score they have not played yet (backtracking when the greedy
choice leaves someone without a partner); with an odd number, the lowest-placed player who
has not had a bye gets it. A win scores 1, a draw ½ each, a bye 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Pair = tuple[str, str | None]  # (player, opponent); None: a bye


class PairingError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Outcome:
    """One finished pairing: ``winner`` None is a draw; ``b`` None a bye."""

    a: str
    b: str | None
    winner: str | None


def round_robin(players: Sequence[str]) -> list[list[Pair]]:
    """Every round of a round robin: each player meets every other exactly once."""
    _check_names(players)
    if len(players) < 2:
        raise PairingError("a round robin needs at least two players")
    circle: list[str | None] = list(players)
    if len(circle) % 2:
        circle.append(None)
    n = len(circle)
    rounds = []
    for _ in range(n - 1):
        pairs: list[Pair] = []
        for k in range(n // 2):
            a, b = circle[k], circle[n - 1 - k]
            if a is None:
                a, b = b, None
            assert a is not None
            pairs.append((a, b))
        rounds.append(sorted(pairs, key=lambda p: p[1] is None))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return rounds


def scores(players: Iterable[str], outcomes: Iterable[Outcome]) -> dict[str, float]:
    table = {p: 0.0 for p in players}
    for o in outcomes:
        if o.b is None:
            table[o.a] = table.get(o.a, 0.0) + 1.0
        elif o.winner is None:
            table[o.a] = table.get(o.a, 0.0) + 0.5
            table[o.b] = table.get(o.b, 0.0) + 0.5
        else:
            table[o.winner] = table.get(o.winner, 0.0) + 1.0
    return table


def standings(players: Iterable[str], outcomes: Sequence[Outcome]) -> list[tuple[str, float]]:
    table = scores(players, outcomes)
    return sorted(table.items(), key=lambda kv: (-kv[1], kv[0].casefold()))


def buchholz(players: Iterable[str], outcomes: Sequence[Outcome]) -> dict[str, float]:
    """Each player's Buchholz score, the usual first tie-break of a Swiss event: the sum
    of the scores of the opponents met (a bye adds nothing)."""
    table = scores(players, outcomes)
    out = {p: 0.0 for p in table}
    for o in outcomes:
        if o.b is None:
            continue
        out[o.a] = out.get(o.a, 0.0) + table.get(o.b, 0.0)
        out[o.b] = out.get(o.b, 0.0) + table.get(o.a, 0.0)
    return out


def standings_with_tiebreak(players: Iterable[str], outcomes: Sequence[Outcome]
                            ) -> list[tuple[str, float, float]]:
    """(player, points, Buchholz), best first: by points, then Buchholz, then name."""
    table = scores(players, outcomes)
    tie = buchholz(table, outcomes)
    return sorted(((p, s, tie[p]) for p, s in table.items()),
                  key=lambda row: (-row[1], -row[2], row[0].casefold()))


def swiss(players: Sequence[str], outcomes: Sequence[Outcome]) -> list[Pair]:
    """The next Swiss round: no pair that already met, at most one bye per player."""
    _check_names(players)
    if len(players) < 2:
        raise PairingError("a Swiss round needs at least two players")
    met = {frozenset((o.a, o.b)) for o in outcomes if o.b is not None}
    had_bye = {o.a for o in outcomes if o.b is None}
    order = [name for name, _ in standings(players, outcomes)]
    bye: str | None = None
    if len(order) % 2:
        bye = next((p for p in reversed(order) if p not in had_bye), None)
        if bye is None:
            raise PairingError("every player has had a bye: the event has run its rounds")
        order.remove(bye)
    pairs = _pair(order, met)
    if pairs is None:
        raise PairingError("no pairing avoids a repeat: every remaining pairing was played "
                           "(the event has run its rounds)")
    return pairs + ([(bye, None)] if bye is not None else [])


def _pair(order: list[str], met: set[frozenset]) -> list[Pair] | None:
    if not order:
        return []
    first, rest = order[0], order[1:]
    for k, other in enumerate(rest):
        if frozenset((first, other)) in met:
            continue
        tail = _pair(rest[:k] + rest[k + 1:], met)
        if tail is not None:
            return [(first, other), *tail]
    return None


def _check_names(players: Sequence[str]) -> None:
    seen: set[str] = set()
    for p in players:
        key = p.casefold()
        if not p.strip():
            raise PairingError("an empty player name")
        if key in seen:
            raise PairingError(f"{p!r} is named twice")
        seen.add(key)
