"""A person plays the computer at the simulated table (pty, simulated MCU): the person
follows the LEDs' guidance for the computer's turns, makes deliberate mistakes that are
shown as corrections, and asks for hints."""

from __future__ import annotations

import pytest

from homeworlds.advisor import ComputerSeat
from homeworlds.ai.players import GreedyPlayer
from homeworlds.rules import canonical_key, preset
from homeworlds.table_replay import SimulatedTableGame
from tests.integration.seat_helpers import follow, resync_driver, wait_for

PLAYERS = ("Ann", "Hal")


def _person_plays(sim, player):
    state = sim.session.tracker.state
    turn = player.choose_turn(state)
    committed = len(sim.session.tracker.record)
    sim.driver.play_turn(turn, hand_over=False)
    sim.settle()
    following = sim.driver.state.to_move if not sim.driver.state.is_over else 1
    assert sim.hand_over_and_wait(following), sim.session.status
    assert len(sim.session.tracker.record) == committed + 1


def test_a_person_plays_the_computer_following_the_lights():
    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.03, seed=5,
                             computer_seats={1: ComputerSeat(level=1, seed=7)},
                             time_limits={1: 2.0})
    person = GreedyPlayer(seed=3, names=PLAYERS)
    with sim:
        for _ in range(4):
            _person_plays(sim, person)
            before = sim.session.tracker.state.copy()
            words = follow(sim)
            assert words and words[-1] == "Hand the turn token to Ann"
            seat, turn = sim.session.tracker.record[-1]
            assert seat == 1
            # The record holds the computer's own choice, and the table shows it.
            chosen = before.copy()
            chosen.apply_turn(turn)
            assert canonical_key(chosen) == canonical_key(sim.session.tracker.state)
            resync_driver(sim)
            assert sim.driver.differences() == []
            if sim.session.tracker.state.is_over:
                break


def _settled_step(sim):
    sim.settle()
    wait_for(sim, lambda: sim.session.guidance_shown() is not None, "guidance")
    return sim.session.guidance_shown()


def _blinks_red(sim, slot):
    settings = sim.session.renderer.settings
    frame = sim.session.render(0.0)  # the first half of the blink period: on
    red = tuple(round(c * settings.bright) for c in settings.mistake_color)
    return all(frame[i] == red for i in sim.layout.slots[slot].ring)


def test_wrong_steps_are_shown_as_corrections_and_then_fixed():
    from tests.integration.seat_helpers import do_step, held_uid, uid_on, zone_of
    from homeworlds.rules import Piece

    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.03, seed=9,
                             computer_seats={1: ComputerSeat(level=1, seed=2)},
                             time_limits={1: 2.0})
    person = GreedyPlayer(seed=4, names=PLAYERS)
    seen = {"wrong-place": 0, "unrelated-lift": 0, "early-handover": 0}
    with sim:
        ann_home = None
        for turn_number in range(3):
            _person_plays(sim, person)
            if ann_home is None:
                ann_home = sim.driver.slot("Ann")
            mistakes_left = ["early-handover", "unrelated-lift", "wrong-place"] \
                if turn_number > 0 else ["wrong-place"]

            def mischief(step):
                current = step.detail["current"]
                if mistakes_left and step.kind != "token":
                    kind = mistakes_left.pop()
                    if kind == "wrong-place" and current["target"]["kind"] == "ships":
                        # The piece goes to the other player's side of the right slot.
                        piece = Piece.from_text(current["piece"])
                        wrong = dict(current["target"], seat=0)
                        if current["source"]["kind"] == "bank":
                            uid = sim.table.take_from_bank(piece)
                        elif current["source"]["kind"] == "hand":
                            uid = held_uid(sim, piece)
                        else:
                            uid = uid_on(sim, zone_of(sim, current["source"]), piece)
                            sim.table.lift(uid)
                        sim.table.place(uid, zone_of(sim, wrong))
                        shown = _settled_step(sim)
                        assert shown.text.startswith("wrong place"), shown.text
                        assert shown.detail["mistakes"][0]["kind"] == "wrong-place"
                        assert _blinks_red(sim, wrong["slot"])
                        assert shown.put_slot == current["target"]["slot"]
                        seen["wrong-place"] += 1
                        do_step(sim, shown)  # the correction
                        sim.settle()
                        return
                    if kind == "unrelated-lift":
                        # Ann's own ship at her home: no step of the computer's moves it.
                        zone = sim.layout.ship_zone(ann_home, 0)
                        uid = sim.table.tags_on(zone)[0]
                        sim.table.lift(uid)
                        shown = _settled_step(sim)
                        assert "is not part of this turn: put it back" in shown.text
                        assert shown.detail["mistakes"][0]["kind"] == "unrelated-lift"
                        assert _blinks_red(sim, ann_home)
                        seen["unrelated-lift"] += 1
                        do_step(sim, shown)  # put it back
                        sim.settle()
                        return
                    if kind == "early-handover":
                        committed = len(sim.session.tracker.record)
                        sim.table.move_token(0)
                        sim.settle()
                        wait_for(sim, lambda: sim.session.status.phase == "handover-refused",
                                 "the early hand-over refused")
                        assert len(sim.session.tracker.record) == committed
                        assert "follow the lights" in sim.session.status.message \
                            or "no legal turn" in sim.session.status.message
                        sim.table.move_token(1)
                        seen["early-handover"] += 1
                        sim.settle()
                        return
                do_step(sim, step)
                sim.settle()

            before = sim.session.tracker.state.copy()
            follow(sim, before_each=mischief)
            seat, turn = sim.session.tracker.record[-1]
            chosen = before.copy()
            chosen.apply_turn(turn)
            assert seat == 1 and canonical_key(chosen) == canonical_key(sim.session.tracker.state)
            resync_driver(sim)
            assert sim.driver.differences() == []
    assert seen["unrelated-lift"] >= 1 and seen["early-handover"] >= 1, seen
    assert seen["wrong-place"] >= 1, seen
