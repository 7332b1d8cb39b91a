"""The game clocks as text, for any display (the terminal, the demo, the play log).

One small function per use, so that a display only decides where the text goes:
``seat_clock_text`` for one seat (``4:48``, ``0:07.3``, ``FLAG``), ``clocks_text`` for the
whole line (``clocks: Ann 4:48 ◂ | Bob 5:00``, with the pause reason while paused).
"""

from __future__ import annotations

from collections.abc import Sequence

from homeworlds.clock import PAUSE_TEXT, GameClocks, format_clock

#: Marks the running clock (the seat to move).
RUNNING_MARK = "◂"


def seat_clock_text(clocks: GameClocks, seat: int, now: float) -> str:
    """One seat's clock: its time left, ``FLAG`` once its flag fell; a player who left the
    game: the time they had, and ``(left)``."""
    if seat in clocks.departed:
        return f"{format_clock(clocks.remaining_ms(seat, now))} (left)"
    if seat in clocks.flagged:
        return "FLAG"
    text = format_clock(clocks.remaining_ms(seat, now))
    if seat == clocks.to_move and clocks.in_delay(now):
        text += " (delay)"
    return text


def clocks_text(clocks: GameClocks | None, players: Sequence[str], now: float) -> str:
    """Every seat's clock on one line ("" for an untimed game)."""
    if clocks is None:
        return ""
    parts = []
    for seat, name in enumerate(players):
        mark = f" {RUNNING_MARK}" if seat == clocks.to_move and clocks.running else ""
        parts.append(f"{name} {seat_clock_text(clocks, seat, now)}{mark}")
    line = "clocks: " + " | ".join(parts)
    reason = clocks.pause_reason() if clocks.started else None
    if reason is not None:
        line += f"  (paused: {PAUSE_TEXT.get(reason, reason)})"
    elif clocks.ended:
        line += "  (stopped: the game is over)"
    elif not clocks.started:
        line += "  (not running yet)"
    return line
