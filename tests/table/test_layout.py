"""Layout files: the bundled tables, lookups, and every refusal naming file and key."""

from __future__ import annotations

import dataclasses

import pytest

from homeworlds.rules import PIECES, Color, Piece, Size
from homeworlds.table.layout import (
    BUILTIN_LAYOUTS_DIR,
    Layout,
    LayoutError,
    ZoneKind,
    ZoneRole,
    ZoneWiring,
    builtin_layout,
    builtin_layout_names,
    load_layout,
)

TINY = """\
format = 1
name = "tiny"

[strip]
pixel_count = 48
pixel_order = "GRB"

[[readers]]
chip = "pn5180"
channels = 8
zones = [0, 1, 2, 3, 4, 5, 6, 7]

[[seats]]
name = "south"
token_zone = 6
button = 0
home_slot = 0
bar = { first = 0, count = 8 }

[[seats]]
name = "north"
token_zone = 7
bar = { first = 40, count = 8 }

[[slots]]
star_zone = 0
ship_zones = { south = 1, north = 2 }
ring = { first = 8, count = 16 }

[[slots]]
star_zone = 3
ship_zones = [4, 5]
ring = { first = 24, count = 16 }
"""

BANK = "\n[bank]\n" + "\n".join(f"{p} = {8 + p.index}" for p in PIECES) + "\n"
TINY_WITH_BANK = TINY.replace("channels = 8\nzones = [0, 1, 2, 3, 4, 5, 6, 7]",
                              "channels = 20\nzones = [" + ", ".join(map(str, range(20))) + "]"
                              ) + BANK


def mutate(text: str, old: str, new: str) -> str:
    assert old in text, f"test bug: {old!r} not in base text"
    return text.replace(old, new, 1)


# --------------------------------------------------------------------------- bundled layouts


def test_bundled_layouts_are_found_in_the_hardware_directory():
    assert BUILTIN_LAYOUTS_DIR.name == "layouts"
    assert BUILTIN_LAYOUTS_DIR.parent.name == "hardware"
    assert {"standard-2p", "four-seat"} <= set(builtin_layout_names())


def test_standard_layout_shape():
    layout = builtin_layout("standard-2p")
    assert layout.name == "standard-2p"
    assert [seat.name for seat in layout.seats] == ["south", "north"]
    assert len(layout.slots) == 14
    assert layout.all_zones == tuple(range(56))
    assert layout.zone_count == 56
    assert layout.pixel_count == 240
    assert layout.strip.pixel_order == "GRB"
    assert all(len(slot.ring) == 16 for slot in layout.slots)
    assert all(len(seat.bar) == 8 for seat in layout.seats)
    assert [seat.button for seat in layout.seats] == [0, 1]
    assert len(layout.bank) == 12
    assert {c.piece for c in layout.bank} == set(PIECES)
    # one 16-channel PN5180 per group of pads, every zone on exactly one channel
    assert [reader.chip for reader in layout.readers] == ["pn5180"] * 4
    wired = [z for reader in layout.readers for z in reader.zones if z is not None]
    assert sorted(wired) == list(range(56))


def test_standard_layout_zone_numbering_scheme():
    layout = builtin_layout("standard-2p")
    for slot in layout.slots:
        i = slot.index
        assert slot.star_zone == 3 * i
        assert slot.ship_zones == (3 * i + 1, 3 * i + 2)
        assert slot.ring == tuple(range(8 + 16 * i, 24 + 16 * i))
    assert [seat.token_zone for seat in layout.seats] == [42, 43]
    assert layout.seats[0].bar == tuple(range(0, 8))
    assert layout.seats[1].bar == tuple(range(232, 240))
    for piece in PIECES:
        assert layout.bank_zone(piece) == 44 + piece.index
    assert [seat.home_slot for seat in layout.seats] == [3, 10]


def test_zone_roles_of_the_standard_layout():
    layout = builtin_layout("standard-2p")
    assert layout.zone_role(9) == ZoneRole(ZoneKind.STAR, 9, slot=3)
    assert layout.zone_role(10) == ZoneRole(ZoneKind.SHIPS, 10, slot=3, seat=0)
    assert layout.zone_role(11) == ZoneRole(ZoneKind.SHIPS, 11, slot=3, seat=1)
    assert layout.zone_role(43) == ZoneRole(ZoneKind.TOKEN, 43, seat=1)
    g3 = Piece(Color.GREEN, Size.LARGE)
    assert layout.zone_role(52) == ZoneRole(ZoneKind.BANK, 52, piece=g3)
    assert layout.zone_role(52).to_text() == "bank compartment g3"
    assert layout.zone_role(11).to_text() == "ships of seat 1 in slot 3"
    assert layout.describe_zone(11) == "zone 11 (ships of seat 1 (north) in slot 3 (S3 south home))"
    assert layout.describe_zone(42) == "zone 42 (turn token of seat 0 (south))"
    with pytest.raises(KeyError, match="zone 56 is not in layout 'standard-2p'"):
        layout.zone_role(56)
    assert not layout.has_zone(56) and layout.has_zone(55)


