"""The pure rules engine (no I/O). See docs/rules.md.

Everything a caller outside the engine needs is importable from here::

    from homeworlds.rules import GameState, TurnInProgress, preset, legal_actions

The submodules are the engine's own layout: ``pieces``, ``actions``, ``errors``
(value types), ``presets`` (rule flags), ``state`` (``GameState`` and
``TurnInProgress``, the one authority on legality), and what is derived from it:
``moves`` (the next legal actions), ``successors`` and ``winning`` (whole-turn
search), ``inference`` (which turn explains a board), ``partial`` (turns with
parts left out). ``alignments`` deals and checks the Good/Evil variant's secret roles.
``fast`` is the search's internal position encoding; of it only ``SignatureLayout`` and
``layout_for`` are public, to read the system signatures in a ``Successor``'s key.

One key says whether two positions are the same whatever their systems are called:
``canonical_key`` (each seat's home as that seat's, the other systems as a multiset).
Inference keeps a cheaper board key of its own for comparing with what the table sees,
which knows no homes (``rules.inference``).
"""

from homeworlds.rules.actions import (
    POWER_OF,
    Action,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Discover,
    Homeworld,
    Move,
    Pass,
    Sacrifice,
    SetupPick,
    Trade,
    Turn,
)
from homeworlds.rules.alignments import (
    Alignment,
    AlignmentError,
    Alignments,
    alignment_counts,
    alignments_from_text,
    alignments_to_text,
    check_alignments,
    deal_alignments,
)
from homeworlds.rules.errors import (
    AmbiguousAction,
    HomeworldsError,
    IllegalAction,
    IllegalTurn,
    InvalidNotation,
)
from homeworlds.rules.fast import SignatureLayout, canonical_key, layout_for
from homeworlds.rules.inference import (
    InferenceResult,
    ObservedSystem,
    PartialResult,
    SystemDifference,
    explain_partial,
    infer_turn,
)
from homeworlds.rules.moves import fresh_system_name, legal_actions
from homeworlds.rules.partial import ActionPattern, match_partial_turn, parse_partial_turn
from homeworlds.rules.pieces import (
    HOME_STARS,
    ICEHOUSE_SET_COPIES,
    OVERPOPULATION,
    PIECES,
    TWO_PLAYER_COPIES,
    Color,
    Piece,
    Size,
)
from homeworlds.rules.presets import DEFAULT_PRESET, PRESETS, Handicaps, Rules, preset
from homeworlds.rules.state import GameResult, GameState, System, TurnInProgress
from homeworlds.rules.successors import (
    FIRST_KINDS,
    SearchInterrupted,
    Successor,
    count_successors,
    each_successor,
    successor_keys,
    successors,
)
from homeworlds.rules.winning import (
    find_home_star_turn,
    find_material_turn,
    find_winning_turn,
    has_winning_turn,
    red_alert,
)

__all__ = [
    # value types
    "Action", "BrainTransference", "Build", "Capture", "Catastrophe", "Color", "Discover",
    "Homeworld", "Move", "PIECES", "POWER_OF", "Pass", "Piece", "Sacrifice", "SetupPick",
    "Size", "Trade", "Turn",
    # the rules' numbers
    "HOME_STARS", "ICEHOUSE_SET_COPIES", "OVERPOPULATION", "TWO_PLAYER_COPIES",
    # errors
    "AmbiguousAction", "HomeworldsError", "IllegalAction", "IllegalTurn", "InvalidNotation",
    # rule flags and presets
    "DEFAULT_PRESET", "Handicaps", "PRESETS", "Rules", "preset",
    # Good/Evil alignments (secret per-seat roles dealt at setup)
    "Alignment", "AlignmentError", "Alignments", "alignment_counts", "alignments_from_text",
    "alignments_to_text", "check_alignments", "deal_alignments",
    # positions and the legality authority
    "GameResult", "GameState", "System", "TurnInProgress", "canonical_key",
    # reading the system signatures in a Successor's key (the AI's evaluation)
    "SignatureLayout", "layout_for",
    # derived from the authority
    "fresh_system_name", "legal_actions",
    "FIRST_KINDS", "SearchInterrupted", "Successor", "count_successors", "each_successor",
    "successor_keys", "successors",
    "find_home_star_turn", "find_material_turn", "find_winning_turn", "has_winning_turn",
    "red_alert",
    "InferenceResult", "ObservedSystem", "PartialResult", "SystemDifference",
    "explain_partial", "infer_turn",
    "ActionPattern", "match_partial_turn", "parse_partial_turn",
]
