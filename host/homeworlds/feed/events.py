"""The table feed: one stream of JSON-able events that tells a display what the table shows.

Three kinds of event (docs/display.md, "The feed", has the JSON of each):

* ``SnapshotEvent``: everything a display needs, whole — the game, the position (cooked text),
  the bank, the turn log in SDG, the hints the LEDs show (with the computer's thinking and
  guidance, and an undo's steps back), the game clocks and the result. Sent after every
  tick in which the hints or the clocks' state changed (the tick the LEDs change; the
  time ticking away is counted by the display itself), and to every new or resynced
  subscriber, so a display never needs the events before it.
* ``TurnEvent``: a committed turn, with the position after it.
* ``ResultEvent``: the game ended.

``FeedProducer`` turns a running ``TableSession`` into these events on the table's own
thread; ``FeedHub`` fans them out to any number of asyncio subscribers (the web display,
later MQTT or a hub) through bounded queues. A slow subscriber never holds the table up:
its queue is emptied and refilled with a fresh snapshot (``resynced``). Nothing here
imports a web library: a transport to another host only has to carry ``to_json()``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from homeworlds.rules import PIECES, Discover, GameState, Move, legal_actions

#: Feed events a subscriber may have waiting before it counts as slow and is resynced.
QUEUE_LIMIT = 64

_COLOR_LETTERS = "rygb"


class FeedError(ValueError):
    """A feed event that is not one: names the field and what is wrong with it."""


# ---------------------------------------------------------------------- value types


@dataclass(frozen=True, slots=True)
class Result:
    kind: str
    winners: tuple[int, ...]
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "winners": list(self.winners), "text": self.text}


@dataclass(frozen=True, slots=True)
class GameInfo:
    uid: str | None
    rules: str
    players: tuple[str, ...]
    first_seat: int
    to_move: int
    turn_number: int
    turn_started_at: float | None
    in_setup: bool
    result: Result | None = None

    def to_json(self) -> dict[str, Any]:
        return {"uid": self.uid, "rules": self.rules, "players": list(self.players),
                "first_seat": self.first_seat, "to_move": self.to_move,
                "turn_number": self.turn_number, "turn_started_at": self.turn_started_at,
                "in_setup": self.in_setup,
                "result": None if self.result is None else self.result.to_json()}


@dataclass(frozen=True, slots=True)
class Mistake:
    slot: str
    text: str


@dataclass(frozen=True, slots=True)
class Hints:
    """What the LEDs show, in words: ``lifted`` is the ship in the mover's hand
    ({"seat", "piece", "from"}), ``legal_destinations`` the systems it may move to now
    (``may_discover``: a new system too), ``overpopulated`` [{"system", "color"}]."""

    lifted: Mapping[str, Any] | None = None
    legal_destinations: tuple[str, ...] = ()
    may_discover: bool = False
    overpopulated: tuple[Mapping[str, str], ...] = ()
    red_alert_seat: int | None = None
    mistakes: tuple[Mistake, ...] = ()
    message: str = ""
    guidance: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"lifted": None if self.lifted is None else dict(self.lifted),
                "legal_destinations": list(self.legal_destinations),
                "may_discover": self.may_discover,
                "overpopulated": [dict(o) for o in self.overpopulated],
                "red_alert_seat": self.red_alert_seat,
                "mistakes": [{"slot": m.slot, "text": m.text} for m in self.mistakes],
                "message": self.message,
                "guidance": None if self.guidance is None else dict(self.guidance)}


@dataclass(frozen=True, slots=True)
class SnapshotEvent:
    table: str
    seq: int
    at: float
    game: GameInfo
    position: str
    bank: Mapping[str, int]
    turn_log: tuple[str, ...]
    hints: Hints
    link_up: bool
    clocks: Mapping[str, Any] | None = None
    #: the actions of the turn in progress so far (the position shows them)
    turn_in_progress: tuple[str, ...] = ()

    type = "snapshot"

    def to_json(self) -> dict[str, Any]:
        return {"type": "snapshot", "table": self.table, "seq": self.seq, "at": self.at,
                "game": self.game.to_json(), "position": self.position,
                "bank": dict(self.bank), "turn_log": list(self.turn_log),
                "hints": self.hints.to_json(),
                "clocks": None if self.clocks is None else dict(self.clocks),
                "link_up": self.link_up, "turn_in_progress": list(self.turn_in_progress)}


@dataclass(frozen=True, slots=True)
class TurnEvent:
    table: str
    seq: int
    game_uid: str
    number: int
    seat: int
    sdg: str
    position: str
    committed: str
    elapsed_ms: int | None

    type = "turn"

    def to_json(self) -> dict[str, Any]:
        return {"type": "turn", "table": self.table, "seq": self.seq,
                "game_uid": self.game_uid, "number": self.number, "seat": self.seat,
                "sdg": self.sdg, "position": self.position, "committed": self.committed,
                "elapsed_ms": self.elapsed_ms}


@dataclass(frozen=True, slots=True)
class ResultEvent:
    table: str
    seq: int
    game_uid: str
    kind: str
    winners: tuple[int, ...]
    text: str
    after_turn: int

    type = "result"

    def to_json(self) -> dict[str, Any]:
        return {"type": "result", "table": self.table, "seq": self.seq,
                "game_uid": self.game_uid, "kind": self.kind, "winners": list(self.winners),
                "text": self.text, "after_turn": self.after_turn}


FeedEvent = SnapshotEvent | TurnEvent | ResultEvent


def encode(event: FeedEvent) -> str:
    """The event as one line of JSON (what every transport carries)."""
    return json.dumps(event.to_json(), ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------------- reading JSON


def _get(data: Mapping[str, Any], key: str, kinds: type | tuple, where: str,
         optional: bool = False) -> Any:
    if key not in data:
        if optional:
            return None
        raise FeedError(f"{where}.{key}: missing")
    value = data[key]
    if value is None and optional:
        return None
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise FeedError(f"{where}.{key}: {value!r} is not a {_kind_name(kinds)}")
    if not isinstance(value, kinds):
        raise FeedError(f"{where}.{key}: {value!r} is not a {_kind_name(kinds)}")
    return value


def _kind_name(kinds: type | tuple) -> str:
    names = {int: "number", float: "number", str: "string", list: "list", dict: "object",
             bool: "boolean"}
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in kinds))


def _ints(values: Any, where: str) -> tuple[int, ...]:
    if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise FeedError(f"{where}: {values!r} is not a list of seat numbers")
    return tuple(values)


def _strings(values: Any, where: str) -> tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise FeedError(f"{where}: {values!r} is not a list of strings")
    return tuple(values)


def _result(data: Any, where: str) -> Result | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise FeedError(f"{where}: {data!r} is not an object")
    return Result(_get(data, "kind", str, where), _ints(data.get("winners"), where + ".winners"),
                  _get(data, "text", str, where))


def event_from_json(data: Any) -> FeedEvent:
    """A feed event from its JSON form (e.g. received from another host); FeedError names
    the field that is wrong."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise FeedError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise FeedError(f"an event is a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    if kind == "snapshot":
        g = _get(data, "game", dict, "snapshot")
        h = _get(data, "hints", dict, "snapshot")
        bank = _get(data, "bank", dict, "snapshot")
        for key, count in bank.items():
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise FeedError(f"snapshot.bank.{key}: {count!r} is not a piece count")
        mistakes = _get(h, "mistakes", list, "snapshot.hints")
        for m in mistakes:
            if not isinstance(m, dict) or not isinstance(m.get("slot"), str) \
                    or not isinstance(m.get("text"), str):
                raise FeedError(f"snapshot.hints.mistakes: {m!r} is not "
                                "{\"slot\": str, \"text\": str}")
        over = _get(h, "overpopulated", list, "snapshot.hints")
        game = GameInfo(
            _get(g, "uid", str, "snapshot.game", optional=True),
            _get(g, "rules", str, "snapshot.game"),
            _strings(g.get("players"), "snapshot.game.players"),
            _get(g, "first_seat", int, "snapshot.game"),
            _get(g, "to_move", int, "snapshot.game"),
            _get(g, "turn_number", int, "snapshot.game"),
            _get(g, "turn_started_at", (int, float), "snapshot.game", optional=True),
            _get(g, "in_setup", bool, "snapshot.game"),
            _result(g.get("result"), "snapshot.game.result"))
        hints = Hints(
            _get(h, "lifted", dict, "snapshot.hints", optional=True),
            _strings(h.get("legal_destinations", []), "snapshot.hints.legal_destinations"),
            bool(h.get("may_discover", False)),
            tuple(dict(o) for o in over if isinstance(o, dict)),
            _get(h, "red_alert_seat", int, "snapshot.hints", optional=True),
            tuple(Mistake(m["slot"], m["text"]) for m in mistakes),
            h.get("message", "") if isinstance(h.get("message", ""), str) else "",
            _get(h, "guidance", dict, "snapshot.hints", optional=True))
        return SnapshotEvent(
            _get(data, "table", str, "snapshot"), _get(data, "seq", int, "snapshot"),
            float(_get(data, "at", (int, float), "snapshot")), game,
            _get(data, "position", str, "snapshot"), dict(bank),
            _strings(data.get("turn_log"), "snapshot.turn_log"), hints,
            _get(data, "link_up", bool, "snapshot"),
            _get(data, "clocks", dict, "snapshot", optional=True),
            _strings(data.get("turn_in_progress", []), "snapshot.turn_in_progress"))
    if kind == "turn":
        return TurnEvent(
            _get(data, "table", str, "turn"), _get(data, "seq", int, "turn"),
            _get(data, "game_uid", str, "turn"), _get(data, "number", int, "turn"),
            _get(data, "seat", int, "turn"), _get(data, "sdg", str, "turn"),
            _get(data, "position", str, "turn"), _get(data, "committed", str, "turn"),
            _get(data, "elapsed_ms", int, "turn", optional=True))
    if kind == "result":
        return ResultEvent(
            _get(data, "table", str, "result"), _get(data, "seq", int, "result"),
            _get(data, "game_uid", str, "result"), _get(data, "kind", str, "result"),
            _ints(data.get("winners"), "result.winners"), _get(data, "text", str, "result"),
            _get(data, "after_turn", int, "result"))
    raise FeedError(f"unknown event type {kind!r} (types: snapshot, turn, result)")


