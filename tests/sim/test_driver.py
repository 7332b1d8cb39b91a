"""The physical handling driver: recorded turns become verbs on the virtual table."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from homeworlds.notation.cooked import parse_cooked_turn, read_cooked
from homeworlds.rules import PIECES, GameState, Homeworld, IllegalAction, Pass, Piece, preset
from homeworlds.sim import (
    HAND,
    OFF_TABLE,
    SimError,
    SimulatedMcu,
    TableDriver,
    TableEvent,
    VirtualTable,
    compare_table,
)

from .helpers import HostView

POSITION = """\
Home0 (0, y1b2) g3r2y2-r1
Home1 (1, y3r2) y3-b1r1
Far (y3) g1-g2g2
"""


def pc(text: str) -> Piece:
    return Piece.from_text(text)


def arranged(layout, registry, text=POSITION, to_move=0, rules="looney"):
    game = read_cooked(text)
    state = GameState.from_position(game.systems, preset(rules), to_move=to_move)
    table = VirtualTable(layout, registry)
    driver = TableDriver(table, state, {})
    driver.arrange()
    assert driver.differences() == []
    return table, driver


def uid_at(table, zone, piece):
    found = [uid for uid in table.tags_on(zone) if table.registry.lookup(uid).piece == piece]
    assert found, f"no {piece} on zone {zone}"
    return found[0]


def events_of(driver, verb):
    return [event for step in driver.log for event in step.events if event.verb == verb]


# ---------------------------------------------------------------- arranging


def test_arrange_puts_homes_on_their_home_slots(layout, registry):
    table, driver = arranged(layout, registry, to_move=1)
    assert driver.slot_of == {"Home0": 3, "Home1": 10, "Far": 0}
    assert table.pieces_on(layout.slots[3].star_zone) == (pc("y1"), pc("b2"))
    assert table.pieces_on(layout.ship_zone(3, 0)) == (pc("r2"), pc("y2"), pc("g3"))
    assert table.pieces_on(layout.ship_zone(3, 1)) == (pc("r1"),)
    assert table.pieces_on(layout.bank_zone(pc("g2"))) == (pc("g2"),)
    assert table.token_seat() == 1
    assert table.in_hand() == ()


def test_compare_table_names_what_differs(layout, registry):
    table, driver = arranged(layout, registry)
    uid = uid_at(table, layout.ship_zone(0, 1), pc("g2"))
    table.move(uid, layout.ship_zone(0, 0))
    stray = table.take_from_bank(pc("r3"))
    problems = driver.differences()
    assert problems == [
        "Far ships of seat 0 (slot 0 (S0)), zone 1: table has g1 g2, position has g1",
        "Far ships of seat 1 (slot 0 (S0)), zone 2: table has g2, position has g2 g2",
        "bank r3, zone 46: table has r3 r3, position has r3 r3 r3",
        "in hand: r3",
    ]
    table.place(stray, layout.slots[7].star_zone)
    assert "slot 7 (N6) (no system there), zone 21: table has r3, position has -" in \
        compare_table(table, driver.position, driver.slot_of)


# ---------------------------------------------------------------- actions


def test_a_moving_ship_keeps_its_piece(layout, registry):
    table, driver = arranged(layout, registry)
    g1 = uid_at(table, layout.ship_zone(0, 0), pc("g1"))
    start = len(table.history)
    driver.play_turn(parse_cooked_turn("move g1 from Far to Home0"))
    assert table.location(g1) == layout.ship_zone(3, 0)
    assert table.history[start:] == [
        TableEvent("lift", g1, layout.ship_zone(0, 0), HAND),
        TableEvent("place", g1, HAND, layout.ship_zone(3, 0)),
        TableEvent("move_token", registry.token_uid, layout.token_zone(0), layout.token_zone(1)),
    ]
    assert [step.what for step in driver.log[-3:]] == [
        "move g1 from Far to Home0", "end of turn", "hand over to seat 1"]
    assert driver.differences() == []


def test_a_capture_flips_the_ship_to_the_captors_side(layout, registry):
    table, driver = arranged(layout, registry)
    r1 = uid_at(table, layout.ship_zone(3, 1), pc("r1"))
    driver.play_turn(parse_cooked_turn("capture r1 at Home0"))
    assert table.location(r1) == layout.ship_zone(3, 0)
    assert events_of(driver, "flip") == [
        TableEvent("flip", r1, layout.ship_zone(3, 1), layout.ship_zone(3, 0))]
    assert driver.differences() == []


def test_a_trade_swaps_pieces_with_the_bank_tray(layout, registry):
    table, driver = arranged(layout, registry)
    y2 = uid_at(table, layout.ship_zone(3, 0), pc("y2"))
    driver.play_turn(parse_cooked_turn("convert y2 to b2 at Home0"))
    assert table.location(y2) == layout.bank_zone(pc("y2"))
    assert pc("b2") in table.pieces_on(layout.ship_zone(3, 0))
    b2 = uid_at(table, layout.ship_zone(3, 0), pc("b2"))
    placed = events_of(driver, "place")
    assert TableEvent("place", b2, HAND, layout.ship_zone(3, 0)) in placed
    assert TableEvent("place", y2, HAND, layout.bank_zone(pc("y2"))) in placed
    assert driver.differences() == []


def test_a_discovered_system_takes_the_free_slot_nearest_its_origin(layout, registry):
    table, driver = arranged(layout, registry)
    assert driver.slot_of == {"Home0": 3, "Home1": 10, "Far": 0}
    g1 = uid_at(table, layout.ship_zone(0, 0), pc("g1"))
    driver.play_turn(parse_cooked_turn("move g1 from Far to Lorem (y2)"))
    assert driver.slot_of["Lorem"] == 1
    assert table.pieces_on(layout.slots[1].star_zone) == (pc("y2"),)
    assert table.location(g1) == layout.ship_zone(1, 0)
    driver.play_turn(parse_cooked_turn("move b1 from Home1 to Ipsum (y1)"))
    assert driver.slot_of["Ipsum"] == 9  # next to north's home in slot 10 (11 is as near)
    driver.play_turn(parse_cooked_turn("move y2 from Home0 to Dolor (g3)"))
    assert driver.slot_of["Dolor"] == 2  # from slot 3: slots 2 and 4 are as near
    assert driver.differences() == []


def test_a_faded_system_frees_its_slot_and_its_star_goes_back(layout, registry):
    table, driver = arranged(layout, registry)
    y3 = uid_at(table, layout.slots[0].star_zone, pc("y3"))
    driver.play_turn(parse_cooked_turn("move g1 from Far to Home0"))
    driver.play_turn(parse_cooked_turn("move g2 from Far to Home0"))
    assert "Far" in driver.slot_of
    driver.play_turn(parse_cooked_turn("pass"))
    driver.play_turn(parse_cooked_turn("move g2 from Far to Home0"))
    assert "Far" not in driver.slot_of
    assert table.location(y3) == layout.bank_zone(pc("y3"))
    assert all(table.tags_on(zone) == () for zone in layout.slots[0].zones)
    assert driver.differences() == []
    # Slot 0 is free again: a system discovered from Lorem in slot 1 may take it.
    driver.play_turn(parse_cooked_turn("move y2 from Home0 to Lorem (b3)"))
    assert driver.slot_of["Lorem"] == 2
    driver.play_turn(parse_cooked_turn("pass"))
    driver.play_turn(parse_cooked_turn("move y2 from Lorem to Ipsum (b1)"))
    assert driver.slot_of["Ipsum"] == 1
    driver.play_turn(parse_cooked_turn("pass"))
    driver.play_turn(parse_cooked_turn("move y2 from Ipsum to Dolor (b3)"))
    assert driver.slot_of["Dolor"] == 0
    assert driver.differences() == []


def test_a_catastrophe_sends_the_colour_back_to_the_bank(layout, registry):
    table, driver = arranged(layout, registry)
    driver.play_turn(parse_cooked_turn("build g1 at Far; catastrophe green at Far"))
    assert "Far" not in driver.slot_of  # no ships left: the star faded too
    for piece in (pc("g1"), pc("g2")):
        assert table.pieces_on(layout.bank_zone(piece)) == (piece, piece, piece)
    assert driver.differences() == []
    mid = [step.what for step in driver.log[-4:]]
    assert mid == ["build g1 at Far", "catastrophe green at Far", "end of turn",
                   "hand over to seat 1"]


def test_every_action_is_checked_by_the_rules_engine(layout, registry):
    table, driver = arranged(layout, registry)
    before = table.zone_sets()
    with pytest.raises(IllegalAction, match="no system named 'Nowhere'"):
        driver.play_turn(parse_cooked_turn("move g1 from Far to Nowhere"))
    assert table.zone_sets() == before  # nothing was handled for the refused action


# ---------------------------------------------------------------- setup and turns


def homeworld(stars: str, ship: str, name: str):
    return (Homeworld(tuple(pc(stars[i:i + 2]) for i in range(0, len(stars), 2)), pc(ship),
                      name),)


def test_setup_turns_place_homes_and_hand_over(layout, registry, table):
    driver = TableDriver(table, GameState(preset("looney")), {})
    driver.play_turn(homeworld("r1b2", "g3", "Alice"))
    assert driver.slot_of == {"Alice": 3}
    assert table.pieces_on(layout.slots[3].star_zone) == (pc("r1"), pc("b2"))
    assert table.pieces_on(layout.ship_zone(3, 0)) == (pc("g3"),)
    assert table.token_seat() == 1
    driver.play_turn(homeworld("y3g1", "b3", "Bob"))
    assert driver.slot_of == {"Alice": 3, "Bob": 10}
    assert table.pieces_on(layout.ship_zone(10, 1)) == (pc("b3"),)
    assert table.token_seat() == 0
    driver.play_turn((Pass(),))
    assert table.token_seat() == 1
    assert driver.differences() == []


def test_a_table_without_a_tray_takes_pieces_from_off_the_table(trayless_layout, registry):
    table = VirtualTable(trayless_layout, registry)
    driver = TableDriver(table, GameState(preset("looney")), {})
    driver.play_turn(homeworld("r1b2", "g3", "Alice"))
    driver.play_turn(homeworld("y3g1", "b3", "Bob"))
    driver.play_turn(parse_cooked_turn("convert g3 to y3 at Alice"))
    g3 = [uid for uid, info in registry.items() if info.piece == pc("g3")]
    assert all(table.location(uid) == OFF_TABLE for uid in g3)
    assert table.pieces_on(trayless_layout.ship_zone(3, 0)) == (pc("y3"),)
    assert driver.differences() == []


def test_alternating_setup_picks_build_the_home_star_by_star(layout, registry, table):
    from homeworlds.rules import SetupPick

    driver = TableDriver(table, GameState(preset("alternating-setup")), {})
    driver.play_turn((SetupPick(pc("r1"), "star", "Alice"),))
    assert driver.slot_of == {"Alice": 3}
    assert table.pieces_on(layout.slots[3].star_zone) == (pc("r1"),)
    driver.play_turn((SetupPick(pc("y3"), "star", "Bob"),))
    assert driver.slot_of == {"Alice": 3, "Bob": 10}
    assert driver.differences() == []


def test_slot_of_is_checked(layout, registry, table):
    state = GameState.from_position(read_cooked(POSITION).systems, preset("looney"))
    with pytest.raises(SimError, match="no system named 'Nope'"):
        TableDriver(table, state, {"Nope": 1})
    with pytest.raises(SimError, match=r"slot_of\['Far'\]: no slot 14"):
        TableDriver(table, state, {"Far": 14})
    with pytest.raises(SimError, match="slot 1 is given to both 'Far' and 'Home0'"):
        TableDriver(table, state, {"Far": 1, "Home0": 1})
    driver = TableDriver(table, state, {"far": 5})  # names match without regard to case
    driver.arrange()
    assert driver.slot_of == {"Far": 5, "Home0": 3, "Home1": 10}


def test_a_full_table_is_reported(layout, registry, table):
    # 14 slots: two homes and twelve one-ship systems, then a discovery finds no room.
    pool = [piece for piece in PIECES for _ in range(3)]

    def take(text):
        pool.remove(pc(text))
        return pc(text)

    systems = [SimpleNamespace(name="Home0", home_of=0, stars=(take("y1"), take("b2")),
                               ships=((take("g3"),), ())),
               SimpleNamespace(name="Home1", home_of=1, stars=(take("y3"), take("r2")),
                               ships=((), (take("b3"),))),
               SimpleNamespace(name="S0", home_of=None, stars=(take("b1"),),
                               ships=((take("y3"),), ()))]
    for i in range(1, 12):
        star, ship = pool.pop(0), pool.pop(0)
        systems.append(SimpleNamespace(name=f"S{i}", home_of=None, stars=(star,),
                                       ships=((ship,), ())))
    state = GameState.from_position(systems, preset("looney"))
    driver = TableDriver(table, state, {})
    driver.arrange()
    assert len(driver.slot_of) == 14 and driver.differences() == []
    star = next(piece for piece in pool if piece.size != 1)
    with pytest.raises(SimError, match="no free slot for system 'Extra': all 14 slots of "
                       "layout 'standard-2p' are occupied"):
        driver.play_turn(parse_cooked_turn(f"move y3 from S0 to Extra ({star})"))


def test_registry_short_of_pieces_is_reported(layout, registry):
    short = registry.without([uid for uid, info in registry.items()
                              if info.is_piece and info.piece == pc("y3")][:2])
    with pytest.raises(SimError, match="has 3 y3 on the board but the registry has only 1"):
        arranged(layout, short)


# ---------------------------------------------------------------- with the MCU


def test_the_mcu_reports_what_the_driver_handled(layout, registry, table):
    mcu = SimulatedMcu(table)
    host = HostView()
    driver = TableDriver(table, GameState(preset("looney")), {})
    for turn in (homeworld("y1b2", "g3", "Alice"), homeworld("y3g1", "b3", "Bob"),
                 parse_cooked_turn("build g1 at Alice"),
                 parse_cooked_turn("convert b3 to r3 at Bob"),
                 parse_cooked_turn("move g1 from Alice to Cee (r3)")):
        driver.play_turn(turn)
        mcu.settle()
        host.feed(mcu.read())
        assert host.zone_sets(layout.zone_count) == table.zone_sets()
        assert host.zones[layout.token_zone(driver.state.to_move)] == (registry.token_uid,)
    assert driver.slot_of == {"Alice": 3, "Bob": 10, "Cee": 2}
    assert host.decoder.dropped == 0


# ---------------------------------------------------------------- the archive


def test_archive_games_through_the_driver(shared_dir, layout, registry):
    """~20 seeded archive games: after every action and turn the table (tags -> registry
    -> pieces per zone) shows the engine's position, systems by slot, ships by seat."""
    from homeworlds.notation.sdg import read_sdg_file
    from homeworlds.replay import load_expected, rules_for_game

    expected = load_expected(shared_dir / "games" / "expected.tsv")
    legal = sorted((name for name, row in expected.items() if row.legal), key=int)
    sample = sorted(random.Random(2026).sample(legal, 20), key=int)
    turns = 0
    for name in sample:
        game = read_sdg_file(shared_dir / "games" / "sdg" / f"{name}.raw")
        state = GameState(rules_for_game(game, preset("sdg")), 2,
                          first_to_move=game.turns[0].seat)
        table = VirtualTable(layout, registry)
        driver = TableDriver(table, state, {})
        for turn in game.turns:
            if driver.state.is_over:
                break
            driver.begin_turn()
            assert table.token_seat() == turn.seat, f"game {name} turn {turn.number}"
            for action in turn.actions:
                driver.act(action)
                assert driver.differences() == [], f"game {name} turn {turn.number}: {action}"
            after = driver.end_turn()
            assert driver.differences() == [], f"game {name} turn {turn.number}"
            # Systems by slot: every system has its own slot, and the slots hold its pieces.
            assert sorted(s.key for s in after.systems) == sorted(n.casefold()
                                                                  for n in driver.slot_of)
            assert len(set(driver.slot_of.values())) == len(driver.slot_of)
            turns += 1
        assert sorted(table.uids()) == sorted(registry)  # no tag lost or made up
        in_bank = sum(len(table.pieces_on(layout.bank_zone(piece))) for piece in PIECES)
        assert in_bank == sum(driver.state.bank)
    assert turns > 300
