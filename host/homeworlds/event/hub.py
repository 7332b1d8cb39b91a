"""The hub's record of an event: every table's games, kept in the hub's own game store
(docs/event.md, "The hub").

``HubIngest`` reads the messages the tables publish (already received from the broker;
it knows no MQTT) and writes them to the store as the table did. A message counts only
when the table that owns its topic signed it and its sequence number is new
(``event.identity``, docs/event.md "Identity") and every field is in range
(``payloads.check_*``). A turn goes in when it is the game's next one and the rules engine
accepts it, a later turn waits for its predecessors, which are asked for again
(``request``); a repeated turn or result is ignored. A result goes in when the hub's replay
of the turns reaches it, or it is a declared end that agrees with them. A table has a
bounded number of games at the hub. Whatever is refused is logged with its table, topic
and reason, and dropped: the hub never stops for one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from homeworlds.event.identity import HubIdentities, Refused
from homeworlds.event.payloads import (
    DECLARED_KINDS,
    ENGINE_KINDS,
    PayloadError,
    check_event,
    check_online,
    check_result,
    check_snapshot,
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
#: Games a table may have at the hub, and unfinished at once: a table plays one game at a
#: time; an evening's event is a dozen games per table.
MAX_GAMES = 200
MAX_OPEN_GAMES = 3
PROBLEMS_KEPT = 200
#: Games whose missing turns the hub remembers asking for (a state may name unknown uids).
MAX_ASKED = 2000


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


def _checked_payload(kind: str, table: str, payload: bytes) -> dict:
    """The decoded message of topic ``kind``, checked field by field (PayloadError)."""
    data = decode(payload)
    if kind == "online":
        check_online(data)
    elif kind == "state":
        check_snapshot(data)
    elif kind == "turns":
        check_turn(data)
    elif kind == "result":
        check_result(data)
    else:
        check_event(data)
    if data.get("table", table) != table:
        raise PayloadError(f"table: {str(data['table'])[:40]!r} is not the topic's table")
    return data


class HubIngest:
    def __init__(self, store: GameStore, event: str, *,
                 request: Callable[[str, str, int], None] = lambda table, uid, first: None,
                 clock: Callable[[], float] = time.monotonic,
                 request_every: float = REQUEST_EVERY_S,
                 identities: HubIdentities | None = None):
        self.store = store
        #: the tables' keys and the sequence numbers seen (kept in ``store``)
        self.identities = identities or HubIdentities(store, clock=clock)
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
        #: messages refused (not signed by the topic's table, replayed, malformed, false)
        self.refused = 0
        #: refused on the topics of each table that has a key (its card shows the count)
        self.refused_by_table: dict[str, int] = {}
        self.committed = 0
        #: bumped after every change the page shows; listeners are called with it
        self.version = 0
        self.listeners: list[Callable[[int], None]] = []
        #: (table, game uid, number, unix time the hub stored it) of recent commits
        self.recent_commits: deque[tuple[str, str, int, float]] = deque(maxlen=10000)
        self.lock = threading.RLock()
        for stored in self.store.games():
            try:
                self._games[stored.uid] = self._load(stored)
            except ValueError as exc:
                self._problem(f"table {stored.table}: game {stored.uid} in the hub's store "
                              f"does not replay: {exc}")

    # ------------------------------------------------------------------ entry

    def handle(self, topic: str, payload: bytes) -> None:
        """One message from the broker; never raises for what a table sent. A message is
        believed only when it is signed with a valid key of the table that owns its topic
        and its sequence number is new (``HubIdentities``); every refusal is logged with
        the table, the topic and the reason."""
        where = parse_topic(topic)
        if where is None or where[0] != self.event:
            self._refuse(None, topic, f"not a table topic of event {self.event}")
            return
        _, table, kind = where
        if kind in ("request", "invite"):
            return  # the hub's own
        with self.lock:
            try:
                verified = self.identities.verify(table, topic, kind, payload)
            except Refused as exc:
                self._refuse(table, topic, str(exc))
                return
            except StoreError as exc:
                self._problem(f"table {table}: could not check a message on {topic}: {exc} "
                              "(it is asked for again)")
                return
            try:
                data = _checked_payload(kind, table, verified.payload)
            except PayloadError as exc:
                self._refuse(table, topic, f"malformed: {exc}")
                return
            try:
                self.identities.accept(verified, kind, will_seq=data.get("will_seq")
                                       if kind == "online" and data["online"] else None)
            except StoreError as exc:
                self._problem(f"table {table}: could not keep the sequence number of a "
                              f"message on {topic}: {exc} (it is asked for again)")
                return
            status = self.tables.setdefault(table, TableStatus(table))
            status.last_message = self._clock()
            try:
                if kind == "online":
                    status.online = data["online"]
                elif kind == "state":
                    status.snapshot = data
                    self._check_lag(table)
                elif kind == "turns":
                    self._turn(table, data)
                elif kind == "result":
                    self._result(table, data)
                else:
                    status.events.append(data)
            except PayloadError as exc:
                self._refuse(table, topic, str(exc))
                return
            except StoreError as exc:
                self._problem(f"table {table}: could not store a message from {topic}: {exc} "
                              "(it is asked for again)")
                return
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                # A payload that passed the checks but does not fit (a handicap of the
                # wrong type): the message is bad, not the hub.
                self._refuse(table, topic, f"malformed: {type(exc).__name__}: {exc}")
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

    def _game(self, table: str, header: dict) -> _Game:
        uid = header["uid"]
        game = self._games.get(uid)
        if game is None:
            stored = self.store.game_by_uid(uid)
            if stored is None:
                self._check_room(table, uid)
                self.store.create_game(
                    uid, table=table, layout="event", rules=header["rules"],
                    handicaps=header.get("handicaps") or {}, first_seat=header["first_seat"],
                    players=header["players"], alignments=None, started=header["started"])
                stored = self.store.game_by_uid(uid)
                assert stored is not None
            game = self._load(stored)
            self._games[uid] = game
        if game.stored.table != table:
            raise PayloadError(f"game {uid} belongs to table {game.stored.table}")
        return game

    def _check_room(self, table: str, uid: str) -> None:
        """A table plays one game at a time: a new game uid is taken only while the table
        has fewer than ``MAX_OPEN_GAMES`` unfinished games and ``MAX_GAMES`` in all at the
        hub (a table sending more is broken or hostile: the excess is refused)."""
        games = [g for g in self._games.values() if g.stored.table == table]
        if len(games) >= MAX_GAMES:
            raise PayloadError(f"new game {uid}: the table has {len(games)} games at the "
                               f"hub, the most it keeps ({MAX_GAMES})")
        open_games = [g for g in games if not g.finished]
        if len(open_games) >= MAX_OPEN_GAMES:
            raise PayloadError(f"new game {uid}: the table has {len(open_games)} unfinished "
                               f"games at the hub already (at most {MAX_OPEN_GAMES})")

    def _load(self, stored: StoredGame) -> _Game:
        rules = rules_of(stored.rules, stored.handicaps)
        state = GameState(rules, len(stored.players), first_to_move=stored.first_seat)
        turns = self.store.turns(stored.id)
        for t in turns:
            state.push(turn_from_sdg(t.sdg, t.seat, stored.players))
        return _Game(stored, len(turns), state, finished=stored.finished)

    def _turn(self, table: str, data: dict) -> None:
        game = self._game(table, data["game"])
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
            later = game.waiting.pop(game.turns + 1)
            try:
                self._append(table, game, later)
            except PayloadError as exc:
                self._problem(f"table {table}: refused a turn it sent earlier: {exc}")
                break
        for n in [n for n in game.waiting if n <= game.turns]:
            del game.waiting[n]
        if game.result is not None and game.result["after_turn"] <= game.turns:
            pending, game.result = game.result, None
            try:
                self._finish(game, pending)
            except PayloadError as exc:
                self._problem(f"table {table}: refused the result it sent: {exc}")

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
        if game.finished:
            held = self.store.result(game.stored.id)
            if held is not None and (held.kind, sorted(held.winners)) != \
                    (data["kind"], sorted(data["winners"])):
                raise PayloadError(f"game {game.stored.uid}: the result {data['kind']} "
                                   f"{data['winners']} is not the one the hub holds "
                                   f"({held.kind} {list(held.winners)}); a result is never "
                                   "replaced")
            self.duplicates += 1
            return
        if data["after_turn"] > game.turns:
            self._judge(game, data, final=False)
            game.result = data
            self._ask(table, game.stored.uid, game.turns + 1)
            return
        self._finish(game, data)

    def _judge(self, game: _Game, data: dict, *, final: bool = True) -> None:
        """PayloadError unless the result follows from the turns: the rules engine's own
        replay of the stored turns reaches it, or it is a declared end (resigned, agreed
        draw, abandoned, flag) of a game the engine has not ended, consistent in its seats.
        ``final``: the hub holds every turn up to the result."""
        where = f"game {game.stored.uid}, result {data['kind']} after turn {data['after_turn']}"
        kind, winners, by = data["kind"], sorted(data["winners"]), data.get("by_seat")
        if final and data["after_turn"] != game.turns:
            raise PayloadError(f"{where}: the hub holds {game.turns} turns of the game")
        reached = game.state.result
        if kind in ENGINE_KINDS:
            if not final:
                return
            if reached is None:
                raise PayloadError(f"{where}: the hub's replay of the {game.turns} turns "
                                   "has not ended the game")
            if (reached.kind, sorted(reached.winners)) != (kind, winners):
                raise PayloadError(f"{where}: the hub's replay ends it as {reached.kind} "
                                   f"won by seats {list(reached.winners)}, not {winners}")
            return
        if kind not in DECLARED_KINDS:
            raise PayloadError(f"{where}: not a way a game ends")
        if final and reached is not None:
            raise PayloadError(f"{where}: the hub's replay already ended the game "
                               f"({reached.kind})")
        if kind in ("agreed-draw", "abandoned") and winners:
            raise PayloadError(f"{where}: a {kind} game has no winners")
        if kind in ("resigned", "flag") and by is None:
            raise PayloadError(f"{where}: by_seat: which seat {kind}?")
        if kind == "resigned" and not winners and len(game.stored.players) == 2:
            raise PayloadError(f"{where}: with two players the other one wins")

    def _finish(self, game: _Game, data: dict) -> None:
        self._judge(game, data)
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
        self._asked.pop((table, uid), None)
        self._asked[(table, uid)] = now
        while len(self._asked) > MAX_ASKED:  # unknown uids named by states: the oldest go
            del self._asked[next(iter(self._asked))]
        self._request(table, uid, first)

    # ------------------------------------------------------------------ for the page

    def _refuse(self, table: str | None, topic: str, reason: str) -> None:
        self.refused += 1
        if table is not None and table in self.identities.tables():
            # only tables the hub issued keys to: a bounded count for their cards
            self.refused_by_table[table] = self.refused_by_table.get(table, 0) + 1
        who = f"table {table}" if table is not None else "a message"
        self._problem(f"{who}: refused a message on {topic}: {reason}")

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
                    "game": None, "refused": self.refused_by_table.get(name, 0),
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
                        "behind": behind(snap, game.stored.uid, game.turns),
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


def behind(snapshot: dict[str, Any], uid: str, have: int) -> int:
    """Turns the table's retained state names beyond the ``have`` the hub holds (0 when
    it names another game or no count: ``check_snapshot`` let only counts through)."""
    info = snapshot.get("game")
    if not isinstance(info, dict) or info.get("uid") != uid:
        return 0
    turns = info.get("turns")
    return max(0, turns - have) if isinstance(turns, int) else 0
