"""Setup: which homeworld the computer builds, and fixed openings for matches.

Common opening advice, which the computer follows:
- two stars of *different* sizes (a home with two stars of one size is
  connected to more systems and so easier to reach);
- green, blue and yellow within reach at home — the classic "banker" home is
  a blue and a yellow star with a large green ship: it can build, trade and
  move from the first turn;
- star sizes different from the opponent's pair when they already chose
  (a "large universe": the homes are three jumps apart instead of two, so
  neither side can rush the other).
"""

from __future__ import annotations

import random

from homeworlds.rules import GameState, Homeworld, Piece, SetupPick

#: (star colours, ship colour) the computer likes, best first.
_COLOR_PLANS = (("y", "b", "g"), ("b", "y", "g"), ("g", "b", "y"), ("y", "g", "b"))
_SIZE_PAIRS = ((1, 2), (1, 3), (2, 3), (2, 1), (3, 1), (3, 2))

#: Standard two-player openings for matches: the first and the second home (stars, ship).
OPENINGS: tuple[tuple[str, str], ...] = (
    ("y1 b2 g3", "b1 y3 g3"),
    ("b1 y2 g3", "y1 b3 g3"),
    ("y1 b2 g3", "y2 b1 g3"),
    ("g1 b2 y3", "b1 y3 g3"),
    ("b2 y3 g3", "y1 b2 g3"),
    ("y2 g1 b3", "b1 y3 g3"),
)


def opening_homeworld(text: str, name: str) -> Homeworld:
    """``"y1 b2 g3"``: two stars then the ship."""
    pieces = [Piece.from_text(word) for word in text.split()]
    if len(pieces) not in (2, 3):
        raise ValueError(f"an opening is one or two stars and a ship, not {text!r}")
    return Homeworld(tuple(pieces[:-1]), pieces[-1], name)


def choose_homeworld(state: GameState, name: str, rng: random.Random) -> Homeworld:
    """A sound homeworld for the player to move, available in the bank."""
    for stars, ship in _candidate_homes(state, rng):
        need = [p.index for p in stars] + [ship.index]
        if all(state.bank[i] >= need.count(i) for i in need):
            return Homeworld(stars, ship, name)
    raise ValueError("no homeworld can be built from the bank")  # cannot happen with 3 copies


def choose_setup_pick(state: GameState, name: str, rng: random.Random) -> SetupPick:
    """Alternating setup: the next single pick (star, star, then ship) towards a plan."""
    me = state.to_move
    home = state.home_of(me)
    have = list(home.stars) if home is not None else []
    for stars, ship in _candidate_homes(state, rng, placed=have):
        if len(have) < 2:
            piece = stars[len(have)]
            if state.bank[piece.index]:
                return SetupPick(piece, "star", name)
        elif state.bank[ship.index]:
            return SetupPick(ship, "ship", name)
    raise ValueError("no setup pick is available")


def _candidate_homes(state: GameState, rng: random.Random, placed: list[int] | None = None):
    me = state.to_move
    ship_size = max(state.rules.setup_ship_sizes)
    theirs: set[int] = set()
    for s in state.systems:
        if s.home_of is not None and s.home_of != me:
            theirs = {i % 3 + 1 for i in s.stars}
    pairs = list(_SIZE_PAIRS)
    rng.shuffle(pairs)
    # Different sizes from the opponent's pair first (large universe).
    pairs.sort(key=lambda pair: set(pair) == theirs and len(theirs) == 2)
    plans = list(_COLOR_PLANS)
    # Mostly the best plan, sometimes another one, for variety between games.
    if rng.random() < 0.3:
        rng.shuffle(plans)
    placed = placed or []
    for colors in plans:
        for a, b in pairs:
            stars = (Piece.from_text(f"{colors[0]}{a}"), Piece.from_text(f"{colors[1]}{b}"))
            if [p.index for p in stars[:len(placed)]] != placed:
                continue
            yield stars, Piece.from_text(f"{colors[2]}{ship_size}")
    # Whatever the bank still allows, for exotic bank states (picks already made).
    for a in range(12):
        for b in range(12):
            if a % 3 == b % 3:
                continue
            stars = (Piece.from_index(a), Piece.from_index(b))
            if [p.index for p in stars[:len(placed)]] != placed:
                continue
            for ship in range(12):
                if ship % 3 + 1 == ship_size:
                    yield stars, Piece.from_index(ship)
