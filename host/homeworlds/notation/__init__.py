"""Game notation: SDG transcripts and the C++ engine's "cooked" text (syntax only).

Readers turn text into the action values of ``homeworlds.rules.actions``;
writers turn them back. Legality is the rules engine's business: a reader
only rejects text that is not well-formed (``InvalidNotation``, naming the
source and line).
"""

from homeworlds.notation.cooked import (
    CookedGame,
    CookedSystem,
    format_cooked_action,
    format_cooked_turn,
    parse_cooked_turn,
    read_cooked,
    read_cooked_file,
    write_cooked,
    write_position,
)
from homeworlds.notation.sdg import (
    SdgGame,
    SdgTurn,
    format_sdg_action,
    parse_sdg_action,
    read_sdg,
    read_sdg_file,
    sdg_game,
    write_sdg,
)

__all__ = [
    "CookedGame",
    "CookedSystem",
    "SdgGame",
    "SdgTurn",
    "format_cooked_action",
    "format_cooked_turn",
    "format_sdg_action",
    "parse_cooked_turn",
    "parse_sdg_action",
    "read_cooked",
    "read_cooked_file",
    "read_sdg",
    "read_sdg_file",
    "sdg_game",
    "write_cooked",
    "write_position",
    "write_sdg",
]
