"""A table at an event and the hub's remote games (docs/remote-play.md, "Invited by the
hub"): the table's desk for the hub's invitations (``start_desk``) and, once one was
accepted, the table's configuration for that game (``with_hub_game``).

An accepted invitation is kept in ``remote-game.json`` beside the configuration (mode 600,
the game's code in it): ``with_hub_game`` turns it into the ``[remote]`` the table plays
(the event's broker and account, the game's players and rules), so a restarted ``play``
resumes the game as one configured by hand would.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from homeworlds.remote.hub_invite import (
    CHANNEL,
    GAME_FILE,
    InvitationDesk,
    InvitationRefused,
    note_store_game,
    read_game_file,
    store_game,
)
from homeworlds.remote.settings import RemoteSettings
from homeworlds.rules import preset
from homeworlds.runtime.config import TableConfig
from homeworlds.session import Stage, TableSession
from homeworlds.store import GameRecorder, GameStore, StoreError
from homeworlds.store.identity import StoredIdentity
from homeworlds.table.layout import LayoutError


class HubGameError(Exception):
    """The accepted invitation cannot be played here (the text says why)."""


def game_file(config: TableConfig) -> Path | None:
    """Where this table keeps an accepted invitation (None: not at an event)."""
    if config.event is None:
        return None
    return Path(config.source).parent / GAME_FILE


def with_hub_game(config: TableConfig) -> TableConfig:
    """``config`` playing the remote game its table accepted from the hub, if any (a
    configuration with its own ``[remote]`` plays that one)."""
    path = game_file(config)
    if path is None or config.remote is not None or not path.exists():
        return config
    assert config.event is not None
    try:
        game = read_game_file(path)
    except ValueError as exc:
        raise HubGameError(f"{exc} (remove it to play without the remote game)") from None
    event = config.event
    if (game.event, game.table) != (event.event, event.table):
        raise HubGameError(f"{path}: the remote game is table {game.table}'s of event "
                           f"{game.event}, this is table {event.table} of event "
                           f"{event.event}: remove the file")
    rules = preset(game.rules)
    try:
        config.layout.check_bank_fits(rules, 2)
    except LayoutError as exc:
        raise HubGameError(f"{path}: {exc}") from None
    remote = RemoteSettings(event.broker, game.role, game.invitation, event.username,
                            event.password, event.ca_file)
    return replace(config, players=game.players, rules=rules, remote=remote,
                   computer_seats={}, phone=None)


def hub_game_resumes(config: TableConfig):
    """For ``resume_game``: which store game a table playing the hub's remote game goes on
    with — the one its game file names (None: not such a table). A game file without one
    was accepted now: the game begins anew, even when the store's latest game is a
    finished one between the same players (a rematch)."""
    path = game_file(config)
    if path is None or config.remote is None or not path.exists():
        return None
    started = store_game(path)
    return lambda uid: uid == started


def note_hub_game(config: TableConfig, uid: str | None) -> None:
    """Keep the store's game of the hub's remote game in its file (a restart resumes it);
    said, never raised, when it cannot be written."""
    path = game_file(config)
    if path is None or config.remote is None or uid is None or not path.exists() or \
            store_game(path) == uid:
        return
    try:
        note_store_game(path, uid)
    except (OSError, ValueError) as exc:
        print(f"homeworlds play: {path}: the game could not be noted ({exc}): a restart "
              "before its first turn begins it anew", flush=True)


def _can_start(session: TableSession, config: TableConfig):
    tracker = session.tracker

    def problem() -> str | None:
        played = len(tracker.record)
        if tracker.state.is_over or tracker.ended_by is not None:
            return None
        if config.remote is not None:
            return (f"this table plays remote game {config.remote.invitation.game_id} "
                    "until it ends")
        if played:
            return (f"this table's game has {played} turns: finish it, or type `resign "
                    "NAME`, `draw` or `abandon` first")
        return None
    return problem


def start_desk(config: TableConfig, session: TableSession, recorder: GameRecorder,
               store_path: Path, restart: threading.Event) -> InvitationDesk | None:
    """The desk for the hub's invitations of a table at an event (None: not at one, or
    no key); checked at every tick. When its player accepts one, an empty game of this
    table (if it was written) is abandoned and ``restart`` is set: ``play`` builds the
    table again, now playing the remote game."""
    path = game_file(config)
    event = config.event
    if path is None or event is None or event.key is None:
        return None
    key = event.key
    hub_numbers = f"{key.key_id}/hub"

    def with_identity(work):
        store = GameStore.open(store_path)
        try:
            return work(StoredIdentity(store))
        finally:
            store.close()

    try:
        seen = with_identity(lambda ids: ids.seen(hub_numbers).get(CHANNEL, 0))
    except StoreError as exc:
        print(f"homeworlds play: the hub's invitations are not taken now: {exc}", flush=True)
        return None
    def record_seen(highest: int) -> None:
        try:
            with_identity(lambda ids: ids.record_seen(hub_numbers, CHANNEL, highest))
        except StoreError as exc:
            raise InvitationRefused(f"its sequence number cannot be kept in the store "
                                    f"(so a replay could not be told): {exc}") from None

    desk = InvitationDesk(
        key, event.event, event.table, path, seen=seen, record_seen=record_seen,
        can_start=_can_start(session, config), say=lambda text: print(text, flush=True))

    def tick() -> None:
        desk.poll()
        if desk.accepted is not None and not restart.is_set():
            tracker = session.tracker
            if not tracker.record and not tracker.state.is_over and \
                    recorder.game_id is not None:
                # The empty game here was written (a hand-over): abandoned, so that the
                # next start does not resume it for its old players.
                recorder.finish("abandoned", (), None, 0)
            restart.set()
    session.events.tick.listen(Stage.CONTROL, tick)
    return desk
