"""How long the top level thinks, move after move, as in a game (issue 12's time target:
p99 at most 2 s and max at most 5 s on the 2-core development machine).

Real games are replayed — the bundled demo game and the cooked games of tests/data — and
at each position of one seat one ``ComputerPlayer(level=4)`` (the same player for the whole
game, so its caches grow as in play) chooses a move; the game then goes on with the
recorded turn. Reported: think time per move (p50 / p99 / max), the share of moves over
the limit, and how much of each move the cyclic garbage collector took (its pauses are
what once pushed 1.8 s moves to 3.9 s; docs/computer-opponent.md, *Time*).

    python benchmarks/think_time.py [--moves-per-game N] [--level 4]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

GAMES = Path(__file__).resolve().parents[1] / "tests" / "data" / "games" / "cooked"


def _games():
    """(name, starting GameState, recorded turns) of every game replayed."""
    from homeworlds.notation import read_cooked_file, read_sdg
    from homeworlds.replay import rules_for_game
    from homeworlds.rules import GameState, preset

    demo = read_sdg(resources.files("homeworlds.data").joinpath("demo-game.raw").read_text())
    rules = rules_for_game(demo, None)
    yield ("demo game", GameState(rules, 2, first_to_move=demo.turns[0].seat),
           [turn.actions for turn in demo.turns])
    for path in sorted(GAMES.glob("*.cooked")):
        game = read_cooked_file(path)
        yield (path.name, GameState.from_position(game.systems, preset("strict")),
               list(game.turns))


class _CollectorClock:
    """Seconds the cyclic garbage collector ran since ``reset``."""

    def __init__(self):
        self.spent = 0.0
        self._started = 0.0
        gc.callbacks.append(self._note)

    def _note(self, phase, info):
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.spent += time.perf_counter() - self._started

    def reset(self) -> float:
        spent, self.spent = self.spent, 0.0
        return spent

    def close(self) -> None:
        gc.callbacks.remove(self._note)  # `make bench` runs later benchmarks in this process


def _percentile(values, share):
    values = sorted(values)
    return values[min(len(values) - 1, int(share * len(values)))]


def _replay(times: list[float], collector: list[float], clock: _CollectorClock,
            moves_per_game: int, level: int) -> float:
    """Think at each of seat 1's positions of every game; returns the level's limit."""
    from homeworlds.ai import ComputerPlayer

    limit = 0.0
    for _, state, turns in _games():
        player = ComputerPlayer(level=level, seed=0, rules=state.rules)
        limit = player.time_limit
        moved = 0
        for turn in turns:
            if state.result is not None or moved >= moves_per_game:
                break
            if not state.in_setup and state.to_move == 1:
                clock.reset()
                started = time.perf_counter()
                player.choose_turn(state)
                times.append(time.perf_counter() - started)
                collector.append(clock.reset())
                moved += 1
            state.apply_turn(turn)
    return limit


def run(moves_per_game: int = 30, level: int = 4) -> dict:
    times: list[float] = []
    collector: list[float] = []
    clock = _CollectorClock()
    try:
        limit = _replay(times, collector, clock, moves_per_game, level)
    finally:
        clock.close()
    over = sum(1 for t in times if t > limit + 0.1)
    return {
        "moves": len(times),
        "time limit": f"{limit} s",
        "think time p50 / p99 / max": f"{_percentile(times, 0.5):.2f} / "
                                      f"{_percentile(times, 0.99):.2f} / {max(times):.2f} s",
        "moves over the limit by more than 0.1 s": over,
        "garbage collector per move p50 / max": f"{_percentile(collector, 0.5) * 1000:.0f} / "
                                                f"{max(collector) * 1000:.0f} ms",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves-per-game", type=int, default=30)
    parser.add_argument("--level", type=int, default=4)
    args = parser.parse_args(argv)
    for key, value in run(args.moves_per_game, args.level).items():
        print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
