"""Strength of the computer levels: each level against the baselines (the random mover
and the greedy one-ply player) and against lower levels, with think times.

Game ``i`` of a pairing starts from opening ``i // 2`` with the player under test in
seat ``i % 2`` (``homeworlds.ai.match``: the six standard openings, then seeded sound
ones), so every opening is played from both seats. Seeds are fixed, so a run is
reproducible up to the time budgets. A game still running after ``--max-turns`` turns
is "unfinished", never a win. For each pairing: wins, losses, draws, unfinished games,
mean game length, both sides' think time per turn (p50, p99, max), and the results
moving first and moving second.

    .venv/bin/python benchmarks/strength.py                      # quick run (make bench)
    .venv/bin/python benchmarks/strength.py --games 20 --all-lower   # the documented run
    .venv/bin/python benchmarks/strength.py --player level3 --opponent level1 --games 40
    .venv/bin/python benchmarks/strength.py --player level4 --opponent legacy3 --jsonl games.jsonl

``--jsonl`` appends one JSON object per game as it ends (what ``MatchGame`` holds, the
turns in the cooked notation), to study the games afterwards.

Player names: ``random``, ``greedy``, ``level1``, … (one per level in
``homeworlds.ai.players.LEVELS``, so a new level is measured without touching this file).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from homeworlds.ai.match import (  # noqa: E402
    BASELINES,
    MAX_TURNS,
    MatchGame,
    match_figures,
    outcome_text,
    play_games,
    play_match_job,
    player_names,
    seats_text,
    think_time_text,
)
from homeworlds.notation import format_cooked_turn  # noqa: E402

#: Games per pairing in a quick run (``make bench``: one opening from both seats).
QUICK_GAMES = 2


def levels() -> list[str]:
    """The computer's levels as the table offers them (``levelN``; not the ``legacyN``
    yardsticks, which are opponents only)."""
    return [name for name in player_names() if name.startswith("level")]


def yardstick(names: list[str]) -> list[tuple[str, str]]:
    """The top level against the old level 3 (issue 12's target: the search must beat the
    look-ahead of before), where the players module keeps it."""
    return [(names[-1], "legacy3")] if names and "legacy3" in player_names() else []


def default_pairings(all_lower: bool = False) -> list[tuple[str, str]]:
    """Every level against each baseline, and against the level below it (every lower
    level with ``all_lower``)."""
    names = levels()
    pairs = [(level, base) for level in names for base in BASELINES]
    for k, high in enumerate(names):
        pairs += [(high, low) for low in (names[:k] if all_lower else names[max(0, k - 1):k])]
    return pairs + yardstick(names)


def summarize(games: list[MatchGame]) -> dict:
    """One pairing's figures from the player under test's side."""
    return match_figures(games, lambda g: g.opponent_times)


def measure(games: int = QUICK_GAMES, *, pairings: list[tuple[str, str]] | None = None,
            rules: str = "looney", max_turns: int = MAX_TURNS, workers: int = 2,
            on_game: Callable[[MatchGame], None] | None = None, first: int = 0) -> dict:
    """Play ``games`` games of every pairing (game indices ``first`` on: each index is
    one seeded opening and seat); figures per pairing, keyed ``"A vs B"``. ``on_game`` is
    told of each game as it ends (in the order the games were listed)."""
    pairings = pairings if pairings is not None else default_pairings()
    jobs = [(i, opponent, rules, 1, max_turns, player)
            for player, opponent in pairings for i in range(first, first + games)]
    started = time.perf_counter()
    records = play_games(play_match_job, jobs, workers, on_game)
    return {"games_per_pairing": games, "rules": rules, "max_turns": max_turns,
            "wall_seconds": time.perf_counter() - started,
            "load_average": os.getloadavg()[0],
            "pairings": {f"{player} vs {opponent}": summarize(
                [r for r in records if r.player == player and r.opponent == opponent])
                for player, opponent in pairings}}


def game_record(game: MatchGame) -> dict:
    """One game as plain data for ``--jsonl``: its fields, the turns as cooked text."""
    return {"index": game.index, "player": game.player, "opponent": game.opponent,
            "seat": game.seat, "outcome": game.outcome, "turns": game.turns,
            "times": list(game.times), "opponent_times": list(game.opponent_times),
            "turn_log": [format_cooked_turn(turn) for turn in game.turn_log]}


def pairing_line(label: str, s: dict) -> str:
    player, opponent = label.split(" vs ", 1)
    return (f"{outcome_text(s)} of {s['games']}; {s['mean_turns']:.1f} turns mean; think "
            f"{player} {think_time_text(s['player_seconds'])}; "
            f"{opponent} {think_time_text(s['opponent_seconds'])}; {seats_text(s['by_seat'])}")


def report_lines(report: dict) -> list[str]:
    lines = [f"{report['games_per_pairing']} games per pairing, {report['rules']} rules, "
             f"cap {report['max_turns']} turns ({report['wall_seconds']:.0f} s wall, load "
             f"average {report['load_average']:.1f})"]
    lines += [f"  {label}: {pairing_line(label, s)}" for label, s in report["pairings"].items()]
    return lines


def run() -> dict:
    """``make bench``: the quick run, one line per pairing."""
    report = measure()
    flat = {"setup": report_lines(report)[0]}
    flat.update({label: pairing_line(label, s) for label, s in report["pairings"].items()})
    flat["note"] = ("quick run; a longer one: "
                    ".venv/bin/python benchmarks/strength.py --games 20 --all-lower")
    return flat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=QUICK_GAMES,
                        help=f"games per pairing (default {QUICK_GAMES})")
    parser.add_argument("--player", action="append", choices=player_names(),
                        help="player under test (repeatable; default every level)")
    parser.add_argument("--opponent", action="append", choices=player_names(),
                        help="opponent (repeatable; default the baselines and every lower "
                        "level)")
    parser.add_argument("--all-lower", action="store_true",
                        help="each level against every lower level, not only the one below")
    parser.add_argument("--first", type=int, default=0,
                        help="index of the first game (default 0)")
    parser.add_argument("--rules", default="looney", help="rules preset (default looney)")
    parser.add_argument("--max-turns", type=int, default=MAX_TURNS)
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--progress", action="store_true",
                        help="a line for each game as it ends (for long runs)")
    parser.add_argument("--jsonl", type=Path, default=None,
                        help="append one JSON record per finished game (turns included) "
                        "to this file")
    args = parser.parse_args(argv)
    pairings = default_pairings(args.all_lower)
    if args.player:
        pairings = [p for p in pairings if p[0] in args.player] if not args.opponent else \
            [(p, o) for p in args.player for o in args.opponent if p != o]
    elif args.opponent:
        pairings = [p for p in pairings if p[1] in args.opponent]
    if not pairings:
        parser.error("no pairing to play (a player against itself is not played)")
    def progress(game: MatchGame) -> None:
        if args.progress:
            print(f"  {game.player} vs {game.opponent}, game {game.index} (seat {game.seat}): "
                  f"{game.outcome} after {game.turns} turns", flush=True)
        if args.jsonl:
            with args.jsonl.open("a", encoding="utf-8") as out:
                out.write(json.dumps(game_record(game)) + "\n")

    report = measure(args.games, pairings=pairings, rules=args.rules,
                     max_turns=args.max_turns, workers=args.workers, on_game=progress,
                     first=args.first)
    for line in report_lines(report):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
