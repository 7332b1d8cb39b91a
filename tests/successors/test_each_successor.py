"""``each_successor`` hands out the same successors as ``successors``, in the same order,
the moment the search finds them, and stops when asked."""

from __future__ import annotations

from homeworlds.notation import read_cooked
from homeworlds.rules import GameState, each_successor, preset, successors

POSITION = "Home0 (0, y1b2) y3y3-g1\nHome1 (1, g2b3) b1-y2r2\nA (y2) g2-\nB (b1) y1-\n"


def _state() -> GameState:
    return GameState.from_position(read_cooked(POSITION).systems, preset("strict"))


def test_same_successors_in_the_same_order():
    got = []
    assert each_successor(_state(), lambda s: got.append(s) and False) == 915
    want = list(successors(_state()))
    assert [(s.turn, s.key) for s in got] == [(s.turn, s.key) for s in want]


def test_stops_when_emit_says_so():
    got = []
    assert each_successor(_state(), lambda s: got.append(s) or len(got) == 3) == 3
    assert [s.turn for s in got] == [s.turn for s in list(successors(_state()))[:3]]
