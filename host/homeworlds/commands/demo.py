"""``homeworlds demo``: the simulated table plays a real archive game, live in the terminal.

The same physical-handling driver as ``table-replay`` moves the pieces on the simulated
table; the simulated microcontroller reports them over a pty; the host infers every turn
and renders the LEDs. The terminal shows the table laid out as it stands — slots with their
stars and each seat's ships, the LED rings and bars as coloured blocks — plus the bank, the
turn, the game clocks (``--clock``) and the record. It ends by itself when the game does.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

from homeworlds.ai import LEVELS
from homeworlds.clock import ClockSpec, ClockSpecError
from homeworlds.commands.table_replay import finite_number, miss_rate_option
from homeworlds.display.printable import printable
from homeworlds.notation import read_sdg, read_sdg_file
from homeworlds.replay import ReplaySetupError, rules_for_game
from homeworlds.rules import PRESETS, HomeworldsError, preset

BUNDLED_GAME = "demo-game.raw"
#: The bundled game of each player count (SDG archive games won on the board: #20061, a
#: three-player Sinister game; #1926, a four-player one).
BUNDLED_GAMES = {2: BUNDLED_GAME, 3: "demo-game-3p.raw", 4: "demo-game-4p.raw"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="the simulated table plays a recorded game, live",
                       description=__doc__)
    p.add_argument("--game", metavar="FILE", action="append",
                   help="an SDG transcript (default: a bundled game); give it again for more "
                   "games, which --web plays one after another")
    p.add_argument("--speed", type=_speed, default=None,
                   help="turns per second (default 4, or 0.25 with --web: a turn every four "
                   "seconds, time to read what it did; 0 = as fast as possible)")
    p.add_argument("--pause", type=_speed, default=None, metavar="SECONDS",
                   help="with --web: how long a finished game stays on the screen before the "
                   "next one (default 15)")
    p.add_argument("--once", action="store_true",
                   help="with --web: play the game once and keep showing its end (default: "
                   "the games round and round, a stand that runs itself)")
    p.add_argument("--players", type=int, choices=sorted(BUNDLED_GAMES), default=2,
                   help="play the bundled game of this many players (default 2): three or "
                   "four sit at the simulated four-seat table")
    p.add_argument("--rules", choices=sorted(PRESETS), default=None,
                   help="the rules (default: sdg for two players; for more, the preset the "
                   "game's Variants line names, as replay chooses)")
    p.add_argument("--miss-rate", type=miss_rate_option, default=0.05,
                   help="simulated missed reads per scan (default 0.05)")
    p.add_argument("--no-color", action="store_true", help="plain text, no ANSI colours")
    p.add_argument("--clock", type=_clock, default=ClockSpec.parse("300+5"),
                   metavar="CONTROL",
                   help="game clocks: none, 600 (sudden death, s), 300+5 (Fischer increment), "
                   "300d5 (delay); casual: a flag does not end the recorded game "
                   "(default 300+5; docs/clocks.md)")
    p.add_argument("--web", action="store_true",
                   help="also serve the live display in the browser (prints its URL; needs "
                   "the web extra); it stays up after the game until Ctrl-C")
    p.add_argument("--listen", metavar="ADDR[:PORT]", default=None,
                   help="where the display listens (default 127.0.0.1:8080; 0.0.0.0 for "
                   "every network; port 0 picks a free one)")
    p.add_argument("--versus-computer", action="store_true",
                   help="instead of a recorded game: the north seat is the computer, and a "
                   "simulated person at the south seat plays it, carrying out the computer's "
                   "turns step by step as the LEDs show them")
    p.add_argument("--level", type=int, choices=sorted(LEVELS), default=1,
                   help="the computer's level with --versus-computer (default 1)")
    p.add_argument("--turns", type=int, default=60,
                   help="with --versus-computer: stop after this many turns (default 60)")
    p.set_defaults(func=run)


def _clock(text: str) -> ClockSpec:
    try:
        spec = ClockSpec.parse(text)
    except ClockSpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    # The demo replays a recorded game to its end: a flag is shown, never a loss.
    return ClockSpec.from_dict({**spec.to_dict(), "on_flag": "none"})


def _speed(text: str) -> float:
    value = finite_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is out of range: give turns per second, 0 "
                                         "or more (0 = as fast as possible)")
    return value


def _listen(args: argparse.Namespace) -> tuple[str, int] | None | str:
    """Where the display listens (None: no display), or why not (a message)."""
    if args.listen is not None and not args.web:
        return "--listen needs --web"
    if not args.web:
        return None
    from homeworlds.web.server import parse_listen

    try:
        return parse_listen(args.listen or "127.0.0.1:8080")
    except ValueError as exc:
        return f"--listen: {exc}"


def run(args: argparse.Namespace) -> int:
    from homeworlds.runtime.demo import WEB_SPEED, run_recorded_game, versus_computer

    speed = args.speed if args.speed is not None else WEB_SPEED if args.web else 4.0
    if getattr(args, "versus_computer", False):
        listen = _listen(args)
        if isinstance(listen, str):
            print(f"homeworlds demo: {listen}", file=sys.stderr)
            return 2
        return versus_computer(rules=args.rules or "sdg", level=args.level, speed=speed,
                               miss_rate=args.miss_rate, color=not args.no_color,
                               turns=args.turns, listen=listen)
    more = []
    try:
        if args.game:
            game = read_sdg_file(Path(args.game[0]))
            more = [read_sdg_file(Path(path)) for path in args.game[1:]]
        else:
            name = BUNDLED_GAMES[args.players]
            text = resources.files("homeworlds.data").joinpath(name).read_text()
            game = read_sdg(text, source=name)
        rules = rules_for_game(game, preset(args.rules) if args.rules else None,
                               explicit=args.rules is not None)
    except (OSError, HomeworldsError, ReplaySetupError) as exc:
        print(f"homeworlds demo: {exc}", file=sys.stderr)
        return 2
    if not 2 <= len(game.players) <= 6:
        print(f"homeworlds demo: the simulated tables seat 2 to 6 players; "
              f"{game.source} has {len(game.players)}", file=sys.stderr)
        return 2
    # The screen shows names and actions between its own terminal codes: a control
    # character from the file would drive the terminal, so such a file is refused.
    unprintable = [(1, name) for name in game.players if not name.isprintable()] + [
        (turn.line, text) for turn in game.turns for text in turn.texts
        if not text.isprintable()]
    if unprintable:
        line, text = unprintable[0]
        print(printable(f"homeworlds demo: {game.source}:{line}: {text!r} contains a control "
                        "character; the demo shows only printable names and actions"),
              file=sys.stderr)
        return 2
    listen = _listen(args)
    if isinstance(listen, str):
        print(f"homeworlds demo: {listen}", file=sys.stderr)
        return 2
    return run_recorded_game(game, rules=rules.name, speed=speed,
                             miss_rate=args.miss_rate, color=not args.no_color,
                             clock_spec=args.clock, listen=listen,
                             loop=listen is not None and not args.once,
                             more_games=tuple(more),
                             **({} if args.pause is None else {"pause_s": args.pause}))