def test_wiring_and_reader_channels_agree():
    layout = builtin_layout("standard-2p")
    assert layout.wiring(0) == ZoneWiring(reader=0, channel=0)
    assert layout.wiring(14) == ZoneWiring(reader=0, channel=14)
    assert layout.wiring(41) == ZoneWiring(reader=2, channel=11)
    assert layout.wiring(42) == ZoneWiring(reader=3, channel=12)  # turn tokens: bank tray's reader
    assert layout.wiring(43) == ZoneWiring(reader=3, channel=13)
    assert layout.wiring(44) == ZoneWiring(reader=3, channel=0)
    for zone in layout.all_zones:
        wiring = layout.wiring(zone)
        assert layout.readers[wiring.reader].channel_of(zone) == wiring.channel


def test_led_chain_order_of_the_standard_layout():
    chain = builtin_layout("standard-2p").chain
    assert [s.to_text() for s in chain[:2]] == ["bar of seat 0", "ring of slot 0"]
    assert chain[-1].to_text() == "bar of seat 1"
    assert [s.owner for s in chain if s.kind == "ring"] == list(range(14))
    flat = [pixel for segment in chain for pixel in segment.pixels]
    assert flat == list(range(240))  # no gaps, no overlap, in chain order


def test_four_seat_layout_shape():
    layout = builtin_layout("four-seat")
    assert [seat.name for seat in layout.seats] == ["south", "west", "north", "east"]
    assert len(layout.slots) == 20
    assert layout.zone_count == 116
    assert all(len(slot.ship_zones) == 4 for slot in layout.slots)
    assert layout.slots[7].zones == (35, 36, 37, 38, 39)
    assert [seat.token_zone for seat in layout.seats] == [100, 101, 102, 103]
    assert len(layout.bank) == 12 and layout.bank_zone(PIECES[0]) == 104
    assert layout.pixel_count == 352
    flat = sorted(p for segment in layout.chain for p in segment.pixels)
    assert flat == list(range(352))
    assert layout.zone_role(38) == ZoneRole(ZoneKind.SHIPS, 38, slot=7, seat=2)
    assert sorted(seat.home_slot for seat in layout.seats) == [2, 5, 10, 17]


@pytest.mark.parametrize("name", ["standard-2p", "four-seat"])
def test_bundled_layouts_round_trip_through_canonical_text(name):
    layout = builtin_layout(name)
    again = Layout.from_toml_text(layout.to_toml_text(), source="canonical")
    assert again == layout
    assert again.to_toml_text() == layout.to_toml_text()


def test_load_layout_from_a_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(TINY)
    layout = load_layout(path)
    assert layout.name == "tiny"
    assert layout.slots[1].ship_zones == (4, 5)  # array form, in seat order
    assert layout.slots[0].ship_zones == (1, 2)  # table form, by seat name
    assert not layout.has_bank and layout.bank_zone(PIECES[0]) is None


def test_unknown_builtin_name_lists_the_bundled_ones():
    with pytest.raises(LayoutError, match=r"no bundled layout named 'eight-seat' \(bundled: .*"
                                          r"standard-2p"):
        builtin_layout("eight-seat")
    with pytest.raises(LayoutError):
        builtin_layout("../layouts/standard-2p")


def test_layout_values_are_immutable():
    layout = builtin_layout("standard-2p")
    with pytest.raises(dataclasses.FrozenInstanceError):
        layout.name = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        layout.slots[0].star_zone = 5  # type: ignore[misc]
    assert hash(layout) == hash(builtin_layout("standard-2p"))


def test_constructing_an_inconsistent_layout_directly_is_refused():
    layout = builtin_layout("standard-2p")
    bad_slot = dataclasses.replace(layout.slots[1], ring=layout.slots[0].ring)
    with pytest.raises(LayoutError, match=r"slots\[1\]\.ring: pixel 8 is already used by "
                                          r"slots\[0\]\.ring"):
        dataclasses.replace(layout, slots=(layout.slots[0], bad_slot, *layout.slots[2:]))


# --------------------------------------------------------------------------- optional forms


def test_ring_forms_explicit_list_and_reverse():
    text = mutate(TINY, "ring = { first = 8, count = 16 }",
                  "ring = { first = 8, count = 16, reverse = true }")
    text = mutate(text, "ring = { first = 24, count = 16 }",
                  "ring = [" + ", ".join(map(str, [24, 26, 25, *range(27, 40)])) + "]")
    layout = Layout.from_toml_text(text)
    assert layout.slots[0].ring == tuple(range(23, 7, -1))
    assert layout.slots[1].ring[:3] == (24, 26, 25)
    assert Layout.from_toml_text(layout.to_toml_text()) == layout


