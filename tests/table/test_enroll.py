"""Enrollment from a snapshot of the filled bank tray."""

from __future__ import annotations

import random

import pytest

from homeworlds.rules import PIECES, Piece
from homeworlds.table.enroll import EnrollError, copies_for_players, enroll
from homeworlds.table.layout import Layout, Reader, builtin_layout
from homeworlds.table.registry import Registry, TagInfo

TOKEN = "E0040150FFFF0000"


@pytest.fixture(scope="module")
def standard() -> Layout:
    return builtin_layout("standard-2p")


def make_uids(count: int, seed: int) -> list[str]:
    """Distinct, realistic-looking NXP UIDs in no particular order."""
    rng = random.Random(seed)
    uids: set[str] = set()
    while len(uids) < count:
        uids.add(f"E00401{rng.getrandbits(40):010X}")
    return list(uids)


def filled_tray(layout: Layout, copies: int = 3, seed: int = 1) -> dict[int, frozenset[str]]:
    """A snapshot of a bank tray holding ``copies`` tagged pieces per colour-size,
    and the turn token on seat 0's token zone."""
    uids = make_uids(12 * copies, seed)
    snapshot = {layout.bank_zone(piece): frozenset(uids[copies * i:copies * (i + 1)])
                for i, piece in enumerate(PIECES)}
    snapshot[layout.token_zone(0)] = frozenset({TOKEN})
    return snapshot


def piece_at(layout: Layout, text: str) -> int:
    return layout.bank_zone(Piece.from_text(text))


# --------------------------------------------------------------------------- clean runs


def test_copies_per_colour_size_by_player_count():
    assert copies_for_players(2) == 3
    assert copies_for_players(4) == 5
    assert copies_for_players(6) == 7
    for players in (1, 7):
        with pytest.raises(ValueError, match="2 to 6 players"):
            copies_for_players(players)


def test_a_filled_tray_enrolls_every_piece_and_the_token(standard):
    snapshot = filled_tray(standard)
    result = enroll(standard, snapshot)
    report, registry = result.report, result.registry
    assert report.ok, report.to_text()
    assert report.problems == ()
    assert len(registry) == 37
    assert registry.missing_copies(3) == ()
    assert registry.lookup(TOKEN) == TagInfo.token()
    for piece in PIECES:
        in_compartment = sorted(snapshot[standard.bank_zone(piece)])
        # copy letters follow sorted UIDs
        assert [registry.lookup(uid) for uid in in_compartment] == \
            [TagInfo.for_piece(piece, letter) for letter in "abc"]
    assert len(report.assigned) == 37 and report.dropped == ()
    assert report.to_text().startswith(
        "Enrollment on layout 'standard-2p' (3 copies of each colour-size): OK")
    assert "36 of 36 piece copies, turn token E0040150FFFF0000" in report.to_text()


def test_enrollment_is_deterministic_whatever_the_snapshot_order(standard):
    snapshot = filled_tray(standard, seed=7)
    reordered = {zone: frozenset(sorted(uids, reverse=True))
                 for zone, uids in reversed(list(snapshot.items()))}
    lower = {zone: frozenset(uid.lower() for uid in uids) for zone, uids in snapshot.items()}
    first = enroll(standard, snapshot).registry
    assert enroll(standard, reordered).registry == first
    assert enroll(standard, lower).registry == first


def test_four_seat_table_with_five_copies():
    layout = builtin_layout("four-seat")
    result = enroll(layout, filled_tray(layout, copies=5), copies_per_kind=copies_for_players(4))
    assert result.report.ok, result.report.to_text()
    assert result.registry.missing_copies(5) == ()
    assert result.report.pieces_registered == 60 == result.report.pieces_expected


def test_saved_enrollment_loads_back(standard, tmp_path):
    registry = enroll(standard, filled_tray(standard)).registry
    registry.save(tmp_path / "tags.toml")
    assert Registry.load(tmp_path / "tags.toml") == registry


# --------------------------------------------------------------------------- problems


