"""Table layouts: what each antenna zone is and which LED pixels light what.

A layout file (``hardware/layouts/*.toml``, format in docs/hardware.md) describes
one physical table: its seats, its system slots, its bank tray, the readers and
multiplexer channels every zone is wired to, and the LED strip. The firmware
only reports zone numbers; the layout is what gives them a meaning.

Loading is strict on purpose: a table that is wired one way and described
another fails in confusing ways during a game, so every mistake we can detect
(unknown key, wrong type, a zone or pixel used twice, a pixel past the end of
the strip, a zone with no wiring, a seat that does not exist) is refused at
load time with the file and the key path in the message, e.g.
``standard-2p.toml: slots[3].ship_zones[1] (north): zone 11 is already used by slots[3].star_zone``.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from itertools import permutations
from pathlib import Path
from typing import Any, cast

from homeworlds.rules import PIECES, InvalidNotation, Piece, Rules
from homeworlds.table import wiring as _wiring
from homeworlds.table.wiring import McuPins, ReaderPins, WiringError

LAYOUT_FORMAT = 1
"""The only layout file format this code reads (the ``format`` key)."""

# The bundled layouts are the files in the repository's hardware/ directory
# (layout.py -> table -> homeworlds -> host -> repository root), so that the
# files builders edit and the files the code loads are the same files. This
# works from a source checkout and from an editable install; a wheel would
# need them shipped as package data instead.
BUILTIN_LAYOUTS_DIR = Path(__file__).resolve().parents[3] / "hardware" / "layouts"

MIN_SEATS = 2
MAX_SEATS = 6
MAX_ZONE = 65535
MAX_BUTTON = 255
MAX_PIXELS = 10_000
MAX_CHANNELS = 64

READER_CHIPS = ("pn5180", "pn532")
"""Reader chips the firmware has drivers for (PN532: prototype, one or two tags per pad)."""

PIXEL_ORDERS = tuple("".join(p) for p in permutations("RGB"))
"""Byte orders a three-colour pixel may expect on the wire (WS2812B: GRB)."""


class LayoutError(ValueError):
    """A layout file (or layout value) that does not describe a usable table.

    ``source`` is the file, ``key`` the key path inside it (``slots[3].ring``),
    ``reason`` the problem alone; ``str(error)`` joins the three.
    """

    def __init__(self, reason: str, *, key: str | None = None, source: str | None = None):
        self.reason = reason
        self.key = key
        self.source = source
        super().__init__(": ".join(part for part in (source, key, reason) if part))

    def with_source(self, source: str) -> LayoutError:
        return LayoutError(self.reason, key=self.key, source=source)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Strip:
    """The one chain of addressable LEDs (rings and bars are runs of it)."""

    pixel_count: int
    pixel_order: str = "GRB"


@dataclass(frozen=True, slots=True)
class Reader:
    """One NFC reader chip and its antenna multiplexer.

    ``zones[c]`` is the zone wired to multiplexer channel ``c`` (None: nothing
    connected); the firmware scans a reader's channels in this order.
    """

    index: int
    chip: str
    channels: int
    zones: tuple[int | None, ...]
    label: str | None = None
    pins: ReaderPins | None = None
    """The MCU pins of this reader (None in a layout without ``[mcu]`` wiring)."""

    def channel_of(self, zone: int) -> int | None:
        for channel, wired in enumerate(self.zones):
            if wired == zone:
                return channel
        return None


@dataclass(frozen=True, slots=True)
class Seat:
    """A player's place at the table, in turn order (seat 0 plays first)."""

    index: int
    name: str
    token_zone: int
    bar: tuple[int, ...]
    button: int | None = None
    home_slot: int | None = None
    """The slot the table suggests for this seat's home system (a hint only:
    systems are identified by their stars, not by slot)."""


@dataclass(frozen=True, slots=True)
class Slot:
    """A place for one star system: a star pad, one ship pad per seat, a ring.

    ``ship_zones[s]`` is the pad on seat ``s``'s side: a ship lying there
    belongs to seat ``s``.
    """

    index: int
    star_zone: int
    ship_zones: tuple[int, ...]
    ring: tuple[int, ...]
    label: str | None = None

    def ship_zone(self, seat: int) -> int:
        return self.ship_zones[seat]

    @property
    def zones(self) -> tuple[int, ...]:
        return (self.star_zone, *self.ship_zones)

    @property
    def title(self) -> str:
        return f"slot {self.index}" + (f" ({self.label})" if self.label else "")


@dataclass(frozen=True, slots=True)
class BankCompartment:
    """One compartment of the bank tray: holds every bank piece of one colour-size."""

    zone: int
    piece: Piece


class ZoneKind(Enum):
    STAR = "star"
    SHIPS = "ships"
    TOKEN = "token"
    BANK = "bank"