def test_unconnected_channel_keeps_later_channel_numbers():
    text = mutate(TINY, "channels = 8\nzones = [0, 1, 2, 3, 4, 5, 6, 7]",
                  "channels = 9\nzones = [0, 1, -1, 2, 3, 4, 5, 6, 7]")
    layout = Layout.from_toml_text(text)
    assert layout.wiring(2) == ZoneWiring(0, 3)
    assert layout.readers[0].zones[2] is None
    assert Layout.from_toml_text(layout.to_toml_text()) == layout


def test_a_layout_with_a_bank_tray():
    layout = Layout.from_toml_text(TINY_WITH_BANK)
    assert layout.bank_zone(Piece.from_text("b3")) == 19
    assert layout.zone_role(8).piece == Piece.from_text("r1")


# --------------------------------------------------------------------------- refusals

BAD = [
    # (description, old, new, expected "key: reason" start)
    ("unknown top-level key", 'name = "tiny"', 'name = "tiny"\nslot = 1',
     "slot: unknown key (did you mean 'slots'?"),
    ("unknown key in a slot", "star_zone = 3\n", "star_zone = 3\ncolour = 1\n",
     "slots[1].colour: unknown key"),
    ("unknown key in a ring table", "ring = { first = 8, count = 16 }",
     "ring = { first = 8, count = 16, dir = 1 }", "slots[0].ring.dir: unknown key"),
    ("duplicate zone", "star_zone = 3", "star_zone = 0",
     "slots[1].star_zone: zone 0 is already used by slots[0].star_zone"),
    ("duplicate zone across kinds", "token_zone = 7", "token_zone = 5",
     "seats[1].token_zone: zone 5 is already used by slots[1].ship_zones[1] (north)"),
    ("duplicate pixel", "ring = { first = 24, count = 16 }", "ring = { first = 20, count = 16 }",
     "slots[1].ring: pixel 20 is already used by slots[0].ring"),
    ("pixel beyond the strip", "pixel_count = 48", "pixel_count = 40",
     "seats[1].bar: pixel 40 is beyond the strip (strip.pixel_count = 40"),
    ("missing field", "star_zone = 0\n", "",
     "slots[0].star_zone: missing (required)"),
    ("missing table", "[strip]\npixel_count = 48\npixel_order = \"GRB\"\n", "",
     "strip: missing (required)"),
    ("wrong type", "star_zone = 3", 'star_zone = "3"',
     "slots[1].star_zone: expected an integer, got a string '3'"),
    ("boolean is not a number", "button = 0", "button = true",
     "seats[0].button: expected an integer, got a boolean True"),
    ("float is not a number", "pixel_count = 48", "pixel_count = 48.0",
     "strip.pixel_count: expected an integer, got a float 48.0"),
    ("seat that does not exist", "ship_zones = { south = 1, north = 2 }",
     "ship_zones = { south = 1, nort = 2 }",
     "slots[0].ship_zones.nort: no seat named 'nort' (seats are: south, north)"),
    ("seat left out", "ship_zones = { south = 1, north = 2 }", "ship_zones = { south = 1 }",
     "slots[0].ship_zones: no ship zone for seat(s) north"),
    ("ship zones for a seat too many", "ship_zones = [4, 5]", "ship_zones = [4, 5, 6]",
     "slots[1].ship_zones: 3 zones given but the layout has 2 seats"),
    ("home slot that does not exist", "home_slot = 0", "home_slot = 9",
     "seats[0].home_slot: no slot 9 (slots are 0-1)"),
    ("negative zone", "star_zone = 3", "star_zone = -3",
     "slots[1].star_zone: -3 is out of range 0..65535"),
    ("zone not wired", "zones = [0, 1, 2, 3, 4, 5, 6, 7]", "zones = [0, 1, 2, 3, 4, 5, 6]",
     "seats[1].token_zone: zone 7 is not wired to any reader channel"),
    ("wired zone with no role", "channels = 8\nzones = [0, 1, 2, 3, 4, 5, 6, 7]",
     "channels = 9\nzones = [0, 1, 2, 3, 4, 5, 6, 7, 8]",
     "readers[0].zones[8]: zone 8 is wired here but is no star, ship, token or bank zone"),
    ("zone wired twice", "channels = 8\nzones = [0, 1, 2, 3, 4, 5, 6, 7]",
     "channels = 9\nzones = [0, 1, 2, 3, 4, 5, 6, 7, 3]",
     "readers[0].zones[8]: zone 3 is already wired at readers[0].zones[3]"),
    ("more zones than channels", "channels = 8", "channels = 7",
     "readers[0].zones: 8 zones listed but the multiplexer has 7 channels"),
    ("unknown chip", 'chip = "pn5180"', 'chip = "rc522"',
     "readers[0].chip: unknown reader chip 'rc522'"),
    ("gap in zone numbers", "token_zone = 7", "token_zone = 9",
     "seats[1].token_zone: zones must be numbered 0-7 without gaps: 7 unused"),
    ("bad pixel order", 'pixel_order = "GRB"', 'pixel_order = "GRBX"',
     "strip.pixel_order: unknown pixel order 'GRBX'"),
    ("unsupported format", "format = 1", "format = 2",
     "format: unsupported layout format 2"),
    ("one seat only",
     '[[seats]]\nname = "north"\ntoken_zone = 7\nbar = { first = 40, count = 8 }\n',
     "", "seats: a table has 2 to 6 seats, this one has 1"),
    ("duplicate seat names", 'name = "north"', 'name = "South"',
     "seats[1].name: seat name 'South' is already used by seats[0]"),
    ("duplicate buttons", "token_zone = 7\n", "token_zone = 7\nbutton = 0\n",
     "seats[1].button: button 0 is already used by seats[0]"),
    ("empty pixel list", "bar = { first = 40, count = 8 }", "bar = []",
     "seats[1].bar: needs at least one pixel"),
    ("ring of wrong type", "ring = { first = 24, count = 16 }", 'ring = "24-39"',
     "slots[1].ring: expected an array or a table, got a string '24-39'"),
]