# ---------------------------------------------------------------------- positions


def _position_text(state: GameState) -> str:
    """The feed's ``position``: the cooked text of the position (``store.records``), empty
    when the cooked format cannot hold it (more than two seats)."""
    from homeworlds.store.records import cooked_position, position_to_json

    return cooked_position(position_to_json(state)) or ""


def bank_counts(state: GameState) -> dict[str, int]:
    return {PIECES[i].to_text(): state.bank[i] for i in range(12)}


def overpopulations(state: GameState) -> tuple[dict[str, str], ...]:
    return tuple({"system": s.name, "color": _COLOR_LETTERS[c]}
                 for s in state.systems for c in s.overpopulated_colors())


def result_of(state: GameState, ended_by: str | None, players: Sequence[str]) -> Result | None:
    result = state.result
    if result is None and ended_by is None:
        return None
    kind = ended_by or (result.kind if result is not None else "")
    winners = tuple(result.winners) if result is not None else ()
    if kind == "abandoned":
        text = "game abandoned"
    elif not winners:
        text = "draw by agreement" if kind == "agreed-draw" else "draw"
    else:
        text = " and ".join(players[w] for w in winners) + " wins" + (
            " (resignation)" if kind == "resigned" else "")
    return Result(kind, winners, text)


def _iso(wall: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(wall, UTC).isoformat(timespec="milliseconds")


# ---------------------------------------------------------------------- producer


@dataclass
class _GameMarks:
    uid: str
    started_at: float
    record_length: int
    result_sent: bool = False


class FeedProducer:
    """Turns a ``TableSession`` into feed events, on the thread that runs the table.

    ``tick()`` listens to the session's tick and ``committed(commit)`` to its committed
    turns, both at ``Stage.FEED`` (``web.live.attach_feed``): a snapshot when the hints
    changed, a turn event per commit (after the game store has it).
    ``uid`` gives the game's store uid (the recorder's); without it each game gets its own.
    Every event goes to each of ``sinks`` (e.g. ``FeedHub.publish_threadsafe``, an MQTT
    publisher): a sink must not block (the hub only hands the event to its loop)."""

    def __init__(self, session, *, table: str, rules_name: str,
                 uid: Callable[[], str | None] | None = None,
                 wall_clock: Callable[[], float] = time.time,
                 sinks: Sequence[Callable[[FeedEvent], None]] = ()):
        self.session = session
        self.table = table
        self.rules_name = rules_name
        self._uid = uid
        self._wall = wall_clock
        self.sinks: list[Callable[[FeedEvent], None]] = list(sinks)
        self._seq = 0
        self._key: object = None
        self._marks: _GameMarks | None = None
        self._turn_log: list[str] = []
        self._lifted_cache: tuple[object, tuple[tuple[str, ...], bool]] | None = None
        #: set by an undo (``TableControl``): the withdrawn turn and the position the
        #: players must restore, shown until the table shows it (merged with the session's
        #: restore steps into ``hints.guidance``, see ``guidance_json``)
        self.guidance: dict[str, Any] | None = None
        self.latest: SnapshotEvent | None = None
        self._lock = threading.Lock()

    # ---- game identity ----

    def _game(self) -> _GameMarks:
        tracker = self.session.tracker
        uid = self._uid() if self._uid is not None else None
        marks = self._marks
        if marks is None or (uid is not None and uid != marks.uid) or \
                len(tracker.record) < marks.record_length and not tracker.record:
            marks = _GameMarks(uid or uuid.uuid4().hex, self._wall(), len(tracker.record))
            self._marks = marks
            self._turn_log = []
        return marks

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _emit(self, event: FeedEvent) -> None:
        for sink in self.sinks:
            sink(event)

    # ---- events ----

    def committed(self, commit) -> None:
        """The tracker committed ``commit``: send the turn (and the result if it ended)."""
        from homeworlds.store.records import turn_to_sdg

        tracker = self.session.tracker
        marks = self._game()
        now = self._wall()
        number = len(tracker.record)
        elapsed = round((now - marks.started_at) * 1000) if marks.started_at else None
        timed = getattr(self.session, "last_turn_time", None)
        if timed is not None and timed.seat == commit.seat:
            elapsed = timed.elapsed_ms  # the mover's clock: pauses are not counted
        sdg = turn_to_sdg(commit.turn, tracker.players)
        position = _position_text(commit.state)
        marks.started_at = now
        marks.record_length = number
        self.guidance = None
        with self._lock:
            event = TurnEvent(self.table, self._next_seq(), marks.uid, number, commit.seat, sdg,
                              position, _iso(now), elapsed)
        self._emit(event)
        self._maybe_result()

    def _maybe_result(self) -> None:
        tracker = self.session.tracker
        marks = self._game()
        result = result_of(tracker.state, tracker.ended_by, tracker.players)
        if result is None or marks.result_sent:
            return
        marks.result_sent = True
        with self._lock:
            event = ResultEvent(self.table, self._next_seq(), marks.uid, result.kind,
                                result.winners, result.text, len(tracker.record))
        self._emit(event)

    def tick(self) -> SnapshotEvent | None:
        """After the session's tick: a snapshot when what the table shows changed."""
        session = self.session
        tracker = session.tracker
        status = session.status
        view = session.tick_view()  # the very view the LEDs show in this tick
        partial = status.partial
        if self.guidance is not None and partial is not None and not partial.actions \
                and status.phase == "playing":
            self.guidance = None  # the table shows the restored position again
        shown = self._shown()
        clocks = getattr(session, "clocks", None)
        key = (len(tracker.record), tracker.state.to_move, tracker.ended_by,
               tracker.state.result is not None, view.lifted, view.mistake_slots,
               view.red_alert_seat, view.link_down, status.phase, status.message,
               tuple(partial.actions) if partial is not None else None,
               self._uid() if self._uid is not None else None,
               None if self.guidance is None else id(self.guidance), shown,
               None if clocks is None else clocks.state_key())
        if key == self._key and self.latest is not None:
            return None
        self._key = key
        if tracker.is_over:
            self._maybe_result()
        snapshot = self.snapshot(view)
        self._emit(snapshot)
        return snapshot

    def snapshot(self, view=None) -> SnapshotEvent:
        """The whole table now (also sent to a subscriber that joins or falls behind)."""
        from homeworlds.store.records import turn_to_sdg

        session = self.session
        tracker = session.tracker
        view = view or session.tick_view()
        status = session.status
        marks = self._game()
        state = tracker.state
        record = tracker.record
        if len(self._turn_log) > len(record):
            self._turn_log = []
        for _seat, turn in record[len(self._turn_log):]:
            self._turn_log.append(turn_to_sdg(turn, tracker.players))
        partial = status.partial
        shown = partial.state if partial is not None and partial.actions else state
        result = result_of(state, tracker.ended_by, tracker.players)
        lifted = None
        destinations: tuple[str, ...] = ()
        may_discover = False
        if view.lifted is not None:
            origin = view.system_at.get(view.lifted.origin_slot)
            lifted = {"seat": view.lifted.seat, "piece": view.lifted.piece.to_text(),
                      "from": origin}
            if origin is not None:
                destinations, may_discover = self._destinations(view, shown, origin)
        layout = session.layout
        mistakes = tuple(Mistake(layout.slots[s].title + (
            f" ({view.system_at[s]})" if s in view.system_at else ""),
            status.message or "this slot differs from what the rules allow")
            for s in sorted(view.mistake_slots))
        hints = Hints(lifted, destinations, may_discover, overpopulations(shown),
                      view.red_alert_seat, mistakes, status.message, self.guidance_json())
        clocks_feed = getattr(session, "clocks_feed", None)
        clocks = clocks_feed() if clocks_feed is not None else None
        game = GameInfo(marks.uid, self.rules_name, tuple(tracker.players), tracker.first_seat,
                        state.to_move, len(record) + 1, marks.started_at, state.in_setup,
                        result)
        with self._lock:
            snapshot = SnapshotEvent(self.table, self._next_seq(), self._wall(), game,
                                _position_text(shown), bank_counts(shown),
                                tuple(self._turn_log), hints, session.link_up, clocks,
                                tuple(str(a) for a in partial.actions)
                                if partial is not None else ())
        self.latest = snapshot
        return snapshot

    def _shown(self):
        """The session's guidance as the lights show it (None: none, or a session without
        a computer seat facility)."""
        shown = getattr(self.session, "guidance_shown", None)
        return shown() if shown is not None else None

    def guidance_json(self) -> dict[str, Any] | None:
        """``hints.guidance``: what the table asks of the players beyond the rules' hints,
        one shape for the three cases (docs/display.md, "The table feed"):

        * ``phase`` "thinking": the computer chooses a turn for ``seat`` (``hint``: a
          learner's hint for that seat);
        * ``phase`` "guiding": the current step of the computer's turn, or of a hint
          (``hint`` true), in words (``text``) and as slots (``kind``, ``piece``,
          ``lift_slot``, ``put_slot``, ``from_bank``, ``new_system``, ``token_seat``,
          ``steps_left``, ``steps_total``, ``current``, ``steps``, ``mistakes``);
        * ``phase`` "restore": after an undo, the withdrawn turn (``withdrawn_turn``,
          ``seat``, ``sdg``), the position to restore (``restore``, cooked text) and,
          while the LEDs guide the players back, the current step as for "guiding"."""
        shown = self._shown()
        undo = self.guidance
        if shown is None and undo is None:
            return None
        players = self.session.tracker.players
        out: dict[str, Any] = {}
        if shown is not None and (undo is None or shown.restore):
            out = shown.to_json()
            out["hint"] = out.pop("suggestion")
            out.pop("restore", None)
            if shown.phase == "thinking":
                who = players[shown.seat] if 0 <= shown.seat < len(players) else \
                    f"seat {shown.seat}"
                out["text"] = (f"the computer is thinking of a hint for {who}…"
                               if shown.suggestion else f"{who} (the computer) is thinking…")
            if shown.restore:
                out["phase"] = "restore"
        if undo is not None:
            step_text = out.get("text")
            out = {**out, **undo, "phase": "restore"}
            if step_text:
                out["text"] = step_text
        return out

    def _destinations(self, view, position: GameState, origin_name: str
                      ) -> tuple[tuple[str, ...], bool]:
        """The systems the lifted ship may move to now — the same question the LED
        renderer asks the rules (hints.render ``_permissions``)."""
        lifted = view.lifted
        key = (lifted, origin_name, id(view.turn), len(self.session.tracker.record))
        if self._lifted_cache is not None and self._lifted_cache[0] == key:
            return self._lifted_cache[1]
        origin = position.system(origin_name)
        out: tuple[tuple[str, ...], bool] = ((), False)
        if origin is not None and position.result is None:
            turn = view.turn
            if turn is not None and turn.seat == lifted.seat:
                names: list[str] = []
                discover = False
                for action in legal_actions(turn, kinds=(Move, Discover), system=origin.name):
                    if not isinstance(action, Move | Discover) or action.piece != lifted.piece:
                        continue
                    if type(action) is Move:
                        target = position.system(action.destination)
                        name = target.name if target is not None else action.destination
                        if name not in names:
                            names.append(name)
                    else:
                        discover = True
                out = (tuple(names), discover)
            elif turn is None and view.active_seat == lifted.seat and \
                    origin.has_access(lifted.seat, 1):
                sizes = origin.star_sizes()
                out = (tuple(s.name for s in position.systems
                             if s is not origin and not (sizes & s.star_sizes())), True)
        self._lifted_cache = (key, out)
        return out


# ---------------------------------------------------------------------- fan-out


@dataclass(eq=False)
class Subscription:
    """One subscriber's queue of events. Iterate it (``async for``) or ``await get()``."""

    hub: FeedHub
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    resynced: int = 0
    closed: bool = False

    async def get(self) -> FeedEvent | None:
        """The next event; None once the hub closed this subscription."""
        return await self.queue.get()

    def __aiter__(self):
        return self

    async def __anext__(self) -> FeedEvent:
        event = None if self.closed and self.queue.empty() else await self.queue.get()
        if event is None:
            raise StopAsyncIteration
        return event

    def close(self) -> None:
        self.closed = True
        self.hub.unsubscribe(self)


class FeedHub:
    """Fans feed events out to asyncio subscribers; fed from any thread.

    ``publish_threadsafe`` is the producer's sink: it only schedules the delivery on the
    hub's event loop (``loop.call_soon_threadsafe``), so the table loop never waits for a
    subscriber. Each subscriber has a bounded queue; one that falls ``QUEUE_LIMIT``
    events behind loses them and gets the latest snapshot instead (a display resyncs
    from a snapshot anyway). Until ``attach`` gives it a loop, the hub only remembers
    the latest snapshot."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.latest: SnapshotEvent | None = None
        self._subscribers: set[Subscription] = set()
        self.delivered = 0
        self.resyncs = 0
        self.listeners: list[Callable[[FeedEvent], None]] = []

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def unsubscribe(self, subscription: Subscription) -> None:
        """``subscription`` gets no more events (``Subscription.close``)."""
        self._subscribers.discard(subscription)

    def publish_threadsafe(self, event: FeedEvent) -> None:
        if isinstance(event, SnapshotEvent):
            self.latest = event
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._deliver, event)
        except RuntimeError:  # the loop closed between the check and the call
            pass

    def publish(self, event: FeedEvent) -> None:
        """Deliver on the hub's loop thread (tests and in-loop producers)."""
        if isinstance(event, SnapshotEvent):
            self.latest = event
        self._deliver(event)

    def _deliver(self, event: FeedEvent) -> None:
        for listener in self.listeners:
            listener(event)
        for sub in list(self._subscribers):
            try:
                sub.queue.put_nowait(event)
                self.delivered += 1
            except asyncio.QueueFull:
                self._resync(sub)

    def _resync(self, sub: Subscription) -> None:
        while not sub.queue.empty():
            sub.queue.get_nowait()
        sub.resynced += 1
        self.resyncs += 1
        if self.latest is not None:
            sub.queue.put_nowait(self.latest)

    def close_all(self) -> None:
        """On the hub's loop: end every subscription (a server shutting down); each
        subscriber's ``get`` returns None."""
        for sub in list(self._subscribers):
            sub.closed = True
            while not sub.queue.empty():
                sub.queue.get_nowait()
            sub.queue.put_nowait(None)
        self._subscribers.clear()

    def subscribe(self, limit: int = QUEUE_LIMIT) -> Subscription:
        """A new subscriber (on the hub's loop); its first event is the latest snapshot."""
        sub = Subscription(self, asyncio.Queue(limit))
        self._subscribers.add(sub)
        if self.latest is not None:
            sub.queue.put_nowait(self.latest)
        return sub

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)