@dataclass(frozen=True, slots=True)
class ZoneRole:
    """What one zone is. ``slot``/``seat``/``piece`` are set where they apply."""

    kind: ZoneKind
    zone: int
    slot: int | None = None
    seat: int | None = None
    piece: Piece | None = None

    def to_text(self) -> str:
        if self.kind is ZoneKind.STAR:
            return f"star of slot {self.slot}"
        if self.kind is ZoneKind.SHIPS:
            return f"ships of seat {self.seat} in slot {self.slot}"
        if self.kind is ZoneKind.TOKEN:
            return f"turn token of seat {self.seat}"
        return f"bank compartment {self.piece}"

    @property
    def slot_index(self) -> int:
        """``slot`` of a star or ship zone (ValueError for a zone of no slot)."""
        if self.slot is None:
            raise ValueError(f"zone {self.zone} ({self.to_text()}) is in no slot")
        return self.slot

    @property
    def seat_index(self) -> int:
        """``seat`` of a ship or token zone (ValueError for a zone of no seat)."""
        if self.seat is None:
            raise ValueError(f"zone {self.zone} ({self.to_text()}) belongs to no seat")
        return self.seat


@dataclass(frozen=True, slots=True)
class ZoneWiring:
    reader: int
    channel: int


@dataclass(frozen=True, slots=True)
class LedSegment:
    """A ring (of a slot) or a bar (of a seat): a run of pixels on the chain."""

    kind: str  # "ring" or "bar"
    owner: int  # slot index for a ring, seat index for a bar
    pixels: tuple[int, ...]

    def to_text(self) -> str:
        owner = "slot" if self.kind == "ring" else "seat"
        return f"{self.kind} of {owner} {self.owner}"


@dataclass(frozen=True, slots=True)
class Power:
    """The ``[power]`` table: the 5 V supply the readers, multiplexers and LEDs share.

    ``supply``: its part number (hardware/parts.toml gives the rating);
    ``scanner_amps``: the share of it budgeted for the scanner side (readers' fields,
    relay coils, pad bias), which the host keeps off the LEDs (``pixels.reserved_amps``
    must be at least this)."""

    supply: str
    scanner_amps: float