@pytest.mark.parametrize(("old", "new", "expected"), [case[1:] for case in BAD],
                         ids=[case[0] for case in BAD])
def test_bad_layouts_are_refused_naming_file_and_key(old, new, expected):
    with pytest.raises(LayoutError) as caught:
        Layout.from_toml_text(mutate(TINY, old, new), source="bad.toml")
    assert str(caught.value).startswith(f"bad.toml: {expected}"), str(caught.value)
    assert caught.value.source == "bad.toml"
    assert isinstance(caught.value, ValueError)


BAD_BANK = [
    ("incomplete bank", "b3 = 19\n", "",
     "bank: no compartment for b3 (a bank tray has all 12 colour-sizes"),
    ("not a colour-size", "b3 = 19", "x9 = 19", "bank.x9: not a colour-size"),
    ("same colour-size twice", "b3 = 19", "b3 = 19\n3b = 20",
     "bank.3b: b3 is already given as bank.b3"),
    ("bank zone clashing", "b3 = 19", "b3 = 0",
     "bank.b3: zone 0 is already used by slots[0].star_zone"),
]


@pytest.mark.parametrize(("old", "new", "expected"), [case[1:] for case in BAD_BANK],
                         ids=[case[0] for case in BAD_BANK])
def test_bad_bank_trays_are_refused_naming_file_and_key(old, new, expected):
    with pytest.raises(LayoutError) as caught:
        Layout.from_toml_text(mutate(TINY_WITH_BANK, old, new), source="bank.toml")
    assert str(caught.value).startswith(f"bank.toml: {expected}"), str(caught.value)


def test_single_table_where_an_array_of_tables_is_needed_gets_a_hint():
    text = mutate(TINY, '[[seats]]\nname = "south"', '[seats]\nname = "south"')
    text = mutate(text, '[[seats]]\nname = "north"\ntoken_zone = 7\nbar = { first = 40, count = 8 '
                        '}\n',
                  "")
    with pytest.raises(LayoutError, match=r"^x\.toml: seats: expected an array, got a table .*"
                                          r"\(write each entry as a \[\[seats\]\] table\)"):
        Layout.from_toml_text(text, source="x.toml")


def test_invalid_toml_names_the_file_and_line():
    with pytest.raises(LayoutError, match=r"^broken\.toml: not valid TOML: .*line 2"):
        Layout.from_toml_text("format = 1\nname = \n", source="broken.toml")


def test_file_errors_name_the_path(tmp_path):
    with pytest.raises(LayoutError, match=r"nowhere\.toml: cannot read layout file"):
        load_layout(tmp_path / "nowhere.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"format = 1\nname = \"\xff\"\n")
    with pytest.raises(LayoutError, match=r"binary\.toml: not UTF-8"):
        load_layout(binary)
    bad = tmp_path / "standard-copy.toml"
    bad.write_text(mutate(TINY, "star_zone = 3", "star_zone = 0"))
    with pytest.raises(LayoutError) as caught:
        load_layout(bad)
    assert str(caught.value).startswith(f"{bad}: slots[1].star_zone: zone 0 is already used")
