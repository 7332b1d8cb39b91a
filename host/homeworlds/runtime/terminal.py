"""The table's host terminal: commands typed there, the live view, what is printed.

Lines typed on the host's terminal end a game off the board (``resign NAME``, ``draw``,
``abandon``); ``LiveView`` draws the running table fitted to the terminal
(docs/terminal.md); the rest says in words what the store and the game clocks did.
"""

from __future__ import annotations

import queue
import signal
import sys
import threading
from collections.abc import Callable

from homeworlds.runtime.config import TableConfig


class LiveView:
    """Draws the running table on the live screen: at most ten times a second, and at once
    when the typed command line changes."""

    INTERVAL_S = 0.1

    def __init__(self, screen, config: TableConfig, line_input):
        self.screen = screen
        self.config = config
        self.line_input = line_input
        self.title = (f"{config.layout.name} table: {' vs '.join(config.players)} — "
                      f"{config.rules.name} rules")
        self.drawn_at = 0.0
        self.prompt: str | None = None
        self._clock_line_added = False

    def tick(self, session) -> None:
        import time
        from dataclasses import replace

        from homeworlds.display.picture import picture_of_session

        prompt = self.line_input.text if self.line_input is not None else None
        now = time.monotonic()
        if now - self.drawn_at < self.INTERVAL_S and prompt == self.prompt:
            return
        self.drawn_at, self.prompt = now, prompt
        if not self._clock_line_added:
            from homeworlds.display.clock_text import clocks_text

            players = self.config.players
            from homeworlds.display.guidance_text import guidance_text

            self.screen.add_status(
                lambda: clocks_text(session.clocks, players, session.clock()) or None)
            # The computer thinking, the step the lights show (its turn, a hint, an undo).
            self.screen.add_status(lambda: guidance_text(session.guidance_shown(), players))
            self._clock_line_added = True
        log = self.screen.log_lines()
        message = session.status.message or ""
        if log and message == log[-1]:
            message = ""  # printed already: the log shows it
        elif message and session.status.rule is not None:
            message += f" Rule: {session.status.rule.text()}"
        picture = picture_of_session(session, self.config.layout, self.config.players,
                                     title=self.title, message=message)
        self.screen.show(replace(picture, record=log, prompt=prompt))


def turn_time_text(timed) -> str:
    """`` (think 0:12, clock 4:48)`` for a timed turn, else nothing."""
    if timed is None:
        return ""
    from homeworlds.clock import format_clock

    return f" (think {format_clock(timed.elapsed_ms)}, clock {format_clock(timed.clock_ms)})"


def report_fault(recorder, previous: str | None, export=None) -> None:
    """The store's fault as it begins or changes, and when it clears. ``export`` (the
    ``GameExport``): whether it holds the game is said as it is now, never assumed."""
    if recorder.fault is not None:
        print(f"homeworlds play: NOT SAVED: {recorder.fault}. The game goes on; "
              f"{recorder.unsaved} writes wait in memory and are retried every "
              f"{recorder.retry_s:g} s (an amber LED blinks at the start of every bar).",
              file=sys.stderr, flush=True)
        if export is not None and not export.current:
            print(f"homeworlds play: the export {export.path} cannot be written either: "
                  f"{export.kept_where()}", file=sys.stderr, flush=True)
        elif export is not None:
            print(f"homeworlds play: {export.kept_where()}", file=sys.stderr, flush=True)
        print("game store fault: turns are kept in memory until it is fixed", flush=True)
    elif previous is not None:
        print("game store: saved again, nothing was lost", flush=True)


# ---------------------------------------------------------------------- terminal commands


COMMAND_HELP = ("resign NAME (that player resigns; with three or more the others play "
                "on), skip (the player to move misses the turn; three or more players), "
                "brain-transference (the junior player's handicap: the players change "
                "places), "
                "draw (draw by agreement), abandon (the game is abandoned), accept / "
                "decline-invitation (an invitation from the event's hub to a remote game), "
                "decline-draw (the phone's draw offer), decline (whichever of these two "
                "waits), release-phone (the phone's seat for another phone), help")


