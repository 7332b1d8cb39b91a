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
