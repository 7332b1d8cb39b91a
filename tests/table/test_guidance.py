"""Guidance on constructed positions: the steps of a turn in order, judged as the table
changes, corrections for wrong places and unrelated lifts, and guiding back to a position."""

from __future__ import annotations

import json

import pytest

from homeworlds.notation import parse_sdg_action
from homeworlds.rules import Piece
from homeworlds.table.guidance import GuidanceError, guide, plan_position, plan_turn
from tests.table.guidance_helpers import LAYOUT, Bench, position, system

PLAYERS = ("Ann", "Bob")
ANN, BOB, FAR = 3, 10, 5


def _turn(*texts, player="Ann"):
    return tuple(parse_sdg_action(t, player=player) for t in texts)


def _bench(*systems, to_move=0):
    state = position(*systems, to_move=to_move)
    names = {s.name: slot for s, slot in zip(systems, (ANN, BOB, FAR, 7), strict=False)}
    return Bench(state, names)


def _plan(bench, *texts, token_to=1):
    return plan_turn(LAYOUT, bench.state, bench.slot_of, _turn(*texts), token_to=token_to)


def _words(guidance):
    names = guidance.plan.system_at()
    return [s.text(LAYOUT, PLAYERS, names) for s in guidance.steps]


def _do(bench, step):
    """Carry out a step as a person would."""
    from homeworlds.sim import carry_out
    current = step.to_json()
    carry_out(bench.table, current)


def _follow(bench, plan):
    """Do every step in order; the table must then show the plan, nothing left."""
    done = []
    for _ in range(20):
        guidance = guide(plan, bench.observe())
        assert not guidance.mistakes, guidance.mistakes
        if guidance.complete:
            return done
        step = guidance.current
        done.append(step.text(LAYOUT, PLAYERS, plan.system_at()))
        _do(bench, step)
    raise AssertionError(done)


@pytest.fixture
def homes():
    return (system("Ann", "y1 b2", "g3 y1", "", 0), system("Bob", "r1 y2", "", "g3 r2", 1),
            system("Far", "y3", "g1", "b1"))


def test_a_discovery_puts_the_new_star_on_an_empty_slot_first(homes):
    bench = _bench(*homes)
    plan = _plan(bench, "Discover Y1 Ann G3 Nova")
    guidance = guide(plan, bench.observe())
    step = guidance.current
    assert step.kind == "from-bank" and step.piece == Piece.from_text("g3")
    assert step.target.kind == "star" and step.new_system
    assert step.put_slot not in (ANN, BOB, FAR)
    assert _words(guidance) == [
        f"Take a large green star from the bank and put it on the empty slot "
        f"{LAYOUT.slots[step.put_slot].label} (a new system)",
        f"Lift the small yellow ship from Ann's side of slot S3 south home (Ann) and put it "
        f"on Ann's side of slot {LAYOUT.slots[step.put_slot].label} (the new system)",
        "Hand the turn token to Bob"]
    assert _follow(bench, plan)[-1] == "Hand the turn token to Bob"


def test_a_sacrifice_returns_the_ship_then_builds_from_the_bank(homes):
    bench = _bench(*homes)
    plan = _plan(bench, "Sacrifice G3 Ann", "Build G1 Far", "Build G1 Far", "Build G2 Far")
    guidance = guide(plan, bench.observe())
    kinds = [(s.kind, str(s.piece) if s.piece else None) for s in guidance.steps]
    assert kinds == [("to-bank", "g3"), ("from-bank", "g1"), ("from-bank", "g1"),
                     ("from-bank", "g2"), ("token", None)]
    assert guidance.steps[0].lift_slot == ANN and guidance.steps[0].put_slot is None
    assert all(s.put_slot == FAR for s in guidance.steps[1:4])
    _follow(bench, plan)


def test_a_trade_returns_the_old_ship_and_takes_the_new_one(homes):
    bench = _bench(*homes)
    guidance = guide(_plan(bench, "Trade G3 R3 Ann"), bench.observe())
    assert _words(guidance)[:2] == [
        "Lift the large green ship from Ann's side of slot S3 south home (Ann) and return "
        "it to the bank",
        "Take a large red ship from the bank and put it on Ann's side of slot S3 south home "
        "(Ann)"]