@dataclass(frozen=True, slots=True)
class Layout:
    """A whole table. Build one with :func:`load_layout`, :func:`builtin_layout`
    or :meth:`from_toml_text`; constructing it directly validates it too."""

    name: str
    seats: tuple[Seat, ...]
    slots: tuple[Slot, ...]
    bank: tuple[BankCompartment, ...]
    strip: Strip
    readers: tuple[Reader, ...]
    description: str = ""
    mcu: McuPins | None = None
    """The scanner's shared wiring (``[mcu]``); None: the layout does not say how the
    table is wired, and no firmware configuration can be generated from it."""
    power: Power | None = None
    """The shared 5 V supply and the scanner's budget of it (``[power]``)."""
    bank_capacity: int = 0
    """Pieces each bank compartment holds (``[bank] capacity``; 0 without a bank tray):
    a preset whose bank has more copies of a colour-size than this cannot be played on
    the table (``check_bank_fits``)."""
    _roles: dict[int, ZoneRole] = field(init=False, repr=False, compare=False)
    _wiring: dict[int, ZoneWiring] = field(init=False, repr=False, compare=False)
    _bank_by_piece: dict[Piece, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _validate(self)
        roles: dict[int, ZoneRole] = {}
        for slot in self.slots:
            roles[slot.star_zone] = ZoneRole(ZoneKind.STAR, slot.star_zone, slot=slot.index)
            for seat, zone in enumerate(slot.ship_zones):
                roles[zone] = ZoneRole(ZoneKind.SHIPS, zone, slot=slot.index, seat=seat)
        for place in self.seats:
            roles[place.token_zone] = ZoneRole(ZoneKind.TOKEN, place.token_zone, seat=place.index)
        for compartment in self.bank:
            roles[compartment.zone] = ZoneRole(ZoneKind.BANK, compartment.zone,
                                               piece=compartment.piece)
        wiring = {zone: ZoneWiring(reader.index, channel)
                  for reader in self.readers
                  for channel, zone in enumerate(reader.zones) if zone is not None}
        object.__setattr__(self, "_roles", dict(sorted(roles.items())))
        object.__setattr__(self, "_wiring", wiring)
        object.__setattr__(self, "_bank_by_piece", {c.piece: c.zone for c in self.bank})

    # -- zones

    @property
    def all_zones(self) -> tuple[int, ...]:
        """Every zone number, ascending (always 0 .. zone_count-1)."""
        return tuple(self._roles)

    @property
    def zone_count(self) -> int:
        return len(self._roles)

    def has_zone(self, zone: int) -> bool:
        return zone in self._roles

    def zone_role(self, zone: int) -> ZoneRole:
        """What ``zone`` is; KeyError naming the layout for a zone it does not have."""
        try:
            return self._roles[zone]
        except KeyError:
            raise KeyError(f"zone {zone} is not in layout {self.name!r} "
                           f"(zones 0-{self.zone_count - 1})") from None

    def describe_zone(self, zone: int) -> str:
        """Human wording with seat names and slot labels, for messages."""
        role = self.zone_role(zone)
        if role.kind is ZoneKind.STAR:
            text = f"star of {self.slots[role.slot_index].title}"
        elif role.kind is ZoneKind.SHIPS:
            seat = role.seat_index
            text = (f"ships of seat {seat} ({self.seats[seat].name}) in "
                    f"{self.slots[role.slot_index].title}")
        elif role.kind is ZoneKind.TOKEN:
            text = f"turn token of seat {role.seat} ({self.seats[role.seat_index].name})"
        else:
            text = role.to_text()
        return f"zone {zone} ({text})"

    def wiring(self, zone: int) -> ZoneWiring:
        """The reader and multiplexer channel ``zone`` is wired to."""
        self.zone_role(zone)  # same error for unknown zones
        return self._wiring[zone]

    def ship_zone(self, slot: int, seat: int) -> int:
        return self.slots[slot].ship_zones[seat]

    def token_zone(self, seat: int) -> int:
        return self.seats[seat].token_zone

    # -- bank

    @property
    def has_bank(self) -> bool:
        return bool(self.bank)

    def bank_zone(self, piece: Piece) -> int | None:
        """The compartment zone for ``piece``'s colour-size, None without a bank tray."""
        return self._bank_by_piece.get(piece)

    def check_bank_fits(self, rules: Rules, players: int) -> None:
        """Refuse (LayoutError naming the tray, the preset and the counts) a game whose
        bank the tray cannot hold: ``rules.bank_copies(players)`` pieces of each
        colour-size in one compartment. A table without a tray keeps the bank beside it
        and fits any."""
        copies = rules.bank_copies(players)
        if not self.bank or copies <= self.bank_capacity:
            return
        raise LayoutError(
            f"layout {self.name!r}: the bank tray holds {self.bank_capacity} pieces of each "
            f"colour-size, but the {rules.name} rules with {players} players start with a "
            f"bank of {copies} of each ({rules.bank_pieces(players)} pieces): choose a layout "
            f"whose tray holds {copies}, or rules with a smaller bank (docs/rules.md, "
            "The bank)", key="bank.capacity")

    # -- LEDs

    @property
    def pixel_count(self) -> int:
        return self.strip.pixel_count

    @property
    def chain(self) -> tuple[LedSegment, ...]:
        """Rings and bars in the order they sit on the LED chain (by first pixel)."""
        segments = [LedSegment("bar", seat.index, seat.bar) for seat in self.seats]
        segments += [LedSegment("ring", slot.index, slot.ring) for slot in self.slots]
        return tuple(sorted(segments, key=lambda segment: min(segment.pixels)))

    @property
    def seat_count(self) -> int:
        return len(self.seats)

    @property
    def warnings(self) -> tuple[str, ...]:
        """What a valid layout cannot do (shown by ``homeworlds firmware-config``): a PN532
        reads at most two tags per pad (ISO 14443A, no 16-slot inventory), fine for a star
        pad or a token but not for a ship pad or bank compartment that holds more."""
        notes = []
        for reader in self.readers:
            if reader.chip != "pn532":
                continue
            crowded = [zone for zone in reader.zones if zone is not None
                       and self._roles[zone].kind in (ZoneKind.SHIPS, ZoneKind.BANK)]
            if crowded:
                notes.append(f"readers[{reader.index}]: a PN532 reads at most two tags per pad, "
                             f"but zone(s) {_ranges(crowded)} (ship pads, bank compartments) can "
                             "hold more: enough to try the software, not for a game (use a PN5180)")
        return tuple(notes)

    # -- text

    @classmethod
    def from_toml_text(cls, text: str, source: str = "<layout>") -> Layout:
        """Parse and validate layout TOML; LayoutError names ``source`` and the key."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise LayoutError(f"not valid TOML: {error}", source=source) from None
        try:
            return _parse(data)
        except LayoutError as error:
            raise error.with_source(source) from None

    def to_toml_text(self) -> str:
        """Canonical layout TOML (comments are not kept); reads back equal."""
        return _write(self)


# --------------------------------------------------------------------------- loading


def load_layout(path: str | Path) -> Layout:
    """Read a layout file. LayoutError (a ValueError) names the file and key on any problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise LayoutError(f"cannot read layout file: {error.strerror or error}",
                          source=str(path)) from None
    except UnicodeDecodeError as error:
        raise LayoutError(f"not UTF-8 text: {error.reason} at byte {error.start}",
                          source=str(path)) from None
    return Layout.from_toml_text(text, source=str(path))


def builtin_layout_names() -> tuple[str, ...]:
    """Names of the layouts bundled in hardware/layouts/."""
    if not BUILTIN_LAYOUTS_DIR.is_dir():
        return ()
    return tuple(sorted(p.stem for p in BUILTIN_LAYOUTS_DIR.glob("*.toml")))


def builtin_layout(name: str) -> Layout:
    """A bundled layout by name (``standard-2p``, ``four-seat``)."""
    if not BUILTIN_LAYOUTS_DIR.is_dir():
        raise LayoutError(f"the bundled layouts are not installed (looked in "
                          f"{BUILTIN_LAYOUTS_DIR}; they ship with a source checkout): pass a "
                          "layout file path instead")
    path = BUILTIN_LAYOUTS_DIR / f"{name}.toml"
    if "/" in name or "\\" in name or not path.is_file():
        known = ", ".join(builtin_layout_names()) or "none"
        raise LayoutError(f"no bundled layout named {name!r} (bundled: {known})")
    layout = Layout.from_toml_text(path.read_text(encoding="utf-8"), source=path.name)
    if layout.name != name:
        raise LayoutError(f"file is named {name!r} but declares name = {layout.name!r}",
                          key="name", source=path.name)
    return layout


class _Table:
    """A TOML table being read: typed access by key path, unknown keys refused up front
    (so a misspelt key is reported as such, not as a missing one)."""

    def __init__(self, data: object, path: str, allowed: Iterable[str]):
        if not isinstance(data, dict):
            raise LayoutError(f"expected a table, got {_type_name(data)}", key=path or None)
        allowed = list(allowed)
        for name in data:
            if name not in allowed:
                close = difflib.get_close_matches(name, allowed, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise LayoutError(f"unknown key ({hint}expected one of: {', '.join(allowed)})",
                                  key=f"{path}.{name}" if path else name)
        self.data = data
        self.path = path

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def get(self, name: str, kind: type | tuple[type, ...], *, required: bool = True,
            default: object = None) -> Any:
        """The value of ``name``, checked to be of ``kind`` (so typed as the caller asks)."""
        if name not in self.data:
            if required:
                raise LayoutError("missing (required)", key=self.key(name))
            return default
        value = self.data[name]
        _expect(value, kind, self.key(name))
        return value

    def integer(self, name: str, low: int, high: int) -> int:
        value: int = self.get(name, int)
        _check_range(value, low, high, self.key(name))
        return value

    def optional_integer(self, name: str, low: int, high: int) -> int | None:
        value: int | None = self.get(name, int, required=False)
        if value is not None:
            _check_range(value, low, high, self.key(name))
        return value


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    return {int: "an integer", str: "a string", float: "a float", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)


def _expect(value: object, kind: type | tuple[type, ...], key: str) -> None:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # bool is an int in Python but never what a layout means by a number
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        wanted = " or ".join(_type_name(k()) for k in kinds)
        hint = ""
        if kinds == (list,) and isinstance(value, dict):
            hint = f" (write each entry as a [[{key}]] table)"
        raise LayoutError(f"expected {wanted}, got {_type_name(value)} {value!r}{hint}", key=key)


def _check_range(value: int, low: int, high: int, key: str) -> None:
    if not low <= value <= high:
        raise LayoutError(f"{value} is out of range {low}..{high}", key=key)


def _zone(value: object, key: str) -> int:
    _expect(value, int, key)
    zone = cast(int, value)  # checked just above
    _check_range(zone, 0, MAX_ZONE, key)
    return zone


def _pixels(value: object, key: str) -> tuple[int, ...]:
    """A ring or bar: an array of pixel indices or ``{ first, count, reverse }``."""
    if isinstance(value, list):
        pixels: list[int] = []
        for i, item in enumerate(value):
            _expect(item, int, f"{key}[{i}]")
            pixels.append(item)
        if not pixels:
            raise LayoutError("needs at least one pixel", key=key)
        return tuple(pixels)
    if not isinstance(value, dict):
        raise LayoutError("expected an array of pixel indices or a table { first = N, count = N }"
                          f", got {_type_name(value)} {value!r}", key=key)
    table = _Table(value, key, ["first", "count", "reverse"])
    first = table.integer("first", 0, MAX_PIXELS)
    count = table.integer("count", 1, MAX_PIXELS)
    reverse = table.get("reverse", bool, required=False, default=False)
    run = tuple(range(first, first + count))
    return run[::-1] if reverse else run


def _optional_label(table: _Table) -> str | None:
    label = table.get("label", str, required=False)
    if label is None:
        return None
    return label.strip() or None


_TOP_KEYS = ["format", "name", "description", "strip", "mcu", "power", "readers", "seats", "slots",
             "bank"]


def _parse(data: dict) -> Layout:
    top = _Table(data, "", _TOP_KEYS)
    version = top.get("format", int)
    if version != LAYOUT_FORMAT:
        raise LayoutError(f"unsupported layout format {version} (this version reads format "
                          f"{LAYOUT_FORMAT})", key="format")
    name = top.get("name", str).strip()
    if not name:
        raise LayoutError("must not be empty", key="name")
    description = top.get("description", str, required=False, default="")

    strip_table = _Table(top.get("strip", dict), "strip", ["pixel_count", "pixel_order"])
    pixel_count = strip_table.integer("pixel_count", 1, MAX_PIXELS)
    pixel_order = strip_table.get("pixel_order", str).upper()
    if pixel_order not in PIXEL_ORDERS:
        raise LayoutError(f"unknown pixel order {pixel_order!r} (expected one of "
                          f"{', '.join(PIXEL_ORDERS)}; WS2812B and SK6812 use GRB)",
                          key="strip.pixel_order")
    strip = Strip(pixel_count, pixel_order)

    seats = _parse_seats(top.get("seats", list))
    slots = _parse_slots(top.get("slots", list), seats)
    bank, bank_capacity = _parse_bank(top.get("bank", dict, required=False))
    readers = _parse_readers(top.get("readers", list))
    mcu_table = top.get("mcu", dict, required=False)
    mcu = None
    if mcu_table is not None:
        try:
            mcu = _wiring.parse_mcu(mcu_table)
        except WiringError as error:
            raise LayoutError(error.reason, key=error.key) from None
    else:
        for reader in readers:
            if reader.pins is not None:
                raise LayoutError("reader pins are given but the layout has no [mcu] table "
                                  "(the shared SPI, reset and select lines)",
                                  key=f"readers[{reader.index}]")
    power = None
    power_table = top.get("power", dict, required=False)
    if power_table is not None:
        table = _Table(power_table, "power", ["supply", "scanner_amps"])
        supply = table.get("supply", str).strip()
        if not supply:
            raise LayoutError("must not be empty (a supply's part number, e.g. \"LRS-50-5\")",
                              key="power.supply")
        amps = table.get("scanner_amps", (int, float))
        if isinstance(amps, bool) or not 0 < amps <= 100:
            raise LayoutError(f"expected amperes, more than 0, got {amps!r}",
                              key="power.scanner_amps")
        power = Power(supply, float(amps))
    return Layout(name=name, seats=seats, slots=slots, bank=bank, strip=strip,
                  readers=readers, description=description, mcu=mcu, power=power,
                  bank_capacity=bank_capacity)


def _parse_seats(items: list) -> tuple[Seat, ...]:
    if not MIN_SEATS <= len(items) <= MAX_SEATS:
        raise LayoutError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, this one has "
                          f"{len(items)}", key="seats")
    seats: list[Seat] = []
    for index, item in enumerate(items):
        table = _Table(item, f"seats[{index}]",
                       ["name", "token_zone", "bar", "button", "home_slot"])
        name = table.get("name", str).strip()
        if not name:
            raise LayoutError("must not be empty", key=table.key("name"))
        # checked here already because slots refer to seats by name
        for other in seats:
            if other.name.casefold() == name.casefold():
                raise LayoutError(f"seat name {name!r} is already used by seats[{other.index}]",
                                  key=table.key("name"))
        token_zone = _zone(table.get("token_zone", int), table.key("token_zone"))
        button = table.optional_integer("button", 0, MAX_BUTTON)
        home_slot = table.optional_integer("home_slot", 0, MAX_ZONE)
        bar = _pixels(table.get("bar", (list, dict)), table.key("bar"))
        seats.append(Seat(index, name, token_zone, bar, button, home_slot))
    return tuple(seats)


def _parse_slots(items: list, seats: tuple[Seat, ...]) -> tuple[Slot, ...]:
    slots = []
    for index, item in enumerate(items):
        table = _Table(item, f"slots[{index}]", ["label", "star_zone", "ship_zones", "ring"])
        star_zone = _zone(table.get("star_zone", int), table.key("star_zone"))
        ship_zones = _parse_ship_zones(table.get("ship_zones", (list, dict)),
                                       table.key("ship_zones"), seats)
        ring = _pixels(table.get("ring", (list, dict)), table.key("ring"))
        label = _optional_label(table)
        slots.append(Slot(index, star_zone, ship_zones, ring, label))
    return tuple(slots)


def _parse_ship_zones(value: list | dict, key: str, seats: tuple[Seat, ...]) -> tuple[int, ...]:
    """In seat order (``[1, 2]``) or by seat name (``{ south = 1, north = 2 }``)."""
    names = ", ".join(seat.name for seat in seats)
    if isinstance(value, list):
        if len(value) != len(seats):
            raise LayoutError(f"{len(value)} zones given but the layout has {len(seats)} seats "
                              f"({names}): one ship zone per seat, in seat order", key=key)
        return tuple(_zone(item, f"{key}[{i}]") for i, item in enumerate(value))
    by_name = {seat.name: seat.index for seat in seats}
    zones: dict[int, int] = {}
    for seat_name, zone in value.items():
        if seat_name not in by_name:
            raise LayoutError(f"no seat named {seat_name!r} (seats are: {names})",
                              key=f"{key}.{seat_name}")
        zones[by_name[seat_name]] = _zone(zone, f"{key}.{seat_name}")
    missing = [seat.name for seat in seats if seat.index not in zones]
    if missing:
        raise LayoutError(f"no ship zone for seat(s) {', '.join(missing)}", key=key)
    return tuple(zones[i] for i in range(len(seats)))


#: What a bank compartment holds when ``[bank]`` does not say: the two-player bank.
DEFAULT_BANK_CAPACITY = 3
#: The most pieces a compartment may claim to hold (a bank of six players, seven of each,
#: is the largest any preset asks for).
MAX_BANK_CAPACITY = 15


def _parse_bank(value: dict | None) -> tuple[tuple[BankCompartment, ...], int]:
    if value is None:
        return (), 0
    value = dict(value)
    capacity = value.pop("capacity", DEFAULT_BANK_CAPACITY)
    if isinstance(capacity, bool) or not isinstance(capacity, int):
        raise LayoutError(f"expected an integer (pieces each compartment holds), got "
                          f"{_type_name(capacity)}", key="bank.capacity")
    _check_range(capacity, 1, MAX_BANK_CAPACITY, "bank.capacity")
    compartments: dict[Piece, tuple[str, int]] = {}
    for text, zone in value.items():
        key = f"bank.{text}"
        try:
            piece = Piece.from_text(text)
        except InvalidNotation:
            raise LayoutError("not a colour-size (expected r1 .. b3, e.g. g3)", key=key) from None
        if piece in compartments:
            raise LayoutError(f"{piece} is already given as bank.{compartments[piece][0]}", key=key)
        compartments[piece] = (text, _zone(zone, key))
    missing = [str(p) for p in PIECES if p not in compartments]
    if missing:
        raise LayoutError(f"no compartment for {', '.join(missing)} (a bank tray has all 12 "
                          "colour-sizes; leave [bank] out for a table without one)", key="bank")
    return tuple(BankCompartment(compartments[p][1], p) for p in PIECES), capacity


def _parse_readers(items: list) -> tuple[Reader, ...]:
    if not items:
        raise LayoutError("at least one reader is needed", key="readers")
    readers = []
    for index, item in enumerate(items):
        table = _Table(item, f"readers[{index}]",
                       ["chip", "channels", "zones", "label", *_wiring.READER_PIN_KEYS])
        chip = table.get("chip", str).strip().lower()
        if chip not in READER_CHIPS:
            raise LayoutError(f"unknown reader chip {chip!r} (expected one of "
                              f"{', '.join(READER_CHIPS)})", key=table.key("chip"))
        channels = table.integer("channels", 1, MAX_CHANNELS)
        raw_zones = table.get("zones", list)
        if len(raw_zones) > channels:
            raise LayoutError(f"{len(raw_zones)} zones listed but the multiplexer has {channels} "
                              "channels", key=table.key("zones"))
        zones: list[int | None] = []
        for channel, zone in enumerate(raw_zones):
            zone_key = f"{table.key('zones')}[{channel}]"
            # -1 marks a channel with no antenna, so later channels keep their numbers
            zones.append(None if zone == -1 and not isinstance(zone, bool)
                         else _zone(zone, zone_key))
        label = _optional_label(table)
        try:
            pins = _wiring.parse_reader_pins(item, f"readers[{index}]")
        except WiringError as error:
            raise LayoutError(error.reason, key=error.key) from None
        readers.append(Reader(index, chip, channels, tuple(zones), label,
                              None if pins.empty else pins))
    return tuple(readers)


# --------------------------------------------------------------------------- validation


def _validate(layout: Layout) -> None:
    """Cross-checks, in this order (the first problem is the one reported); key paths
    follow the file's structure."""
    _check_numbering(layout)
    _check_seats(layout)
    owners = _zone_owners(layout)
    wired = _check_reader_zones(layout, owners)
    _check_pn532_pads(layout, wired)
    # The pins add up (checked only where the layout says how the table is wired).
    if layout.mcu is not None:
        try:
            _wiring.check(layout.mcu, layout.readers, layout.seats)
        except WiringError as error:
            raise LayoutError(error.reason, key=error.key) from None
    _check_pixels(layout)


def _check_numbering(layout: Layout) -> None:
    """Seat and slot counts, and each listed at its own index."""
    seats, slots = layout.seats, layout.slots
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise LayoutError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, this one has "
                          f"{len(seats)}", key="seats")
    if len(slots) < len(seats):
        raise LayoutError(f"{len(slots)} slots cannot hold a home system for each of the "
                          f"{len(seats)} seats", key="slots")
    for i, seat in enumerate(seats):
        if seat.index != i:
            raise LayoutError(f"seat index {seat.index} listed at position {i}", key=f"seats[{i}]")
    for i, slot in enumerate(slots):
        if slot.index != i:
            raise LayoutError(f"slot index {slot.index} listed at position {i}", key=f"slots[{i}]")


