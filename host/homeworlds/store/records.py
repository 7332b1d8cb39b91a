"""What the store keeps of a game, as text: turns in SDG notation, positions as JSON (and
a position as cooked text, for displays and the cooked export).

A turn is the SDG text of its actions, one per line (``Build G1 Ann``), read back with
the game's players (captures with three or more players name the owner's seat letter,
as in an SDG file). SDG has no words for the single picks of the alternating setup; the
store writes them ``Setup star Y1`` / ``Setup ship G3``. A position is a JSON object::

    {"to_move": 1, "over": false, "winners": [],
     "systems": [{"name": "Ann", "home_of": 0, "stars": ["y1", "b2"],
                  "ships": [["g3"], []]}, ...]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from homeworlds.notation import (
    CookedSystem,
    format_sdg_action,
    parse_sdg_action,
    sdg_game,
    write_position,
)
from homeworlds.notation.cooked import parse_pieces
from homeworlds.rules import PIECES, Action, GameState, Piece, SetupPick, Turn


def _letters(players: Sequence[str]) -> dict[int, str] | None:
    if len(players) <= 2:
        return None
    participants = dict(sdg_game(players, []).participants)
    return {seat: participants[name] for seat, name in enumerate(players)}


def turn_to_sdg(turn: Turn, players: Sequence[str]) -> str:
    letters = _letters(players)
    return "\n".join(f"Setup {a.role} {a.piece.to_text().upper()}" if isinstance(a, SetupPick)
                     else format_sdg_action(a, seat_letters=letters, players=players)
                     for a in turn)


def turn_from_sdg(text: str, seat: int, players: Sequence[str]) -> Turn:
    letters = _letters(players)
    seats = {letter: s for s, letter in letters.items()} if letters else None
    out: list[Action] = []
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "Setup" and len(words) == 3 and words[1] in ("star", "ship"):
            out.append(SetupPick(Piece.from_text(words[2].lower()), words[1], players[seat]))
        else:
            out.append(parse_sdg_action(line, player=players[seat], seats=seats,
                                        players=players))
    return tuple(out)


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


def cooked_systems(position: Mapping[str, Any]) -> tuple[CookedSystem, ...] | None:
    """The systems of a stored position (``position_to_json``) in the cooked format; None
    when the position seats more than two players, which the format cannot say (a system
    names its owner 0 or 1 and holds two fleets, ``ships0-ships1``: docs/notation.md), or
    is not a position. Dropping the other seats' ships and homes would show a wrong one."""
    try:
        systems = []
        for s in position["systems"]:
            fleets = s["ships"]
            if len(fleets) != 2:
                return None
            systems.append(CookedSystem(
                s["name"], s["home_of"], parse_pieces("".join(s["stars"])),
                (parse_pieces("".join(fleets[0])), parse_pieces("".join(fleets[1])))))
        return tuple(systems)
    except (KeyError, TypeError, ValueError):
        return None


def cooked_position(position: Mapping[str, Any]) -> str | None:
    """A stored position as cooked text (``notation.cooked.write_position``); None as for
    ``cooked_systems``. A ``GameState``: ``cooked_position(position_to_json(state))``."""
    systems = cooked_systems(position)
    return None if systems is None else write_position(systems)
