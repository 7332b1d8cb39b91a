"""Hand-built positions and frame accessors for the hint renderer's tests."""

from __future__ import annotations

from dataclasses import dataclass

from homeworlds.hints import HintSettings, HintView
from homeworlds.pixels import RGB, Frame
from homeworlds.rules import DEFAULT_PRESET, GameState, Piece, preset
from homeworlds.table.layout import Layout, builtin_layout

LAYOUT = builtin_layout("standard-2p")
SETTINGS = HintSettings()
OFF: RGB = (0, 0, 0)

# Default colours written out, so that tests state what a user would see.
SEAT0 = (0, 150, 255)
SEAT1 = (170, 0, 255)
RED = (255, 0, 0)
YELLOW = (255, 170, 0)
GREEN = (0, 255, 140)
BLUE = (0, 60, 255)
WHITE = (255, 255, 255)
AMBER = (255, 100, 0)


def lit(color: RGB, level: float) -> RGB:
    return tuple(round(c * level) for c in color)  # type: ignore[return-value]


@dataclass(frozen=True)
class SystemSpec:
    """What ``GameState.from_position`` needs to know of one system."""

    name: str
    home_of: int | None
    stars: tuple[Piece, ...]
    ships: tuple[tuple[Piece, ...], ...]


def pieces(text: str) -> tuple[Piece, ...]:
    """``"y1b2"`` -> (y1, b2)."""
    return tuple(Piece.from_text(text[i:i + 2]) for i in range(0, len(text), 2))


def system(name: str, stars: str, *fleets: str, home_of: int | None = None) -> SystemSpec:
    """``system("Alice", "b1y2", "g3y1", "", home_of=0)``: stars, then each seat's ships."""
    return SystemSpec(name, home_of, pieces(stars), tuple(pieces(f) for f in fleets))


def position(*specs: SystemSpec, rules: str = DEFAULT_PRESET, to_move: int = 0,
             players: int = 2) -> GameState:
    padded = [SystemSpec(s.name, s.home_of, s.stars,
                         s.ships + ((),) * (players - len(s.ships))) for s in specs]
    from homeworlds.rules import deal_alignments

    alignments = deal_alignments(players, seed=0) if rules == "good-evil" else None
    return GameState.from_position(padded, preset(rules), to_move, players, alignments)


def ring(frame: Frame, slot: int, layout: Layout = LAYOUT) -> tuple[RGB, ...]:
    return tuple(frame[i] for i in layout.slots[slot].ring)


def bar(frame: Frame, seat: int, layout: Layout = LAYOUT) -> tuple[RGB, ...]:
    return tuple(frame[i] for i in layout.seats[seat].bar)


def view(**fields) -> HintView:
    return HintView(LAYOUT, **fields)


# The mid-game position most tests use, and where its systems lie:
#   slot 3  Alice, seat 0's home: b1 y2 (sizes 1, 2); seat 0 has g3 and y1 there
#   slot 10 Bob, seat 1's home: r1 g3 (sizes 1, 3); seat 1 has b3
#   slot 5  Alpha: g3 (size 3), seat 0's r1 - no yellow          -> connected to Alice
#   slot 1  Beta: b2 (size 2), seat 0's b1                         -> not connected to Alice
#   slot 12 Gamma: b3 (size 3), seat 0's y1 (a yellow ship)        -> connected to Alice
#   slot 8  Delta: r3, seat 0's g1 g2, seat 1's g1 g2: four greens -> overpopulated,
#           and connected to Alice
MIDGAME = (
    system("Alice", "b1y2", "g3y1", "", home_of=0),
    system("Bob", "r1g3", "", "b3", home_of=1),
    system("Alpha", "g3", "r1", ""),
    system("Beta", "b2", "b1", ""),
    system("Gamma", "b3", "y1", ""),
    system("Delta", "r3", "g1g2", "g1g2"),
)
MIDGAME_SLOTS = {3: "Alice", 10: "Bob", 5: "Alpha", 1: "Beta", 12: "Gamma", 8: "Delta"}
EMPTY_SLOTS = tuple(s for s in range(14) if s not in MIDGAME_SLOTS)


def midgame(rules: str = DEFAULT_PRESET) -> GameState:
    return position(*MIDGAME, rules=rules)
