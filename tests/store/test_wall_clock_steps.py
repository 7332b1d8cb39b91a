"""Stored times stay in order when the wall clock steps (issue 27, defect 9): the recorder
never stamps a write before the one it stamped last, a resumed game included; a step
forward is taken as it is."""

from __future__ import annotations

from homeworlds.rules import preset
from homeworlds.store import GameRecorder, GameStore

from .helpers import OPENING, PLAYERS, positions, turns_of


class SteppingWall:
    """The wall clock as ISO text; ``times`` are handed out in turn (the last repeats)."""

    def __init__(self, times):
        self.times = list(times)

    def __call__(self):
        return self.times.pop(0) if len(self.times) > 1 else self.times[0]


def _record(path, wall, turns, start=1):
    recorder = GameRecorder(path, table="club-1", layout="standard-2p", wall_clock=wall)
    recorder.open()
    point = recorder.resume_point()
    if point is None:
        recorder.start_game(preset("looney"), PLAYERS)
    else:
        recorder.continue_game(point.game)
    states = positions(turns_of(OPENING))
    for number in range(start, start + turns):
        recorder.turn(number, (number - 1) % 2, turns_of(OPENING)[number - 1],
                      states[number - 1], PLAYERS, {})
    recorder.close()


def _committed(path):
    store = GameStore.open(path)
    try:
        return [t.committed for t in store.turns(1)]
    finally:
        store.close()


def test_a_wall_clock_step_back_leaves_the_stored_times_in_order(tmp_path):
    path = tmp_path / "games.sqlite"
    # +1 h, then back again (the admin's mistake corrected): turn 3 would come before 2.
    wall = SteppingWall(["2026-12-06T05:00:00.000+00:00", "2026-12-06T05:00:10.000+00:00",
                         "2026-12-06T06:00:20.000+00:00", "2026-12-06T05:00:30.000+00:00",
                         "2026-12-06T05:00:40.000+00:00"])
    _record(path, wall, 4)
    committed = _committed(path)
    assert committed == sorted(committed), committed
    assert committed[1] == "2026-12-06T06:00:20.000+00:00"  # the step forward, as it came


def test_a_resumed_game_keeps_its_times_in_order_after_a_step_back(tmp_path):
    path = tmp_path / "games.sqlite"
    _record(path, SteppingWall(["2026-12-06T06:00:00.000+00:00"]), 2)
    _record(path, SteppingWall(["2026-12-06T05:00:00.000+00:00"]), 2, start=3)
    committed = _committed(path)
    assert committed == sorted(committed), committed
