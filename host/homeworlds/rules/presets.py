"""Rule flags and the named presets that bundle them.

Every flag is documented, with the rulebook sentence it comes from, in
docs/rules.md. A preset is an immutable ``Rules`` value; variants are made
with ``dataclasses.replace``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from homeworlds.rules.pieces import ICEHOUSE_SET_COPIES, TWO_PLAYER_COPIES

#: The ways of sizing the bank (``Rules.bank``).
BANK_RULES = ("trio-per-player", "icehouse-set")


@dataclass(frozen=True, slots=True)
class Handicaps:
    """The rulebook's novice handicaps, usable with any two-player preset."""

    #: Second Turn Timewarp: the junior seat takes this many bonus turns after setup.
    timewarp_turns: int = 0
    #: Red Alert: warn a player whose opponent has a turn that eliminates them.
    red_alert: bool = False
    #: Brain Transference: the junior seat may once, instead of a turn, swap sides.
    brain_transference: bool = False
    #: Which seat is the junior player (the handicapped side gets the help).
    junior_seat: int = 1


@dataclass(frozen=True, slots=True)
class Rules:
    name: str
    description: str
    #: Ship sizes allowed for the ship placed at setup.
    setup_ship_sizes: frozenset[int] = frozenset({1, 2, 3})
    #: A homeworld of a single star (the SDG handicap) is allowed at setup.
    setup_single_star: bool = False
    #: "whole": each seat places two stars and a ship in one turn;
    #: "alternating": six single picks (P1 star, P2 star, P1 star, P2 star, P1 ship, P2 ship).
    setup_mode: str = "whole"
    #: When a player may trigger a catastrophe in their own turn:
    #: "anytime", "ends" (only before the first or after the last other action),
    #: "after" (only after the turn's other actions).
    catastrophe_timing: str = "anytime"
    #: Overpopulation may be declared by any player at any time, not only by the mover
    #: (``Catastrophe.declarer``: a seat not to move, inside the turn it is declared in).
    catastrophe_by_any_player: bool = False
    #: A home may hold none of its owner's ships (or no ships at all) mid-turn: it stays on
    #: the board until the turn ends, and its owner survives if it is re-occupied by then.
    #: When False, emptying your own home is suicide and another's empty home is gone at once.
    home_may_be_empty_midturn: bool = True
    #: Ending your own turn eliminated (no ship at home, no home star) is legal and loses;
    #: when False such a turn is illegal.
    self_elimination_allowed: bool = True
    #: "end-of-turn": eliminations are checked when a turn ends;
    #: "immediate": the game ends the moment a player has no ship at home or no home star.
    elimination_check: str = "end-of-turn"
    #: A player may pass a whole turn; when False a turn must take a basic action or a
    #: sacrifice (a turn of catastrophes only is refused too).
    whole_turn_pass: bool = True
    #: While setup is unfinished a player may pass instead of placing a homeworld.
    setup_pass: bool = False
    #: The C++ engine refuses a winning turn after which performing every pending
    #: catastrophe would also destroy the mover's home.
    post_catastrophe_suicide_check: bool = False
    #: Who wins: "eliminate-opponent" (two players), "last-standing", "sinister",
    #: "good-evil".
    goal: str = "eliminate-opponent"
    min_players: int = 2
    max_players: int = 2
    #: Both players may agree to a draw when the game is deadlocked.
    draw_by_agreement: bool = True
    #: How large the bank is beyond two players (three of each colour-size for two):
    #: "trio-per-player", one more trio of each colour per extra player (000: "For each
    #: additional player, you need another Trio of each color."); "icehouse-set", a
    #: standard four-colour Icehouse set, five of each (002/004: "A standard four-color
    #: Icehouse set (for atwo-player game, use three pieces of each size/color)").
    bank: str = "trio-per-player"
    handicaps: Handicaps = field(default_factory=Handicaps)

    def __post_init__(self) -> None:
        if self.bank not in BANK_RULES:
            raise ValueError(f"unknown bank rule {self.bank!r} for the {self.name} rules; "
                             f"bank rules: {', '.join(BANK_RULES)}")

    def bank_copies(self, players: int) -> int:
        """Pieces of each colour-size in the bank at the start of a game of ``players``."""
        if players <= 2:
            return TWO_PLAYER_COPIES
        if self.bank == "icehouse-set":
            return ICEHOUSE_SET_COPIES
        return players + 1

    def bank_pieces(self, players: int) -> int:
        """Pieces the whole bank holds at the start (what a table's bank tray must hold)."""
        return 12 * self.bank_copies(players)

    def with_handicaps(self, **options: Any) -> Rules:
        return replace(self, handicaps=replace(self.handicaps, **options))


LOONEY = Rules(
    name="looney",
    description="Looney Labs rules (Pyramid Quartet 2020, Board Game Arena): the table default",
    setup_ship_sizes=frozenset({3}),
)

SDG = Rules(
    name="sdg",
    description="SuperDuperGames archive rules: any ship size and single-star homes at setup",
    setup_single_star=True,
    setup_pass=True,
)

STRICT = Rules(
    name="strict",
    description="The C++ engine Quuxplusone/Homeworlds: catastrophes only at the ends of a "
    "turn, no abandoning your home mid-turn, no suicide",
    setup_single_star=True,
    catastrophe_timing="ends",
    home_may_be_empty_midturn=False,
    self_elimination_allowed=False,
    post_catastrophe_suicide_check=True,
)

ALTERNATING_SETUP = Rules(
    name="alternating-setup",
    description="Formal-rules variant: six alternating setup picks, overpopulation declared by "
    "either player at any time, the game ends the moment a home is lost, no pass",
    setup_mode="alternating",
    catastrophe_by_any_player=True,
    elimination_check="immediate",
    whole_turn_pass=False,
)

GOOD_EVIL = Rules(
    name="good-evil",
    description="Original 2-6 player rules: secret Good/Evil alignments (dealt with "
    "rules.alignments.deal_alignments), a standard four-colour Icehouse set as the bank, "
    "catastrophes only after your action, never end a turn without a ship at home",
    catastrophe_timing="after",
    self_elimination_allowed=False,
    goal="good-evil",
    max_players=6,
    bank="icehouse-set",
)

LAST_STANDING = Rules(
    name="last-standing",
    description="Multi-player: the last player with a home wins (SDG turn rules)",
    setup_single_star=True,
    setup_pass=True,
    goal="last-standing",
    max_players=6,
)

SINISTER = Rules(
    name="sinister",
    description="Sinister Homeworlds: you win by eliminating the player on your left; if another "
    "player eliminates them, your target becomes your new left neighbour (SDG turn rules)",
    setup_single_star=True,
    setup_pass=True,
    goal="sinister",
    min_players=3,
    max_players=6,
)

LEFT_MAN_DOWN = Rules(
    name="left-man-down",
    description="SDG 'Left man down': no published definition survives; implemented with the "
    "Sinister goal, which every archive game of the variant agrees with (docs/rules.md)",
    setup_single_star=True,
    setup_pass=True,
    goal="sinister",
    min_players=3,
    max_players=6,
)

PRESETS: dict[str, Rules] = {
    r.name: r
    for r in (LOONEY, SDG, STRICT, ALTERNATING_SETUP, GOOD_EVIL, LAST_STANDING, SINISTER,
              LEFT_MAN_DOWN)
}

DEFAULT_PRESET = "looney"


def preset(name: str) -> Rules:
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ValueError(f"unknown rules preset {name!r}; known presets: {known}") from None
