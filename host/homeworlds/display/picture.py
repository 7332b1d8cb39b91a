"""What the terminal view shows, as an immutable value: ``TablePicture``.

The picture is taken from the running table (``picture_of_session``) on the thread that
owns the session; laying it out for a terminal's size (``display.fit``) and drawing it
(``display.screen``) only read it, so a redraw on another thread (a resize, a periodic
refresh) never touches the session. Every name and action in it has been made printable
(``display.printable``): text from files never reaches the terminal raw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from homeworlds.display.printable import printable
from homeworlds.notation import format_sdg_action

RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class SlotPicture:
    """One slot as it lies: its system's name, LED ring, stars and each seat's ships.
    Pieces are their short texts (``"y1"``)."""

    index: int
    name: str = ""
    ring: tuple[RGB, ...] = ()
    stars: tuple[str, ...] = ()
    ships: tuple[tuple[str, ...], ...] = ()  # per seat

    @property
    def empty(self) -> bool:
        return not self.stars and not any(self.ships)


@dataclass(frozen=True, slots=True)
class SeatPicture:
    """A seat's LED bar and its player's name."""

    index: int
    name: str
    bar: tuple[RGB, ...] = ()


@dataclass(frozen=True, slots=True)
class TablePicture:
    """Everything one frame of the terminal view shows.

    ``rows`` are the slots row by row as seen from above (seat 1's edge at the top);
    ``record`` is the scrolling record, oldest first: the committed turns (the demo) or
    the table's log (``play``); ``status`` is the status-line region: one line each from
    the screen's status sources (a computer's thinking indicator, LED guidance, game
    clocks), empty by default.
    """

    title: str
    turn: str
    rows: tuple[tuple[SlotPicture, ...], ...]
    seats: tuple[SeatPicture, ...]
    bank: tuple[tuple[str, int], ...] = ()
    in_hand: tuple[str, ...] = ()
    record: tuple[str, ...] = ()
    message: str = ""
    status: tuple[str, ...] = ()
    prompt: str | None = None  # the command line being typed, shown last; None: no line

    def with_status(self, status: Sequence[str]) -> TablePicture:
        from dataclasses import replace

        return replace(self, status=tuple(printable(s) for s in status))


def record_entries(record: Sequence[tuple[int, tuple]], players: Sequence[str]) -> tuple[str, ...]:
    """Every committed turn as ``"12) Aaron: Build G1 Aaron"`` (printable)."""
    return tuple(printable(f"{k}) {players[seat]}: "
                           + "; ".join(format_sdg_action(a) for a in turn))
                 for k, (seat, turn) in enumerate(record, 1))


def picture_of_session(session, layout, players: Sequence[str], *, title: str,
                       message: str = "") -> TablePicture:
    """The picture of a ``TableSession``: what its table view observes, the LED frame it
    renders, the tracker's turn and record."""
    from homeworlds.display.table_screen import slot_rows

    obs = session.observation
    tracker = session.tracker
    frame = session.render()
    names = {slot: name for name, slot in tracker.slot_of_system(obs).items()} \
        if obs is not None else {}

    def rgb(pixels) -> tuple[RGB, ...]:
        return tuple(tuple(frame[i]) for i in pixels) if frame is not None else ()

    rows = []
    for row in slot_rows(layout):
        cells = []
        for index in row:
            contents = obs.slots[index] if obs is not None else None
            stars: tuple[str, ...] = ()
            ships: tuple[tuple[str, ...], ...] = ()
            if contents is not None:
                stars = tuple(p.to_text() for p in sorted(p for _, p in contents.stars))
                ships = tuple(tuple(p.to_text() for p in sorted(p for _, p in fleet))
                              for fleet in contents.ships)
            name = names.get(index, "") or ("" if contents is None or contents.empty
                                            else "(new)")
            cells.append(SlotPicture(index, printable(name), rgb(layout.slots[index].ring),
                                     stars, ships))
        rows.append(tuple(cells))
    seats = tuple(SeatPicture(seat.index, printable(players[seat.index]
                                                    if seat.index < len(players) else seat.name),
                              rgb(seat.bar))
                  for seat in layout.seats)
    bank: tuple[tuple[str, int], ...] = ()
    in_hand: tuple[str, ...] = ()
    if obs is not None:
        counts: dict = {}
        for _, p in obs.bank:
            counts[p] = counts.get(p, 0) + 1
        bank = tuple((p.to_text(), n) for p, n in sorted(counts.items()))
        in_hand = tuple(h.piece.to_text() for h in obs.in_hand)
    state = tracker.state
    turn = ("game over" if state.is_over else
            f"turn {len(tracker.record) + 1}: {players[state.to_move]} to play")
    return TablePicture(title=printable(title), turn=printable(turn), rows=tuple(rows),
                        seats=seats, bank=bank, in_hand=in_hand,
                        record=record_entries(tracker.record, players),
                        message=printable(message))