def _check_seats(layout: Layout) -> None:
    """Seat names, buttons and home slots: each used by one seat at most."""
    slots = layout.slots
    names: dict[str, int] = {}
    buttons: dict[int, int] = {}
    homes: dict[int, int] = {}
    for seat in layout.seats:
        key = f"seats[{seat.index}]"
        folded = seat.name.casefold()
        if folded in names:
            raise LayoutError(f"seat name {seat.name!r} is already used by seats[{names[folded]}]",
                              key=f"{key}.name")
        names[folded] = seat.index
        if seat.button is not None:
            if seat.button in buttons:
                raise LayoutError(f"button {seat.button} is already used by "
                                  f"seats[{buttons[seat.button]}]", key=f"{key}.button")
            buttons[seat.button] = seat.index
        if seat.home_slot is not None:
            if not 0 <= seat.home_slot < len(slots):
                raise LayoutError(f"no slot {seat.home_slot} (slots are 0-{len(slots) - 1})",
                                  key=f"{key}.home_slot")
            if seat.home_slot in homes:
                raise LayoutError(f"slot {seat.home_slot} is already the home slot of "
                                  f"seats[{homes[seat.home_slot]}]", key=f"{key}.home_slot")
            homes[seat.home_slot] = seat.index


def _zone_owners(layout: Layout) -> dict[int, str]:
    """Every zone has exactly one role, and the zones are numbered without gaps: each
    zone's key path (slot star or ships, seat token, bank compartment)."""
    seats, slots = layout.seats, layout.slots
    owners: dict[int, str] = {}

    def claim(zone: int, key: str) -> None:
        if not 0 <= zone <= MAX_ZONE:
            raise LayoutError(f"zone {zone} is out of range 0..{MAX_ZONE}", key=key)
        if zone in owners:
            raise LayoutError(f"zone {zone} is already used by {owners[zone]}", key=key)
        owners[zone] = key

    for slot in slots:
        key = f"slots[{slot.index}]"
        claim(slot.star_zone, f"{key}.star_zone")
        if len(slot.ship_zones) != len(seats):
            raise LayoutError(f"{len(slot.ship_zones)} zones given but the layout has "
                              f"{len(seats)} seats", key=f"{key}.ship_zones")
        for index, zone in enumerate(slot.ship_zones):
            claim(zone, f"{key}.ship_zones[{index}] ({seats[index].name})")
    for seat in seats:
        claim(seat.token_zone, f"seats[{seat.index}].token_zone")
    if layout.bank:
        _check_range(layout.bank_capacity, 1, MAX_BANK_CAPACITY, "bank.capacity")
        pieces = [c.piece for c in layout.bank]
        if sorted(pieces) != list(PIECES):
            raise LayoutError("a bank tray needs exactly one compartment per colour-size",
                              key="bank")
        for compartment in layout.bank:
            claim(compartment.zone, f"bank.{compartment.piece}")

    # Dense numbering lets the firmware keep per-zone state in plain arrays and
    # lets the host check HELLO's zone count against the layout.
    missing = sorted(set(range(len(owners))) - set(owners))
    if missing:
        highest = max(owners)
        raise LayoutError(f"zones must be numbered 0-{len(owners) - 1} without gaps: "
                          f"{_ranges(missing)} unused while zone {highest} is used by "
                          f"{owners[highest]}", key=owners[highest])
    return owners