def test_compartment_with_too_few_tags(standard):
    snapshot = filled_tray(standard)
    g3 = piece_at(standard, "g3")
    kept = sorted(snapshot[g3])[1:]
    snapshot[g3] = frozenset(kept)
    result = enroll(standard, snapshot)
    assert not result.report.ok
    [problem] = result.report.problems
    assert problem.zone == g3
    assert problem.to_text() == (
        "zone 52 (bank compartment g3): 2 tag(s), expected 3: 1 g3 piece is missing or not "
        "read (check that every piece lies flat inside the compartment and carries a tag)")
    # what was there is still enrolled, so a forced save keeps it
    assert [result.registry.lookup(uid).to_text() for uid in kept] == ["g3a", "g3b"]
    assert "35 of 36 piece copies" in result.report.to_text()


def test_compartment_with_too_many_tags_enrolls_nothing_from_it(standard):
    snapshot = filled_tray(standard)
    r1 = piece_at(standard, "r1")
    snapshot[r1] = snapshot[r1] | {"E0040150DDDD0001"}
    result = enroll(standard, snapshot)
    [problem] = result.report.problems
    assert problem.zone == r1
    assert "4 tags, expected 3" in problem.message
    assert "nothing was enrolled" in problem.message
    assert result.registry.copies_of(Piece.from_text("r1")) == ()
    assert len(result.registry.copies_of(Piece.from_text("r2"))) == 3


def test_expected_count_is_a_parameter(standard):
    result = enroll(standard, filled_tray(standard, copies=3), copies_per_kind=5)
    assert len(result.report.problems) == 12
    assert all("3 tag(s), expected 5" in p.message for p in result.report.problems)


def test_tag_read_in_two_zones_is_not_enrolled(standard):
    snapshot = filled_tray(standard)
    g2, g3 = piece_at(standard, "g2"), piece_at(standard, "g3")
    straddler = sorted(snapshot[g3])[0]
    snapshot[g2] = snapshot[g2] | {straddler}
    result = enroll(standard, snapshot)
    problems = result.report.problems
    assert problems[0].zone == g2 and problems[0].uid == straddler
    assert (f"tag {straddler} is read in 2 zones at once (zone 51 (bank compartment g2); "
            "zone 52 (bank compartment g3))") in problems[0].message
    assert result.registry.lookup(straddler) is None
    # without it, g3 is one short
    assert [p.zone for p in problems] == [g2, g3]


def test_tags_on_map_zones_are_reported(standard):
    snapshot = filled_tray(standard)
    stray = "E0040150EEEE0001"
    snapshot[standard.ship_zone(2, 0)] = frozenset({stray})
    result = enroll(standard, snapshot)
    [problem] = result.report.problems
    assert problem.zone == 7 and problem.uid == stray
    assert problem.to_text().startswith(
        f"zone 7 (ships of seat 0 (south) in slot 2 (S2)): 1 tag(s) here ({stray}): during "
        "enrollment only the bank tray and the turn-token zone may hold tags")
    assert result.registry.lookup(stray) is None


def test_missing_and_crowded_token_zone(standard):
    snapshot = filled_tray(standard)
    del snapshot[42]
    [problem] = enroll(standard, snapshot).report.problems
    assert problem.zone == 42
    assert problem.to_text() == ("zone 42 (turn token of seat 0 (south)): no tag here: lay the "
                                 "turn token on this zone")
    snapshot[42] = frozenset({TOKEN, "E0040150EEEE0002"})
    result = enroll(standard, snapshot)
    [problem] = result.report.problems
    assert "2 tags here" in problem.message and "lay only the turn token" in problem.message
    assert result.registry.token_uid is None


def test_token_on_the_other_seat_is_a_stray(standard):
    snapshot = filled_tray(standard)
    snapshot[43] = snapshot.pop(42)
    zones = [p.zone for p in enroll(standard, snapshot).report.problems]
    assert zones == [42, 43]


def test_unknown_zone_and_malformed_uid_from_the_firmware(standard):
    snapshot = filled_tray(standard)
    snapshot[99] = frozenset({"E0040150EEEE0003"})
    snapshot[8] = frozenset({"E00401"})
    problems = enroll(standard, snapshot).report.problems
    assert [p.zone for p in problems] == [8, 99]
    assert "malformed tag UID 'E00401'" in problems[0].message
    assert problems[1].to_text().startswith("zone 99: 1 tag(s) reported in a zone layout "
                                            "'standard-2p' does not have")


