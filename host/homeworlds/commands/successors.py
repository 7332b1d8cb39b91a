"""``homeworlds successors``: list (or count) every distinct successor of a position."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from homeworlds.display.printable import printable
from homeworlds.notation import format_sdg_action, read_cooked_file
from homeworlds.rules import (
    PRESETS,
    GameState,
    HomeworldsError,
    Successor,
    Turn,
    count_successors,
    each_successor,
    preset,
    successors,
)

DEFAULT_RULES = "strict"


class CommandError(Exception):
    """A problem to report in one line (the file and what is wrong), exit status 2."""


def add_rules_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", choices=sorted(PRESETS), default=DEFAULT_RULES,
                        help=f"rules preset (default: {DEFAULT_RULES}, the C++ reference "
                        "engine's rules)")


def load_position(name: str, rules_name: str) -> GameState:
    """A position file in the engine's cooked format: systems, then optional turns.

    The position is the one after the file's turns (seat 0 moves first); files
    without turns give seat 0 to move.
    """
    path = Path(name)
    try:
        game = read_cooked_file(path, named=True)
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror or exc}") from None
    except HomeworldsError as exc:
        raise CommandError(str(exc)) from None
    if not game.systems:
        raise CommandError(f"{path}: no position in the file (expected lines like "
                           "'Home (0, y1b2) g3-')")
    try:
        state = GameState.from_position(game.systems, preset(rules_name), to_move=0)
    except ValueError as exc:
        raise CommandError(f"{path}: {exc}") from None
    if state.in_setup:
        missing = [str(seat) for seat, done in enumerate(state.set_up) if not done]
        raise CommandError(f"{path}: setup is not finished: no home for seat "
                           f"{' and '.join(missing)} (a position needs a line like "
                           "'Home (1, y3b1) -g3' for each seat)")
    for number, turn in enumerate(game.turns, start=1):
        if state.is_over:
            raise CommandError(f"{path}: turn {number} comes after the end of the game")
        try:
            state.apply_turn(turn)
        except HomeworldsError as exc:
            raise CommandError(f"{path}: turn {number} is illegal under the {rules_name} "
                               f"rules: {exc}") from None
    return state


def game_over(state: GameState) -> str:
    """Why a position has no turn to play: who is out and who won."""
    result = state.result
    assert result is not None
    out = [f"seat {seat}" for seat in range(state.players) if state.eliminated[seat]]
    end = " and ".join(f"seat {seat}" for seat in result.winners) + " won" \
        if result.winners else "a draw"
    return (f"the game is over: {' and '.join(out)} {'is' if len(out) == 1 else 'are'} out "
            f"(no ship of its own at home, or no home star); {end}")


def sdg_turn(turn: Turn) -> str:
    """A whole turn in SDG notation, actions joined by '; '."""
    return "; ".join(format_sdg_action(a) for a in turn)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("successors", help="list every distinct position one turn reaches",
                       description="Print one turn (SDG notation) per distinct position the "
                       "player to move can reach in one legal turn (positions that differ only "
                       "in system names count once). POSITIONFILE is in the cooked format; "
                       "seat 0 moves unless the file's turns say otherwise.")
    add_rules_option(p)
    p.add_argument("--count", action="store_true", help="print only the number of successors")
    p.add_argument("--limit", type=int, metavar="N", help="print at most N turns")
    p.add_argument("position", metavar="POSITIONFILE")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 0:
        print("homeworlds successors: --limit must be 0 or more", file=sys.stderr)
        return 2
    try:
        state = load_position(args.position, args.rules)
    except CommandError as exc:
        print(printable(f"homeworlds successors: {exc}"), file=sys.stderr)
        return 2
    if state.is_over:
        print(printable(f"homeworlds successors: {args.position}: {game_over(state)}"),
              file=sys.stderr)
        return 1
    if args.count:
        print(count_successors(state))
        return 0
    if args.limit == 0:
        found = any(True for _ in successors(state))
    else:
        # Printed as the search finds them: a listing of a million turns holds none of them.
        printed = 0

        def print_turn(succ: Successor) -> bool:
            nonlocal printed
            print(printable(sdg_turn(succ.turn)))
            printed += 1
            return printed == args.limit

        found = bool(each_successor(state, print_turn))
    if not found:
        print(printable(f"homeworlds successors: {args.position}: seat {state.to_move} (to "
                        "move) has no legal turn in this position: every turn is illegal "
                        f"under the {args.rules} rules"), file=sys.stderr)
        return 1
    return 0