def test_a_capture_turns_the_ship_round_on_its_slot():
    bench = _bench(system("Ann", "y1 b2", "g3", "", 0), system("Bob", "r1 y2", "", "g3", 1),
                   system("Far", "r3", "g2 r1", "r2"))
    plan = _plan(bench, "Attack R2 Far")
    step = guide(plan, bench.observe()).current
    assert (step.kind, step.lift_slot, step.put_slot) == ("move", FAR, FAR)
    assert step.source.seat == 1 and step.target.seat == 0
    assert step.text(LAYOUT, PLAYERS, plan.system_at()) == (
        "Turn the medium red ship on Bob's side of slot S5 (Far) round to Ann's side "
        "(a capture)")
    _follow(bench, plan)


def test_a_catastrophe_clears_the_colour_ships_first_then_the_star():
    bench = _bench(system("Ann", "y1 b2", "g3 r3 y1", "", 0), system("Bob", "r1 y2", "", "g3", 1),
                   system("Far", "r3", "g2 r1", "r2"))
    plan = _plan(bench, "Build R1 Far", "Catastrophe Far R")
    guidance = guide(plan, bench.observe())
    steps = [s for s in guidance.steps if s.kind != "token"]
    assert all(s.kind == "to-bank" for s in steps)
    assert [(s.source.kind, str(s.piece), s.catastrophe) for s in steps] == [
        ("ships", "r1", 0), ("ships", "r2", 0), ("ships", "g2", None), ("star", "r3", 0)]
    assert "(catastrophe: red)" in _words(guidance)[0]
    _follow(bench, plan)
    assert bench.table.tags_on(LAYOUT.slots[FAR].star_zone) == ()


def test_a_piece_put_in_the_wrong_place_is_a_mistake_with_its_correction(homes):
    bench = _bench(*homes)
    plan = _plan(bench, "Move G1 Far Bob")
    g1 = bench.uid(bench.ship_zone(FAR, 0), "g1")
    bench.table.lift(g1)
    bench.table.place(g1, bench.ship_zone(4, 0))  # a slot next to the right one
    guidance = guide(plan, bench.observe())
    (mistake,) = guidance.mistakes
    assert mistake.kind == "wrong-place" and mistake.slot == 4
    assert guidance.mistake_slots == {4}
    fix = guidance.current
    assert (fix.lift_slot, fix.put_slot) == (4, BOB)
    assert mistake.text(LAYOUT, PLAYERS, plan.system_at()).startswith(
        "wrong place: the small green piece does not belong there. Lift the small green ship "
        "from Ann's side of slot S4")
    bench.table.move(g1, bench.ship_zone(BOB, 0))  # corrected
    guidance = guide(plan, bench.observe())
    assert not guidance.mistakes and [s.kind for s in guidance.steps] == ["token"]
    assert guidance.pieces_done and not guidance.complete


def test_a_lifted_piece_that_belongs_to_no_step_must_go_back(homes):
    bench = _bench(*homes)
    plan = _plan(bench, "Move G1 Far Bob")
    g3 = bench.uid(bench.ship_zone(ANN, 0), "g3")
    bench.table.lift(g3)
    guidance = guide(plan, bench.observe())
    (mistake,) = guidance.mistakes
    assert mistake.kind == "unrelated-lift" and mistake.slot == ANN
    assert guidance.current.target == mistake.correction.target
    assert "is not part of this turn: put it back" in mistake.text(LAYOUT, PLAYERS)
    # The turn's own step is still there, after the correction.
    assert [s.kind for s in guidance.steps] == ["move", "token"]
    bench.table.place(g3, bench.ship_zone(ANN, 0))
    assert not guide(plan, bench.observe()).mistakes


def test_the_right_piece_lifted_is_in_hand_and_goes_where_the_step_says(homes):
    bench = _bench(*homes)
    plan = _plan(bench, "Move G1 Far Bob")
    bench.table.lift(bench.uid(bench.ship_zone(FAR, 0), "g1"))
    guidance = guide(plan, bench.observe())
    assert not guidance.mistakes
    step = guidance.current
    assert step.source.kind == "hand" and step.put_slot == BOB and step.lift_slot is None
    assert step.text(LAYOUT, PLAYERS, plan.system_at()) == (
        "Put the small green ship on Ann's side of slot N3 north home (Bob)")


