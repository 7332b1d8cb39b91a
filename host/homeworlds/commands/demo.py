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
import time
from importlib import resources
from pathlib import Path

from homeworlds.ai.players import LEVELS
from homeworlds.clock import ClockSpec, ClockSpecError
from homeworlds.commands.table_replay import finite_number, miss_rate_option
from homeworlds.display.clock_text import clocks_text
from homeworlds.display.printable import printable
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


def run(args: argparse.Namespace) -> int:
    from homeworlds.runtime.table_replay import SimulatedTableGame

    if getattr(args, "versus_computer", False):
        return _versus_computer(args)
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
    players = game.players
    delay = 1.0 / args.speed if args.speed > 0 else 0.0
    title = f"SDG game #{game.number}" if game.number is not None else "recorded game"
    first = game.turns[0].seat if game.turns else 0
    sim = SimulatedTableGame(preset(args.rules), players, first_seat=first,
                             miss_rate=args.miss_rate, seed=1, clock_spec=args.clock)
    screen = _Screen(sim, players, not args.no_color,
                     f"{title}: {' vs '.join(players)} — simulated table, {args.rules} rules")
    screen.add_status(lambda: clocks_text(sim.session.clocks, players, sim.session.clock())
                      or None)
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
        url = display.url
        screen.add_status(lambda: f"live display: {url}")
    try:
        return _play(game, sim, screen, delay, players, display)
    finally:
        if display is not None:
            display.stop()


def _play(game, sim, screen, delay: float, players, display) -> int:
    from homeworlds.runtime.loop import SettleTimeout

    # Errors are printed once the terminal has its screen back, so they stay readable.
    failure = None
    try:
        with screen, sim:
            screen.draw("the table is ready")
            for turn in game.turns:
                sim.driver.begin_turn()
                try:
                    for action in turn.actions:
                        sim.driver.act(action)
                        sim.settle()
                        if delay and screen.live:
                            screen.draw(f"{turn.player} plays… {action}")
                            time.sleep(delay / max(1, len(turn.actions)))
                    after = sim.driver.end_turn(hand_over=False)
                except IllegalAction as exc:
                    screen.draw(f"the record has an illegal turn here: {exc}")
                    failure = f"turn {turn.number}: the record has an illegal turn: {exc}"
                    break
                sim.settle()
                following = after.to_move if not after.is_over else 1 - turn.seat
                committed = sim.hand_over_and_wait(following)
                status = sim.session.status
                screen.draw(status.message or f"{turn.player} hands over the turn token")
                if not committed:
                    failure = f"the table refused turn {turn.number}: {status.message}"
                    break
                if delay:
                    time.sleep(delay)
                if sim.session.tracker.state.is_over:
                    break
    except SettleTimeout as exc:
        failure = str(exc)
    if failure is not None:
        print(printable(f"homeworlds demo: {failure}"), file=sys.stderr)
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

    from homeworlds.runtime.loop import TableLoop

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    TableLoop(sim.link, sim.session).run(stop)


class _Screen:
    """The demo's view: a picture of the simulated table's session after every step, on the
    terminal view (fitted to the terminal, redrawn in place; docs/terminal.md). Anything
    printed while it is live shows in its last status lines and again after it closes."""

    def __init__(self, sim, players, color: bool, header: str):
        from homeworlds.display.screen import TerminalScreen

        self.sim = sim
        self.players = players
        self.header = header
        self.terminal = TerminalScreen(color=color, log_in_status=2)

    @property
    def live(self) -> bool:
        return self.terminal.live

    def add_status(self, source) -> None:
        """A status line (game clocks, the computer thinking...): see TerminalScreen."""
        self.terminal.add_status(source)

    def draw(self, message: str) -> None:
        from homeworlds.display.picture import picture_of_session

        self.terminal.show(picture_of_session(self.sim.session, self.sim.layout, self.players,
                                              title=self.header, message=message))

    def __enter__(self) -> _Screen:
        self.terminal.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        self.terminal.close()


