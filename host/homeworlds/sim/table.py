"""The simulated physical world: which tagged piece lies where.

A :class:`VirtualTable` knows, for every tag of its registry, where it is: on a
zone (an antenna pad: star, ship, token or bank-tray zone), in the player's
hand, or off the table (the bank pool of a table without a bank tray, or the
box). Tests and the physical handling driver change it with verbs, as a
player's hands would; every verb is recorded in :attr:`VirtualTable.history`
so a test can assert what happened (the way gpiozero's mock pins record their
states)::

    table = VirtualTable(layout, make_registry(layout))
    uid = table.take_from_bank(Piece.from_text("g3"))   # into hand
    table.place(uid, layout.slots[3].star_zone)
    table.flip(ship_uid)                                # capture
    table.move_token(1)                                 # end the turn
    table.history[-1].to_text()   # 'move_token E00401500000FF00 zone 42 -> zone 43'

Zone changes are passed to listeners (the simulated MCU's virtual readers).
Link faults and settings verbs (``unplug``, ``corrupt_next_line``,
``set_miss_rate`` ...) are passed on to the attached simulated MCUs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from homeworlds.rules import PIECES, Piece
from homeworlds.table.enroll import copies_for_players
from homeworlds.table.layout import Layout, ZoneKind
from homeworlds.table.registry import COPY_LETTERS, Registry, TagInfo, normalize_uid

HAND = "hand"
"""Location of a tag the player holds."""

OFF_TABLE = "off-table"
"""Location of a tag on no zone and not in hand: the bank pool of a table without
a bank tray, or the box (alignment cards)."""

Location = int | str

UID_PREFIX = "E0040150"
"""ISO 15693 UIDs begin E0 04 (NXP); the simulated tags share one batch prefix."""

TOKEN_UID = UID_PREFIX + "0000FF00"


class SimError(ValueError):
    """A verb the physical table cannot carry out (a tag that is not where the verb
    needs it, an unknown zone, no MCU attached...); the message says which and why."""


@dataclass(frozen=True, slots=True)
class TableEvent:
    """One recorded verb. ``origin`` is where the tag was (a zone, HAND, OFF_TABLE),
    ``zone`` where it went; ``value`` carries a verb's number (button, line count,
    reader, probability, milliseconds)."""

    verb: str
    uid: str | None = None
    origin: Location | None = None
    zone: Location | None = None
    value: int | float | str | None = None

    def to_text(self) -> str:
        parts = [self.verb]
        if self.uid is not None:
            parts.append(self.uid)
        if self.origin is not None or self.zone is not None:
            parts.append(f"{_where(self.origin)} -> {_where(self.zone)}")
        if self.value is not None:
            parts.append(str(self.value))
        return " ".join(parts)

    def __str__(self) -> str:
        return self.to_text()


def _where(location: Location | None) -> str:
    if location is None:
        return "?"
    return f"zone {location}" if isinstance(location, int) else location


class TableListener(Protocol):
    """What an attached simulated MCU offers the table."""

    def zone_changed(self, zone: int, uids: tuple[str, ...]) -> None: ...

    def sync_from_table(self) -> None: ...

    def press(self, button: int) -> None: ...

    def long_press(self, button: int) -> None: ...

    def unplug(self) -> None: ...

    def replug(self) -> None: ...

    def corrupt_next_line(self) -> None: ...

    def drop_lines(self, count: int) -> None: ...

    def reader_fault(self, reader: int, scans: int | None = 1, code: str = "TIMEOUT",
                     message: str = "injected fault") -> None: ...

    def clear_reader_fault(self, reader: int) -> None: ...

    def set_miss_rate(self, probability: float) -> None: ...

    def set_scan_time(self, ms: int) -> None: ...


def make_registry(layout: Layout | None = None, players: int = 2, *,
                  copies: int | None = None) -> Registry:
    """A deterministic tag set for simulation: every piece copy of a ``players``-player
    bank (12 colour-sizes x 3 copies for two players) plus the turn token.

    Piece UIDs are ``E0040150`` + ``0000`` + colour-size index (2 hex digits) + copy
    number (2 hex digits): g3b is ``E004015000000801``. Copy letters follow UID order,
    as enrollment assigns them, so enrolling a simulated bank tray gives this registry
    back. The token is ``E00401500000FF00``.
    """
    if copies is None:  # the preset's bank may differ (``Rules.bank_copies``: Good/Evil)
        copies = copies_for_players(players)
    tags: dict[str, TagInfo] = {}
    for piece in PIECES:
        for copy in range(copies):
            tags[f"{UID_PREFIX}0000{piece.index:02X}{copy:02X}"] = TagInfo.for_piece(
                piece, COPY_LETTERS[copy])
    tags[TOKEN_UID] = TagInfo.token()
    name = f"simulated {layout.name}" if layout is not None else "simulated"
    return Registry(tags, table=name)


class VirtualTable:
    """Where every tag of ``registry`` lies on the table described by ``layout``.

    At the start every piece is in the bank (its bank-tray compartment, or off the
    table without a tray), alignment cards are off the table, and the turn token lies
    on ``token_seat``'s token zone (None: off the table).
    """

    def __init__(self, layout: Layout, registry: Registry, *, token_seat: int | None = 0):
        self.layout = layout
        self.registry = registry
        self.history: list[TableEvent] = []
        self._where: dict[str, Location] = {}
        self._zones: dict[int, list[str]] = {zone: [] for zone in layout.all_zones}
        self._listeners: list[TableListener] = []
        # Verbs come from tests while a PtyMcu thread reads the readers.
        self._lock = threading.RLock()
        for uid, info in registry.items():
            compartment = layout.bank_zone(info.piece) if info.piece is not None else None
            if info.is_piece and compartment is not None:
                self._put(uid, compartment)
            elif info.is_token and token_seat is not None:
                self._check_seat(token_seat, "token_seat")
                self._put(uid, layout.token_zone(token_seat))
            else:
                self._where[uid] = OFF_TABLE

    # ------------------------------------------------------------------ queries

    def location(self, uid: str) -> Location:
        """Where ``uid`` is: a zone number, HAND or OFF_TABLE."""
        return self._where[self._known(uid, "location")]

    def tags_on(self, zone: int) -> tuple[str, ...]:
        """The tags lying on ``zone``, in the order they were put there."""
        return tuple(self._zones[self._zone(zone, "tags_on")])

    def pieces_on(self, zone: int) -> tuple[Piece, ...]:
        """The registered pieces on ``zone``, sorted (unknown tags and the token left out)."""
        pieces = []
        for uid in self.tags_on(zone):
            info = self.registry.lookup(uid)
            if info is not None and info.piece is not None:  # a piece's tag
                pieces.append(info.piece)
        return tuple(sorted(pieces))

    def zone_sets(self) -> tuple[tuple[str, ...], ...]:
        """Every zone's tags as a sorted tuple, zone 0 first: what a perfect scan reports."""
        return tuple(tuple(sorted(self._zones[zone])) for zone in self.layout.all_zones)

    def in_hand(self) -> tuple[str, ...]:
        return tuple(uid for uid, where in self._where.items() if where == HAND)

    def off_table(self) -> tuple[str, ...]:
        return tuple(uid for uid, where in self._where.items() if where == OFF_TABLE)

    def uids(self) -> tuple[str, ...]:
        """Every tag the table knows (the registry's and any strangers added)."""
        return tuple(self._where)

    def bank_uids(self, piece: Piece) -> tuple[str, ...]:
        """Tags of ``piece``'s colour-size lying in the bank (compartment or pool), sorted."""
        compartment = self.layout.bank_zone(piece)
        candidates: Iterable[str]
        if compartment is not None:  # the table has a bank tray
            candidates = self._zones[compartment]
        else:
            candidates = self.off_table()
        return tuple(sorted(uid for uid in candidates if self._piece_of(uid) == piece))

    def describe(self, uid: str) -> str:
        """``E004015000000801 (g3b)`` — the UID with what the registry says it is."""
        info = self.registry.lookup(uid)
        return f"{uid} ({info})" if info is not None else f"{uid} (unknown tag)"

    # ------------------------------------------------------------------ piece verbs

    def place(self, uid: str, zone: int) -> None:
        """Put a tag from the hand on ``zone``."""
        with self._lock:
            uid = self._known(uid, "place")
            zone = self._zone(zone, "place")
            if self._where[uid] != HAND:
                raise SimError(f"place: {self.describe(uid)} is not in hand but at "
                               f"{self._where_text(uid)}; lift it first (or use move)")
            self._put(uid, zone)
            self._record(TableEvent("place", uid, HAND, zone))

    def lift(self, uid: str) -> None:
        """Pick a tag up (from a zone or from off the table) into the hand."""
        with self._lock:
            uid = self._known(uid, "lift")
            origin = self._where[uid]
            if origin == HAND:
                raise SimError(f"lift: {self.describe(uid)} is already in hand")
            self._take(uid)
            self._where[uid] = HAND
            self._record(TableEvent("lift", uid, origin, HAND))

    def move(self, uid: str, zone: int) -> None:
        """Lift a tag (from wherever it is) and place it on ``zone``."""
        with self._lock:
            uid = self._known(uid, "move")
            zone = self._zone(zone, "move")
            origin = self._where[uid]
            if origin == zone:
                raise SimError(f"move: {self.describe(uid)} already lies on "
                               f"{self.layout.describe_zone(zone)}")
            self._take(uid)
            self._put(uid, zone)
            self._record(TableEvent("move", uid, origin, zone))

    def flip(self, uid: str, seat: int | None = None) -> None:
        """Turn a ship round: move it to ``seat``'s ship zone of the same slot (the
        other seat's on a two-seat table). This is how a capture looks."""
        with self._lock:
            uid = self._known(uid, "flip")
            origin = self._where[uid]
            role = self.layout.zone_role(origin) if isinstance(origin, int) else None
            if role is None or role.kind is not ZoneKind.SHIPS \
                    or role.slot is None or role.seat is None:
                raise SimError(f"flip: {self.describe(uid)} is at {self._where_text(uid)}, "
                               "not on a ship zone")
            if seat is None:
                if self.layout.seat_count != 2:
                    raise SimError(f"flip: say which seat the ship goes to (this table has "
                                   f"{self.layout.seat_count} seats)")
                seat = 1 - role.seat
            self._check_seat(seat, "flip")
            if seat == role.seat:
                raise SimError(f"flip: {self.describe(uid)} already lies on seat {seat}'s side")
            zone = self.layout.ship_zone(role.slot, seat)
            self._take(uid)
            self._put(uid, zone)
            self._record(TableEvent("flip", uid, origin, zone))

    def move_token(self, seat: int) -> None:
        """Move the turn token to ``seat``'s token zone: the previous seat ends its turn."""
        with self._lock:
            uid = self.registry.token_uid
            if uid is None:
                raise SimError("move_token: the registry has no turn token")
            self._check_seat(seat, "move_token")
            zone = self.layout.token_zone(seat)
            origin = self._where[uid]
            if origin == zone:
                raise SimError(f"move_token: the token already lies on seat {seat}'s zone {zone}")
            self._take(uid)
            self._put(uid, zone)
            self._record(TableEvent("move_token", uid, origin, zone))

    def token_seat(self) -> int | None:
        """The seat whose token zone holds the turn token (None: elsewhere)."""
        uid = self.registry.token_uid
        where = self._where.get(uid) if uid is not None else None
        if isinstance(where, int):
            role = self.layout.zone_role(where)
            if role.kind is ZoneKind.TOKEN:
                return role.seat
        return None

    def to_bank(self, uid: str) -> None:
        """Return a piece to the bank: its compartment of the tray, or off the table."""
        with self._lock:
            uid = self._known(uid, "to_bank")
            piece = self._piece_of(uid)
            if piece is None:
                raise SimError(f"to_bank: {self.describe(uid)} is not a piece")
            compartment = self.layout.bank_zone(piece)
            target: Location = compartment if compartment is not None else OFF_TABLE
            origin = self._where[uid]
            if origin == target:
                raise SimError(f"to_bank: {self.describe(uid)} is already in the bank")
            self._take(uid)
            if isinstance(target, int):
                self._put(uid, target)
            else:
                self._where[uid] = OFF_TABLE
            self._record(TableEvent("to_bank", uid, origin, target))

    def take_from_bank(self, piece: Piece) -> str:
        """Lift one copy of ``piece`` from the bank into the hand; returns its UID."""
        with self._lock:
            available = self.bank_uids(piece)
            if not available:
                raise SimError(f"take_from_bank: no {piece} left in the bank")
            uid = available[0]
            self.lift(uid)
            return uid

    def add_stranger(self, uid: str) -> None:
        """Put a tag the registry does not know into the hand (to test unknown tags)."""
        with self._lock:
            try:
                uid = normalize_uid(uid)
            except ValueError as error:
                raise SimError(f"add_stranger: {error}") from None
            if uid in self._where:
                raise SimError(f"add_stranger: {self.describe(uid)} is already on this table")
            self._where[uid] = HAND
            self._record(TableEvent("add_stranger", uid, None, HAND))

    # ------------------------------------------------------------------ MCU verbs

    def press(self, button: int) -> None:
        """Press a seat button."""
        self._forward("press", button, lambda mcu: mcu.press(button))

    def long_press(self, button: int) -> None:
        """Press a seat button and hold it down past the firmware's ``hold_ms``."""
        self._forward("long_press", button, lambda mcu: mcu.long_press(button))

    def unplug(self) -> None:
        """Pull the USB cable: the MCU goes silent and ignores the host."""
        self._forward("unplug", None, lambda mcu: mcu.unplug())

    def replug(self) -> None:
        """Plug it back in: the MCU restarts (new HELLO and snapshot, sequence from 0)."""
        self._forward("replug", None, lambda mcu: mcu.replug())

    def corrupt_next_line(self) -> None:
        """Flip a byte of the next line the MCU sends, after its CRC was computed."""
        self._forward("corrupt_next_line", None, lambda mcu: mcu.corrupt_next_line())

    def drop_lines(self, count: int = 1) -> None:
        """Lose the next ``count`` lines the MCU sends."""
        if not isinstance(count, int) or count < 1:
            raise SimError(f"drop_lines: expected a positive number of lines, got {count!r}")
        self._forward("drop_lines", count, lambda mcu: mcu.drop_lines(count))

    def reader_fault(self, reader: int, scans: int | None = 1, code: str = "TIMEOUT",
                     message: str = "injected fault") -> None:
        """Make reader ``reader`` fail its next ``scans`` inventories (None: until
        :meth:`clear_reader_fault`). The MCU reports it with ERR ``code``."""
        self._forward("reader_fault", reader,
                      lambda mcu: mcu.reader_fault(reader, scans, code, message))

    def clear_reader_fault(self, reader: int) -> None:
        self._forward("clear_reader_fault", reader, lambda mcu: mcu.clear_reader_fault(reader))

    def set_miss_rate(self, probability: float) -> None:
        """Probability that a read misses a tag lying on the scanned zone."""
        if not isinstance(probability, (int, float)) or not 0 <= probability < 1:
            raise SimError(f"set_miss_rate: expected a probability 0 <= p < 1, got {probability!r}")
        self._forward("set_miss_rate", probability, lambda mcu: mcu.set_miss_rate(probability))

    def set_scan_time(self, ms: int) -> None:
        """Time one zone scan takes, in milliseconds."""
        if not isinstance(ms, int) or isinstance(ms, bool) or ms < 0:
            raise SimError(f"set_scan_time: expected milliseconds >= 0, got {ms!r}")
        self._forward("set_scan_time", ms, lambda mcu: mcu.set_scan_time(ms))

    # ------------------------------------------------------------------ listeners

    def attach(self, listener: TableListener) -> None:
        """Let a simulated MCU follow this table (it reads every zone now and is told
        about every change) and receive the link-fault verbs."""
        with self._lock:
            if listener not in self._listeners:
                self._listeners.append(listener)
            listener.sync_from_table()

    def detach(self, listener: TableListener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    @property
    def listeners(self) -> tuple[TableListener, ...]:
        return tuple(self._listeners)

    # ------------------------------------------------------------------ internals

    def _forward(self, verb: str, value, call: Callable[[TableListener], None]) -> None:
        with self._lock:
            if not self._listeners:
                raise SimError(f"{verb}: no simulated MCU is attached to this table")
            for listener in self._listeners:
                call(listener)
            self._record(TableEvent(verb, value=value))

    def _record(self, event: TableEvent) -> None:
        self.history.append(event)

    def _known(self, uid: object, verb: str) -> str:
        try:
            text = normalize_uid(uid)  # type: ignore[arg-type]
        except ValueError as error:
            raise SimError(f"{verb}: {error}") from None
        if text not in self._where:
            raise SimError(f"{verb}: tag {text} is not on this table (not in the registry; "
                           "add_stranger() brings in unknown tags)")
        return text

    def _zone(self, zone: object, verb: str) -> int:
        if isinstance(zone, bool) or not isinstance(zone, int) or not self.layout.has_zone(zone):
            raise SimError(f"{verb}: no zone {zone!r} in layout {self.layout.name!r} "
                           f"(zones 0-{self.layout.zone_count - 1})")
        return zone

    def _check_seat(self, seat: object, verb: str) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) \
                or not 0 <= seat < self.layout.seat_count:
            raise SimError(f"{verb}: no seat {seat!r} (layout {self.layout.name!r} has seats "
                           f"0-{self.layout.seat_count - 1})")

    def _piece_of(self, uid: str) -> Piece | None:
        info = self.registry.lookup(uid)
        return info.piece if info is not None and info.is_piece else None

    def _where_text(self, uid: str) -> str:
        where = self._where[uid]
        return self.layout.describe_zone(where) if isinstance(where, int) else where

    def _take(self, uid: str) -> None:
        where = self._where[uid]
        if isinstance(where, int):
            self._zones[where].remove(uid)
            self._notify(where)
        self._where[uid] = HAND

    def _put(self, uid: str, zone: int) -> None:
        self._zones[zone].append(uid)
        self._where[uid] = zone
        self._notify(zone)

    def _notify(self, zone: int) -> None:
        uids = tuple(self._zones[zone])
        for listener in self._listeners:
            listener.zone_changed(zone, uids)


def pieces_text(pieces: Iterable[Piece]) -> str:
    return " ".join(str(p) for p in pieces) or "-"
