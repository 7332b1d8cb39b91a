"""``homeworlds demo``: replay a real recorded game in the terminal, turn by turn."""

from __future__ import annotations

import argparse
import sys
import time
from importlib import resources
from pathlib import Path

from homeworlds.display.terminal import render_position
from homeworlds.notation.sdg import read_sdg, read_sdg_file
from homeworlds.rules.errors import HomeworldsError
from homeworlds.rules.presets import PRESETS, preset
from homeworlds.rules.state import GameState

BUNDLED_GAME = "demo-game.raw"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="replay a recorded game in the terminal",
                       description="Replay a real SDG game turn by turn: systems, ships by "
                       "owner, bank and record. Without --game a bundled archive game is used.")
    p.add_argument("--game", metavar="FILE", help="an SDG transcript (default: bundled game)")
    p.add_argument("--speed", type=float, default=4.0,
                   help="turns per second (default 4; 0 = as fast as possible)")
    p.add_argument("--rules", choices=sorted(PRESETS), default="sdg")
    p.add_argument("--no-color", action="store_true", help="plain text without ANSI colours")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.game:
            game = read_sdg_file(Path(args.game))
        else:
            text = resources.files("homeworlds.data").joinpath(BUNDLED_GAME).read_text()
            game = read_sdg(text, source=BUNDLED_GAME)
    except (OSError, HomeworldsError) as exc:
        print(f"homeworlds demo: {exc}", file=sys.stderr)
        return 2
    color = not args.no_color and sys.stdout.isatty()
    players = game.players
    state = GameState(preset(args.rules), max(2, len(players)))
    delay = 1.0 / args.speed if args.speed > 0 else 0.0
    title = f"SDG game #{game.number}" if game.number is not None else "game"
    print(f"{title}: {' vs '.join(players)} ({args.rules} rules)\n")
    for turn in game.turns:
        record = "; ".join(turn.texts)
        try:
            state.apply_turn(turn.actions)
        except HomeworldsError as exc:
            print(f"turn {turn.number}: {turn.player}: {record}\n  ILLEGAL: {exc}")
            return 1
        print(f"turn {turn.number}: {turn.player}: {record}")
        print(render_position(state, players, color=color))
        print()
        if state.is_over:
            winners = ", ".join(players[s] for s in state.result.winners) or "nobody"
            print(f"game over ({state.result.kind}): {winners} wins")
            break
        if delay:
            time.sleep(delay)
    else:
        print("the record ends here (resigned or unfinished); "
              f"recorded winner: {game.winner or 'unknown'}")
    return 0
