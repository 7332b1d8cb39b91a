"""The hub's part in remote play (docs/remote-play.md, "Invited by the hub"): the
organiser pairs two of the event's tables for a remote game; the hub keeps the game in its
store (``store.remote_games``), seals and signs each table's invitation
(``remote.hub_invite``), gives the broker's ACL the game's topics, and follows the game on
its topics to show it.

Following: the hub derives both sides' keys from the game's secret (it made it), so it
believes only what a side signed. It reads ``hello`` (the side is there and how many turns
it holds), ``turn`` (the turn count), ``offline`` (the side's last will) and ``refused``
(the side refused a message of the other: shown with its reason). A message of a game the
hub did not arrange is dropped before any MAC is computed; every text shown is checked and
bounded (``remote.messages``), and the number of games is bounded (``MAX_GAMES``).

The tables play without the hub: a hub killed mid-game changes nothing for them, and once
restarted it shows the game again (its store holds the game, the broker keeps the sides'
messages for the hub's persistent session, and each table's own published state carries
its turn count).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from homeworlds.event.identity import HubIdentities
from homeworlds.identity import SignatureError, open_signed
from homeworlds.identity.signing import MAX_HEADER
from homeworlds.remote.hub_invite import NAME, HubInvitation, invite_topic
from homeworlds.remote.invitation import ROLES, Invitation
from homeworlds.remote.messages import (
    MAX_BYTES,
    TOPIC_ROOT,
    Hello,
    MessageError,
    Offline,
    Refusal,
    TurnMessage,
    read_payload,
)
from homeworlds.rules import PRESETS, preset
from homeworlds.store import GameStore, StoreError
from homeworlds.store.recorder import utc_now
from homeworlds.store.remote_games import StoredRemoteGame, StoredRemoteGames

log = logging.getLogger("homeworlds.hub")

#: Remote games the hub keeps arranged at most (withdrawn ones do not count).
MAX_GAMES = 200
#: Characters of a side's refusal reason shown at most.
MAX_REASON = 200


class ArrangeError(ValueError):
    """The organiser's pairing cannot be arranged (the text says why, for a 400 page)."""


@dataclass
class SideStatus:
    """One table of a remote game as the hub sees it on the game's topic."""

    #: None: not heard from yet; True: said hello; False: its last will (offline)
    online: bool | None = None
    turns: int | None = None
    #: highest sequence number believed (older hellos and turns do not count)
    seq: int = 0
    refused: str | None = None
    #: the turns the side held when it refused (a later hello beyond them clears it)
    refused_at: int = 0
    last_heard: float | None = None


@dataclass
class RemoteGameStatus:
    game: StoredRemoteGame
    invitation: Invitation = field(repr=False)
    sides: dict[str, SideStatus] = field(default_factory=lambda: {r: SideStatus()
                                                                  for r in ROLES})
    #: roles whose table joined (said hello) at least once, kept in the store
    joined: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.joined |= self.game.joined