def _check_reader_zones(layout: Layout, owners: dict[int, str]) -> dict[int, str]:
    """Every zone is wired to exactly one reader channel, and nothing else is: each
    zone's channel key path."""
    wired: dict[int, str] = {}
    for reader in layout.readers:
        key = f"readers[{reader.index}]"
        if reader.chip not in READER_CHIPS:
            raise LayoutError(f"unknown reader chip {reader.chip!r}", key=f"{key}.chip")
        if len(reader.zones) > reader.channels:
            raise LayoutError(f"{len(reader.zones)} zones listed but the multiplexer has "
                              f"{reader.channels} channels", key=f"{key}.zones")
        for channel, zone in enumerate(reader.zones):
            if zone is None:
                continue
            zone_key = f"{key}.zones[{channel}]"
            if zone in wired:
                raise LayoutError(f"zone {zone} is already wired at {wired[zone]}", key=zone_key)
            if zone not in owners:
                raise LayoutError(f"zone {zone} is wired here but is no star, ship, token or "
                                  "bank zone", key=zone_key)
            wired[zone] = zone_key
    for zone, key in owners.items():
        if zone not in wired:
            raise LayoutError(f"zone {zone} is not wired to any reader channel (add it to a "
                              "readers[].zones list)", key=key)
    return wired