def terminal_commands() -> queue.Queue | None:
    """Lines typed on the host's terminal, read by a background thread."""
    if sys.stdin is None or sys.stdin.closed:
        return None
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        try:
            for line in sys.stdin:
                lines.put(line)
        except (OSError, ValueError):
            pass

    threading.Thread(target=read, name="terminal-commands", daemon=True).start()
    return lines


def run_commands(lines: queue.Queue, session, recorder, config: TableConfig,
                 more: dict[str, Callable[[list[str]], str]] | None = None,
                 extra: Callable[[str], str | None] | None = None) -> None:
    """Run the lines typed; ``more``: verbs of this table besides the usual (e.g. the
    phone seat's ``decline-draw``), each given the words after it; then ``extra(line)``
    answers the commands it knows (the hub's invitations: ``accept``, ``decline``)
    and None for the others."""
    while True:
        try:
            line = lines.get_nowait()
        except queue.Empty:
            return
        words = line.split()
        if words and more and words[0].lower() in more:
            print(more[words[0].lower()](words[1:]), flush=True)
            continue
        answer = extra(line) if extra is not None else None
        print(answer if answer is not None else
              run_command(line, session, recorder, config.players), flush=True)


def run_command(line: str, session, recorder, players) -> str:
    """Apply one terminal command to the running game; returns what to show."""
    from homeworlds.rules import IllegalAction

    tracker = session.tracker
    words = line.split()
    if not words:
        return ""
    verb, rest = words[0].lower(), words[1:]
    if verb == "help":
        return "commands: " + COMMAND_HELP
    if verb not in ("resign", "skip", "brain-transference", "draw", "abandon"):
        return f"unknown command {words[0]!r}; commands: {COMMAND_HELP}"
    if verb == "brain-transference":
        try:
            session.brain_transference()
        except IllegalAction as exc:
            return f"cannot use Brain Transference: {exc}"
        return tracker.status.message
    if verb == "skip":
        try:
            skipped = session.skip_turn()
        except IllegalAction as exc:
            return f"cannot skip: {exc}"
        recorder.departure(*tracker.departures[-1])
        return (f"{players[skipped]} misses the turn; pass the turn token to "
                f"{players[tracker.state.to_move]}")
    seat = None
    if verb == "resign":
        names = [p.casefold() for p in players]
        if len(rest) != 1 or rest[0].casefold() not in names:
            return f"resign whom? resign NAME, with NAME one of {', '.join(players)}"
        seat = names.index(rest[0].casefold())
    return end_game(session, recorder, players,
                    {"resign": "resigned", "draw": "agreed-draw", "abandon": "abandoned"}[verb],
                    seat)


def end_game(session, recorder, players, kind: str, seat: int | None = None) -> str:
    """End the game off the board as the terminal's commands do (``kind``: "resigned" with
    the ``seat`` that resigns, "agreed-draw", "abandoned"), recorded in the store; returns
    what to show."""
    from homeworlds.rules import IllegalAction

    tracker = session.tracker
    verb = {"resigned": "resign", "agreed-draw": "draw", "abandoned": "abandon"}[kind]
    try:
        if seat is not None:
            if not session.resign(seat):
                recorder.departure(*tracker.departures[-1])
                return tracker.status.message or (
                    f"{players[seat]} resigned and leaves the game")
        else:
            session.end_game(kind, seat)
    except IllegalAction as exc:
        return f"cannot {verb}: {exc}"
    result = tracker.state.result
    winners = tuple(result.winners) if result is not None else ()
    recorder.finish(kind, winners, seat, len(tracker.record))
    return tracker.status.message


def reveal_alignments(players, alignments) -> str:
    """``Alignments revealed: Ann Good, Bob Evil``; a card this table does not know (None:
    a remote game's card its table has not revealed yet) is said so."""
    return "Alignments revealed: " + ", ".join(
        f"{name} {alignment.capitalize()}" if alignment is not None else
        f"{name} (not known here yet: their table reveals it)"
        for name, alignment in zip(players, alignments, strict=True))


def stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop
