"""The computer thinks in a worker thread: time limit and progress are passed only to
players that take them; failures are reported, never raised into the table's loop."""

from __future__ import annotations

import threading

from homeworlds.ai.players import ComputerPlayer
from homeworlds.rules import GameState, preset
from homeworlds.session import Thinking


class _Recording:
    """A computer player that takes a time limit and reports progress (as the search
    player does), delegating the choice to level 1."""

    def __init__(self):
        self.limits = []
        self.inner = ComputerPlayer(1, seed=1, rules="looney")

    def choose_turn(self, state, *, time_limit=None, progress=None):
        self.limits.append(time_limit)
        if progress is not None:
            progress({"depth": 1})
        return self.inner.choose_turn(state)


def test_time_limit_and_progress_reach_a_player_that_takes_them():
    player = _Recording()
    thinking = Thinking(player, GameState(preset("looney")), purpose="turn", key=(1,),
                        time_limit=2.5)
    assert thinking.wait(30)
    assert player.limits == [2.5] and thinking.progress == {"depth": 1}
    assert thinking.turn is not None and thinking.error is None and thinking.seat == 0


def test_a_player_without_a_time_limit_is_called_plainly():
    thinking = Thinking(ComputerPlayer(1, seed=1, rules="looney"), GameState(preset("looney")),
                        purpose="turn", key=(1,), time_limit=2.5)
    assert thinking.wait(30) and thinking.turn is not None


def test_a_failing_player_is_reported_not_raised():
    class Broken:
        def choose_turn(self, state):
            raise RuntimeError("out of memory")

    thinking = Thinking(Broken(), GameState(preset("looney")), purpose="turn", key=(1,))
    assert thinking.wait(10)
    assert thinking.turn is None and thinking.error == "RuntimeError: out of memory"


def test_the_thinking_works_on_a_copy_while_the_table_goes_on():
    release = threading.Event()
    seen = []

    class Slow:
        def choose_turn(self, state):
            release.wait(10)
            seen.append(len(state.systems))
            return ComputerPlayer(1, seed=1, rules="looney").choose_turn(state)

    state = GameState(preset("looney"))
    thinking = Thinking(Slow(), state, purpose="turn", key=(1,))
    assert not thinking.done
    from homeworlds.notation.sdg import parse_sdg_action
    state.apply_turn((parse_sdg_action("Homeworld Y1 B2 G3", player="Player1"),))
    release.set()
    assert thinking.wait(30) and seen == [0]