def _check_pixels(layout: Layout) -> None:
    """Every pixel lies on the strip and lights one thing only; a known pixel order."""
    seats, slots = layout.seats, layout.slots
    lit: dict[int, str] = {}
    segments = [(f"seats[{s.index}].bar", s.bar) for s in seats]
    segments += [(f"slots[{s.index}].ring", s.ring) for s in slots]
    for key, pixels in segments:
        if not pixels:
            raise LayoutError("needs at least one pixel", key=key)
        for pixel in pixels:
            if not 0 <= pixel < layout.strip.pixel_count:
                raise LayoutError(f"pixel {pixel} is beyond the strip (strip.pixel_count = "
                                  f"{layout.strip.pixel_count}: pixels 0-"
                                  f"{layout.strip.pixel_count - 1})", key=key)
            if pixel in lit:
                raise LayoutError(f"pixel {pixel} is already used by {lit[pixel]}", key=key)
            lit[pixel] = key
    if layout.strip.pixel_order not in PIXEL_ORDERS:
        raise LayoutError(f"unknown pixel order {layout.strip.pixel_order!r}",
                          key="strip.pixel_order")


PN532_MAX_TAGS = 2
"""Tags a PN532 reads on one pad (InListPassiveTarget activates at most two)."""


def _check_pn532_pads(layout: Layout, wired: dict[int, str]) -> None:
    """A PN532 reads at most two tags per pad: a bank compartment (three pieces,
    five for four players, stacked) needs more. Star pads (a binary home: two)
    and token pads fit; ship pads may hold more ships than a PN532 sees, which a
    prototype with a handful of pieces accepts (hardware/README.md)."""
    bank = {compartment.zone: compartment.piece for compartment in layout.bank}
    for reader in layout.readers:
        if reader.chip != "pn532":
            continue
        for zone in reader.zones:
            if zone in bank:
                copies = layout.bank_capacity
                raise LayoutError(
                    f"zone {zone} is bank compartment {bank[zone]}, which holds up to {copies} "
                    f"pieces, but reader {reader.index} is a PN532, which reads at most "
                    f"{PN532_MAX_TAGS} tags per pad; serve the bank tray with a PN5180 reader, "
                    "or leave [bank] out", key=wired[zone])


