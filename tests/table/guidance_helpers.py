"""A table without the serial link, for judging guidance on constructed positions."""

from __future__ import annotations

from types import SimpleNamespace

from homeworlds.rules import GameState, Piece, preset
from homeworlds.sim import TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout
from homeworlds.table.view import TableView

LAYOUT = builtin_layout("standard-2p")


def system(name, stars, ships0="", ships1="", home_of=None):
    def pieces(text):
        return tuple(Piece.from_text(t) for t in text.split())
    return SimpleNamespace(name=name, stars=pieces(stars), ships=(pieces(ships0), pieces(ships1)),
                           home_of=home_of)


class Bench:
    """A virtual table laid out with ``position``; ``observe()`` reads it as the host would."""

    def __init__(self, position: GameState, slot_of: dict[str, int]):
        self.layout = LAYOUT
        self.registry = make_registry(LAYOUT, 2)
        self.table = VirtualTable(LAYOUT, self.registry, token_seat=position.to_move)
        self.driver = TableDriver(self.table, position, slot_of)
        self.driver.arrange()
        self.view = TableView(LAYOUT, self.registry)
        self.slot_of = dict(slot_of)
        self.state = position
        self.observe()  # the host has seen the table before anyone lifts a piece

    def observe(self):
        sets = self.table.zone_sets()
        self.view.replace_all({z: sets[k] for k, z in enumerate(LAYOUT.all_zones)})
        return self.view.observe()

    def uid(self, zone, piece):
        for uid in self.table.tags_on(zone):
            if self.registry.lookup(uid).piece == Piece.from_text(piece):
                return uid
        raise AssertionError(f"no {piece} on zone {zone}")

    def ship_zone(self, slot, seat):
        return LAYOUT.ship_zone(slot, seat)

    def star_zone(self, slot):
        return LAYOUT.slots[slot].star_zone


def position(*systems, to_move=0, rules="looney"):
    return GameState.from_position(systems, preset(rules), to_move=to_move)
