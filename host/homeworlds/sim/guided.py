"""A simulated person who carries out the table's guidance (the computer's turn, a hint).

The step comes as the displays get it (``GuidanceShown.to_json()["current"]``: the piece,
where it lies, where it goes); the person's hands move the tags on the
:class:`VirtualTable` accordingly, and the host sees the result only through the
simulated microcontroller, like any other handling.
"""

from __future__ import annotations

from collections.abc import Mapping

from homeworlds.rules import Piece
from homeworlds.sim.table import SimError, VirtualTable


def _zone(table: VirtualTable, place: Mapping) -> int:
    slot = table.layout.slots[place["slot"]]
    if place["kind"] == "star":
        return slot.star_zone
    return slot.ship_zone(place["seat"])


def _tag(table: VirtualTable, uids, piece: Piece, where: str) -> str:
    for uid in sorted(uids):
        info = table.registry.lookup(uid)
        if info is not None and info.is_piece and info.piece == piece:
            return uid
    raise SimError(f"no {piece} {where}")


def carry_out(table: VirtualTable, step: Mapping) -> None:
    """Do one guided step (``step``: the JSON of the current step) on ``table``."""
    source, target = step["source"], step["target"]
    if step["kind"] == "token":
        table.move_token(target["seat"])
        return
    piece = Piece.from_text(step["piece"])
    if source["kind"] == "bank":
        uid = table.take_from_bank(piece)
    elif source["kind"] == "hand":
        uid = _tag(table, table.in_hand(), piece, "in hand")
    else:
        zone = _zone(table, source)
        uid = _tag(table, table.tags_on(zone), piece, f"on zone {zone}")
        table.lift(uid)
    if target["kind"] == "bank":
        table.to_bank(uid)
    else:
        table.place(uid, _zone(table, target))
