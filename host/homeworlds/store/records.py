"""What the store keeps of a game, as text: turns in SDG notation, positions as JSON.

A turn is the SDG text of its actions, one per line (``Build G1 Ann``), read back with
the game's players (captures with three or more players name the owner's seat letter,
as in an SDG file). A position is a JSON object::

    {"to_move": 1, "over": false, "winners": [],
     "systems": [{"name": "Ann", "home_of": 0, "stars": ["y1", "b2"],
                  "ships": [["g3"], []]}, ...]}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from homeworlds.notation.sdg import format_sdg_action, parse_sdg_action, sdg_game
from homeworlds.rules.actions import Turn
from homeworlds.rules.pieces import PIECES
from homeworlds.rules.state import GameState


def _letters(players: Sequence[str]) -> dict[int, str] | None:
    if len(players) <= 2:
        return None
    participants = dict(sdg_game(players, []).participants)
    return {seat: participants[name] for seat, name in enumerate(players)}


def turn_to_sdg(turn: Turn, players: Sequence[str]) -> str:
    letters = _letters(players)
    return "\n".join(format_sdg_action(a, seat_letters=letters) for a in turn)


def turn_from_sdg(text: str, seat: int, players: Sequence[str]) -> Turn:
    letters = _letters(players)
    seats = {letter: s for s, letter in letters.items()} if letters else None
    return tuple(parse_sdg_action(line, player=players[seat], seats=seats)
                 for line in text.splitlines() if line.strip())


def position_to_json(state: GameState) -> dict[str, Any]:
    systems = []
    for s in state.systems:
        systems.append({
            "name": s.name, "home_of": s.home_of,
            "stars": [PIECES[i].to_text() for i in s.stars],
            "ships": [[PIECES[i].to_text() for i in range(12) for _ in range(fleet[i])]
                      for fleet in s.ships],
        })
    result = state.result
    return {"to_move": state.to_move, "systems": systems, "over": result is not None,
            "winners": list(result.winners) if result is not None else [],
            "result": result.kind if result is not None else None}
