"""The table's game record beside the store: resuming a game, the SDG export, the deal.

On start-up the table's unfinished game is resumed from the game store (or from an SDG
export of an unfinished game when the store holds none: a store started anew), its
clocks restored and a hand-over journalled but not committed before the host stopped is
judged again. ``GameExport`` keeps the SDG export of the current game, rewritten after
every turn. Good/Evil deals are made and announced here (docs/store.md, docs/clocks.md).
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from homeworlds.runtime.config import TableConfig

if TYPE_CHECKING:
    from homeworlds.rules import Alignments


class ResumeError(Exception):
    """The table's unfinished game cannot be resumed; the text says why and what to do."""


def resume_game(session, recorder, record_path: Path, config: TableConfig, exporter, *,
                resumes: Callable[[str], bool] | None = None):
    """Continue the table's unfinished game from the store (or, when the store holds none,
    from an SDG export of an unfinished game: a store started anew); else start a game.
    Returns the observation journalled at a hand-over that was not committed, if any.
    ``resumes(uid)``: whether the store's latest game (of that uid) is the one to go on
    with (a remote game accepted from the hub is a new game, even between the players
    of the finished one: ``runtime.hub_game``); when it says no, a new game starts."""
    tracker = session.tracker
    point = recorder.resume_point()
    if point is not None and point.game.finished and (not point.record or not _same_players(
            point.game.players, config.players)):
        point = None  # a finished game does not hold the table for other players
    if point is not None and resumes is not None and not resumes(point.game.uid):
        point = None
    if point is not None:
        return _continue_stored_game(session, recorder, record_path, config, exporter, point)
    record = _resume_from_export(tracker, recorder, record_path, config, exporter)
    session.update_clocks()
    recorder.start_game(config.rules, config.players, tracker.first_seat,
                        alignments=tracker.known_alignments, clock=clock_dict(session))
    if not record:
        announce_deal(tracker, recorder)
    if record:
        # The store holds no unfinished game of this table, the export does: a new store
        # (beside a refused one) or a table that recorded to files only. Keep it.
        from homeworlds.rules import GameState

        replay = GameState(config.rules, len(config.players), first_to_move=tracker.first_seat,
                           alignments=tracker.alignments)
        for number, (seat, turn) in enumerate(record, start=1):
            replay.push(turn)
            recorder.turn(number, seat, turn, replay.copy(), config.players, {})
        print(f"resuming the game in {record_path} after {len(record)} turns "
              f"({_copied(recorder)})", flush=True)
    return None