def test_guiding_the_table_back_to_a_position(homes):
    """The undo entry point: from what the table shows now back to a given position."""
    bench = _bench(*homes)
    before = bench.state
    turn = _turn("Sacrifice G3 Ann", "Build G1 Far", "Build G1 Far", "Build G2 Far")
    _follow(bench, plan_turn(LAYOUT, before, bench.slot_of, turn))
    back = plan_position(LAYOUT, before, bench.slot_of)
    guidance = guide(back, bench.observe())
    assert sorted((s.kind, str(s.piece)) for s in guidance.steps) == [
        ("from-bank", "g3"), ("to-bank", "g1"), ("to-bank", "g1"), ("to-bank", "g2")]
    _follow(bench, back)
    assert guide(back, bench.observe()).complete


def test_guidance_is_json_for_displays(homes):
    bench = _bench(*homes)
    guidance = guide(_plan(bench, "Discover Y1 Ann G3 Nova"), bench.observe())
    data = json.loads(json.dumps(guidance.to_json(LAYOUT, PLAYERS)))
    assert data["current"]["kind"] == "from-bank" and data["current"]["piece"] == "g3"
    assert data["current"]["text"].startswith("Take a large green star")
    assert data["steps_left"] == 3 and data["mistakes"] == []


def test_a_system_without_a_slot_is_a_clear_error(homes):
    bench = _bench(*homes)
    with pytest.raises(GuidanceError, match="no slot for Bob, Far"):
        plan_turn(LAYOUT, bench.state, {"Ann": ANN}, _turn("Build G1 Ann"))
    with pytest.raises(GuidanceError, match="no slot for Far"):
        plan_position(LAYOUT, bench.state, {"Ann": ANN, "Bob": BOB})


def test_guiding_back_over_a_discovery_and_a_faded_system():
    """Undo a turn that discovered a system and left another empty: the new system goes
    back to the bank, the faded one is laid out again on a free slot."""
    from homeworlds.table.guidance import observed_places

    # Ann's only ship at Far leaves it to discover Nova: Far fades.
    lone = position(system("Ann", "y1 b2", "g3 y1", "", 0), system("Bob", "r1 y2", "", "g3 r2", 1),
                    system("Far", "y3", "g1", ""))
    bench = Bench(lone, {"Ann": ANN, "Bob": BOB, "Far": FAR})
    turn = _turn("Discover G1 Far B1 Nova")
    plan = plan_turn(LAYOUT, lone, bench.slot_of, turn)
    _follow(bench, plan)
    nova = next(slot for slot, name in plan.system_at().items() if name == "the new system")
    assert bench.table.tags_on(LAYOUT.slots[FAR].star_zone) == ()  # Far faded
    # Back to the position before the turn, from what the table shows now.
    obs = bench.observe()
    with pytest.raises(GuidanceError, match="no slot for Far"):
        plan_position(LAYOUT, lone, {"Ann": ANN, "Bob": BOB, "Nova": nova})
    back = plan_position(LAYOUT, lone, {"Ann": ANN, "Bob": BOB, "Nova": nova},
                         start=observed_places(obs), fill=True, avoid={nova})
    far = back.slot_of["far"]
    assert far not in (ANN, BOB, nova) and far in back.new_slots
    guidance = guide(back, obs)
    assert not guidance.mistakes
    words = _words(guidance)
    assert any("Take a large yellow star from the bank and put it on the empty slot" in w
               for w in words), words
    assert any("small blue star" in w and "return it to the bank" in w for w in words), words
    _follow(bench, back)
    assert guide(back, bench.observe()).complete


def test_a_piece_taken_from_the_bank_that_no_step_needs_goes_back(homes):
    bench = _bench(*homes)
    plan = _plan(bench, "Move G1 Far Bob")
    bench.table.take_from_bank(Piece.from_text("r3"))
    guidance = guide(plan, bench.observe())
    (mistake,) = guidance.mistakes
    assert mistake.kind == "unrelated-lift" and mistake.slot is None
    assert mistake.text(LAYOUT, PLAYERS) == ("the large red piece taken from the bank is not "
                                             "part of this turn: put it back in the bank")
    assert guidance.current.text(LAYOUT, PLAYERS) == "Put the large red piece back in the bank"
    _do(bench, guidance.current)
    assert not guide(plan, bench.observe()).mistakes


def test_a_piece_taken_from_the_bank_for_a_build_is_the_step_in_hand(homes):
    bench = _bench(*homes)
    plan = _plan(bench, "Build G1 Far")
    bench.table.take_from_bank(Piece.from_text("g1"))
    guidance = guide(plan, bench.observe())
    assert not guidance.mistakes
    assert guidance.current.text(LAYOUT, PLAYERS, plan.system_at()) == (
        "Put the small green ship on Ann's side of slot S5 (Far)")
