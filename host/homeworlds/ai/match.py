"""Seeded matches from the standard openings: what the strength benchmark plays.

Game ``index`` starts from opening ``(index // 2) % len(OPENINGS)`` with the
computer in seat ``index % 2`` (seat 0 sets up and moves first), so each
opening is played once with the computer first and once second. Seeds are
fixed (computer ``index``, opponent ``10_000 + index``). A game still running
after ``max_turns`` turns is recorded as ``"capped"``, not as a win.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from homeworlds.ai.openings import OPENINGS, opening_homeworld
from homeworlds.ai.players import ComputerPlayer, GreedyPlayer, RandomPlayer
from homeworlds.rules import GameState, preset

OPPONENTS = ("random", "greedy")
NAMES = ("Player1", "Player2")


@dataclass(frozen=True, slots=True)
class MatchGame:
    """How one game went, from the computer's side."""

    index: int
    opponent: str
    #: "win", "loss", "draw" or "capped".
    outcome: str
    turns: int
    #: The computer's thinking time for each of its turns, in seconds.
    times: tuple[float, ...]


def opponent_player(kind: str, seed: int):
    if kind == "random":
        return RandomPlayer(seed=seed, names=NAMES)
    if kind == "greedy":
        return GreedyPlayer(seed=seed, names=NAMES)
    raise ValueError(f"unknown opponent {kind!r}; known: {', '.join(OPPONENTS)}")


def play_match_game(index: int, opponent: str, rules: str = "looney", level: int = 1,
                    max_turns: int = 200) -> MatchGame:
    state = GameState(preset(rules))
    first, second = OPENINGS[(index // 2) % len(OPENINGS)]
    state.apply_turn((opening_homeworld(first, NAMES[0]),))
    state.apply_turn((opening_homeworld(second, NAMES[1]),))
    seat = index % 2
    computer = ComputerPlayer(level, seed=index, names=NAMES)
    other = opponent_player(opponent, 10_000 + index)
    players = [other, other]
    players[seat] = computer
    times: list[float] = []
    turns = 0
    while state.result is None and turns < max_turns:
        player = players[state.to_move]
        started = time.perf_counter()
        turn = player.choose_turn(state)
        if player is computer:
            times.append(time.perf_counter() - started)
        state.apply_turn(turn)
        turns += 1
    result = state.result
    if result is None:
        outcome = "capped"
    elif not result.winners:
        outcome = "draw"
    else:
        outcome = "win" if seat in result.winners else "loss"
    return MatchGame(index, opponent, outcome, turns, tuple(times))


def play_match_job(job: tuple[int, str, str, int, int]) -> MatchGame:
    """``play_match_game`` on one tuple of arguments (for process pools)."""
    return play_match_game(*job)