def _continue_stored_game(session, recorder, record_path: Path, config: TableConfig,
                          exporter, point):
    """Continue the store's game at ``point`` (shown as over when it is finished)."""
    from homeworlds.rules import HomeworldsError
    from homeworlds.store.records import position_to_json

    tracker = session.tracker
    game = point.game
    if not _same_players(game.players, config.players):
        raise ResumeError(
            f"the unfinished game {game.id} in {recorder.path} is between "
            f"{', '.join(game.players)}, the configuration names "
            f"{', '.join(config.players)}: finish it with the same players, or abandon it "
            f"(`homeworlds games abandon {game.id} --store {recorder.path}`)")
    if game.alignments and all(a is not None for a in game.alignments):
        tracker.alignments = tuple(game.alignments)  # a resumed game keeps its deal
    try:
        tracker.resume(list(point.record), point.star_tags, point.departures)
    except (HomeworldsError, ValueError) as exc:
        raise ResumeError(f"cannot resume game {game.id} in {recorder.path}: {exc}") \
            from None
    if point.position is not None and position_to_json(tracker.state) != point.position:
        raise ResumeError(f"game {game.id} in {recorder.path}: its turns do not lead to "
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


def _resume_from_export(tracker, recorder, record_path: Path, config: TableConfig, exporter):
    """The turns of the unfinished game in the SDG export at ``record_path`` (resumed on
    ``tracker``), or None: no export, its game is over (archived; a new one begins), or it
    names a game the store holds (finished, or another table's: kept aside under that
    game's number, never copied into a new game)."""
    from homeworlds.notation import read_sdg_file
    from homeworlds.rules import HomeworldsError

    if not record_path.exists():
        return None
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
        raise ResumeError(f"cannot resume the game in {record_path}: {exc} (move the "
                           "file away to start a new game)") from None
    held = recorder.stored_game(sdg.game) if sdg.game is not None else None
    if held is not None:
        print(f"the export {record_path} holds game {held.id} of the store "
              f"({held.status}, table {held.table!r}); a new game begins", flush=True)
        exporter.archive(held.id)
        tracker.new_game()
        tracker.set_alignments(deal_alignments_for(config))
        return None
    if tracker.state.is_over:
        exporter.archive(None)
        tracker.new_game()
        return None
    return record


def _copied(recorder) -> str:
    """Where turns copied from the export are, said as it is: in the store, or waiting in
    memory while the store has a fault."""
    if recorder.fault is None:
        return f"copied into the store {recorder.path}"
    return (f"NOT yet in the store {recorder.path} ({recorder.fault}): kept in memory and "
            "in the export until it can be written")


def clock_dict(session) -> dict | None:
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


def holds_data(path: Path) -> bool:
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
    from homeworlds.notation import read_sdg_file
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
    if sdg.game != point.game.uid and (sdg.game is not None or not stored):
        # Another game's export (it names another game, or an export of old that names
        # none beside a game with no turn yet): its turns are not this game's.
        print(f"homeworlds play: the export {record_path} holds "
              + (f"game {sdg.game}" if sdg.game else "a game that it does not name")
              + f", not game {point.game.id} ({point.game.uid}) that the store resumes: its "
              "turns are not copied", file=sys.stderr, flush=True)
        return
    try:
        tracker.resume(exported, point.star_tags, point.departures)
    except (HomeworldsError, ValueError) as exc:
        print(f"homeworlds play: the export {record_path} has {len(exported) - len(stored)} "
              f"turns more than the store, but they do not replay ({exc}); ignored",
              file=sys.stderr, flush=True)
        tracker.resume(stored, point.star_tags, point.departures)
        return
    from homeworlds.rules import GameState

    state = GameState(config.rules, len(config.players), first_to_move=tracker.first_seat,
                      alignments=tracker.alignments)
    for number, (seat, turn) in enumerate(exported, start=1):
        state.push(turn)
        if number > len(stored):
            recorder.turn(number, seat, turn, state.copy(), config.players, {})
    print(f"the export {record_path} had turns {len(stored) + 1}-{len(exported)}, which the "
          f"store lacked: {_copied(recorder)}", flush=True)


def replay_journal(session, observation) -> None:
    """The host saw a hand-over it did not commit before it stopped: judge that table."""
    from homeworlds.table.view import TableView

    view = TableView(session.layout, session.view.registry)
    view.replace_all(observation.zones)
    tracker = session.tracker
    before = len(tracker.record)
    with session.events.handover.held():  # it is in the journal already
        tracker.update(view.observe())
    if len(session.tracker.record) > before:
        print(f"recovered turn {before + 1} from the hand-over seen at {observation.seen}",
              flush=True)


class GameExport:
    """The SDG export of the current game, rewritten after every turn. It names its game
    (the ``Game:`` header: the store's uid of the game, ``uid()``), so a restart copies its
    turns into that game only, never into another."""

    def __init__(self, path: Path, players, rules: str, tracker,
                 uid: Callable[[], str | None] = lambda: None,
                 store_fault: Callable[[], str | None] = lambda: None,
                 writer: Callable[[Path, str], None] | None = None):
        self.path = path
        self.players = players
        self.rules = rules
        self.tracker = tracker  # for the Good/Evil deal, written with the game
        self.uid = uid
        #: why the game store cannot be written now (None: it holds every turn); the
        #: messages say where the game is kept, so they ask
        self.store_fault = store_fault
        #: the file write (``export.write_atomically``): the seam tests inject faults at
        self.writer = writer
        self.warned: str | None = None
        #: whether the export holds every turn of the current game now
        self.current = True

    def _write_file(self, text: str) -> None:
        from homeworlds.store.export import write_atomically

        (self.writer or write_atomically)(self.path, text)

    def kept_where(self) -> str:
        """Where the current game's turns are kept, as true now as the store and the export
        know it (for the messages when one of them fails)."""
        if self.store_fault() is None:
            return "the store keeps the game"
        if self.current:
            return f"the export {self.path} holds every turn; the store does not yet"
        return ("NEITHER the store nor the export holds the latest turns: they are kept in "
                "memory only, and stopping the host prints the whole game in SDG")

    def sdg_text(self) -> str | None:
        """The whole current game in SDG (None when it cannot be written so)."""
        from homeworlds.notation.sdg import InvalidNotation
        from homeworlds.store.export import ExportError, record_sdg

        try:
            return record_sdg(self.players, self.tracker.record, rules=self.rules,
                              alignments=self.tracker.known_alignments, game=self.uid())
        except (ExportError, InvalidNotation):
            return None

    def write(self, record) -> None:
        from homeworlds.notation.sdg import InvalidNotation
        from homeworlds.store.export import ExportError, record_sdg

        if not record:
            return
        try:
            self._write_file(record_sdg(self.players, record, rules=self.rules,
                                        alignments=self.tracker.known_alignments, game=self.uid(),
                                        reveals=self.tracker.reveals(),
                                        handicaps=self.tracker.rules.handicaps))
            self.warned = None
            self.current = True
        except (OSError, ExportError, InvalidNotation) as exc:
            self.current = False
            text = f"the export {self.path} was not written: {exc} ({self.kept_where()})"
            if text != self.warned:
                print(f"homeworlds play: {text}", file=sys.stderr, flush=True)
            self.warned = text

    def rewrite(self, record) -> None:
        """After an undo: the export holds the record as it is now, also when no turn is
        left (the store keeps the withdrawn turn)."""
        if record:
            self.write(record)
            return
        from homeworlds.store.export import ExportError, record_sdg

        try:
            self._write_file(record_sdg(self.players, [], rules=self.rules,
                                        alignments=self.tracker.known_alignments, game=self.uid()))
            self.current = True
        except (OSError, ExportError) as exc:
            self.current = False
            print(f"homeworlds play: the export {self.path} was not written: {exc} "
                  f"({self.kept_where()})", file=sys.stderr, flush=True)

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


def announce_deal(tracker, recorder) -> None:
    """A new Good/Evil deal is stored before anyone learns it, so a restart keeps it."""
    if tracker.alignments is not None and not tracker.record:
        recorder.write_game_now()
        print("Good/Evil alignments dealt in secret; they are revealed when the game ends",
              flush=True)
