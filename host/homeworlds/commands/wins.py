"""``homeworlds wins``: is there a turn that eliminates the opponent right now?"""

from __future__ import annotations

import argparse
import sys

from homeworlds.commands.successors import (
    CommandError,
    add_rules_option,
    game_over,
    load_position,
    sdg_turn,
)
from homeworlds.display.printable import printable
from homeworlds.rules import find_winning_turn


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("wins", help="find a turn that eliminates the opponent now",
                       description="Print 'win: TURN' (SDG notation) if the player to move "
                       "has a legal turn that eliminates the opponent, else 'nowin'. "
                       "POSITIONFILE is in the cooked format; seat 0 moves unless the file's "
                       "turns say otherwise.")
    add_rules_option(p)
    p.add_argument("position", metavar="POSITIONFILE")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        state = load_position(args.position, args.rules)
    except CommandError as exc:
        print(printable(f"homeworlds wins: {exc}"), file=sys.stderr)
        return 2
    if state.is_over:
        print(printable(f"homeworlds wins: {args.position}: {game_over(state)}"),
              file=sys.stderr)
        return 1
    turn = find_winning_turn(state)
    print("nowin" if turn is None else printable(f"win: {sdg_turn(turn)}"))
    return 0