def _versus_computer(args: argparse.Namespace) -> int:
    """A simulated person (south, a greedy player) against the computer (north) on the
    simulated table: the person's hands carry out each step the lights show."""
    from homeworlds.ai.players import GreedyPlayer
    from homeworlds.display.guidance_text import guidance_text
    from homeworlds.runtime.loop import SettleTimeout
    from homeworlds.runtime.table_replay import SimulatedTableGame
    from homeworlds.session import ComputerSeat
    from homeworlds.sim import TableDriver, carry_out

    players = ("Person", "Computer")
    delay = 1.0 / args.speed if args.speed > 0 else 0.0
    sim = SimulatedTableGame(preset(args.rules), players, miss_rate=args.miss_rate, seed=1,
                             computer_seats={1: ComputerSeat(args.level, seed=1)})
    person = GreedyPlayer(seed=1, names=players)
    screen = _Screen(sim, players, not args.no_color,
                     f"Person vs the computer (level {args.level}) — simulated table, "
                     f"{args.rules} rules")
    session = sim.session
    screen.add_status(lambda: guidance_text(session.guidance_shown(), players))
    try:
        with screen, sim:
            screen.draw("the table is ready")
            while len(session.tracker.record) < args.turns and not session.tracker.is_over:
                state = session.tracker.state
                if state.to_move == 0:
                    sim.driver = TableDriver(sim.table, state, session.tracker.slot_of_system(
                        session.observation) if session.observation is not None else {})
                    turn = person.choose_turn(state)
                    sim.driver.play_turn(turn, hand_over=False)
                    sim.settle()
                    if not sim.hand_over_and_wait(1):
                        print(f"homeworlds demo: the table refused the person's turn: "
                              f"{session.status.message}", file=sys.stderr)
                        return 1
                    screen.draw("Person hands the turn token to the computer")
                    continue
                committed = len(session.tracker.record)
                screen.draw("the computer is thinking…")
                shown = _pump_until_step(sim, committed)
                while shown is not None:
                    screen.draw(("The computer asks you to: " + shown.text)
                                if shown.phase == "guiding" else "the computer is thinking…")
                    if delay:
                        time.sleep(delay / 2)
                    carry_out(sim.table, shown.to_json()["current"])
                    sim.settle()
                    shown = _pump_until_step(sim, committed)
                screen.draw("the computer played: "
                            + "; ".join(map(str, session.tracker.record[-1][1])))
                if delay:
                    time.sleep(delay)
    except SettleTimeout as exc:
        print(f"homeworlds demo: {exc}", file=sys.stderr)
        return 1
    state = session.tracker.state
    if state.is_over:
        winners = ", ".join(players[s] for s in state.result.winners) or "nobody"
        print(f"game over ({state.result.kind}): {winners} wins")
    else:
        print(f"stopped after {len(session.tracker.record)} turns")
    return 0


def _pump_until_step(sim, committed: int, timeout: float = 120.0):
    """Run the host until the computer shows a step (returned) or its turn is committed
    (None)."""
    from homeworlds.runtime.loop import SettleTimeout

    session = sim.session
    found: list = []

    def step_or_commit() -> bool:
        if len(session.tracker.record) > committed:
            return True
        shown = session.guidance_shown()
        # Acted on only when the host has judged the whole table as it lies (a tag missed
        # for a moment by the simulated readers would look like a lifted piece).
        if shown is not None and shown.phase == "guiding" and not shown.suggestion \
                and sim.host.in_step() and session.judged:
            found.append(shown)
            return True
        return False

    try:
        sim.host.loop.run_until(step_or_commit, timeout=timeout, what="show a step",
                                poll_s=0.005)
    except SettleTimeout:
        raise SettleTimeout(f"the computer showed no step within {timeout:g} s "
                            f"({session.status.message})") from None
    return found[0] if found else None
