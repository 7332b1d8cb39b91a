"""The virtual table: where tags lie, the verbs that move them, and their history."""

from __future__ import annotations

import pytest

from homeworlds.rules import PIECES, Piece
from homeworlds.sim import (
    HAND,
    OFF_TABLE,
    TOKEN_UID,
    SimError,
    SimulatedMcu,
    TableEvent,
    VirtualTable,
    make_registry,
)
from homeworlds.table.enroll import enroll
from homeworlds.table.registry import Registry, TagInfo

G3 = Piece.from_text("g3")
B1 = Piece.from_text("b1")


def uid_of(registry: Registry, text: str) -> str:
    return registry.uid_of(TagInfo.from_text(text))


# ---------------------------------------------------------------- the tag set


def test_make_registry_has_three_copies_of_each_piece_and_a_token(registry):
    assert len(registry) == 37
    assert registry.missing_copies(3) == ()
    assert registry.lookup(TOKEN_UID) == TagInfo.token()
    assert uid_of(registry, "g3b") == "E004015000000801"
    for uid in registry:
        assert uid.startswith("E0040150") and len(uid) == 16


def test_make_registry_is_deterministic_and_grows_with_players(layout):
    assert make_registry(layout) == make_registry(layout)
    four = make_registry(layout, players=4)
    assert len(four) == 12 * 5 + 1
    assert four.missing_copies(5) == ()
    with pytest.raises(ValueError, match="2 to 6 players"):
        make_registry(layout, players=7)


def test_enrolling_the_simulated_bank_tray_gives_the_registry_back(layout, registry, table):
    # The enrollment procedure on the simulated table's starting picture.
    snapshot = {zone: table.tags_on(zone) for zone in layout.all_zones}
    result = enroll(layout, snapshot)
    assert result.report.ok
    assert dict(result.registry.items()) == dict(registry.items())


# ---------------------------------------------------------------- starting picture


def test_pieces_start_in_their_compartments_and_the_token_on_seat_0(layout, registry, table):
    for piece in PIECES:
        zone = layout.bank_zone(piece)
        assert table.pieces_on(zone) == (piece, piece, piece)
        assert table.bank_uids(piece) == tuple(uid for uid, _ in registry.copies_of(piece))
    assert table.tags_on(layout.token_zone(0)) == (TOKEN_UID,)
    assert table.token_seat() == 0
    assert table.in_hand() == () and table.history == []
    for slot in layout.slots:
        assert all(table.tags_on(zone) == () for zone in slot.zones)


def test_without_a_tray_pieces_start_off_the_table(trayless_layout, registry):
    table = VirtualTable(trayless_layout, registry, token_seat=None)
    assert len(table.off_table()) == 37
    assert all(uids == () for uids in table.zone_sets())
    uid = table.take_from_bank(G3)
    assert table.location(uid) == HAND
    table.to_bank(uid)
    assert table.location(uid) == OFF_TABLE


# ---------------------------------------------------------------- verbs and history


def test_place_lift_move_and_their_history(layout, registry, table):
    star = layout.slots[3].star_zone
    ships = layout.ship_zone(3, 0)
    uid = table.take_from_bank(G3)
    table.place(uid, star)
    assert table.tags_on(star) == (uid,) and table.location(uid) == star
    assert table.pieces_on(star) == (G3,)
    table.lift(uid)
    assert table.location(uid) == HAND and table.in_hand() == (uid,)
    table.place(uid, star)
    table.move(uid, ships)
    assert table.tags_on(star) == () and table.tags_on(ships) == (uid,)
    compartment = layout.bank_zone(G3)
    assert table.history == [
        TableEvent("lift", uid, compartment, HAND),
        TableEvent("place", uid, HAND, star),
        TableEvent("lift", uid, star, HAND),
        TableEvent("place", uid, HAND, star),
        TableEvent("move", uid, star, ships),
    ]
    assert table.history[-1].to_text() == f"move {uid} zone {star} -> zone {ships}"


def test_flip_moves_a_ship_to_the_other_side_of_its_slot(layout, table):
    uid = table.take_from_bank(B1)
    table.place(uid, layout.ship_zone(5, 1))
    table.flip(uid)
    assert table.location(uid) == layout.ship_zone(5, 0)
    assert table.history[-1] == TableEvent("flip", uid, layout.ship_zone(5, 1),
                                           layout.ship_zone(5, 0))
    table.flip(uid)
    assert table.location(uid) == layout.ship_zone(5, 1)


