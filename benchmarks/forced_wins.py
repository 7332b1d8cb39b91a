"""Does the computer's top level play a forced win in two when there is one?

Positions: the last eight before the end of held-out archive games won on the board (SDG
numbers divisible by 5, as for the win probability), where the player to move has no
win-in-one but a forced win in two (a turn after which every reply leaves a win-in-one),
as the exhaustive search of ``ai.threats.forced_win_in_two`` finds within ``--reference``
seconds. On each, the top level (4) chooses a turn within its time, once without its forced-win
step (``SearchSettings.forced_win_share = 0``: the search alone, as before) and once
with it; the figure is the share of positions where the turn chosen is a forced win.

    python benchmarks/forced_wins.py [--games N] [--reference S]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from homeworlds.ai import LEVELS, TOP_LEVEL
from homeworlds.ai.search import SearchPlayer, SearchSettings
from homeworlds.ai.threats import forced_win_in_two, is_forced_win_in_two
from homeworlds.ai.wins import immediate_win
from homeworlds.display.steps import load_game_file
from homeworlds.replay import load_expected
from homeworlds.rules import GameState, SearchInterrupted

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
HOLD_OUT = 5
LAST = 8


def held_out_wins(shared: Path, games: int) -> list[str]:
    expected = load_expected(shared / "games" / "expected.tsv")
    names = [n for n, e in expected.items() if e.legal and e.board_end == "opponent-eliminated"
             and not int(n) % HOLD_OUT]
    return sorted(names, key=int)[:games]


def _deadline(seconds: float):
    end = time.monotonic() + seconds
    return lambda: time.monotonic() > end


def positions_with_forced_wins(shared: Path, names: list[str], reference: float
                               ) -> tuple[list[tuple[str, int, GameState]], int, int]:
    """(game, turn, position) with a forced win in two; how many positions were looked
    at, and how many of them the reference search could not settle in time."""
    found, looked, unsettled = [], 0, 0
    for name in names:
        game = load_game_file(shared / "games" / "sdg" / f"{name}.raw")
        for step in game.steps[-LAST - 1:-1]:
            state = step.state
            if state.in_setup or state.is_over or immediate_win(state) is not None:
                continue
            looked += 1
            try:
                turn = forced_win_in_two(state, should_stop=_deadline(reference))
            except SearchInterrupted:
                unsettled += 1
                continue
            if turn is not None:
                found.append((name, step.number, state))
    return found, looked, unsettled


def share_found(positions: list[tuple[str, int, GameState]], forced_win_share: float,
                time_limit: float | None = None) -> tuple[int, list[float]]:
    """How many of the positions level 4 answers with a forced win; its think times."""
    settings = dataclasses.replace(top_level(), forced_win_share=forced_win_share)
    hits, times = 0, []
    for _, _, state in positions:
        player = SearchPlayer(settings, seed=1)
        started = time.monotonic()
        turn = player.choose_turn(state.copy(), time_limit)
        times.append(time.monotonic() - started)
        if is_forced_win_in_two(state, turn, should_stop=_deadline(60)):
            hits += 1
    return hits, times


def top_level() -> SearchSettings:
    settings = LEVELS[TOP_LEVEL]
    assert isinstance(settings, SearchSettings)
    return settings


def run(games: int = 40, reference: float = 5.0) -> dict:
    if not (SHARED / "games" / "expected.tsv").is_file():
        return {"skipped": f"{SHARED}/games not found"}
    names = held_out_wins(SHARED, games)
    positions, looked, unsettled = positions_with_forced_wins(SHARED, names, reference)
    out: dict = {"games": len(names), "positions_looked_at": looked,
                 "reference_unsettled": unsettled, "with_forced_win": len(positions)}
    if not positions:
        return out
    for label, share in (("before (search alone)", 0.0),
                         ("after (forced-win step)", top_level().forced_win_share)):
        hits, times = share_found(positions, share)
        out[f"found {label}"] = (f"{hits}/{len(positions)} = {hits / len(positions):.0%}, "
                                 f"think time max {max(times):.2f} s")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--reference", type=float, default=5.0,
                        help="seconds the exhaustive search may take per position")
    args = parser.parse_args(argv)
    for key, value in run(args.games, args.reference).items():
        print(f"{key}: {value}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