def _ranges(numbers: list[int]) -> str:
    """``[3, 4, 5, 9]`` -> ``"3-5, 9"``."""
    parts: list[str] = []
    start = previous = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == previous + 1:
            previous = n
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if n is not None:
            start = previous = n
    return ", ".join(parts)


# --------------------------------------------------------------------------- writing


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    escaped = escaped.replace("\t", "\\t").replace("\r", "\\r")
    return f'"{escaped}"'


def _toml_key(text: str) -> str:
    bare = text and all(c.isascii() and (c.isalnum() or c in "-_") for c in text)
    return text if bare else _toml_string(text)


def _pixels_text(pixels: tuple[int, ...]) -> str:
    first, count = pixels[0], len(pixels)
    if pixels == tuple(range(first, first + count)):
        return f"{{ first = {first}, count = {count} }}"
    if pixels == tuple(range(first, first - count, -1)):
        return f"{{ first = {first - count + 1}, count = {count}, reverse = true }}"
    return "[" + ", ".join(map(str, pixels)) + "]"


def _write(layout: Layout) -> str:
    lines = [f"format = {LAYOUT_FORMAT}", f"name = {_toml_string(layout.name)}"]
    if layout.description:
        lines.append(f"description = {_toml_string(layout.description)}")
    lines += ["", "[strip]", f"pixel_count = {layout.strip.pixel_count}",
              f"pixel_order = {_toml_string(layout.strip.pixel_order)}"]
    if layout.mcu is not None:
        lines += ["", *_mcu_lines(layout.mcu)]
    if layout.power is not None:
        lines += ["", "[power]", f"supply = {_toml_string(layout.power.supply)}",
                  f"scanner_amps = {layout.power.scanner_amps:g}"]
    for reader in layout.readers:
        lines += ["", "[[readers]]", f"chip = {_toml_string(reader.chip)}",
                  f"channels = {reader.channels}"]
        if reader.label:
            lines.append(f"label = {_toml_string(reader.label)}")
        zones = ", ".join("-1" if z is None else str(z) for z in reader.zones)
        lines.append(f"zones = [{zones}]")
        if reader.pins is not None:
            lines += _reader_pin_lines(reader.pins)
    for seat in layout.seats:
        lines += ["", "[[seats]]", f"name = {_toml_string(seat.name)}",
                  f"token_zone = {seat.token_zone}"]
        if seat.button is not None:
            lines.append(f"button = {seat.button}")
        if seat.home_slot is not None:
            lines.append(f"home_slot = {seat.home_slot}")
        lines.append(f"bar = {_pixels_text(seat.bar)}")
    for slot in layout.slots:
        lines += ["", "[[slots]]"]
        if slot.label:
            lines.append(f"label = {_toml_string(slot.label)}")
        ships = ", ".join(f"{_toml_key(layout.seats[s].name)} = {z}"
                          for s, z in enumerate(slot.ship_zones))
        lines += [f"star_zone = {slot.star_zone}", f"ship_zones = {{ {ships} }}",
                  f"ring = {_pixels_text(slot.ring)}"]
    if layout.bank:
        lines += ["", "[bank]", f"capacity = {layout.bank_capacity}"]
        lines += [f"{c.piece} = {c.zone}" for c in layout.bank]
    return "\n".join(lines) + "\n"



