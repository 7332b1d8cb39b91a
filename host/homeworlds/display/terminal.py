"""Plain-text rendering of a game position for terminals and logs."""

from __future__ import annotations

from homeworlds.rules import PIECES, GameState

_ANSI = {0: "\x1b[31m", 1: "\x1b[33m", 2: "\x1b[32m", 3: "\x1b[34m"}
_RESET = "\x1b[0m"


def piece_text(index: int, color: bool) -> str:
    text = PIECES[index].to_text()
    return f"{_ANSI[index // 3]}{text}{_RESET}" if color else text


def render_position(state: GameState, players: tuple[str, ...], *, color: bool = False) -> str:
    """Systems (stars, ships by owner), then the bank, one item per line."""
    width = max((len(s.name) for s in state.systems), default=4)
    lines = []
    for s in state.systems:
        stars = " ".join(piece_text(i, color) for i in s.stars)
        tag = f"home of {players[s.home_of]}" if s.home_of is not None else ""
        fleets = []
        for seat in range(state.players):
            fleet = s.ships[seat]
            pieces = [piece_text(i, color) for i in range(12) for _ in range(fleet[i])]
            if pieces:
                fleets.append(f"{players[seat]}: {' '.join(pieces)}")
        lines.append(f"  {s.name:<{width}}  [{stars}] {tag}".rstrip())
        lines.append(f"  {'':<{width}}    " + ("; ".join(fleets) or "(no ships)"))
    bank = []
    for i in range(12):
        if state.bank[i]:
            bank.append(f"{piece_text(i, color)}×{state.bank[i]}")
    lines.append("  bank: " + (" ".join(bank) or "empty"))
    return "\n".join(lines)
