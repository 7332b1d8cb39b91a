"""The demo on the simulated table: a recorded game played live in the terminal, or a
simulated person against the computer (``homeworlds demo``).

The same physical-handling driver as ``table-replay`` moves the pieces on the simulated
table; the simulated microcontroller reports them over a pty; the host infers every turn
and renders the LEDs, run by the table loop (``runtime.loop``). ``DemoScreen`` shows the
table laid out as it stands after every step.
"""

from __future__ import annotations

import signal
import sys
import threading
import time

from homeworlds.clock import ClockSpec
from homeworlds.display.clock_text import clocks_text
from homeworlds.display.printable import printable
from homeworlds.notation import SdgGame
from homeworlds.replay import infer_departures
from homeworlds.rules import IllegalAction, preset
from homeworlds.runtime.loop import SettleTimeout, TableLoop
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.session import ControlError

#: Seconds a finished game stays on the stand's screen before the next one starts.
LOOP_PAUSE_S = 15.0
#: The demo's speed with the web display: a turn every four seconds, time to read what it
#: did (``--speed`` says otherwise).
WEB_SPEED = 0.25


def run_recorded_game(game: SdgGame, *, rules: str, speed: float, miss_rate: float,
                      color: bool, clock_spec: ClockSpec | None,
                      listen: tuple[str, int] | None, loop: bool = False,
                      more_games: tuple[SdgGame, ...] = (),
                      pause_s: float = LOOP_PAUSE_S) -> int:
    """The simulated table plays ``game`` (two to six players, on the built-in layout for
    that many: ``layout_for_players``) live in the terminal, ``speed``
    turns a second (0: as fast as it can); ``listen``: also serve the web display there
    (it stays up after the game until SIGINT or SIGTERM). ``loop`` (a stand that runs
    itself): after each game and a pause of ``pause_s`` the table is cleared and the next
    of ``game`` and ``more_games`` (those with as many players) is played, round and round,
    until SIGINT or SIGTERM. 0, or 1 when the table refused a turn or did not keep up; 2
    when the display cannot start."""
    players = game.players
    delay = 1.0 / speed if speed > 0 else 0.0
    title = f"SDG game #{game.number}" if game.number is not None else "recorded game"
    first = game.turns[0].seat if game.turns else 0
    sim = SimulatedTableGame(preset(rules), players, first_seat=first,
                             miss_rate=miss_rate, seed=1, clock_spec=clock_spec)
    screen = DemoScreen(sim, players, color,
                        f"{title}: {' vs '.join(players)} — simulated table, {rules} rules")
    screen.add_status(lambda: clocks_text(sim.session.clocks, players, sim.session.clock())
                      or None)
    display = None
    if listen is not None:
        from homeworlds.web import WebUnavailable
        from homeworlds.web.live import attach_display

        try:
            display = attach_display(
                sim.session, table="demo", rules_name=rules, host=listen[0],
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
        if loop:
            games = [game] + [g for g in more_games if len(g.players) == len(players)]
            return _play_round_and_round(games, sim, screen, delay, display, pause_s)
        return _play(game, sim, screen, delay, players, display)
    finally:
        if display is not None:
            display.stop()


def _play_round_and_round(games, sim, screen, delay: float, display, pause_s: float) -> int:
    """The games one after another, a pause on each result, until SIGINT or SIGTERM."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    with screen, sim:
        k = 0
        while not stop.is_set():
            game = games[k % len(games)]
            if k:
                _next_game(sim, game)
            screen.header = (f"SDG game #{game.number}" if game.number is not None
                             else "recorded game") + f": {' vs '.join(game.players)}"
            failure = _play_turns(game, sim, screen, delay, game.players)
            if failure is not None:
                print(printable(f"homeworlds demo: {failure}"), file=sys.stderr)
                return 1
            screen.draw(f"the next game starts in {pause_s:g} s")
            _pause(sim, stop, pause_s)
            k += 1
    return 0


def _pause(sim, stop: threading.Event, seconds: float) -> None:
    """``seconds`` on the finished game (less when ``stop`` is set), the table running
    meanwhile (the display's feed, its admin commands)."""
    over = threading.Event()
    timer = threading.Timer(seconds, over.set)
    timer.start()

    def watch() -> None:
        stop.wait(seconds + 1)
        over.set()

    threading.Thread(target=watch, daemon=True).start()
    try:
        TableLoop(sim.link, sim.session).run(over)
    finally:
        timer.cancel()


def _next_game(sim, game) -> None:
    """Clear the simulated table (every piece back to the bank) and start ``game``'s as
    the admin starts a new game."""
    from homeworlds.rules import GameState
    from homeworlds.session import AdminCommand
    from homeworlds.sim import TableDriver

    table = sim.table
    for zone in sim.layout.all_zones:
        for uid in table.tags_on(zone):
            info = sim.registry.lookup(uid)
            if info is not None and info.piece is not None and \
                    sim.layout.bank_zone(info.piece) != zone:
                table.to_bank(uid)
    sim.settle()
    tracker = sim.session.tracker
    tracker.players = tuple(game.players)
    first = game.turns[0].seat if game.turns else 0
    tracker.first_seat = first
    sim.command(AdminCommand("new-game"))
    sim.driver = TableDriver(table, GameState(sim.rules, len(game.players),
                                              first_to_move=first))
    if table.token_seat() != first:
        sim.driver.hand_over(first)
    sim.settle()


def _play(game, sim, screen, delay: float, players, display) -> int:
    # Errors are printed once the terminal has its screen back, so they stay readable.
    with screen, sim:
        failure = _play_turns(game, sim, screen, delay, players)
    if failure is not None:
        print(printable(f"homeworlds demo: {failure}"), file=sys.stderr)
        return 1
    state = sim.session.tracker.state
    if state.result is not None:
        winners = ", ".join(players[s] for s in state.result.winners) or "nobody"
        print(f"game over ({state.result.kind}): {winners} wins")
    else:
        print(f"the record ends here (resigned or unfinished); recorded winner: "
              f"{game.winner or 'unknown'}")
    if display is not None:
        print(f"the display stays up at {display.url} until Ctrl-C", flush=True)
        _serve_until_stopped(sim)
    return 0


def _play_turns(game, sim, screen, delay: float, players) -> str | None:
    """The record's turns on the simulated table; what went wrong, or None."""
    failure = None
    try:
        screen.draw("the table is ready")
        for index, turn in enumerate(game.turns):
            position = sim.driver.state
            if len(players) > 2 and turn.seat != position.to_move \
                    and not position.is_over:
                # Seats the record passes over left the game or missed the turn: the
                # admin tells the table so, as in table-replay.
                infer_departures(position, game, index, turn.seat)
                for said in sim.take_departures(turn.seat):
                    screen.log(said)
                    screen.draw(said)
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
            following = after.to_move if not after.is_over \
                else (turn.seat + 1) % len(players)
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
    except ControlError as exc:
        failure = f"the table refused a departure: {exc}"
    return failure


def _serve_until_stopped(sim) -> None:
    """Keep the table loop (and so the display's feed and admin commands) running until
    SIGINT or SIGTERM."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    TableLoop(sim.link, sim.session).run(stop)


class DemoScreen:
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

    def log(self, text: str) -> None:
        """A line for the view's log (printed again when it closes)."""
        self.terminal.log(text)

    def add_status(self, source) -> None:
        """A status line (game clocks, the computer thinking...): see TerminalScreen."""
        self.terminal.add_status(source)

    def draw(self, message: str) -> None:
        from homeworlds.display.picture import picture_of_session

        self.terminal.show(picture_of_session(self.sim.session, self.sim.layout, self.players,
                                              title=self.header, message=message))

    def __enter__(self) -> DemoScreen:
        self.terminal.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        self.terminal.close()


def versus_computer(*, rules: str, level: int, speed: float, miss_rate: float, color: bool,
                    turns: int, listen: tuple[str, int] | None = None) -> int:
    """A simulated person (south, a greedy player) against the computer (north) on the
    simulated table: the person's hands carry out each step the lights show; it stops
    after ``turns`` turns. ``listen``: also serve the web display there (it stays up after
    the game until SIGINT or SIGTERM)."""
    from homeworlds.ai import GreedyPlayer
    from homeworlds.display.guidance_text import guidance_text
    from homeworlds.session import ComputerSeat

    players = ("Person", "Computer")
    delay = 1.0 / speed if speed > 0 else 0.0
    sim = SimulatedTableGame(preset(rules), players, miss_rate=miss_rate, seed=1,
                             computer_seats={1: ComputerSeat(level, seed=1)})
    person = GreedyPlayer(seed=1, names=players)
    screen = DemoScreen(sim, players, color,
                        f"Person vs the computer (level {level}) — simulated table, "
                        f"{rules} rules")
    session = sim.session
    screen.add_status(lambda: guidance_text(session.guidance_shown(), players))
    display = _web_display(sim, rules, listen, screen)
    if display is False:
        return 2
    try:
        return _versus(sim, screen, person, players, delay, turns, display or None)
    finally:
        if display:
            display.stop()


def _web_display(sim, rules: str, listen: tuple[str, int] | None, screen):
    """The web display of the demo's table (None: not asked for; False: it cannot start,
    said on stderr)."""
    if listen is None:
        return None
    from homeworlds.web import WebUnavailable
    from homeworlds.web.live import attach_display

    try:
        display = attach_display(
            sim.session, table="demo", rules_name=rules, host=listen[0], port=listen[1],
            control_options={"verbs": ("settings",),
                             "refusal": "the demo plays by itself; only the settings (hint "
                                        "level, brightness) can be changed here"})
    except WebUnavailable as exc:
        print(f"homeworlds demo: {exc}", file=sys.stderr)
        return False
    display.server.announce()
    url = display.url
    screen.add_status(lambda: f"live display: {url}")
    return display


def _versus(sim, screen, person, players, delay: float, turns: int, display) -> int:
    session = sim.session
    from homeworlds.sim import TableDriver, carry_out

    try:
        with screen, sim:
            screen.draw("the table is ready")
            while len(session.tracker.record) < turns and not session.tracker.is_over:
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
    if state.result is not None:
        winners = ", ".join(players[s] for s in state.result.winners) or "nobody"
        print(f"game over ({state.result.kind}): {winners} wins")
    else:
        print(f"stopped after {len(session.tracker.record)} turns")
    if display is not None:
        print(f"the display stays up at {display.url} until Ctrl-C", flush=True)
        _serve_until_stopped(sim)
    return 0


def _pump_until_step(sim, committed: int, timeout: float = 120.0):
    """Run the host until the computer shows a step (returned) or its turn is committed
    (None)."""
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
