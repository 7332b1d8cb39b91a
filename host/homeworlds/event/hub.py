"""The hub's record of an event: every table's games, kept in the hub's own game store
(docs/event.md, "The hub").

``HubIngest`` reads the messages the tables publish (already received from the broker;
it knows no MQTT) and writes them to the store as the table did: a turn goes in when it
is the game's next one and the rules engine accepts it, a later turn waits for its
predecessors, which are asked for again (``request``); a repeated turn or result is
ignored. A message that is not one of ours is logged with its table and topic, and
dropped: the hub never stops for one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from homeworlds.event.payloads import (
    PayloadError,
    check_result,
    check_turn,
    decode,
    rules_of,
)
from homeworlds.event.topics import parse_topic
from homeworlds.rules import PIECES, GameState
from homeworlds.store import GameStore, StoredGame, StoredResult, StoreError
from homeworlds.store.records import cooked_position, position_to_json, turn_from_sdg

log = logging.getLogger("homeworlds.hub")

#: Seconds between two requests for the same game's missing turns.
REQUEST_EVERY_S = 1.0
#: Turns a game may hold waiting for a predecessor (a table sending more is broken).
MAX_WAITING = 1000
PROBLEMS_KEPT = 200


@dataclass
class TableStatus:
    name: str
    online: bool | None = None
    snapshot: dict[str, Any] | None = None
    last_message: float = 0.0
    events: deque = field(default_factory=lambda: deque(maxlen=20))


@dataclass
class _Game:
    stored: StoredGame
    turns: int
    state: GameState
    waiting: dict[int, dict] = field(default_factory=dict)
    result: dict | None = None
    finished: bool = False


class HubIngest:
    def __init__(self, store: GameStore, event: str, *,
                 request: Callable[[str, str, int], None] = lambda table, uid, first: None,
                 clock: Callable[[], float] = time.monotonic,
                 request_every: float = REQUEST_EVERY_S):
        self.store = store
        self.event = event
        self._request = request
        self._clock = clock
        self.request_every = request_every
        self.tables: dict[str, TableStatus] = {}
        self._games: dict[str, _Game] = {}
        self._asked: dict[tuple[str, str], float] = {}
        #: problems seen (malformed or illegal messages), newest last
        self.problems: deque[str] = deque(maxlen=PROBLEMS_KEPT)
        self.duplicates = 0
        self.committed = 0
        #: bumped after every change the page shows; listeners are called with it
        self.version = 0
        self.listeners: list[Callable[[int], None]] = []
        #: (table, game uid, number, unix time the hub stored it) of recent commits
        self.recent_commits: deque[tuple[str, str, int, float]] = deque(maxlen=10000)
        self.lock = threading.RLock()

    # ------------------------------------------------------------------ entry

    def handle(self, topic: str, payload: bytes) -> None:
        """One message from the broker; never raises for what a table sent."""
        where = parse_topic(topic)
        if where is None or where[0] != self.event:
            self._problem(f"message on {topic!r}: not a table topic of event {self.event}")
            return
        _, table, kind = where
        with self.lock:
            status = self.tables.setdefault(table, TableStatus(table))
            status.last_message = self._clock()
            try:
                if kind == "online":
                    data = decode(payload) if payload else {"online": False}
                    online = data.get("online")
                    if not isinstance(online, bool):
                        raise PayloadError("online: not true or false")
                    status.online = online
                elif kind == "state":
                    snapshot = decode(payload) if payload else None
                    if snapshot is not None and not isinstance(snapshot.get("game"),
                                                               (dict, type(None))):
                        raise PayloadError("game: not an object or null")
                    status.snapshot = snapshot
                    self._check_lag(table)
                elif kind == "turns":
                    self._turn(table, check_turn(decode(payload)))
                elif kind == "result":
                    self._result(table, check_result(decode(payload)))
                elif kind == "events":
                    status.events.append(decode(payload))
                else:
                    return  # requests are the hub's own
            except PayloadError as exc:
                self._problem(f"table {table}: malformed message on {topic}: {exc}")
                return
            except StoreError as exc:
                self._problem(f"table {table}: could not store a message from {topic}: {exc} "
                              "(it is asked for again)")
                return
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                # A payload that passed the checks but does not fit (a handicap of the
                # wrong type, a seat out of range): the message is bad, not the hub.
                self._problem(f"table {table}: malformed message on {topic}: "
                              f"{type(exc).__name__}: {exc}")
                return
            self._changed()

    def tick(self) -> None:
        """Ask again for what is still missing (a request or its answer may be lost)."""
        with self.lock:
            for table in list(self.tables):
                self._check_lag(table)
            for uid, game in self._games.items():
                if game.waiting or game.result is not None:
                    self._ask(game.stored.table, uid, game.turns + 1)

    # ------------------------------------------------------------------ turns

    def _game(self, table: str, header: dict) -> _Game | None:
        uid = header["uid"]
        game = self._games.get(uid)
        if game is None:
            stored = self.store.game_by_uid(uid)
            if stored is None:
                self.store.create_game(
                    uid, table=table, layout="event", rules=header["rules"],
                    handicaps=header.get("handicaps") or {}, first_seat=header["first_seat"],
                    players=header["players"], alignments=None, started=header["started"])
                stored = self.store.game_by_uid(uid)
                assert stored is not None
            game = self._load(stored)
            self._games[uid] = game
        if game.stored.table != table:
            self._problem(f"table {table}: game {uid} belongs to table {game.stored.table}; "
                          "the message is ignored")
            return None
        return game

    def _load(self, stored: StoredGame) -> _Game:
        rules = rules_of(stored.rules, stored.handicaps)
        state = GameState(rules, len(stored.players), first_to_move=stored.first_seat)
        turns = self.store.turns(stored.id)
        for t in turns:
            state.push(turn_from_sdg(t.sdg, t.seat, stored.players))
        return _Game(stored, len(turns), state, finished=stored.finished)

    def _turn(self, table: str, data: dict) -> None:
        game = self._game(table, data["game"])
        if game is None:
            return
        number = data["number"]
        if number <= game.turns:
            held = self.store.turn(game.stored.id, number)
            if held is not None and (held.seat, held.sdg) != (data["seat"], data["sdg"]):
                raise PayloadError(f"table {table}, game {game.stored.uid}, turn {number}: "
                                   f"{data['sdg']!r} is not the turn the hub holds "
                                   f"({held.sdg!r}); a stored turn is never replaced")
            self.duplicates += 1
            return
        if number > game.turns + 1:
            if len(game.waiting) < MAX_WAITING:
                game.waiting[number] = data
            self._ask(table, game.stored.uid, game.turns + 1)
            return
        self._append(table, game, data)
        while game.turns + 1 in game.waiting:
            self._append(table, game, game.waiting.pop(game.turns + 1))
        for n in [n for n in game.waiting if n <= game.turns]:
            del game.waiting[n]
        if game.result is not None and game.result["after_turn"] <= game.turns:
            self._finish(game, game.result)

    def _append(self, table: str, game: _Game, data: dict) -> None:
        stored = game.stored
        number, seat = data["number"], data["seat"]
        where = f"table {table}, game {stored.uid}, turn {number}"
        if game.finished:
            raise PayloadError(f"{where}: the game is finished")
        if seat != game.state.to_move:
            raise PayloadError(f"{where}: seat {seat} moved, but seat {game.state.to_move} "
                               "is to move")
        try:
            turn = turn_from_sdg(data["sdg"], seat, stored.players)
            after = game.state.copy()
            after.apply_turn(turn)
        except ValueError as exc:
            raise PayloadError(f"{where}: {data['sdg']!r} is not legal here: {exc}") from None
        position = position_to_json(after)
        if data.get("position_json") not in (None, position):
            raise PayloadError(f"{where}: the table's position after the turn is not the "
                               "rules engine's")
        self.store.commit_turn(stored.uid, number, seat, data["sdg"], position, {},
                               data["committed"])
        game.state.push(turn)
        game.turns = number
        self.committed += 1
        self.recent_commits.append((table, stored.uid, number, time.time()))

    # ------------------------------------------------------------------ results

    def _result(self, table: str, data: dict) -> None:
        game = self._game(table, data["game"])
        if game is None:
            return
        if game.finished:
            self.duplicates += 1
            return
        if data["after_turn"] > game.turns:
            game.result = data
            self._ask(table, game.stored.uid, game.turns + 1)
            return
        self._finish(game, data)

    def _finish(self, game: _Game, data: dict) -> None:
        result = StoredResult(data["kind"], tuple(data["winners"]), data.get("by_seat"),
                              data["at"], data["after_turn"])
        self.store.finish_game(game.stored.uid, result)
        game.finished, game.result = True, None

    # ------------------------------------------------------------------ catching up

    def _check_lag(self, table: str) -> None:
        """The table's retained state names more turns (or a result) than the hub has:
        ask for the rest."""
        snapshot = self.tables[table].snapshot
        info = (snapshot or {}).get("game")
        if not isinstance(info, dict) or not isinstance(info.get("uid"), str):
            return
        uid = info["uid"]
        turns = info.get("turns")
        game = self._games.get(uid)
        if game is None:
            stored = self.store.game_by_uid(uid)
            if stored is not None:
                game = self._games[uid] = self._load(stored)
        have = game.turns if game is not None else 0
        ended = info.get("result") is not None
        if (isinstance(turns, int) and turns > have) or (ended and not (game and game.finished)):
            self._ask(table, uid, have + 1)

    def _ask(self, table: str, uid: str, first: int) -> None:
        now = self._clock()
        if now - self._asked.get((table, uid), float("-inf")) < self.request_every:
            return
        self._asked[(table, uid)] = now
        self._request(table, uid, first)

    # ------------------------------------------------------------------ for the page

    def _problem(self, text: str) -> None:
        log.warning("%s", text)
        self.problems.append(text)

    def _changed(self) -> None:
        self.version += 1
        for listener in list(self.listeners):
            listener(self.version)

    def latest(self, table: str) -> tuple[StoredGame, GameState] | None:
        """The table's latest game in the hub and a copy of its position."""
        with self.lock:
            games = [g for g in self._games.values() if g.stored.table == table]
            if not games:
                return None
            game = max(games, key=lambda g: g.stored.id)
            return game.stored, game.state.copy()

    def overview(self) -> list[dict[str, Any]]:
        """Every table at a glance, from the hub's store (and the table's retained state
        for what a store does not hold: online, clocks)."""
        with self.lock:
            out = []
            latest: dict[str, _Game] = {}
            for candidate in self._games.values():
                have = latest.get(candidate.stored.table)
                if have is None or candidate.stored.id > have.stored.id:
                    latest[candidate.stored.table] = candidate
            for name in sorted(set(self.tables) | set(latest)):
                status = self.tables.get(name) or TableStatus(name)
                game = latest.get(name)
                snap = status.snapshot or {}
                link = next((e for e in reversed(status.events)
                             if isinstance(e, dict) and e.get("kind") == "link"), None)
                store_event = next((e for e in reversed(status.events)
                                    if isinstance(e, dict) and e.get("kind") == "store"), None)
                row: dict[str, Any] = {
                    "table": name, "online": status.online, "clocks": snap.get("clocks"),
                    "game": None,
                    "link_up": snap["link_up"] if isinstance(snap.get("link_up"), bool)
                    else None if link is None else bool(link.get("up")),
                    "store_fault": snap.get("store_fault") if "store_fault" in snap
                    else None if store_event is None else store_event.get("fault")}
                if game is not None:
                    state = game.state
                    players = game.stored.players
                    result = state.result
                    row["game"] = {
                        "id": game.stored.id, "uid": game.stored.uid, "players": list(players),
                        "turns": game.turns, "turn_number": game.turns + 1,
                        "to_move": None if game.finished or state.is_over else state.to_move,
                        "to_move_name": None if game.finished or state.is_over
                        else players[state.to_move],
                        "material": material(state),
                        "finished": game.finished,
                        "result": None if result is None else {
                            "kind": result.kind, "winners": list(result.winners)},
                        "waiting": len(game.waiting),
                        "position": cooked_position(position_to_json(state)) or "",
                        "behind": max(0, (snap.get("game") or {}).get("turns", 0) - game.turns)
                        if (snap.get("game") or {}).get("uid") == game.stored.uid else 0,
                    }
                out.append(row)
            return out


def material(state: GameState) -> list[int]:
    """Each seat's ships, counted in pips (a large ship is 3)."""
    counts = [0] * state.players
    for system in state.systems:
        for seat, fleet in enumerate(system.ships):
            counts[seat] += sum(n * PIECES[i].size for i, n in enumerate(fleet))
    return counts