def _pin_list(pins: tuple[str, ...]) -> str:
    return "[" + ", ".join(_toml_string(pin) for pin in pins) + "]"


def _mcu_lines(mcu: McuPins) -> list[str]:
    lines = ["[mcu]"]
    if mcu.board is not None:
        lines.append(f"board = {_toml_string(mcu.board)}")
    if mcu.spi is not None:
        lines.append(f"spi = {{ sck = {_toml_string(mcu.spi.sck)}, mosi = "
                     f"{_toml_string(mcu.spi.mosi)}, miso = {_toml_string(mcu.spi.miso)} }}")
    if mcu.reset is not None:
        lines.append(f"reset = {_toml_string(mcu.reset)}")
    if mcu.mux_select:
        lines.append(f"mux_select = {_pin_list(mcu.mux_select)}")
    if mcu.mux_enable is not None:
        lines.append(f"mux_enable = {_toml_string(mcu.mux_enable)}")
    if mcu.nss_decoder is not None:
        lines.append(f"nss_decoder = {{ address = {_pin_list(mcu.nss_decoder.address)}, "
                     f"enable = {_toml_string(mcu.nss_decoder.enable)} }}")
    if mcu.mux_latch is not None:
        lines.append(f"mux_latch = {_toml_string(mcu.mux_latch)}")
    if mcu.buttons:
        lines.append(f"buttons = {_pin_list(mcu.buttons)}")
    if mcu.dev_jumper is not None:
        lines.append(f"dev_jumper = {_toml_string(mcu.dev_jumper)}")
    return lines


def _reader_pin_lines(pins: ReaderPins) -> list[str]:
    lines = []
    for name in _wiring.READER_PIN_KEYS:
        value = getattr(pins, name)
        if value is None:
            continue
        if isinstance(value, tuple):
            lines.append(f"{name} = {_pin_list(value)}")
        elif isinstance(value, int):
            lines.append(f"{name} = {value}")
        else:
            lines.append(f"{name} = {_toml_string(value)}")
    return lines
