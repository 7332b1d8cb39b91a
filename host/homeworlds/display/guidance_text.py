"""The computer at the table as one line of text, for the terminal's status lines.

``guidance_text`` says what the lights show of ``TableSession.guidance_shown()``: the
computer thinking (for its own turn, or a learner's hint) or a seat played elsewhere
waiting for its turn (from the other table, from a phone), the current step of its turn
or of a hint (counted) — a seat played elsewhere is named by where its turn came from,
not as the computer — or the step back to the position before an undone turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from homeworlds.hints import GuidanceShown


def _who(players: Sequence[str], seat: int) -> str:
    return players[seat] if 0 <= seat < len(players) else f"seat {seat}"


def guidance_text(shown: GuidanceShown | None, players: Sequence[str]) -> str | None:
    """``shown`` in words (None: nothing is shown)."""
    if shown is None:
        return None
    who = _who(players, shown.seat)
    if shown.phase == "thinking":
        if shown.text and not shown.suggestion:  # a seat played elsewhere: what it waits for
            return f"{who}: {shown.text}"
        return (f"hint for {who}: the computer is thinking…" if shown.suggestion
                else f"{who} (the computer) is thinking…")
    detail = shown.detail or {}
    total, left = detail.get("steps_total"), detail.get("steps_left")
    count = f"step {total - left + 1} of {total}" if isinstance(total, int) and \
        isinstance(left, int) and total and left else "step"
    if shown.restore:
        head = f"undo: back to the earlier position, {count}"
    elif shown.suggestion:
        head = f"HINT for {who}, {count}"
    elif shown.played_from is not None:
        head = f"{who} (from {shown.played_from}), {count}"
    else:
        head = f"{who} (the computer), {count}"
    return f"{head}: {shown.text}"
