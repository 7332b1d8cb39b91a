"""``homeworlds demo``: the simulated table plays a real archive game, live in the terminal.

The same physical-handling driver as ``table-replay`` moves the pieces on the simulated
table; the simulated microcontroller reports them over a pty; the host infers every turn
and renders the LEDs. The terminal shows the table laid out as it stands — slots with their
stars and each seat's ships, the LED rings and bars as coloured blocks — plus the bank, the
turn and the record. It ends by itself when the game does.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib import resources
from pathlib import Path

from homeworlds.commands.table_replay import finite_number, miss_rate_option
from homeworlds.display.printable import printable
from homeworlds.display.table_screen import record_lines, render_table
from homeworlds.notation.sdg import read_sdg, read_sdg_file
from homeworlds.rules import PRESETS, HomeworldsError, IllegalAction, preset

BUNDLED_GAME = "demo-game.raw"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="the simulated table plays a recorded game, live",
                       description=__doc__)
    p.add_argument("--game", metavar="FILE", help="an SDG transcript (default: a bundled game)")
    p.add_argument("--speed", type=_speed, default=4.0,
                   help="turns per second (default 4; 0 = as fast as possible)")
    p.add_argument("--rules", choices=sorted(PRESETS), default="sdg")
    p.add_argument("--miss-rate", type=miss_rate_option, default=0.05,
                   help="simulated missed reads per scan (default 0.05)")
    p.add_argument("--no-color", action="store_true", help="plain text, no ANSI colours")
    p.add_argument("--web", action="store_true",
                   help="also serve the live display in the browser (prints its URL; needs "
                   "the web extra); it stays up after the game until Ctrl-C")
    p.add_argument("--listen", metavar="ADDR[:PORT]", default=None,
                   help="where the display listens (default 127.0.0.1:8080; 0.0.0.0 for "
                   "every network; port 0 picks a free one)")
    p.set_defaults(func=run)


def _speed(text: str) -> float:
    value = finite_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is out of range: give turns per second, 0 "
                                         "or more (0 = as fast as possible)")
    return value


def run(args: argparse.Namespace) -> int:
    from homeworlds.table_replay import SimulatedTableGame

    try:
        if args.game:
            game = read_sdg_file(Path(args.game))
        else:
            text = resources.files("homeworlds.data").joinpath(BUNDLED_GAME).read_text()
            game = read_sdg(text, source=BUNDLED_GAME)
    except (OSError, HomeworldsError) as exc:
        print(f"homeworlds demo: {exc}", file=sys.stderr)
        return 2
    if len(game.players) != 2:
        print("homeworlds demo: the demo table seats two players; pick a two-player game",
              file=sys.stderr)
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
    listen = None
    if args.listen is not None and not args.web:
        print("homeworlds demo: --listen needs --web", file=sys.stderr)
        return 2
    if args.web:
        from homeworlds.web.server import parse_listen

        try:
            listen = parse_listen(args.listen or "127.0.0.1:8080")
        except ValueError as exc:
            print(f"homeworlds demo: --listen: {exc}", file=sys.stderr)
            return 2
    tty = sys.stdout.isatty()
    color = tty and not args.no_color
    delay = 1.0 / args.speed if args.speed > 0 else 0.0
    title = f"SDG game #{game.number}" if game.number is not None else "recorded game"
    players = game.players
    first = game.turns[0].seat if game.turns else 0
    sim = SimulatedTableGame(preset(args.rules), players, first_seat=first,
                             miss_rate=args.miss_rate, seed=1)
    screen = _Screen(sim, players, color, tty, f"{title}: {' vs '.join(players)} — simulated "
                     f"table, {args.rules} rules")
    display = None
    if listen is not None:
        from homeworlds.web import WebUnavailable
        from homeworlds.web.live import attach_display

        try:
            display = attach_display(
                sim.session, table="demo", rules_name=args.rules, host=listen[0],
                port=listen[1], control_options={
                    "verbs": ("settings",),
                    "refusal": "the demo plays a recorded game; only the settings (hint "
                               "level, brightness) can be changed here"})
        except WebUnavailable as exc:
            print(f"homeworlds demo: {exc}", file=sys.stderr)
            return 2
        display.server.announce()
    try:
        return _play(game, sim, screen, delay, tty, players, display)
    finally:
        if display is not None:
            display.stop()


def _play(game, sim, screen, delay: float, tty: bool, players, display) -> int:
    from homeworlds.table_replay import SettleTimeout

    try:
        with sim:
            screen.draw("the table is ready")
            for turn in game.turns:
                sim.driver.begin_turn()
                try:
                    for action in turn.actions:
                        sim.driver.act(action)
                        sim.settle()
                        if delay and tty:
                            screen.draw(f"{turn.player} plays… {action}")
                            time.sleep(delay / max(1, len(turn.actions)))
                    after = sim.driver.end_turn(hand_over=False)
                except IllegalAction as exc:
                    screen.draw(f"the record has an illegal turn here: {exc}")
                    return 1
                sim.settle()
                following = after.to_move if not after.is_over else 1 - turn.seat
                committed = sim.hand_over_and_wait(following)
                status = sim.session.status
                screen.draw(status.message or f"{turn.player} hands over the turn token")
                if not committed:
                    print(f"homeworlds demo: the table refused turn {turn.number}: "
                          f"{status.message}", file=sys.stderr)
                    return 1
                if delay:
                    time.sleep(delay)
                if sim.session.tracker.state.is_over:
                    break
    except SettleTimeout as exc:
        print(f"homeworlds demo: {exc}", file=sys.stderr)
        return 1
    state = sim.session.tracker.state
    if state.is_over:
        winners = ", ".join(players[s] for s in state.result.winners) or "nobody"
        print(f"game over ({state.result.kind}): {winners} wins")
    else:
        print(f"the record ends here (resigned or unfinished); recorded winner: "
              f"{game.winner or 'unknown'}")
    if display is not None:
        print(f"the display stays up at {display.url} until Ctrl-C", flush=True)
        _serve_until_stopped(sim)
    return 0


def _serve_until_stopped(sim) -> None:
    """Keep the table loop (and so the display's feed and admin commands) running until
    SIGINT or SIGTERM."""
    import signal
    import threading

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    session, link = sim.session, sim.link
    while not stop.is_set():
        for event in link.poll(0.02):
            session.handle(event)
        session.tick()


class _Screen:
    def __init__(self, sim, players, color: bool, tty: bool, header: str):
        self.sim = sim
        self.players = players
        self.color = color
        self.tty = tty
        self.header = header

    def draw(self, message: str) -> None:
        session = self.sim.session
        obs = session.observation
        tracker = session.tracker
        names = {slot: name for name, slot in tracker.slot_of_system(obs).items()} \
            if obs is not None else {}
        frame = session.render()
        state = tracker.state
        turn_text = ("game over" if state.is_over else
                     f"turn {len(tracker.record) + 1}: {self.players[state.to_move]} to play")
        text = render_table(self.sim.layout, obs, frame, names=names, players=self.players,
                            header=f"{self.header}\n  {turn_text}",
                            record=record_lines(tracker.record, self.players),
                            message=message, color=self.color)
        if self.tty:
            sys.stdout.write("\x1b[H\x1b[2J" + text + "\n")
        else:
            sys.stdout.write(text + "\n\n")
        sys.stdout.flush()
