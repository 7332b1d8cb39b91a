"""A picture of a real game in progress: the bundled demo game played on the simulated table
up to turn 30 (fleets of five ships, four systems, LEDs lit)."""

from __future__ import annotations

from importlib import resources

import pytest

from homeworlds.display.picture import picture_of_session
from homeworlds.notation.sdg import read_sdg
from homeworlds.rules import preset
from homeworlds.runtime.table_replay import SimulatedTableGame

TITLE = "SDG game #608: Aaron vs MatrixFrog — simulated table, sdg rules"


@pytest.fixture(scope="session")
def game_in_progress():
    """(picture, final engine state, players) after 30 turns of the demo game."""
    game = read_sdg(resources.files("homeworlds.data").joinpath("demo-game.raw").read_text(),
                    source="demo-game.raw")
    sim = SimulatedTableGame(preset("sdg"), game.players, first_seat=game.turns[0].seat,
                             miss_rate=0.0, seed=1)
    with sim:
        for turn in game.turns[:30]:
            sim.driver.begin_turn()
            for action in turn.actions:
                sim.driver.act(action)
                sim.settle()
            after = sim.driver.end_turn(hand_over=False)
            sim.settle()
            assert sim.hand_over_and_wait(after.to_move)
        picture = picture_of_session(sim.session, sim.layout, game.players, title=TITLE,
                                     message="MatrixFrog hands over the turn token")
        return picture, sim.session.tracker.state.copy(), game.players
