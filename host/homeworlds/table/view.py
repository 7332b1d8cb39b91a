"""The table view: what lies on which zone, and the position it shows.

The firmware already debounces reads; the view keeps each zone's current tag set
(from snapshots and zone updates), remembers where every tag was last seen (a
lifted piece is "in hand", in transit from there), and derives an
``Observation``: per slot its stars and each seat's ships, the token's place,
the bank tray, and every anomaly (unknown tag, a tag on two zones, ships on a
slot without a star, more than two stars, a piece in hand, a token out of
place, a star lying in a ship zone ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from homeworlds.rules import Piece
from homeworlds.table.layout import Layout, ZoneKind
from homeworlds.table.registry import Registry, TagKind


@dataclass(frozen=True, slots=True)
class Anomaly:
    kind: str
    message: str
    slots: tuple[int, ...] = ()
    zones: tuple[int, ...] = ()
    uid: str | None = None


@dataclass(frozen=True, slots=True)
class SlotContents:
    slot: int
    #: (uid, piece) of the stars on the star pad
    stars: tuple[tuple[str, Piece], ...]
    #: per seat, (uid, piece) of the ships in that seat's zone
    ships: tuple[tuple[tuple[str, Piece], ...], ...]

    @property
    def empty(self) -> bool:
        return not self.stars and not any(self.ships)

    @property
    def star_uids(self) -> frozenset[str]:
        return frozenset(uid for uid, _ in self.stars)


@dataclass(frozen=True, slots=True)
class InHand:
    uid: str
    piece: Piece
    #: where it was last seen: ("ships", slot, seat), ("star", slot, None), ("bank", None, None)
    #: or ("unknown", None, None)
    origin: tuple


@dataclass(frozen=True, slots=True)
class Observation:
    slots: tuple[SlotContents, ...]
    #: the seat whose token zone holds the turn token (None: not on a token zone)
    token_seat: int | None
    bank: tuple[tuple[str, Piece], ...]
    in_hand: tuple[InHand, ...]
    anomalies: tuple[Anomaly, ...]

    def occupied(self) -> list[SlotContents]:
        return [s for s in self.slots if not s.empty]


class TableView:
    """Zone contents as last reported, and where each tag was last seen."""

    def __init__(self, layout: Layout, registry: Registry):
        self.layout = layout
        self.registry = registry
        self.zones: dict[int, frozenset[str]] = {z: frozenset() for z in layout.all_zones}
        self.last_seen: dict[str, int] = {}
        self.known = False

    def replace_all(self, zones: Mapping[int, Iterable[str]]) -> None:
        """A full snapshot: every zone's tag set."""
        for z in self.zones:
            self.zones[z] = frozenset()
        for z, uids in zones.items():
            self.set_zone(z, uids)
        self.known = True

    def set_zone(self, zone: int, uids: Iterable[str]) -> None:
        if zone not in self.zones:
            return  # reported as an anomaly by the link layer's zone-count check
        tags = frozenset(u.upper() for u in uids)
        self.zones[zone] = tags
        for uid in tags:
            self.last_seen[uid] = zone

    def where_is(self, uid: str) -> list[int]:
        return [z for z, tags in self.zones.items() if uid in tags]

    def observe(self) -> Observation:
        layout = self.layout
        anomalies: list[Anomaly] = []
        seen_in: dict[str, list[int]] = {}
        for z, tags in self.zones.items():
            for uid in tags:
                seen_in.setdefault(uid, []).append(z)
        for uid, zones in seen_in.items():
            if len(zones) > 1:
                anomalies.append(Anomaly("duplicate", f"tag {uid} is read on zones "
                                         f"{', '.join(map(str, sorted(zones)))} at once",
                                         self._slots_of(zones), tuple(sorted(zones)), uid))
        slots = []
        for slot in layout.slots:
            stars = self._pieces(slot.star_zone, anomalies, slot.index, "star")
            fleets = tuple(self._pieces(z, anomalies, slot.index, "ships")
                           for z in slot.ship_zones)
            if len(stars) > 2:
                anomalies.append(Anomaly("too-many-stars", f"slot {slot.index} has "
                                         f"{len(stars)} stars on its star pad (at most two)",
                                         (slot.index,), (slot.star_zone,)))
            if not stars and any(fleets):
                anomalies.append(Anomaly("ships-without-star", f"slot {slot.index} has ships "
                                         "but no star", (slot.index,), (slot.star_zone,)))
            slots.append(SlotContents(slot.index, stars, fleets))
        token_seat = self._token_seat(anomalies)
        bank = self._bank(anomalies)
        token_uid = self.registry.token_uid
        if token_uid is not None and token_seat is None:
            where = self.where_is(token_uid)
            if where:
                anomalies.append(Anomaly("token-out-of-place", "the turn token is not on a "
                                         "token pad", self._slots_of(where), tuple(where),
                                         token_uid))
        in_hand = self._in_hand(seen_in) if layout.has_bank else ()
        for piece in in_hand:
            anomalies.append(Anomaly("in-hand", f"{piece.piece.to_text()} ({piece.uid}) is in "
                                     "hand", (piece.origin[1],) if piece.origin[1] is not None
                                     else (), (), piece.uid))
        return Observation(tuple(slots), token_seat, tuple(bank), tuple(in_hand),
                           tuple(anomalies))

    def _token_seat(self, anomalies: list[Anomaly]) -> int | None:
        """The seat whose token pad holds the turn token (None: on none); pieces lying on
        a token pad are anomalies."""
        token_seat = None
        for seat in self.layout.seats:
            for uid in self.zones.get(seat.token_zone, ()):
                info = self.registry.lookup(uid)
                if info is not None and info.kind is TagKind.TOKEN:
                    token_seat = seat.index
                elif info is not None and info.kind is TagKind.PIECE:
                    anomalies.append(Anomaly("piece-on-token-zone", f"a piece ({info.to_text()}) "
                                             f"lies on seat {seat.index}'s token pad",
                                             (), (seat.token_zone,), uid))
        return token_seat

    def _bank(self, anomalies: list[Anomaly]) -> list[tuple[str, Piece]]:
        """The pieces in the bank tray's compartments; unknown tags and pieces in another
        colour-size's compartment are anomalies."""
        bank: list[tuple[str, Piece]] = []
        for comp in self.layout.bank:
            for uid in self.zones.get(comp.zone, ()):
                info = self.registry.lookup(uid)
                if info is None:
                    anomalies.append(Anomaly("unknown-tag", f"unknown tag {uid} in the bank "
                                             "tray", (), (comp.zone,), uid))
                elif info.kind is TagKind.PIECE:
                    bank.append((uid, info.as_piece))
                    if info.piece != comp.piece:
                        anomalies.append(Anomaly("wrong-compartment",
                                                 f"{info.to_text()} lies in the "
                                                 f"{comp.piece.to_text()} compartment", (),
                                                 (comp.zone,), uid))
        return bank

    def _pieces(self, zone: int, anomalies: list[Anomaly], slot: int, role: str
                ) -> tuple[tuple[str, Piece], ...]:
        out = []
        for uid in sorted(self.zones.get(zone, ())):
            info = self.registry.lookup(uid)
            if info is None:
                anomalies.append(Anomaly("unknown-tag", f"unknown tag {uid} on slot {slot}",
                                         (slot,), (zone,), uid))
            elif info.kind is not TagKind.PIECE:
                anomalies.append(Anomaly("not-a-piece", f"the {info.to_text()} lies on slot "
                                         f"{slot}'s {role} pad", (slot,), (zone,), uid))
            else:
                out.append((uid, info.as_piece))
        return tuple(out)

    def _slots_of(self, zones: Iterable[int]) -> tuple[int, ...]:
        out = []
        for z in zones:
            role = self.layout.zone_role(z)
            if role.slot is not None:
                out.append(role.slot)
        return tuple(sorted(set(out)))

    def _in_hand(self, seen_in: Mapping[str, list[int]]) -> tuple[InHand, ...]:
        """Registered pieces read on no zone: with a bank tray they are in someone's hand."""
        out = []
        for uid, info in self.registry.items():
            if info.kind is not TagKind.PIECE or uid in seen_in:
                continue
            zone = self.last_seen.get(uid)
            origin: tuple = ("unknown", None, None)
            if zone is not None:
                role = self.layout.zone_role(zone)
                if role.kind is ZoneKind.SHIPS:
                    origin = ("ships", role.slot, role.seat)
                elif role.kind is ZoneKind.STAR:
                    origin = ("star", role.slot, None)
                elif role.kind is ZoneKind.BANK:
                    origin = ("bank", None, None)
            out.append(InHand(uid, info.as_piece, origin))
        return tuple(out)
