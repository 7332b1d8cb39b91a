"""``homeworlds branching``: successor counts along a recorded game."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from homeworlds.commands.successors import add_rules_option
from homeworlds.display.printable import printable
from homeworlds.notation import read_cooked_file
from homeworlds.rules import GameState, HomeworldsError, count_successors, preset


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("branching", help="count the successors before every turn of a game",
                       description="Replay a cooked game and print one JSON list: for the "
                       "position before each turn after setup (and after the last turn), the "
                       "number of distinct positions the player to move can reach; positions "
                       "where the game is over are skipped. Under --rules strict these are the "
                       "numbers of shared/games/branching-factors.json.")
    add_rules_option(p)
    p.add_argument("game", metavar="FILE", help="a game in the cooked format")
    p.set_defaults(func=run)


def branching_factors(state: GameState, turns, source: str = "game") -> list[int]:
    """Successor counts before each turn and after the last one, while the game goes on.

    Raises ValueError naming the turn when a turn is illegal or follows the game's end.
    """
    counts = []
    for number, turn in enumerate(list(turns) + [None], start=1):
        if state.is_over:
            if turn is not None:
                raise ValueError(f"{source}: turn {number} comes after the end of the game")
            break
        counts.append(count_successors(state))
        if turn is None:
            break
        try:
            state.apply_turn(turn)
        except HomeworldsError as exc:
            raise ValueError(f"{source}: turn {number} is illegal under the "
                             f"{state.rules.name} rules: {exc}") from None
    return counts


def run(args: argparse.Namespace) -> int:
    path = Path(args.game)
    try:
        game = read_cooked_file(path)
        state = GameState.from_position(game.systems, preset(args.rules), to_move=0)
        counts = branching_factors(state, game.turns, str(path))
    except OSError as exc:
        print(f"homeworlds branching: {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (HomeworldsError, ValueError) as exc:
        message = str(exc) if str(exc).startswith(str(path)) else f"{path}: {exc}"
        print(printable(f"homeworlds branching: {message}"), file=sys.stderr)
        return 2
    print(json.dumps(counts))
    return 0