def test_report_text_lists_every_problem(standard):
    snapshot = filled_tray(standard)
    del snapshot[42]
    snapshot[piece_at(standard, "b1")] = frozenset()
    text = enroll(standard, snapshot).report.to_text()
    assert "2 problems" in text.splitlines()[0]
    assert "  - zone 42 (turn token of seat 0 (south)): no tag here" in text
    assert "  - zone 53 (bank compartment b1): 0 tag(s), expected 3" in text
    assert "turn token none" in text


def test_layout_without_bank_or_bad_arguments(standard):
    no_bank = Layout(name="no-bank", seats=standard.seats, slots=standard.slots, bank=(),
                     strip=standard.strip,
                     readers=tuple(r if r.index != 3 else  # keeps the turn tokens, ch. 12-13
                                   Reader(3, "pn5180", 16, (None,) * 12 + (42, 43))
                                   for r in standard.readers))
    with pytest.raises(EnrollError, match="layout 'no-bank' has no bank tray"):
        enroll(no_bank, {})
    with pytest.raises(EnrollError, match="seats 0-1, not 2"):
        enroll(standard, {}, token_seat=2)
    with pytest.raises(EnrollError, match="copies per colour-size must be 1-26"):
        enroll(standard, {}, copies_per_kind=0)
    with pytest.raises(EnrollError, match="alignment must be 'good' or 'evil'"):
        enroll(standard, {}, card_zones={43: "neutral"})


# --------------------------------------------------------------------------- merging


def test_re_enrolling_the_same_tray_changes_nothing(standard):
    snapshot = filled_tray(standard)
    first = enroll(standard, snapshot).registry
    again = enroll(standard, snapshot, existing=first)
    assert again.report.ok and again.registry == first
    assert again.report.assigned == () and again.report.dropped == ()


def test_tag_registered_as_another_piece_is_reported(standard):
    snapshot = filled_tray(standard)
    registry = enroll(standard, snapshot).registry
    r1, y1 = piece_at(standard, "r1"), piece_at(standard, "y1")
    moved = sorted(snapshot[r1])[0]  # r1a put in the y1 compartment by mistake
    snapshot[r1] = snapshot[r1] - {moved}
    snapshot[y1] = snapshot[y1] | {moved}
    result = enroll(standard, snapshot, existing=registry)
    texts = [p.to_text() for p in result.report.problems]
    assert (f"zone 47 (bank compartment y1): tag {moved} is registered as r1a but lies in the "
            "y1 compartment") in texts[1]
    assert result.registry.lookup(moved).to_text() == "r1a"  # unchanged
    assert [p.zone for p in result.report.problems] == [r1, y1]


def test_replacing_one_piece_keeps_the_other_letters(standard):
    snapshot = filled_tray(standard)
    registry = enroll(standard, snapshot).registry
    g3 = piece_at(standard, "g3")
    old_a, old_b, old_c = sorted(snapshot[g3])
    replacement = "E004010000000000"  # sorts before every other UID
    snapshot[g3] = frozenset({old_a, old_c, replacement})
    result = enroll(standard, snapshot, existing=registry)
    assert result.report.ok, result.report.to_text()
    assert result.registry.lookup(replacement).to_text() == "g3b"
    assert result.registry.lookup(old_a).to_text() == "g3a"
    assert result.registry.lookup(old_c).to_text() == "g3c"
    assert result.registry.lookup(old_b) is None
    assert result.report.dropped == ((old_b, TagInfo.for_piece(Piece.from_text("g3"), "b")),)
    assert any(old_b in note for note in result.report.notes)


def test_short_compartment_keeps_registered_copies(standard):
    snapshot = filled_tray(standard)
    registry = enroll(standard, snapshot).registry
    g3 = piece_at(standard, "g3")
    snapshot[g3] = frozenset(sorted(snapshot[g3])[:1])
    result = enroll(standard, snapshot, existing=registry)
    assert [p.zone for p in result.report.problems] == [g3]
    assert len(result.registry.copies_of(Piece.from_text("g3"))) == 3


