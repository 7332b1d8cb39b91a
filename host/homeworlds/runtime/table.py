"""The running table, built from its configuration: ``build_table`` and ``serve``.

``build_table`` assembles everything ``homeworlds play`` runs, in this order: the session
(table view, tracker, game clocks, computer seats, LEDs), the game store's recorder (and
the game it resumes), the SDG export, the event's publisher, the listeners, the web
display and its feed, and the serial link; ``RunningTable.run`` runs the table loop until
stopped and ``close`` shuts it all down, saving what it can.

Every listener hears of the table's events through ``session.events`` at a stage
(``session.Stage``): the store first, then the export, the admin commands and the event's
clock, the displays' feed, the event broker, the terminal. So the store has every turn
(written, or queued in order when it has a fault) before anyone else is told of it.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from homeworlds.link import SerialTransport, TableLink
from homeworlds.pixels import PixelOutput
from homeworlds.remote.connection import RemoteTableLink
from homeworlds.remote.game import RemoteSide
from homeworlds.rules import red_alert as find_red_alert
from homeworlds.runtime.config import TableConfig
from homeworlds.runtime.hub_game import (
    HubGameError,
    hub_game_resumes,
    note_hub_game,
    start_desk,
    with_hub_game,
)
from homeworlds.runtime.loop import EventSource, TableLoop
from homeworlds.runtime.record import (
    GameExport,
    ResumeError,
    announce_deal,
    clock_dict,
    deal_alignments_for,
    holds_data,
    replay_journal,
    resume_game,
)
from homeworlds.runtime.terminal import (
    LiveView,
    report_fault,
    reveal_alignments,
    run_commands,
    stop_on_signals,
    turn_time_text,
)
from homeworlds.session import ComputerSeat, Stage, TableSession, make_player, new_session
from homeworlds.store import (
    GameRecorder,
    HolderLock,
    LockHeld,
    LockUnavailable,
    StoreRefused,
    TableLock,
    holder_text,
    port_lock,
)
from homeworlds.table.tracker import Commit


class TableStartError(Exception):
    """The table cannot start; the text says why (``play`` prints it and exits 2)."""


def long_press_seconds(config: TableConfig) -> float:
    """How long the host waits after a button press before acting on it, so that a long
    press (the firmware's HOLD after ``hold_ms``) can still turn it into a hint request:
    the firmware's hold time plus a margin for the serial line and the scan loop."""
    from tablefw.settings import SETTINGS

    hold_ms = config.scanner.get("hold_ms", SETTINGS["hold_ms"][0])
    return hold_ms / 1000 + 0.3


def open_table_output(config: TableConfig) -> PixelOutput | None:
    """The LED output of a table that can start: its configuration names a serial port and
    a tag registry (TableStartError says what is missing); warnings about the LED power are
    printed first."""
    from homeworlds.pixels import PixelSinkUnavailable

    if not config.port:
        raise TableStartError(f"{config.source}: serial.port: no serial port configured (the "
                              "microcontroller's data port, e.g. /dev/ttyACM1)")
    if config.registry is None:
        where = config.registry_path or "table.registry"
        raise TableStartError(f"{config.source}: no tag registry at {where}: run "
                              "`homeworlds enroll` first (docs/hardware.md)")
    for warning in config.pixels.startup_warnings(config.layout.pixel_count):
        print(f"homeworlds play: warning: {warning}", file=sys.stderr)
    try:
        return config.pixels.open_output(config.layout.pixel_count)
    except PixelSinkUnavailable as exc:
        raise TableStartError(str(exc)) from None


def session_from_config(config: TableConfig, output: PixelOutput | None,
                        remote_side: Any = None, *, phone_seat: Any = None) -> TableSession:
    """The table's session as its configuration describes it: layout and tags, rules and
    players (a fresh Good/Evil deal), hints, time control, computer seats (and the other
    table's seat of a remote game, played through ``remote_side``: docs/remote-play.md;
    and a phone's seat, ``[phone]``, played through ``phone_seat()``, the ``PhoneSeat``
    once made)."""
    if config.registry is None:
        where = config.registry_path or "table.registry"
        raise TableStartError(f"{config.source}: no tag registry at {where}: run "
                              "`homeworlds enroll` first (docs/hardware.md)")
    red_alert = find_red_alert if config.rules.handicaps.red_alert else None
    seats, factory = dict(config.computer_seats), make_player
    if config.remote is not None and remote_side is not None:
        for seat in range(len(config.players)):
            if seat not in config.remote.seats:
                seats[seat] = ComputerSeat()  # played at another table
        factory = remote_side.player_factory
    if config.phone is not None and phone_seat is not None:
        seats[config.phone.seat] = ComputerSeat()
        factory = lambda *a: phone_seat().player_factory(*a)  # noqa: E731
    session = new_session(config.layout, config.registry, config.rules, config.players,
                          output=output, hint_settings=config.hints, red_alert=red_alert,
                          alignments=deal_alignments_for(config), clock_spec=config.clock,
                          computer_seats=seats, time_limits=config.time_limits,
                          suggestion_level=config.hint_level,
                          long_press_s=long_press_seconds(config), player_factory=factory)
    if config.remote is not None and session.tracker.alignments is not None:
        # Good/Evil across tables: this deal is a stand-in until the tables have dealt
        # together (remote.deal): no card of it is stored, shown or printed.
        session.tracker.state.secret_seats = frozenset(range(len(config.players)))
    return session


@dataclass
class RunningTable:
    """A table built by ``build_table``: run it (``run``), then ``close`` it."""

    config: TableConfig
    session: TableSession
    recorder: GameRecorder
    export: GameExport
    loop: TableLoop
    source: EventSource
    output: PixelOutput | None
    store_path: Path
    record_path: Path
    display: Any = None  # web.live.LiveDisplay
    publisher: Any = None  # event.publisher.EventPublisher
    #: the table's claims on its store name and serial port (``claim_table``)
    locks: list[HolderLock] = field(default_factory=list)
    #: the remote game's side and broker link (``[remote]``), or None
    remote: Any = None
    phone: Any = None  # web.phone.PhoneServer of ``[phone]``
    #: set when the table must be built again (an invitation from the hub accepted:
    #: ``runtime.hub_game``); ``serve`` does
    restart: threading.Event = field(default_factory=threading.Event)
    #: the hub's invitations (``remote.hub_invite.InvitationDesk``), or None
    desk: Any = None
    closed: bool = field(default=False, init=False)

    def run(self, stop: threading.Event) -> None:
        """The table loop until ``stop`` (or ``restart``) is set."""
        self.loop.run(_Either(stop, self.restart))

    def _say_where_the_game_is(self, recorder: GameRecorder) -> None:
        """On stop with writes the store never took: the export holds the game when its
        last write succeeded; else the whole game is printed in SDG, so that nothing shown
        on the table is lost."""
        print(f"homeworlds play: {recorder.unsaved} writes could not be saved to "
              f"{self.store_path}: {recorder.fault}", file=sys.stderr, flush=True)
        if self.export.current:
            print(f"homeworlds play: the export {self.record_path} holds the game "
                  f"({len(self.session.tracker.record)} turns)", file=sys.stderr, flush=True)
            return
        text = self.export.sdg_text()
        if text is None:
            print("homeworlds play: NEITHER the store nor the export could be written, and "
                  "the game cannot be written in SDG; its turns were:", file=sys.stderr,
                  flush=True)
            for number, (seat, turn) in enumerate(self.session.tracker.record, start=1):
                print(f"{number}) {self.config.players[seat]}: "
                      + "; ".join(str(a) for a in turn), flush=True)
            return
        print(f"homeworlds play: NEITHER the store {self.store_path} nor the export "
              f"{self.record_path} could be written: the whole game follows in SDG "
              f"({len(self.session.tracker.record)} turns); save it, e.g. as "
              "game-saved.raw, and `homeworlds replay` it", file=sys.stderr, flush=True)
        print(text, end="", flush=True)

    def close(self) -> None:
        """Stop the display, the link and the publisher; write what the store still owes
        (saying so when it cannot) and close it; turn the LEDs off."""
        if self.closed:
            return
        self.closed = True
        if self.display is not None:
            self.display.stop()
        if self.phone is not None:
            self.phone.stop()
            self.phone.seat.close()
        close = getattr(self.source, "close", None)
        if close is not None:
            close()
        recorder = self.recorder
        recorder.flush()
        if self.publisher is not None:
            self.publisher.stop()
        if self.remote is not None:
            self.remote.close()
        if recorder.unsaved:
            self._say_where_the_game_is(recorder)
        recorder.close()
        for lock in self.locks:
            lock.release()
        if self.output is not None:
            self.output.close()


class _Either:
    """Set when either event is (what the loop's ``run`` asks of its stop)."""

    def __init__(self, *events: threading.Event):
        self.events = events

    def is_set(self) -> bool:
        return any(e.is_set() for e in self.events)


def build_table(config: TableConfig, output: PixelOutput | None, record_path: Path, *,
                store_path: Path | None = None, commands: queue.Queue | None = None,
                store_opener=None, view=None, listen: tuple[str, int] | None = None,
                source: EventSource | None = None, export_writer=None) -> RunningTable:
    """The table of ``config`` (validated by ``load_config``), ready to run; the LEDs go to
    ``output``. ``record_path``: the SDG export; ``store_path``: the game store (default
    games.sqlite beside the export); ``commands``: lines typed on the host's terminal;
    ``store_opener`` (path -> GameStore) and ``export_writer`` ((path, text) -> None): the
    store's and the export's seams for tests that inject faults;
    ``view.tick(session)`` (the live terminal view) is called on every pass; ``listen``
    (address, port) serves the web display; ``source``: the table's events (default: the
    serial link of the configuration). TableStartError says why the table cannot start;
    whatever was opened by then is closed again."""
    from homeworlds.store.export import remove_stale_temporaries

    store_path = store_path or record_path.with_name("games.sqlite")
    locks: list[HolderLock] = []
    try:
        config = with_hub_game(config)  # the remote game accepted from the hub, if any
    except HubGameError as exc:
        _release(locks, output)
        raise TableStartError(str(exc)) from None
    try:
        locks = claim_table(config, store_path, serial=source is None)
        remote_side = RemoteSide() if config.remote is not None else None
        phones: list = []  # the phone's seat, made once the session is
        session = session_from_config(config, output, remote_side,
                                      phone_seat=lambda: phones[0])
        for seat, computer in sorted(config.computer_seats.items()):
            print(f"{config.players[seat]} (seat {seat}) is the computer, level "
                  f"{computer.level}", flush=True)
        recorder = _open_store(config, store_path, store_opener)
        try:
            phones += _phone_seat(config, session, recorder)
        except BaseException:
            recorder.close()
            raise
    except BaseException:
        _release(locks, output)
        raise
    remove_stale_temporaries(record_path)
    export = GameExport(record_path, config.players, config.rules.name, session.tracker,
                        uid=lambda: recorder.uid, store_fault=lambda: recorder.fault,
                        writer=export_writer)
    try:
        pending = resume_game(session, recorder, record_path, config, export,
                              resumes=hub_game_resumes(config))
    except ResumeError as exc:
        recorder.close()
        _release(locks, output)
        raise TableStartError(str(exc)) from None
    note_hub_game(config, recorder.uid)
    event_clock = _event_clock_follower(config, session)
    restart = threading.Event()
    desk = start_desk(config, session, recorder, store_path, restart)
    publisher = start_publisher(config, store_path, recorder.table, event_clock,
                                on_invitation=desk.offer if desk is not None else None)
    new_game = _listen_for_the_record(session, config, recorder, export, publisher)
    if pending is not None:
        replay_journal(session, pending)
    display = None
    if listen is not None:
        display = _start_display(config, session, recorder, export, new_game, listen,
                                 phones[0] if phones else None)
        if isinstance(display, str):
            if publisher is not None:
                publisher.stop()
            recorder.close()
            _release(locks, output)
            raise TableStartError(display)
    if publisher is not None:
        _feed_publisher(publisher, display, session, config, recorder)
    remote = _start_remote(config, session, recorder, remote_side)
    table = attract_table(config, session, display, recorder.path)
    if source is None:
        source = _serial_link(config)
    upkeep = _Upkeep(session, recorder, publisher, commands, config, export,
                     phones[0] if phones else None)
    upkeep.desk = desk
    work = [upkeep.store, upkeep.terminal]
    if view is not None:
        work.append(lambda: view.tick(session))
    loop = TableLoop(source, table, work=work)
    running = RunningTable(config, session, recorder, export, loop, source, output,
                           store_path, record_path, display, publisher, locks, remote,
                           restart=restart, desk=desk)
    if phones:
        _serve_phone(running, phones[0])
    return running


def _phone_seat(config: TableConfig, session: TableSession, recorder: GameRecorder) -> list:
    """The phone's seat of ``[phone]`` (none without it), following the session; its claim
    is kept in the table's store (a restarted table knows the phone that claimed it), and
    its resignation is recorded as the terminal's ``resign`` is."""
    if config.phone is None:
        return []
    from homeworlds.remote.phone import PhoneSeat
    from homeworlds.runtime.terminal import end_game
    from homeworlds.store import StoreError
    from homeworlds.store.phone_claims import PhoneClaims

    try:
        seat = PhoneSeat(session, config.phone.seat,
                         claims=PhoneClaims(recorder.path, config.table_name))
    except StoreError as exc:
        # The game goes on (its turns are the store's, kept or queued as always); only
        # which phone claimed the seat would be forgotten by a restart.
        print(f"homeworlds play: warning: [phone]: the phone's claim cannot be kept in the "
              f"store ({exc}): a restarted table will not know which phone claimed the "
              "seat", file=sys.stderr, flush=True)
        seat = PhoneSeat(session, config.phone.seat)
    seat.end_game = lambda kind, who: end_game(session, recorder, config.players, kind, who)
    seat.attach()
    return [seat]


def _release_phone(seat: Any) -> str:
    """Free the phone's seat for another phone (``PhoneSeat.release``); ValueError when
    the store cannot keep it."""
    from homeworlds.remote.phone import ClaimRefused

    try:
        return seat.release()
    except ClaimRefused as exc:
        raise ValueError(str(exc)) from None


def _serve_phone(running: RunningTable, seat: Any) -> None:
    """Serve the phone's pages and show its link and code (on the terminal and the
    display's admin page); a port that cannot be served stops the start (the table
    closed again)."""
    assert running.config.phone is not None
    try:
        from homeworlds.web import WebUnavailable, require_web
        from homeworlds.web.phone import PhoneServer, announce

        require_web()
        # The game resumed from the store since the seat was made: the phone's first page
        # shows it, not the empty table (the loop has not ticked yet).
        seat.refresh()
        phone = running.config.phone
        server = PhoneServer(seat, host=phone.listen, port=phone.port,
                             table_name=running.config.table_name).start()
    except (ImportError, WebUnavailable) as exc:
        seat.close()
        running.close()
        raise TableStartError(f"[phone]: {exc}") from None
    running.phone = server
    seat.base_url = server.url
    if running.display is not None:
        seat.on_admin_info = running.display.server.show_phone
        seat.show_admin_info()  # before the code is announced, not at the first tick
    announce(server.url, seat)


def _start_remote(config: TableConfig, session: TableSession, recorder: GameRecorder,
                  side: RemoteSide | None) -> RemoteTableLink | None:
    """The remote game's side and broker link (docs/remote-play.md), after the game was
    resumed from the store."""
    remote = config.remote
    if remote is None or side is None:
        return None
    link = RemoteTableLink(remote, session, recorder.path, side, recorder)
    sides = remote.invitation.sides
    if sides == 2 and len(remote.seats) == 1:  # as the first remote games said it
        plays = f"{config.players[remote.seat]} (seat {remote.seat}, {remote.role})"
    else:
        plays = " and ".join(f"{config.players[s]} (seat {s})" for s in remote.seats) \
            + f" as {remote.role} (one of {sides} tables)"
    print(f"remote game {link.game.game_id}: this table plays {plays} via "
          f"{remote.broker.text()}", flush=True)
    return link


def _release(locks: list[HolderLock], output: PixelOutput | None) -> None:
    """Undo a start that failed: the table's claims, then its LEDs."""
    for lock in locks:
        lock.release()
    if output is not None:
        output.close()


def claim_table(config: TableConfig, store_path: Path, *, serial: bool) -> list[HolderLock]:
    """The table's claims, taken before anything else starts: its name in the store (one
    `play` per table, so two tables never share a game) and, for a table on its serial
    link, the port. A claim held by another program is a TableStartError naming both; the
    kernel drops a claim when its holder dies, so the next start resumes its game."""
    me = holder_text(f"configuration {config.source}")
    wanted: list[HolderLock] = [TableLock(store_path, config.table_name)]
    if serial and config.port:
        try:
            wanted.insert(0, port_lock(config.port))
        except LockUnavailable as exc:
            raise TableStartError(str(exc)) from None
    taken: list[HolderLock] = []
    for lock in wanted:
        try:
            lock.acquire(me)
        except (LockHeld, LockUnavailable) as exc:
            for other in taken:
                other.release()
            advice = ""
            if isinstance(exc, LockHeld):
                advice = (": stop it first (this one then resumes its unfinished game)"
                          + (", or give this table a name of its own ([store] table) or a "
                             "store of its own ([store] path)"
                             if isinstance(lock, TableLock) else ""))
            raise TableStartError(f"{exc}{advice}") from None
        taken.append(lock)
    return taken


def _serial_link(config: TableConfig) -> TableLink:
    """The link to the table's scanner on the configured serial port."""
    port = config.port
    if not port:  # checked by open_table_output; a table built without a link has none
        raise TableStartError(f"{config.source}: serial.port: no serial port configured")
    link = TableLink(lambda: SerialTransport(port, config.baudrate),
                     heartbeat_timeout=config.heartbeat_timeout,
                     expected_zones=config.layout.zone_count)
    if config.scanner:
        link.configure(**config.scanner)  # re-sent after every reconnect and restart
    return link


def _open_store(config: TableConfig, store_path: Path, store_opener) -> GameRecorder:
    recorder = GameRecorder(store_path, table=config.table_name,
                            layout=config.layout.name,
                            **({"opener": store_opener} if store_opener else {}))
    try:
        recorder.open()
    except StoreRefused as exc:
        raise TableStartError(str(exc)) from None
    if recorder.store is not None:
        try:
            _check_table_name(config, recorder.store)
        except TableStartError:
            recorder.close()
            raise
    if recorder.store is None and holds_data(store_path):
        # It may hold this table's unfinished game: starting another one beside it would
        # hide that game on the next start (the latest game is resumed).
        raise TableStartError(f"{recorder.fault}; it may hold the table's unfinished game, "
                              "so no new game is started: fix it (another program holding "
                              "it? permissions?) and start again")
    return recorder


def _check_table_name(config: TableConfig, store) -> None:
    """The store's table of this name is this table: the same layout (a configuration that
    would write another table's games is refused). Without ``[store] table``, an
    unfinished game stored under the layout's bare name (what tables were called before
    the machine's name was added) is pointed out."""
    from homeworlds.store import StoreError

    name = config.table_name
    try:
        layout = store.table_layout(name)
        legacy = None if config.store_table else store.latest_game(config.layout.name)
    except StoreError:
        return  # an unreadable store is the recorder's fault to report
    if layout is not None and layout != config.layout.name:
        raise TableStartError(
            f"{config.source}: the game store {store.path} holds table {name!r} with layout "
            f"{layout!r}, this configuration's layout is {config.layout.name!r}: they would "
            "write the same games. Give this table a name of its own ([store] table) or a "
            "store of its own ([store] path)")
    if legacy is not None and not legacy.finished and store.latest_game(name) is None:
        print(f"homeworlds play: the game store {store.path} holds unfinished game "
              f"{legacy.id} ({', '.join(legacy.players)}) of table {config.layout.name!r}; "
              f"this table is now called {name!r}. If that game is this table's, set "
              f"[store] table = \"{config.layout.name}\" to resume it", file=sys.stderr,
              flush=True)


def _listen_for_the_record(session: TableSession, config: TableConfig,
                           recorder: GameRecorder, export: GameExport, publisher):
    """The store, the export, the publisher and the terminal listen to the table's events,
    each at its stage. Returns the new-game action (also the display's "new game")."""
    tracker = session.tracker
    events = session.events
    store_path = recorder.path

    def store_turn(commit: Commit) -> None:
        timed = session.last_turn_time
        recorder.turn(len(tracker.record), commit.seat, commit.turn, commit.state,
                      config.players, tracker.star_tags,
                      elapsed_ms=timed.elapsed_ms if timed else None,
                      clock_ms=timed.clock_ms if timed else None)

    def announce_turn(commit: Commit) -> None:
        number = len(tracker.record)
        print(f"turn {number}: {config.players[commit.seat]}: "
              + "; ".join(str(a) for a in commit.turn)
              + turn_time_text(session.last_turn_time), flush=True)
        if commit.state.is_over:
            print(f"game over; {where_kept()}", flush=True)
        if commit.state.is_over and tracker.alignments is not None:
            print(reveal_alignments(config.players, tracker.known_alignments), flush=True)

    def where_kept() -> str:
        # Said as it is at this moment: the store, else the export, else memory only.
        if recorder.fault is None:
            return f"the game is in the store {store_path}"
        return export.kept_where()

    journalled: list[object] = [None]

    def journal(_) -> None:
        zones = {z: sorted(u) for z, u in session.view.zones.items() if u}
        if journalled[0] != (len(tracker.record), zones):
            journalled[0] = (len(tracker.record), zones)
            recorder.handover(len(tracker.record), zones)

    def new_game() -> None:
        # The finished game's export keeps its game id: archived before the store starts
        # the next game.
        export.archive(recorder.game_id)
        tracker.set_alignments(deal_alignments_for(config))
        session.update_clocks()  # the new game's clocks, under the table's time control
        recorder.start_game(config.rules, config.players, tracker.first_seat,
                            alignments=tracker.alignments, clock=clock_dict(session))
        print("new game", flush=True)
        announce_deal(tracker, recorder)

    def store_flag(seat: int) -> None:
        if tracker.ended_by == "flag":
            result = tracker.state.result
            recorder.finish("flag", tuple(result.winners) if result else (), seat,
                            len(tracker.record))

    def announce_flag(seat: int) -> None:
        name = config.players[seat]
        if tracker.ended_by == "flag":
            # The status line ("game over: NAME's flag fell") is printed by the loop.
            print(f"{name} is out of time; {where_kept()}", flush=True)
        else:
            print(f"{name}'s flag fell (out of time); casual play: the game goes on",
                  flush=True)

    events.committed.listen(Stage.STORE, store_turn)
    events.committed.listen(Stage.RECORD, lambda _: export.write(tracker.record))
    if publisher is not None:
        events.committed.listen(Stage.PUBLISH, lambda _: publisher.wake())
    events.committed.listen(Stage.ANNOUNCE, announce_turn)
    events.handover.listen(Stage.STORE, journal)
    events.new_game.listen(Stage.STORE, new_game)
    events.flag.listen(Stage.STORE, store_flag)
    events.flag.listen(Stage.ANNOUNCE, announce_flag)
    return new_game


class _Upkeep:
    """The table loop's own work after each tick: the store's retries and its fault on the
    LEDs, the event's view of the table, terminal commands, and the lines to print."""

    def __init__(self, session: TableSession, recorder: GameRecorder, publisher,
                 commands: queue.Queue | None, config: TableConfig, export: GameExport,
                 phone: Any = None):
        self.export = export
        #: the terminal's verbs of the phone's seat (``decline-draw`` its draw offer,
        #: ``release-phone``) and ``decline`` (whichever waits: the phone's draw offer or
        #: the hub's invitation; ``decline-invitation`` names the latter)
        self.more_commands: dict[str, Callable[[list[str]], str]] = {
            "decline": self._decline, "decline-invitation": self._decline_invitation}
        if phone is not None:
            self.more_commands.update({"decline-draw": self._decline_draw,
                                       "release-phone": self._release_phone})
        self.phone = phone
        self.session = session
        self.recorder = recorder
        self.publisher = publisher
        self.commands = commands
        self.config = config
        self.last_fault: str | None = None
        self.last_link: bool | None = None
        self.last_message: str | None = None
        #: the hub's invitations (``accept`` / ``decline`` typed here), or None
        self.desk: Any = None

    def store(self) -> None:
        session, recorder, publisher = self.session, self.recorder, self.publisher
        recorder.poll()
        if self.commands is not None:
            run_commands(self.commands, session, recorder, self.config, self.more_commands,
                         self.desk.command if self.desk is not None else None)
        if recorder.fault != self.last_fault:
            report_fault(recorder, self.last_fault, self.export)
            self.last_fault = recorder.fault
            if publisher is not None:
                publisher.table_status(link_up=session.link_up, store_fault=recorder.fault)
        if publisher is not None and session.link_up != self.last_link:
            self.last_link = session.link_up
            publisher.table_status(link_up=self.last_link, store_fault=recorder.fault)
        session.lights.store_fault = recorder.fault is not None

    def _decline(self, words: list[str]) -> str:
        """``decline``: the phone's draw offer or the hub's invitation, whichever waits
        (both: the player names it)."""
        offer = self.phone is not None and self.phone.draw_offered
        invitation = self.desk is not None and self.desk.pending is not None
        if offer and invitation:
            return ("both a draw offer from the phone and an invitation from the hub wait: "
                    "type decline-draw or decline-invitation")
        if offer:
            return self._decline_draw(words)
        if invitation:
            return self._decline_invitation(words)
        return ("nothing to decline: " + ("no draw offer from the phone and " if self.phone
                                          is not None else "") +
                "no invitation from the hub is waiting")

    def _decline_draw(self, words: list[str]) -> str:
        if self.phone is None:
            return "cannot decline a draw: this table has no phone seat"
        try:
            return self.phone.decline_draw()
        except ValueError as exc:
            return f"cannot decline: {exc}"

    def _decline_invitation(self, words: list[str]) -> str:
        if self.desk is None:
            return "no invitation from the hub is waiting (this table is not at an event)"
        return self.desk.command("decline") or "no invitation from the hub is waiting"

    def _release_phone(self, words: list[str]) -> str:
        try:
            return _release_phone(self.phone)
        except ValueError as exc:
            return f"cannot release the phone seat: {exc}"

    def terminal(self) -> None:
        session = self.session
        while session.notices:
            print(session.notices.popleft(), flush=True)
        message = session.status.message
        if message and message != self.last_message:
            print(message, flush=True)
            rule = session.status.rule
            if rule is not None:  # the rulebook's own sentence (docs/rules.md)
                print(f"  Rule: {rule.text()}", flush=True)
        self.last_message = message


def serve(config: TableConfig, output: PixelOutput | None, record_path: Path,
          stop: threading.Event, **options) -> int:
    """Build the table (``build_table``: ``options`` are its keywords) and run it until
    ``stop``; 2 when it cannot start (the reason on stderr), else 0."""
    while True:
        try:
            table = build_table(config, output, record_path, **options)
        except TableStartError as exc:
            print(f"homeworlds play: {exc}", file=sys.stderr)
            return 2
        try:
            table.run(stop)
        finally:
            table.close()
        if stop.is_set() or not table.restart.is_set():
            return 0
        # An invitation from the hub was accepted: the table again, in the remote game
        # (its LEDs were closed with the table).
        print("homeworlds play: starting the remote game accepted from the hub", flush=True)
        if output is not None:
            output = open_table_output(config)


def serve_live(screen, config: TableConfig, output, record_path: Path, store_path: Path,
                listen: tuple[str, int] | None = None) -> int:
    """``serve`` under the live view: what it prints goes to the view's log, shown as its
    record (and printed when the view closes); commands are typed on its last line."""
    from homeworlds.display.line_input import LineInput

    line_input = None
    if sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty():
        line_input = LineInput(sys.stdin.fileno())
    view = LiveView(screen, config, line_input)
    stop = stop_on_signals()
    try:
        with screen:
            return serve(config, output, record_path, stop, store_path=store_path,
                         commands=line_input.lines if line_input else None, view=view,
                         listen=listen)
    finally:
        if line_input is not None:
            line_input.close()


def _event_clock_follower(config: TableConfig, session):
    """With a broker ([event]): the event's time control, as the hub sets it, becomes the
    session's for its next games (taken on this loop's thread, at the end of a tick)."""
    if config.event is None:
        return None
    from homeworlds.event.event_clock import EventClockFollower

    follower = EventClockFollower(session.clock_spec, from_event=config.clock_from_event,
                                  seats=len(config.players), table=config.event.table,
                                  say=lambda text: print(text, flush=True))
    session.events.tick.listen(Stage.CONTROL, lambda: follower.apply(session))
    return follower


def start_publisher(config: TableConfig, store_path: Path, store_table: str,
                    event_clock=None, on_invitation=None):
    """The event publisher when the configuration names a broker ([event]); the table plays
    on without it when the MQTT library is missing (the store keeps every turn, published
    once the table runs with it: docs/event.md)."""
    if config.event is None:
        return None
    from homeworlds.event.mqtt import MqttUnavailable
    try:
        from homeworlds.event.publisher import EventPublisher
        publisher = EventPublisher(config.event, store_path, store_table,
                                   on_event_clock=event_clock.offer if event_clock else None,
                                   on_invitation=on_invitation)
        publisher.start()
    except MqttUnavailable as exc:
        print(f"homeworlds play: not publishing to the event: {exc}", file=sys.stderr,
              flush=True)
        return None
    print(f"publishing to event {config.event.event} as table {config.event.table} via "
          f"{config.event.broker_text}", flush=True)
    return publisher


def attract_table(config: TableConfig, session, display, store_path):
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
    playlist: Callable[[], list] = list  # without LEDs the host's mode only watches the table
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
    from homeworlds.feed import SnapshotEvent

    def offer(event) -> None:
        if isinstance(event, SnapshotEvent):
            publisher.offer_snapshot(event.to_json())

    if display is not None:
        display.producer.sinks.append(offer)
        if display.producer.latest is not None:
            offer(display.producer.latest)
        return
    from homeworlds.web.live import attach_feed

    attach_feed(session, table=config.table_name,
                rules_name=config.rules.name, uid=lambda: recorder.uid, sinks=[offer])


def _start_display(config: TableConfig, session, recorder, export, new_game,
                   listen: tuple[str, int], phone: Any = None):
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
        export.rewrite(tracker.record)

    brightness = session.output.correction.brightness if session.output is not None else 1.0
    try:
        display = attach_display(
            session, table=config.table_name,
            rules_name=config.rules.name, host=listen[0], port=listen[1],
            admin_token=config.display.admin_token, uid=lambda: recorder.uid,
            recorder=recorder, start_new_game=start_new_game, on_undo=undone,
            max_brightness=brightness, store_path=recorder.path,
            attract_after_s=config.attract_after_s, suggestions=config.hints.suggestions,
            control_options={"decline_draw": phone.decline_draw,
                             "release_phone": lambda: _release_phone(phone)}
            if phone else None)
    except WebUnavailable as exc:
        return str(exc)
    display.server.announce()
    return display
