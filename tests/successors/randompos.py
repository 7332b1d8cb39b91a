"""Small random positions (seeded) for checking the fast search against the oracle."""

from __future__ import annotations

import random

from homeworlds.notation import CookedSystem
from homeworlds.rules import PIECES, GameState, Rules, deal_alignments


def random_position(rng: random.Random, rules: Rules, players: int = 2, *,
                    systems: int = 2, ships: int = 6, crowd: float = 0.3) -> GameState:
    """A legal-looking position after setup: every seat has a home with a ship of its own.

    ``crowd`` is the chance of piling one colour into a system (overpopulations).
    """
    copies = rules.bank_copies(players)
    bank = {p: copies for p in PIECES}

    def take(choices=None):
        pool = [p for p in (choices or PIECES) if bank[p]]
        if not pool:
            return None
        p = rng.choice(pool)
        bank[p] -= 1
        return p

    specs = []
    for seat in range(players):
        n_stars = 1 if rng.random() < 0.15 else 2
        stars = [take() for _ in range(n_stars)]
        if n_stars == 2 and stars[0].size == stars[1].size and rng.random() < 0.7:
            bank[stars[1]] += 1
            stars[1] = take([p for p in PIECES if p.size != stars[0].size])
        fleets = [[] for _ in range(players)]
        fleets[seat].append(take())
        specs.append([f"Home{seat}", seat, stars, fleets])
    for n in range(systems):
        fleets = [[] for _ in range(players)]
        fleets[rng.randrange(players)].append(take())
        specs.append([f"Sys{n}", None, [take()], fleets])
    for _ in range(ships):
        spec = rng.choice(specs)
        owner = rng.randrange(players)
        if rng.random() < crowd:
            color = rng.choice(spec[2]).color
            p = take([q for q in PIECES if q.color == color])
        else:
            p = take()
        if p is not None:
            spec[3][owner].append(p)
    out = []
    for name, home, stars, fleets in specs:
        stars = [s for s in stars if s is not None]
        out.append(CookedSystem(name, home, tuple(stars), tuple(tuple(f) for f in fleets)))
    to_move = rng.randrange(players)
    alignments = deal_alignments(players, seed=0) if rules.goal == "good-evil" else None
    return GameState.from_position(out, rules, to_move=to_move, players=players,
                                   alignments=alignments)