def test_extending_a_set_for_more_players(standard):
    snapshot = filled_tray(standard, copies=3)
    registry = enroll(standard, snapshot).registry
    extra = make_uids(24, seed=99)
    bigger = dict(snapshot)
    for i, piece in enumerate(PIECES):
        zone = standard.bank_zone(piece)
        bigger[zone] = snapshot[zone] | set(extra[2 * i:2 * i + 2])
    result = enroll(standard, bigger, copies_per_kind=5, existing=registry)
    assert result.report.ok, result.report.to_text()
    assert result.registry.missing_copies(5) == ()
    for uid, info in registry.items():  # old tags keep their letters
        assert result.registry.lookup(uid) == info
    for i, piece in enumerate(PIECES):
        new = sorted(extra[2 * i:2 * i + 2])
        assert [result.registry.lookup(uid) for uid in new] == \
            [TagInfo.for_piece(piece, "d"), TagInfo.for_piece(piece, "e")]
    assert len(result.report.assigned) == 24


def test_new_turn_token_replaces_the_old_one(standard):
    snapshot = filled_tray(standard)
    registry = enroll(standard, snapshot).registry
    snapshot[42] = frozenset({"E0040150FFFF0001"})
    result = enroll(standard, snapshot, existing=registry)
    assert result.report.ok
    assert result.registry.token_uid == "E0040150FFFF0001"
    assert result.registry.lookup(TOKEN) is None
    assert any("the turn token is now tag E0040150FFFF0001" in n for n in result.report.notes)
    del snapshot[42]
    kept = enroll(standard, snapshot, existing=result.registry)
    assert kept.report.ok and kept.registry.token_uid == "E0040150FFFF0001"


def test_alignment_cards_on_card_zones(standard):
    snapshot = filled_tray(standard)
    goods = {"E0040150CCCC0001", "E0040150CCCC0002"}
    snapshot[43] = frozenset(goods)
    snapshot[1] = frozenset({"E0040150CCCC0003"})
    result = enroll(standard, snapshot, card_zones={43: "good", 1: "evil"})
    assert result.report.ok, result.report.to_text()
    assert all(result.registry.lookup(uid) == TagInfo.card("good") for uid in goods)
    assert result.registry.lookup("E0040150CCCC0003") == TagInfo.card("evil")
    # the same cards on the other zones are a mistake once registered
    snapshot[43], snapshot[1] = snapshot[1], snapshot[43]
    again = enroll(standard, snapshot, existing=result.registry, card_zones={43: "good", 1: "evil"})
    assert len(again.report.problems) == 3
    assert all("not as a" in p.message for p in again.report.problems)


def test_new_tag_without_a_free_copy_letter(standard):
    snapshot = filled_tray(standard)
    registry = enroll(standard, snapshot).registry
    g3 = piece_at(standard, "g3")
    snapshot[g3] = frozenset({"E0040150BBBB0001"})  # the three known g3 are gone, one stranger
    result = enroll(standard, snapshot, existing=registry)
    messages = [p.message for p in result.report.problems]
    assert messages[0].startswith("1 tag(s), expected 3")
    assert messages[1].startswith("no free copy letter for tag E0040150BBBB0001: g3a (")
    assert result.registry.lookup("E0040150BBBB0001") is None
    assert len(result.registry.copies_of(Piece.from_text("g3"))) == 3


def test_registered_copy_elsewhere_blocks_new_tags_of_its_kind(standard):
    snapshot = filled_tray(standard)
    registry = enroll(standard, snapshot).registry
    g3 = piece_at(standard, "g3")
    g3a = sorted(snapshot[g3])[0]
    snapshot[g3] = (snapshot[g3] - {g3a}) | {"E0040150BBBB0002"}
    snapshot[0] = frozenset({g3a})  # the old g3a stands on a star pad
    result = enroll(standard, snapshot, existing=registry)
    assert [p.zone for p in result.report.problems] == [0, g3]
    assert f"registered g3a ({g3a}) lies elsewhere" in result.report.problems[1].message
    assert result.registry.lookup("E0040150BBBB0002") is None
    assert result.registry.lookup(g3a).to_text() == "g3a"
