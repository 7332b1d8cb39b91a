"""``homeworlds play --config FILE``: run the real table.

Serial port, layout, tag registry, rules preset and LED sink all come from the
configuration (docs/configuration.md). Without a configuration, a port or a registry it
says what is missing and exits 2; it never falls back to the simulator.

Every committed turn goes to the game store (docs/store.md) before the table confirms it;
on a restart the table's unfinished game is resumed from the store. Lines typed on the
host's terminal end a game off the board: ``resign NAME``, ``draw``, ``abandon``.

With a ``[clock]`` time control the seat to move's clock runs; each turn's think time and
clock are stored with it, a flag fall ends the game as configured, and a resumed game's
clocks start from the store (docs/clocks.md).
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from homeworlds.rules import red_alert as find_red_alert
from homeworlds.runtime.config import ConfigError, TableConfig, load_config
from homeworlds.table.tracker import Commit

if TYPE_CHECKING:
    from homeworlds.rules import Alignments


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="run the physical table (serial link, LEDs, referee)",
                       description=__doc__)
    p.add_argument("--config", metavar="FILE", help="table configuration (TOML)")
    p.add_argument("--record", metavar="FILE",
                   help="where an SDG export of the current game is written after every turn "
                   "(default: game-record.raw next to the configuration); the game store "
                   "is the record")
    p.add_argument("--store", metavar="FILE",
                   help="the game store (SQLite; default: [store] path of the configuration, "
                   "else games.sqlite next to it); see docs/store.md")
    p.add_argument("--live", action="store_true",
                   help="on a terminal: a live view of the table fitted to the terminal "
                   "(docs/terminal.md), the messages in its scrolling log and the command "
                   "being typed on its last line, instead of the messages line by line")
    p.add_argument("--listen", metavar="ADDR[:PORT]",
                   help="serve the web display there (overrides [display] listen and port "
                   "and turns the display on; e.g. 0.0.0.0:8080); see docs/display.md")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"homeworlds play: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace, stop: threading.Event | None = None) -> int:
    if not args.config:
        return _fail("no configuration given: use --config FILE (see docs/configuration.md; "
                     "hardware/table.example.toml is an example). To try the table without "
                     "hardware run `homeworlds demo`.")
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return _fail(str(exc))
    if not config.port:
        return _fail(f"{config.source}: serial.port: no serial port configured (the "
                     "microcontroller's data port, e.g. /dev/ttyACM1)")
    if config.registry is None:
        where = config.registry_path or "table.registry"
        return _fail(f"{config.source}: no tag registry at {where}: run `homeworlds enroll` "
                     "first (docs/hardware.md)")
    from homeworlds.pixels import PixelSinkUnavailable
    for warning in config.pixels.startup_warnings(config.layout.pixel_count):
        print(f"homeworlds play: warning: {warning}", file=sys.stderr)
    try:
        output = config.pixels.open_output(config.layout.pixel_count)
    except PixelSinkUnavailable as exc:
        return _fail(str(exc))
    here = Path(config.source).parent
    record_path = Path(args.record) if args.record else here / "game-record.raw"
    store_path = Path(args.store) if getattr(args, "store", None) else (
        config.store_path or here / "games.sqlite")
    listen = None
    if getattr(args, "listen", None):
        from homeworlds.web.server import parse_listen

        try:
            listen = parse_listen(args.listen, config.display.port)
        except ValueError as exc:
            if output is not None:
                output.close()
            return _fail(f"--listen: {exc}")
    elif config.display.enabled:
        listen = (config.display.listen, config.display.port)
    if getattr(args, "live", False) and stop is None:
        from homeworlds.display.screen import TerminalScreen

        screen = TerminalScreen()
        if screen.live:
            return _serve_live(screen, config, output, record_path, store_path, listen)
    commands = _terminal_commands() if stop is None else None
    return serve(config, output, record_path, stop or _stop_on_signals(),
                 store_path=store_path, commands=commands, listen=listen)


def _serve_live(screen, config: TableConfig, output, record_path: Path, store_path: Path,
                listen: tuple[str, int] | None = None) -> int:
    """``serve`` under the live view: what it prints goes to the view's log, shown as its
    record (and printed when the view closes); commands are typed on its last line."""
    from homeworlds.display.line_input import LineInput

    line_input = None
    if sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty():
        line_input = LineInput(sys.stdin.fileno())
    view = _LiveView(screen, config, line_input)
    stop = _stop_on_signals()
    try:
        with screen:
            return serve(config, output, record_path, stop, store_path=store_path,
                         commands=line_input.lines if line_input else None, view=view,
                         listen=listen)
    finally:
        if line_input is not None:
            line_input.close()


class _LiveView:
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
        picture = picture_of_session(session, self.config.layout, self.config.players,
                                     title=self.title, message=message)
        self.screen.show(replace(picture, record=log, prompt=prompt))


def serve(config: TableConfig, output, record_path: Path, stop: threading.Event, *,
          store_path: Path | None = None, commands: queue.Queue | None = None,
          store_opener=None, view=None, listen: tuple[str, int] | None = None) -> int:
    """Run the table until ``stop``; ``store_opener`` (path -> GameStore) is the store's
    seam for tests that inject faults; ``view.tick(session)`` (the live terminal view) is
    called on every pass; ``listen`` (address, port) serves the web display."""
    from homeworlds.link import SerialTransport, TableLink
    from homeworlds.session import TableSession
    from homeworlds.store import GameRecorder, StoreRefused
    from homeworlds.store.export import remove_stale_temporaries

    red_alert = find_red_alert if config.rules.handicaps.red_alert else None
    session = TableSession(config.layout, config.registry, config.rules, config.players,
                           output=output, hint_settings=config.hints, red_alert=red_alert,
                           alignments=deal_alignments_for(config), clock_spec=config.clock,
                           computer_seats=config.computer_seats,
                           time_limits=config.time_limits,
                           suggestion_level=config.hint_level,
                           long_press_s=long_press_seconds(config))
    for seat, computer in sorted(config.computer_seats.items()):
        print(f"{config.players[seat]} (seat {seat}) is the computer, level {computer.level}",
              flush=True)
    tracker = session.tracker
    store_path = store_path or record_path.with_name("games.sqlite")
    recorder = GameRecorder(store_path, table=config.store_table or config.layout.name,
                            layout=config.layout.name,
                            **({"opener": store_opener} if store_opener else {}))
    try:
        recorder.open()
    except StoreRefused as exc:
        if output is not None:
            output.close()
        return _fail(str(exc))
    if recorder.store is None and _holds_data(store_path):
        # It may hold this table's unfinished game: starting another one beside it would
        # hide that game on the next start (the latest game is resumed).
        if output is not None:
            output.close()
        return _fail(f"{recorder.fault}; it may hold the table's unfinished game, so no new "
                     "game is started: fix it (another program holding it? permissions?) "
                     "and start again")
    remove_stale_temporaries(record_path)
    exporter = _Exporter(record_path, config.players, config.rules.name, tracker)
    try:
        pending = _resume(session, recorder, record_path, config, exporter)
    except _ResumeError as exc:
        recorder.close()
        if output is not None:
            output.close()
        return _fail(str(exc))
    event_clock = _event_clock_follower(config, session)
    publisher = _start_publisher(config, store_path, recorder.table, event_clock)

    def save(commit: Commit) -> None:
        number = len(tracker.record)
        timed = session.last_turn_time
        recorder.turn(number, commit.seat, commit.turn, commit.state, config.players,
                      tracker.star_tags, elapsed_ms=timed.elapsed_ms if timed else None,
                      clock_ms=timed.clock_ms if timed else None)
        exporter.write(tracker.record)
        if publisher is not None:
            publisher.wake()
        print(f"turn {number}: {config.players[commit.seat]}: "
              + "; ".join(str(a) for a in commit.turn) + turn_time_text(timed), flush=True)
        if commit.state.is_over and recorder.fault is None:
            print(f"game over; the game is in the store {store_path}", flush=True)
        if commit.state.is_over and tracker.alignments is not None:
            print(reveal_alignments(config.players, tracker.alignments), flush=True)

    journalled: list[object] = [None]

    def journal(_) -> None:
        zones = {z: sorted(u) for z, u in session.view.zones.items() if u}
        if journalled[0] != (len(tracker.record), zones):
            journalled[0] = (len(tracker.record), zones)
            recorder.handover(len(tracker.record), zones)

    def new_game() -> None:
        exporter.archive(recorder.game_id)
        tracker.set_alignments(deal_alignments_for(config))
        session.update_clocks()  # the new game's clocks, under the table's time control
        recorder.start_game(config.rules, config.players, tracker.first_seat,
                            alignments=tracker.alignments, clock=_clock_dict(session))
        print("new game", flush=True)
        _announce_deal(tracker, recorder)

    def flag_fell(seat: int) -> None:
        name = config.players[seat]
        if tracker.ended_by == "flag":
            result = tracker.state.result
            recorder.finish("flag", tuple(result.winners) if result else (), seat,
                            len(tracker.record))
            # The status line ("game over: NAME's flag fell") is printed by the loop.
            print(f"{name} is out of time; the game is in the store {store_path}", flush=True)
        else:
            print(f"{name}'s flag fell (out of time); casual play: the game goes on",
                  flush=True)

    tracker.on_commit = _chain(tracker.on_commit, save)
    tracker.on_handover = journal
    tracker.on_new_game = new_game
    session.on_flag = flag_fell
    if pending is not None:
        _replay_journal(session, pending)
    display = None
    if listen is not None:
        display = _start_display(config, session, recorder, exporter, new_game, listen)
        if isinstance(display, str):
            recorder.close()
            if output is not None:
                output.close()
            return _fail(display)
    if publisher is not None:
        _feed_publisher(publisher, display, session, config, recorder)
    table = _attract_table(config, session, display, recorder.path)
    link = TableLink(lambda: SerialTransport(config.port, config.baudrate),
                     heartbeat_timeout=config.heartbeat_timeout,
                     expected_zones=config.layout.zone_count)
    if config.scanner:
        link.configure(**config.scanner)  # re-sent after every reconnect and table restart
    last_message = None
    last_fault = None
    last_link: bool | None = None
    try:
        while not stop.is_set():
            for event in link.poll(0.02):
                table.handle(event)
            table.tick()
            recorder.poll()
            if commands is not None:
                _run_commands(commands, session, recorder, config)
            if recorder.fault != last_fault:
                _report_fault(recorder, last_fault)
                last_fault = recorder.fault
                if publisher is not None:
                    publisher.table_status(link_up=session.link_up, store_fault=recorder.fault)
            if publisher is not None and session.link_up != last_link:
                last_link = session.link_up
                publisher.table_status(link_up=last_link, store_fault=recorder.fault)
            session.store_fault = recorder.fault is not None
            while session.notices:
                print(session.notices.popleft(), flush=True)
            message = session.status.message
            if message and message != last_message:
                print(message, flush=True)
            last_message = message
            if view is not None:
                view.tick(session)
    finally:
        if display is not None:
            display.stop()
        link.close()
        recorder.flush()
        if publisher is not None:
            publisher.stop()
        if recorder.unsaved:
            print(f"homeworlds play: {recorder.unsaved} writes could not be saved to "
                  f"{store_path}: {recorder.fault}; the export {record_path} holds the "
                  "game", file=sys.stderr, flush=True)
        recorder.close()
        if output is not None:
            output.close()
    return 0


def long_press_seconds(config: TableConfig) -> float:
    """How long the host waits after a button press before acting on it, so that a long
    press (the firmware's HOLD after ``hold_ms``) can still turn it into a hint request:
    the firmware's hold time plus a margin for the serial line and the scan loop."""
    from tablefw.settings import SETTINGS

    hold_ms = config.scanner.get("hold_ms", SETTINGS["hold_ms"][0])
    return hold_ms / 1000 + 0.3


class _ResumeError(Exception):
    pass


def _event_clock_follower(config: TableConfig, session):
    """With a broker ([event]): the event's time control, as the hub sets it, becomes the
    session's for its next games (taken on this loop's thread, in a tick hook)."""
    if config.event is None:
        return None
    from homeworlds.event.event_clock import EventClockFollower

    follower = EventClockFollower(session.clock_spec, from_event=config.clock_from_event,
                                  seats=len(config.players), table=config.event.table,
                                  say=lambda text: print(text, flush=True))
    session.tick_hooks.append(lambda: follower.apply(session))
    return follower


def _start_publisher(config: TableConfig, store_path: Path, store_table: str,
                     event_clock=None):
    """The event publisher when the configuration names a broker ([event]); the table plays
    on without it when the MQTT library is missing (the store keeps every turn, published
    once the table runs with it: docs/event.md)."""
    if config.event is None:
        return None
    from homeworlds.event.mqtt import MqttUnavailable
    try:
        from homeworlds.event.publisher import EventPublisher
        publisher = EventPublisher(config.event, store_path, store_table,
                                   on_event_clock=event_clock.offer if event_clock else None)
        publisher.start()
    except MqttUnavailable as exc:
        print(f"homeworlds play: not publishing to the event: {exc}", file=sys.stderr,
              flush=True)
        return None
    print(f"publishing to event {config.event.event} as table {config.event.table} via "
          f"{config.event.broker_text}", flush=True)
    return publisher
def _attract_table(config: TableConfig, session, display, store_path):
    """What the loop hands link events and ticks to: the session, or with the display's
    attract mode on, ``AttractTable`` in front of it — a piece placed stops the display's
    replays at once, and with ``[display] attract_leds`` the LEDs replay the games too."""
    if display is None or config.attract_after_s <= 0:
        return session
    from homeworlds.web.archive import Archive
    from homeworlds.web.attract import (
        AttractLeds,
        AttractMode,
        AttractTable,
        playlist_from_archive,
    )

    leds = None
    playlist = list  # without LEDs the host's mode only watches the table
    if config.attract_leds:
        leds = AttractLeds(config.layout)
        playlist = playlist_from_archive(Archive(store_path))
    mode = AttractMode(playlist, idle_after_s=config.attract_after_s, clock=session.clock)
    mode.on_activity = display.server.activity
    return AttractTable(session, mode, leds)


def _feed_publisher(publisher, display, session, config: TableConfig, recorder) -> None:
    """The event's retained state shows what the live table shows (hints, clocks, the
    sensors' link, the turn's start): the feed's snapshots go to the publisher, from the
    display's feed when it runs, else from a feed of their own (homeworlds.feed is core:
    no web extra needed). Turns and results are published from the store's outbox only."""
    from homeworlds.feed import Snapshot

    def offer(event) -> None:
        if isinstance(event, Snapshot):
            publisher.offer_snapshot(event.to_json())

    if display is not None:
        display.producer.sinks.append(offer)
        if display.producer.latest is not None:
            offer(display.producer.latest)
        return
    from homeworlds.web.live import attach_feed

    attach_feed(session, table=config.store_table or config.layout.name,
                rules_name=config.rules.name, uid=lambda: recorder.uid, sinks=[offer])


def _start_display(config: TableConfig, session, recorder, exporter, new_game,
                   listen: tuple[str, int]):
    """The web display with its admin commands (run by this loop through the session's
    tick); a string says why it cannot start."""
    from homeworlds.web import WebUnavailable
    from homeworlds.web.live import attach_display

    tracker = session.tracker

    def start_new_game() -> None:
        new_game()
        tracker.status = replace(tracker.status, message="new game: clear the table, then "
                                 "set up your homeworlds")

    def undone(number: int) -> None:
        print(f"turn {number} withdrawn (undo from the display): put the pieces back",
              flush=True)
        exporter.rewrite(tracker.record)

    brightness = session.output.correction.brightness if session.output is not None else 1.0
    try:
        display = attach_display(
            session, table=config.store_table or config.layout.name,
            rules_name=config.rules.name, host=listen[0], port=listen[1],
            admin_token=config.display.admin_token, uid=lambda: recorder.uid,
            recorder=recorder, start_new_game=start_new_game, on_undo=undone,
            max_brightness=brightness, store_path=recorder.path,
            attract_after_s=config.attract_after_s)
    except WebUnavailable as exc:
        return str(exc)
    display.server.announce()
    return display


def _resume(session, recorder, record_path: Path, config: TableConfig, exporter):
    """Continue the table's unfinished game from the store (or, when the store holds none,
    from an SDG export of an unfinished game: a store started anew); else start a game.
    Returns the observation journalled at a hand-over that was not committed, if any."""
    from homeworlds.notation.sdg import read_sdg_file
    from homeworlds.rules import HomeworldsError
    from homeworlds.store.records import position_to_json

    tracker = session.tracker
    point = recorder.resume_point()
    if point is not None and point.game.finished and (not point.record or not _same_players(
            point.game.players, config.players)):
        point = None  # a finished game does not hold the table for other players
    if point is not None:
        game = point.game
        if not _same_players(game.players, config.players):
            raise _ResumeError(
                f"the unfinished game {game.id} in {recorder.path} is between "
                f"{', '.join(game.players)}, the configuration names "
                f"{', '.join(config.players)}: finish it with the same players, or abandon it "
                f"(`homeworlds games abandon {game.id} --store {recorder.path}`)")
        if game.alignments and all(a is not None for a in game.alignments):
            tracker.alignments = tuple(game.alignments)  # a resumed game keeps its deal
        try:
            tracker.resume(list(point.record), point.star_tags)
        except (HomeworldsError, ValueError) as exc:
            raise _ResumeError(f"cannot resume game {game.id} in {recorder.path}: {exc}") \
                from None
        if point.position is not None and position_to_json(tracker.state) != point.position:
            raise _ResumeError(f"game {game.id} in {recorder.path}: its turns do not lead to "
                               "the position stored with the last one (were the rules "
                               "changed?); export it with `homeworlds games export`")
        recorder.continue_game(game)
        if not game.finished:
            _catch_up_from_export(tracker, recorder, record_path, config, point)
        _restore_clocks(session, point, config)
        if game.finished:
            # Shown until the table is cleared; then a new game begins.
            if point.result is not None and point.result.kind in (
                    "resigned", "agreed-draw", "abandoned", "flag") \
                    and not tracker.state.is_over:
                tracker.end_game(point.result.kind, point.result.by_seat)
            print(f"game {game.id} is over ({game.status}): clear the table for a new game",
                  flush=True)
            return None
        exporter.write(tracker.record)
        if point.withdrawn_next and len(tracker.record) == len(point.record):
            tracker.expect_token_return()  # turn N+1 was withdrawn (undo) before the stop
        print(f"resuming game {game.id} from {recorder.path} after {len(tracker.record)} "
              "turns", flush=True)
        return point.pending_handover
    record = None
    if record_path.exists():
        try:
            sdg = read_sdg_file(record_path)
            if tuple(p.casefold() for p in sdg.players) != tuple(
                    p.casefold() for p in config.players[:len(sdg.players)]):
                raise ValueError(f"its players are {', '.join(sdg.players)}, the "
                                 f"configuration's {', '.join(config.players)}")
            record = [(t.seat, t.actions) for t in sdg.turns]
            if sdg.alignments is not None:
                tracker.alignments = tuple(sdg.alignments)  # a resumed game keeps its deal
            tracker.resume(record)
        except (OSError, HomeworldsError, ValueError) as exc:
            raise _ResumeError(f"cannot resume the game in {record_path}: {exc} (move the "
                               "file away to start a new game)") from None
        if tracker.state.is_over:
            exporter.archive(None)
            tracker.new_game()
            record = None
    session.update_clocks()
    recorder.start_game(config.rules, config.players, tracker.first_seat,
                        alignments=tracker.alignments, clock=_clock_dict(session))
    if not record:
        _announce_deal(tracker, recorder)
    if record:
        # The store holds no unfinished game of this table, the export does: a new store
        # (beside a refused one) or a table that recorded to files only. Keep it.
        from homeworlds.rules import GameState

        replay = GameState(config.rules, len(config.players), first_to_move=tracker.first_seat,
                           alignments=tracker.alignments)
        for number, (seat, turn) in enumerate(record, start=1):
            replay.push(turn)
            recorder.turn(number, seat, turn, replay.copy(), config.players, {})
        print(f"resuming the game in {record_path} after {len(record)} turns (copied into "
              f"the store {recorder.path})", flush=True)
    return None


def _clock_dict(session) -> dict | None:
    spec = session.game_clock_spec
    return spec.to_dict() if spec is not None else None


def _restore_clocks(session, point, config: TableConfig) -> None:
    """A resumed game keeps the time control it began with (the table's, when it was
    stored without one), and each seat's clock as stored after its last turn."""
    from homeworlds.clock import ClockSpec, ClockSpecError

    spec = config.clock
    if point.game.clock is not None:
        try:
            spec = ClockSpec.from_dict(point.game.clock)
        except ClockSpecError as exc:
            print(f"homeworlds play: game {point.game.id}: its stored time control is not "
                  f"readable ({exc}); the table's is used", file=sys.stderr, flush=True)
    clock_ms = point.clock_ms or (None,) * len(config.players)
    session.restore_clocks(tuple(clock_ms), spec)
    if session.clocks is not None:
        from homeworlds.display.clock_text import clocks_text

        print("clocks restored from the store (time while the host was down is not "
              f"charged): {clocks_text(session.clocks, config.players, session.clock())}",
              flush=True)


def turn_time_text(timed) -> str:
    """`` (think 0:12, clock 4:48)`` for a timed turn, else nothing."""
    if timed is None:
        return ""
    from homeworlds.clock import format_clock

    return f" (think {format_clock(timed.elapsed_ms)}, clock {format_clock(timed.clock_ms)})"


def _holds_data(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _same_players(stored, configured) -> bool:
    return tuple(p.casefold() for p in stored) == tuple(p.casefold() for p in configured)


def _catch_up_from_export(tracker, recorder, record_path: Path, config: TableConfig,
                          point) -> None:
    """Turns the SDG export holds beyond the store's (the store had a fault when the host
    stopped) are the same game's: they are resumed and written to the store."""
    from homeworlds.notation.sdg import read_sdg_file
    from homeworlds.rules import HomeworldsError

    stored = list(point.record)
    try:
        sdg = read_sdg_file(record_path)
    except (OSError, HomeworldsError, ValueError):
        return
    exported = [(t.seat, t.actions) for t in sdg.turns]
    if not _same_players(sdg.players, config.players) or len(exported) <= len(stored) \
            or exported[:len(stored)] != stored:
        return
    try:
        tracker.resume(exported, point.star_tags)
    except (HomeworldsError, ValueError) as exc:
        print(f"homeworlds play: the export {record_path} has {len(exported) - len(stored)} "
              f"turns more than the store, but they do not replay ({exc}); ignored",
              file=sys.stderr, flush=True)
        tracker.resume(stored, point.star_tags)
        return
    from homeworlds.rules import GameState

    state = GameState(config.rules, len(config.players), first_to_move=tracker.first_seat,
                      alignments=tracker.alignments)
    for number, (seat, turn) in enumerate(exported, start=1):
        state.push(turn)
        if number > len(stored):
            recorder.turn(number, seat, turn, state.copy(), config.players, {})
    print(f"the export {record_path} had turns {len(stored) + 1}-{len(exported)}, which the "
          "store lacked: copied into the store", flush=True)


def _replay_journal(session, observation) -> None:
    """The host saw a hand-over it did not commit before it stopped: judge that table."""
    from homeworlds.table.view import TableView

    view = TableView(session.layout, session.view.registry)
    view.replace_all(observation.zones)
    tracker = session.tracker
    before = len(tracker.record)
    journal, tracker.on_handover = tracker.on_handover, None  # it is in the journal already
    try:
        tracker.update(view.observe())
    finally:
        tracker.on_handover = journal
    if len(session.tracker.record) > before:
        print(f"recovered turn {before + 1} from the hand-over seen at {observation.seen}",
              flush=True)


class _Exporter:
    """The SDG export of the current game, rewritten after every turn."""

    def __init__(self, path: Path, players, rules: str, tracker):
        self.path = path
        self.players = players
        self.rules = rules
        self.tracker = tracker  # for the Good/Evil deal, written with the game
        self.warned: str | None = None

    def write(self, record) -> None:
        from homeworlds.notation.sdg import InvalidNotation
        from homeworlds.store.export import ExportError, record_sdg, write_atomically

        if not record:
            return
        try:
            write_atomically(self.path, record_sdg(self.players, record, rules=self.rules,
                                                   alignments=self.tracker.alignments))
            self.warned = None
        except (OSError, ExportError, InvalidNotation) as exc:
            text = f"the export {self.path} was not written: {exc} (the store keeps the game)"
            if text != self.warned:
                print(f"homeworlds play: {text}", file=sys.stderr, flush=True)
            self.warned = text

    def rewrite(self, record) -> None:
        """After an undo: the export holds the record as it is now, also when no turn is
        left (the store keeps the withdrawn turn)."""
        if record:
            self.write(record)
            return
        from homeworlds.store.export import ExportError, record_sdg, write_atomically

        try:
            write_atomically(self.path, record_sdg(self.players, [], rules=self.rules,
                                                   alignments=self.tracker.alignments))
        except (OSError, ExportError) as exc:
            print(f"homeworlds play: the export {self.path} was not written: {exc}",
                  file=sys.stderr, flush=True)

    def archive(self, game_id: int | None) -> None:
        """Keep a finished game's export under its own name before a new game begins."""
        if not self.path.exists():
            return
        stem = f"-game{game_id}" if game_id is not None else "-finished"
        target = self.path.with_name(self.path.stem + stem + self.path.suffix)
        k = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.stem}{stem}-{k}{self.path.suffix}")
            k += 1
        try:
            os.replace(self.path, target)
        except OSError as exc:
            print(f"homeworlds play: could not keep the finished game's export as {target}: "
                  f"{exc}", file=sys.stderr, flush=True)


def _report_fault(recorder, previous: str | None) -> None:
    if recorder.fault is not None:
        print(f"homeworlds play: NOT SAVED: {recorder.fault}. The game goes on; "
              f"{recorder.unsaved} writes wait in memory and are retried every "
              f"{recorder.retry_s:g} s (an amber LED blinks at the start of every bar).",
              file=sys.stderr, flush=True)
        print("game store fault: turns are kept in memory until it is fixed", flush=True)
    elif previous is not None:
        print("game store: saved again, nothing was lost", flush=True)


# ---------------------------------------------------------------------- terminal commands

COMMAND_HELP = ("resign NAME (that player resigns), draw (draw by agreement), abandon "
                "(the game is abandoned), help")


def _terminal_commands() -> queue.Queue | None:
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


def _run_commands(lines: queue.Queue, session, recorder, config: TableConfig) -> None:
    while True:
        try:
            line = lines.get_nowait()
        except queue.Empty:
            return
        print(run_command(line, session, recorder, config.players), flush=True)


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
    if verb not in ("resign", "draw", "abandon"):
        return f"unknown command {words[0]!r}; commands: {COMMAND_HELP}"
    seat = None
    if verb == "resign":
        names = [p.casefold() for p in players]
        if len(rest) != 1 or rest[0].casefold() not in names:
            return f"resign whom? resign NAME, with NAME one of {', '.join(players)}"
        seat = names.index(rest[0].casefold())
    kind = {"resign": "resigned", "draw": "agreed-draw", "abandon": "abandoned"}[verb]
    try:
        tracker.end_game(kind, seat)
    except IllegalAction as exc:
        return f"cannot {verb}: {exc}"
    result = tracker.state.result
    winners = tuple(result.winners) if result is not None else ()
    recorder.finish(kind, winners, seat, len(tracker.record))
    session.status = tracker.status
    return tracker.status.message


def deal_alignments_for(config: TableConfig) -> Alignments | None:
    """Good/Evil: a new secret deal, seeded by ``table.alignment_seed`` or, without it, at
    random; None under other rules."""
    from homeworlds.rules import deal_alignments

    if config.rules.goal != "good-evil":
        return None
    seed = config.alignment_seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    return deal_alignments(len(config.players), seed)


def _announce_deal(tracker, recorder) -> None:
    """A new Good/Evil deal is stored before anyone learns it, so a restart keeps it."""
    if tracker.alignments is not None and not tracker.record:
        recorder.write_game_now()
        print("Good/Evil alignments dealt in secret; they are revealed when the game ends",
              flush=True)


def reveal_alignments(players, alignments) -> str:
    return "Alignments revealed: " + ", ".join(
        f"{name} {alignment.capitalize()}" for name, alignment in zip(players, alignments,
                                                                      strict=True))


def _chain(first, second):
    def both(commit):
        if first is not None:
            first(commit)
        second(commit)
    return both


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop
