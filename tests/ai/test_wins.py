"""Win-in-one as the computer opponent sees it: found when there, never missed."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeworlds.ai import ComputerPlayer
from homeworlds.ai.wins import (
    home_out_of_reach,
    immediate_win,
    scan_for_winning_turn,
    wins_for_mover,
)
from homeworlds.notation import read_cooked_file
from homeworlds.rules import GameState, preset
from tests.ai.helpers import after, position, random_positions
from tests.shared import shared_missing

WIN_IN_ONE = Path(__file__).resolve().parents[2] / ".." / "shared" / "positions" / "win-in-one"


def _shared_positions(prefix: str) -> list[Path]:
    if not WIN_IN_ONE.is_dir():
        return []
    return sorted(WIN_IN_ONE.glob(f"{prefix}-*.txt"))


def _strict(path: Path) -> GameState:
    game = read_cooked_file(path)
    return GameState.from_position(game.systems, preset("strict"))


def test_capture_of_the_last_home_defender_is_found_and_played():
    # Seat 0 has a large red ship in seat 1's home, whose only defender is a g2.
    state = position("""
        Alpha (0, y1b2) g3-
        Beta (1, y3g2) r3-g2
        Gamma (r1) g1-b1
    """)
    turn = ComputerPlayer(level=1, seed=1).choose_turn(state)
    result = after(state, turn).result
    assert result is not None and result.kind == "opponent-eliminated"
    assert result.winners == (0,)


def test_a_win_by_catastrophe_is_preferred_to_a_fat_capture():
    # Moving the y1 into Beta makes four yellows: the catastrophe wipes Beta's only star.
    # A capture of the large green in Gamma looks good but does not win.
    state = position("""
        Alpha (0, y2b1) y1r3-
        Beta (1, y3) -y2y3
        Gamma (g1) r3-g3
    """)
    turn = ComputerPlayer(level=1, seed=2).choose_turn(state)
    assert wins_for_mover(state, after(state, turn))


@pytest.mark.parametrize("path", _shared_positions("win"), ids=lambda p: p.stem)
def test_level_one_wins_every_shared_win_in_one_position(path: Path):
    state = _strict(path)
    turn = ComputerPlayer(level=1, seed=0, rules="strict").choose_turn(state)
    assert wins_for_mover(state, after(state, turn)), f"{path.name}: played {turn}"


@pytest.mark.parametrize("path", _shared_positions("nowin"), ids=lambda p: p.stem)
def test_no_win_is_claimed_in_the_shared_nowin_positions(path: Path):
    assert immediate_win(_strict(path)) is None


def test_shared_positions_are_present_or_skipped():
    if not WIN_IN_ONE.is_dir():
        shared_missing("../shared/positions/win-in-one")
    assert len(_shared_positions("win")) >= 40 and len(_shared_positions("nowin")) >= 10


def test_the_out_of_reach_shortcut_never_hides_a_win():
    """Wherever the cheap proof says 'no win', the exhaustive scan agrees."""
    proved = 0
    for state in random_positions(40, seed=11):
        if home_out_of_reach(state, 1 - state.to_move):
            proved += 1
            assert scan_for_winning_turn(state) is None, state.describe()
    assert proved >= 10  # the shortcut is actually exercised


def test_a_home_with_an_enemy_ship_in_it_is_never_called_out_of_reach():
    state = position("""
        Alpha (0, y1b2) g3-r1
        Beta (1, y3g2) -g3
    """, to_move=1)
    assert not home_out_of_reach(state, 0)


# A win that needs a catastrophe between two other actions (looney rules: catastrophes at
# any point of the turn): three moves from a y3 sacrifice bring a fourth yellow into Player2,
# the catastrophe removes its y1 star, the last move brings a fourth blue, and a second
# catastrophe removes its b3 star.
MID_TURN_CATASTROPHES = """
    Player1 (0, b1y2) r1r1r2y1y3g1g1b1b1-
    Player2 (1, y1b3) -r1r2r2y1y3g1g2g2b2b2
    New1 (r3) y2y3-
    New2 (b2) -y2
"""


def test_a_win_through_mid_turn_catastrophes_is_not_missed():
    state = position(MID_TURN_CATASTROPHES)
    turn = immediate_win(state)
    assert turn is not None and wins_for_mover(state, after(state, turn))
    played = ComputerPlayer(level=1, seed=0).choose_turn(state)
    assert wins_for_mover(state, after(state, played))


def test_under_strict_rules_that_position_has_no_win():
    # Strict rules allow catastrophes only at the ends of a turn.
    assert immediate_win(position(MID_TURN_CATASTROPHES, rules="strict")) is None


def test_the_exhaustive_scan_agrees_with_the_engine_on_mid_turn_catastrophes():
    state = position(MID_TURN_CATASTROPHES)
    turn = scan_for_winning_turn(state)
    assert turn is not None and wins_for_mover(state, after(state, turn))
    assert scan_for_winning_turn(position(MID_TURN_CATASTROPHES, rules="strict")) is None