def test_move_token_passes_the_turn(layout, table):
    table.move_token(1)
    assert table.token_seat() == 1
    assert table.tags_on(layout.token_zone(0)) == ()
    assert table.history == [TableEvent("move_token", TOKEN_UID, layout.token_zone(0),
                                        layout.token_zone(1))]
    with pytest.raises(SimError, match="already lies on seat 1"):
        table.move_token(1)


def test_strangers_are_unknown_tags_in_hand(layout, table):
    table.add_stranger("e0040150deadbeef")
    assert table.location("E0040150DEADBEEF") == HAND
    table.place("E0040150DEADBEEF", 0)
    assert table.pieces_on(0) == () and table.tags_on(0) == ("E0040150DEADBEEF",)
    assert "unknown tag" in table.describe("E0040150DEADBEEF")


# ---------------------------------------------------------------- invalid verbs


def test_placing_a_tag_that_is_not_in_hand_is_refused(registry, table):
    uid = uid_of(registry, "r1a")
    with pytest.raises(SimError, match=r"place: E004015000000000 \(r1a\) is not in hand but at "
                       r"zone 44 \(bank compartment r1\)"):
        table.place(uid, 0)
    assert table.history == []


def test_unknown_zone_and_unknown_tag_are_refused(registry, table):
    uid = table.take_from_bank(G3)
    with pytest.raises(SimError, match=r"place: no zone 56 in layout 'standard-2p' \(zones 0-55\)"):
        table.place(uid, 56)
    with pytest.raises(SimError, match="tag E0040150FFFFFFFF is not on this table"):
        table.lift("E0040150FFFFFFFF")
    with pytest.raises(SimError, match="16 hex digits"):
        table.lift("g3a")
    with pytest.raises(SimError, match="already in hand"):
        table.lift(uid)


def test_flip_needs_a_ship_zone_and_move_a_new_zone(layout, registry, table):
    uid = table.take_from_bank(G3)
    table.place(uid, layout.slots[0].star_zone)
    with pytest.raises(SimError, match="not on a ship zone"):
        table.flip(uid)
    with pytest.raises(SimError, match="already lies on zone 0"):
        table.move(uid, 0)
    with pytest.raises(SimError, match="no seat 2"):
        table.move_token(2)


def test_mcu_verbs_need_an_attached_mcu(table):
    for verb in (table.unplug, table.replug, table.corrupt_next_line):
        with pytest.raises(SimError, match="no simulated MCU is attached"):
            verb()
    with pytest.raises(SimError, match="no simulated MCU is attached"):
        table.press(0)
    with pytest.raises(SimError, match="positive number of lines"):
        table.drop_lines(0)
    with pytest.raises(SimError, match="probability"):
        table.set_miss_rate(1.5)
    assert table.history == []


def test_mcu_verbs_are_recorded_once_forwarded(table):
    mcu = SimulatedMcu(table)
    table.set_miss_rate(0.25)
    table.set_scan_time(2)
    table.drop_lines(3)
    table.reader_fault(1, scans=None, code="NOREPLY")
    assert (mcu.miss_rate, mcu.scan_time) == (0.25, 2)
    assert mcu.readers[1].faulted
    assert [event.to_text() for event in table.history] == [
        "set_miss_rate 0.25", "set_scan_time 2", "drop_lines 3", "reader_fault 1"]
    with pytest.raises(SimError, match="no reader 9"):
        table.reader_fault(9)
    with pytest.raises(SimError, match=r"no button 2 \(layout 'standard-2p' has 2 button"):
        table.press(2)


def test_take_from_bank_runs_out(table):
    for _ in range(3):
        table.take_from_bank(G3)
    with pytest.raises(SimError, match="no g3 left in the bank"):
        table.take_from_bank(G3)


def test_flip_on_a_four_seat_table_names_the_seat():
    from homeworlds.table.layout import builtin_layout

    layout = builtin_layout("four-seat")
    table = VirtualTable(layout, make_registry(layout, players=4))
    uid = table.take_from_bank(B1)
    table.place(uid, layout.ship_zone(2, 0))
    with pytest.raises(SimError, match="say which seat the ship goes to"):
        table.flip(uid)
    table.flip(uid, 3)
    assert table.location(uid) == layout.ship_zone(2, 3)
