"""``homeworlds analyse``: who was winning after every turn of recorded games.

For every turn of an SDG transcript or a cooked game, the probability that the player who
set up first wins, by the calibrated model of ``homeworlds.ai.analysis`` (docs/analysis.md),
so that anyone can check its calibration against the games' results; with ``--threats``
also the threats of the position (``homeworlds.ai.threats``).
"""

from __future__ import annotations

import argparse
import json
import sys

from homeworlds.ai.analysis import bundled_model, phase_of
from homeworlds.ai.threats import find_threats
from homeworlds.display.printable import printable, printable_lines
from homeworlds.display.steps import GameFileError, GameSteps, load_game_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyse", aliases=["analyze"],
                       help="win probability after every turn of recorded games",
                       description="For every turn of SDG transcripts or cooked games (told "
                       "apart by their first line): the probability that the player who set "
                       "up first wins, by the calibrated model (docs/analysis.md). Exit 0 "
                       "when every file could be read, 2 when one cannot.")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per file, per line")
    p.add_argument("--threats", action="store_true",
                   help="also the threats of each position: a win-in-one or a forced win "
                   "in two for the player to move, a home one catastrophe from falling, "
                   "overpopulation one piece away")
    p.add_argument("--forced-time", type=float, default=0.5, metavar="S",
                   help="with --threats: seconds to look for a forced win in two per "
                   "position (default 0.5)")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files:
        try:
            game = load_game_file(name)
        except GameFileError as exc:
            print(printable(f"homeworlds analyse: {exc}"), file=sys.stderr)
            status = 2
            continue
        if len(game.players) != 2:
            print(printable(f"homeworlds analyse: {name}: a game of {len(game.players)} "
                            "players; the win probability is for two-player games"),
                  file=sys.stderr)
            status = 2
            continue
        analysis = analyse_game(game, threats=args.forced_time if args.threats else None)
        if args.json:
            print(json.dumps(analysis), flush=False)
        else:
            print(printable_lines(format_analysis(analysis)))
    sys.stdout.flush()
    return status


def analyse_game(game: GameSteps, threats: float | None = None) -> dict:
    """The game's turns with the probability that the first player (who set up first)
    wins after each, as a JSON-ready dict; ``threats``: also each position's threats,
    with that many seconds for a forced win (None: no threats)."""
    model = bundled_model()
    turns = []
    for step in game.steps[1:]:
        state = step.state
        entry = {"turn": step.number, "player": game.player(step.seat),
                 "text": step.text.replace("\n", "; "),
                 "phase": "setup" if state.in_setup else (
                     "over" if state.is_over else phase_of(state)),
                 "first_wins": round(model.probability(state), 4)}
        if threats is not None:
            entry["threats"] = [t.to_json() for t in find_threats(
                state, game.players, forced_time=threats)]
        turns.append(entry)
    return {"file": game.source, "title": game.title, "players": list(game.players),
            "first": game.players[0], "error": game.error, "turns": turns}


def format_analysis(analysis: dict) -> str:
    first = analysis["first"]
    lines = [f"{analysis['title']}", f"P = probability that {first} (set up first) wins"]
    for turn in analysis["turns"]:
        p = turn["first_wins"]
        bar = "#" * round(p * 20)
        lines.append(f"{turn['turn']:>4} {turn['player'][:14]:<14} {p:6.1%} "
                     f"{bar:<20} {turn['text'][:32]}")
        for threat in turn.get("threats", ()):
            lines.append(f"       ! {threat['words']}")
    if analysis["error"]:
        lines.append(f"  stopped: {analysis['error']}")
    return "\n".join(lines)
