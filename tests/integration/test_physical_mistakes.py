"""Illegal handling on the simulated table is refused, the position kept, the slots named;
link trouble mid-game loses nothing committed."""

from __future__ import annotations

import pytest

from homeworlds.notation import parse_sdg_action
from homeworlds.rules import preset
from homeworlds.runtime.table_replay import SimulatedTableGame

# Ann (seat 0): home y1 b2; Bob (seat 1): home r1 y2 — both homes have sizes 1 and 2, so
# they are not connected to each other; Far (r3) is connected to both.
OPENING = [
    ["Homeworld Y1 B2 G3"],
    ["Homeworld R1 Y2 G3"],
    ["Build G1 Ann"],
    ["Build G1 Bob"],
    ["Discover G3 Ann R3 Far"],
    ["Move G1 Bob Far"],
    ["Build G1 Ann"],
]


def _turn(lines, player):
    return tuple(parse_sdg_action(line, player=player) for line in lines)


@pytest.fixture
def game():
    sim = SimulatedTableGame(preset("looney"), ("Ann", "Bob"), miss_rate=0.05, seed=3)
    with sim:
        for k, lines in enumerate(OPENING):
            sim.driver.play_turn(_turn(lines, ("Ann", "Bob")[k % 2]), hand_over=False)
            sim.settle()
            assert sim.hand_over_and_wait(sim.driver.state.to_move), sim.session.status
        assert sim.session.tracker.state.to_move == 1
        yield sim


def _slot(sim, name):
    return sim.driver.slot(name)


def _expect_refusal(sim, slots):
    before = sim.session.tracker.state.describe()
    committed = len(sim.session.tracker.record)
    sim.settle()
    assert not sim.hand_over_and_wait(0)
    status = sim.session.status
    assert status.phase == "handover-refused" and status.refused_seat == 1
    assert slots <= status.mistake_slots, (status.message, status.mistake_slots)
    assert sim.session.tracker.state.describe() == before
    assert len(sim.session.tracker.record) == committed
    return status


def _take(sim, piece):
    from homeworlds.rules import Piece
    return sim.table.take_from_bank(Piece.from_text(piece))


def _ship_uid(sim, slot, seat, piece):
    zone = sim.layout.ship_zone(slot, seat)
    for uid in sim.table.tags_on(zone):
        info = sim.registry.lookup(uid)
        if info.piece is not None and info.piece.to_text() == piece:
            return uid
    raise AssertionError(f"no {piece} on slot {slot} seat {seat}")


def test_move_to_an_unconnected_system_is_refused(game):
    bob, ann = _slot(game, "Bob"), _slot(game, "Ann")
    game.table.move(_ship_uid(game, bob, 1, "g3"), game.layout.ship_zone(ann, 1))
    status = _expect_refusal(game, set())
    assert status.mistake_slots & {ann, bob}
    # The rule it breaks, in the preset's rulebook's words (docs/rules.md).
    assert "are not connected" in status.message
    assert _rule(status) == ("connection", "“You can move a ship from one star system to "
                             "another ONLY if the stars are of different sizes.” — Board "
                             "Game Arena's rules, Fundamentals of space travel")


def _rule(status):
    return None if status.rule is None else (status.rule.rule, status.rule.text())


def test_build_without_an_own_ship_of_that_colour_is_refused(game):
    bob = _slot(game, "Bob")
    game.table.place(_take(game, "b1"), game.layout.ship_zone(bob, 1))
    status = _expect_refusal(game, {bob})
    assert _rule(status)[0] == "build-colour"
    assert "The color of your new ship must be the same" in _rule(status)[1]


def test_capture_of_a_larger_ship_is_refused(game):
    far = _slot(game, "Far")
    # Bob's g1 and Ann's g3 lie at Far (a red star): Bob may not take the larger ship.
    game.table.flip(_ship_uid(game, far, 0, "g3"))
    status = _expect_refusal(game, {far})
    assert _rule(status)[0] == "capture"
    assert _rule(status)[1].endswith("— Looney Labs' rules, RED")


def test_same_colour_trade_is_refused(game):
    bob = _slot(game, "Bob")
    old = _ship_uid(game, bob, 1, "g3")
    game.table.place(_take(game, "g3"), game.layout.ship_zone(bob, 1))
    game.table.to_bank(old)
    status = _expect_refusal(game, {bob})
    assert "colour" in status.message
    assert _rule(status)[0] == "trade"
    assert "differently colored piece of the same size" in _rule(status)[1]


def test_second_free_action_is_refused(game):
    bob = _slot(game, "Bob")
    game.table.place(_take(game, "g2"), game.layout.ship_zone(bob, 1))
    game.table.place(_take(game, "g2"), game.layout.ship_zone(bob, 1))
    status = _expect_refusal(game, {bob})
    # Two g2 at once: the first build is allowed, the second is a second action.
    assert _rule(status)[0] == "one-action"
    assert "one free action was already taken" in status.message


def test_move_by_the_player_who_does_not_have_the_turn_is_refused(game):
    ann, far = _slot(game, "Ann"), _slot(game, "Far")
    # It is Bob's turn; Ann moves her g3 from Far to her home.
    game.table.move(_ship_uid(game, far, 0, "g3"), game.layout.ship_zone(ann, 0))
    status = _expect_refusal(game, set())
    assert status.mistake_slots & {ann, far}


def _bob_builds(game):
    bob = _slot(game, "Bob")
    game.table.place(_take(game, "g2"), game.layout.ship_zone(bob, 1))


def _commit_and_check(game, committed_before):
    record_before = list(game.session.tracker.record)
    game.settle()
    assert game.hand_over_and_wait(0), game.session.status
    record = game.session.tracker.record
    assert record[:len(record_before)] == record_before
    assert len(record) == committed_before + 1
    assert str(record[-1][1][0]) == "build g2 at Bob"


def test_unplug_and_replug_mid_turn_loses_nothing(game):
    committed = len(game.session.tracker.record)
    game.table.unplug()
    _bob_builds(game)
    game.table.replug()
    _commit_and_check(game, committed)
    assert any(type(e).__name__ == "LinkDown" for e in game.session.log.link_events)


def test_corrupted_and_dropped_lines_mid_turn(game):
    committed = len(game.session.tracker.record)
    game.table.corrupt_next_line()
    _bob_builds(game)
    game.table.drop_lines(3)
    home = game.layout.ship_zone(_slot(game, "Bob"), 1)
    ship = _ship_uid(game, _slot(game, "Bob"), 1, "g2")
    game.table.lift(ship)  # picked up and put back while those lines are lost
    game.settle()
    game.table.place(ship, home)
    _commit_and_check(game, committed)
    stats = game.link.stats
    assert stats.dropped_total >= 1 or stats.gaps >= 1


def test_reader_fault_mid_turn_then_recovery(game):
    committed = len(game.session.tracker.record)
    game.table.reader_fault(0, scans=3)
    _bob_builds(game)
    _commit_and_check(game, committed)