class HubRemoteGames:
    """The remote games of the hub whose store and identities are given."""

    #: the hub's subscription to every remote game's topics (``HubClient``)
    topic_filter = f"{TOPIC_ROOT}/+/+"

    @staticmethod
    def follows(topic: str) -> bool:
        """Whether ``topic`` is a remote game's (``handle`` takes it)."""
        return topic.startswith(TOPIC_ROOT + "/")

    def __init__(self, store: GameStore, event: str, identities: HubIdentities, *,
                 lock: Any = None, clock: Callable[[], float] = time.monotonic):
        #: held around every use of the store (the hub's: ``HubIngest.lock``, shared with
        #: the broker's thread and the pages)
        self.lock = lock if lock is not None else threading.RLock()
        with self.lock:
            self.stored = StoredRemoteGames(store)
        self.event = event
        self.identities = identities
        self._clock = clock
        self.games: dict[str, RemoteGameStatus] = {}
        #: messages on remote topics not believed (dropped or refused), and the last reasons
        self.refused = 0
        self.problems: list[str] = []
        self.listeners: list[Callable[[], None]] = []
        self.reload()

    def reload(self) -> None:
        with self.lock:
            games = self.stored.games()
            self.games = {g.game_id: self.games.get(g.game_id) or RemoteGameStatus(
                g, Invitation(bytes.fromhex(g.secret))) for g in games}

    # ------------------------------------------------------------------ arranging

    def arrange(self, host_table: str, guest_table: str, players: list[str],
                rules: str) -> StoredRemoteGame:
        """A new remote game between two of the event's tables (each with a valid key);
        ArrangeError naming what is wrong."""
        host_table, guest_table = host_table.strip(), guest_table.strip()
        for name, which in ((host_table, "host table"), (guest_table, "guest table")):
            if not NAME.fullmatch(name):
                raise ArrangeError(f"{which} {name[:64]!r}: name one of the event's tables")
        if host_table == guest_table:
            raise ArrangeError(f"both sides are table {host_table}: choose two tables")
        self.identities.refresh(force=True)
        keyed = self.identities.tables(valid_only=True)
        missing = [t for t in (host_table, guest_table) if t not in keyed]
        if missing:
            raise ArrangeError(f"table {', '.join(missing)} has no valid key at this hub "
                               "(`homeworlds hub-keys … issue TABLE`)")
        names = tuple(p.strip() for p in players)
        if len(names) != 2 or not all(0 < len(p) <= 40 and p.isprintable() for p in names) \
                or names[0] == names[1]:
            raise ArrangeError("players: name two different players (at most 40 "
                               "characters each), seat 0 at the host table first")
        if rules not in PRESETS:
            raise ArrangeError(f"rules {rules[:40]!r}: one of {', '.join(sorted(PRESETS))}")
        if not preset(rules).min_players <= 2 <= preset(rules).max_players:
            raise ArrangeError(f"the {rules} rules are not for two players")
        with self.lock:
            if len(self.games) >= MAX_GAMES:
                raise ArrangeError(f"the hub holds {MAX_GAMES} remote games already")
            invitation = Invitation.new()
            game = StoredRemoteGame(invitation.game_id, invitation.secret.hex(), host_table,
                                    guest_table, names, rules, utc_now(), None)
            self.stored.add(game)
            self.games[game.game_id] = RemoteGameStatus(game, invitation)
            self._changed()
        log.info("hub: remote game %s arranged: %s (table %s) v %s (table %s), rules %s",
                 game.game_id, names[0], host_table, names[1], guest_table, rules)
        return game

    def acl_games(self) -> list[tuple[str, str, str]]:
        """(game id, host table, guest table) of every game, for the broker's ACL."""
        with self.lock:
            return [(s.game.game_id, s.game.host_table, s.game.guest_table)
                    for s in self.games.values()]

    def invitations(self, game_id: str) -> list[tuple[str, bytes]]:
        """(topic, signed message) of the game's invitation to each of its tables; a table
        without a valid key now gets none."""
        with self.lock:
            status = self.games[game_id]
            game = status.game
            out = []
            for role, table in zip(ROLES, game.tables, strict=True):
                topic = invite_topic(self.event, table)
                message = HubInvitation(self.event, table, game.game_id, role, game.players,
                                        game.rules, game.host_table, game.guest_table,
                                        status.invitation)
                key = self.identities.key_for(table)
                if key is None:
                    continue
                signed = self.identities.sign_for(table, topic, message.payload(key))
                if signed is not None:
                    out.append((topic, signed))
            return out

    def unjoined(self) -> list[str]:
        """Games one of whose tables has never said hello (kept in the store; its
        invitation is sent again when the hub connects: a broker restarted without
        persistence lost it). A game both tables joined is never sent again: a table
        that has gone on to another game would see the old invitation again."""
        with self.lock:
            return [g for g, s in self.games.items()
                    if any(r not in s.joined for r in ROLES)]

    # ------------------------------------------------------------------ following

    def handle(self, topic: str, data: bytes) -> None:
        """A message on a remote game's topic (from the MQTT thread); never raises for what
        arrived."""
        parts = topic.split("/")
        if len(parts) != 4 or "/".join(parts[:2]) != TOPIC_ROOT or parts[3] not in ROLES:
            return
        game_id, role = parts[2], parts[3]
        with self.lock:
            status = self.games.get(game_id)
            if status is None:
                self.refused += 1  # not ours: dropped before any MAC is computed
                return
            if not data:
                return
            if len(data) > MAX_BYTES + MAX_HEADER + 1:
                self._refuse(topic, f"{len(data)} bytes: larger than a remote message")
                return
            try:
                signed = open_signed(data)
                payload = signed.verify(status.invitation.key(role), topic)
                message = read_payload(payload, game_id)
            except (SignatureError, MessageError) as exc:
                self._refuse(topic, str(exc))
                return
            self._apply(status, role, signed.seq, message)
            self._changed()

    def _apply(self, status: RemoteGameStatus, role: str, seq: int, message) -> None:
        side = status.sides[role]
        side.last_heard = self._clock()
        if isinstance(message, Offline):
            side.online = False  # a last will carries the number of its connect
            return
        if seq <= side.seq:
            return  # older than what the hub believes: a replay, or out of order
        side.seq = seq
        if role not in status.joined:
            try:
                self.stored.joined(status.game.game_id, role)
                status.joined.add(role)
            except StoreError as exc:  # kept in memory: tried again with its next message
                log.warning("hub: remote game %s: could not keep that table %s joined: %s",
                            status.game.game_id, status.game.tables[ROLES.index(role)], exc)
        if isinstance(message, Hello):
            side.online, side.turns = True, message.turns
        elif isinstance(message, TurnMessage):
            side.online = True
            side.turns = max(side.turns or 0, message.number)
        elif isinstance(message, Refusal):
            where = f"turn {message.number}: " if message.number is not None else ""
            side.refused = (where + message.reason)[:MAX_REASON]
            side.refused_at = side.turns or 0
        if side.refused is not None and (side.turns or 0) > side.refused_at:
            side.refused = None  # the game went on past it

    def _refuse(self, topic: str, reason: str) -> None:
        self.refused += 1
        text = f"refused a message on {topic}: {reason}"[:300]
        self.problems = (self.problems + [text])[-20:]
        log.warning("hub: %s", text)

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()

    def overview(self, table_turns: Callable[[str], int | None] = lambda t: None
                 ) -> list[dict]:
        """Every game for the pages: its tables and players, each side's state and turn
        count, and what the game waits for. ``table_turns(table)``: the turns of the
        table's own published game (None: unknown)."""
        with self.lock:
            statuses = list(self.games.values())
        rows = []
        for status in statuses:
            game = status.game
            sides = []
            for role, table, player in zip(ROLES, game.tables, game.players, strict=True):
                side = status.sides[role]
                turns = side.turns
                published = table_turns(table)
                state = {None: "not joined yet", True: "online", False: "offline"}[
                    side.online]
                if side.online is None and role in status.joined:
                    state = "joined (no news since the hub started)"
                sides.append({"role": role, "table": table, "player": player,
                              "state": state,
                              "turns": turns if turns is not None else published,
                              "refused": side.refused})
            rows.append({"game": game.game_id, "rules": game.rules, "created": game.created,
                         "sides": sides, "status": _status_text(sides)})
        return rows


def _status_text(sides: list[dict]) -> str:
    waiting = [s for s in sides if s["state"] == "not joined yet"]
    if waiting:
        return ("invited: waiting for table " + " and ".join(s["table"] for s in waiting)
                + " to accept")
    away = [s for s in sides if s["state"] == "offline"]
    if away:
        return "paused: table " + " and ".join(s["table"] for s in away) + " is offline"
    refused = [s for s in sides if s["refused"]]
    turns = max((s["turns"] or 0 for s in sides), default=0)
    if refused:
        return (f"paused: table {refused[0]['table']} refused a message of the other table "
                "(the reason is below)")
    return f"playing: {turns} turns"
