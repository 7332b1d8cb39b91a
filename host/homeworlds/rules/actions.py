"""Actions and turns: immutable values, independent of any position.

Systems are named by their display name; the engine matches names without
regard to case (SDG transcripts spell the same system ``MatrixFrog`` and
``Matrixfrog``). Ownership is by seat index, 0 = the player who set up first.
A turn is a tuple of actions; a whole-turn pass is ``(Pass(),)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from homeworlds.rules.pieces import Color, Piece


@dataclass(frozen=True, slots=True)
class Homeworld:
    """Setup: one or two stars and one ship. ``name`` is the new home's name."""

    stars: tuple[Piece, ...]
    ship: Piece
    name: str

    def __str__(self) -> str:
        return f"homeworld {' '.join(map(str, self.stars))} {self.ship} {self.name}"


@dataclass(frozen=True, slots=True)
class SetupPick:
    """Alternating setup: one star or the ship, picked singly. ``role``: "star" or "ship"."""

    piece: Piece
    role: str
    name: str

    def __str__(self) -> str:
        return f"pick {self.role} {self.piece} for {self.name}"


@dataclass(frozen=True, slots=True)
class BrainTransference:
    """Handicap: instead of a turn, the junior player swaps sides with the senior player."""

    def __str__(self) -> str:
        return "brain transference"


@dataclass(frozen=True, slots=True)
class Build:
    piece: Piece
    system: str

    def __str__(self) -> str:
        return f"build {self.piece} at {self.system}"


@dataclass(frozen=True, slots=True)
class Move:
    piece: Piece
    origin: str
    destination: str

    def __str__(self) -> str:
        return f"move {self.piece} from {self.origin} to {self.destination}"


@dataclass(frozen=True, slots=True)
class Discover:
    """A move to a new system whose star comes from the bank."""

    piece: Piece
    origin: str
    star: Piece
    name: str

    def __str__(self) -> str:
        return f"discover {self.star} {self.name} with {self.piece} from {self.origin}"


@dataclass(frozen=True, slots=True)
class Trade:
    old: Piece
    new: Piece
    system: str

    def __str__(self) -> str:
        return f"trade {self.old} for {self.new} at {self.system}"


@dataclass(frozen=True, slots=True)
class Capture:
    """Take an enemy ship. ``owner`` None: the only opponent who has one there."""

    piece: Piece
    system: str
    owner: int | None = None

    def __str__(self) -> str:
        whose = "" if self.owner is None else f" of seat {self.owner}"
        return f"capture {self.piece}{whose} at {self.system}"


@dataclass(frozen=True, slots=True)
class Sacrifice:
    piece: Piece
    system: str

    def __str__(self) -> str:
        return f"sacrifice {self.piece} at {self.system}"


@dataclass(frozen=True, slots=True)
class Catastrophe:
    """Clear an overpopulated colour. ``declarer`` None: the player to move declares it;
    a seat not to move may declare one only where the rules let either player do so."""

    system: str
    color: Color
    declarer: int | None = None

    def __str__(self) -> str:
        who = "" if self.declarer is None else f" declared by seat {self.declarer}"
        return f"catastrophe {self.color.to_text()} at {self.system}{who}"


@dataclass(frozen=True, slots=True)
class Pass:
    """A whole-turn pass, or inside a sacrifice an action given up."""

    def __str__(self) -> str:
        return "pass"


Action = (Homeworld | SetupPick | BrainTransference | Build | Move | Discover | Trade | Capture
          | Sacrifice | Catastrophe | Pass)
Turn = tuple[Action, ...]

#: Which colour's power an action uses (None: no power, e.g. a catastrophe).
POWER_OF = {Capture: Color.RED, Move: Color.YELLOW, Discover: Color.YELLOW,
            Build: Color.GREEN, Trade: Color.BLUE}
