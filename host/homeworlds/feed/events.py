"""The table feed: one stream of JSON-able events that tells a display what the table shows.

Four kinds of event (docs/display.md, "The feed", has the JSON of each):

* ``SnapshotEvent``: everything a display needs, whole — the game, the position (cooked text),
  the bank, the turn log in SDG, the hints the LEDs show (with the computer's thinking and
  guidance, and an undo's steps back), the game clocks and the result. Sent after every
  tick in which the hints or the clocks' state changed (the tick the LEDs change; the
  time ticking away is counted by the display itself), and to every new or resynced
  subscriber, so a display never needs the events before it.
* ``TurnEvent``: a committed turn, with the position after it.
* ``ResultEvent``: the game ended.
* ``AnalysisEvent``: who is winning, what threatens, the computer's suggestion, for a
  committed position (docs/analysis.md); made by the display's worker, not by the table.

``FeedProducer`` turns a running ``TableSession`` into these events on the table's own
thread; ``FeedHub`` fans them out to any number of asyncio subscribers (the web display,
later MQTT or a hub) through bounded queues. A slow subscriber never holds the table up:
its queue is emptied and refilled with a fresh snapshot (``resynced``). Nothing here
imports a web library: a transport to another host only has to carry ``to_json()``.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from homeworlds.clock import MAX_PER_TURN_S, MAX_REMAINING_S, PAUSE_REASONS, steady_time
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
    #: Good/Evil: each seat's alignment once an elimination revealed it ("good"/"evil"),
    #: None while it is secret; empty in other games.
    revealed: tuple[str | None, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"uid": self.uid, "rules": self.rules, "players": list(self.players),
                "first_seat": self.first_seat, "to_move": self.to_move,
                "turn_number": self.turn_number, "turn_started_at": self.turn_started_at,
                "in_setup": self.in_setup,
                "result": None if self.result is None else self.result.to_json(),
                "revealed": list(self.revealed)}


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
    #: The rule the mistake breaks, in the rulebook's words ({"rule", "title", "quote",
    #: "book", "file", "section"}; ``rules.citations``), or None.
    rule: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"lifted": None if self.lifted is None else dict(self.lifted),
                "legal_destinations": list(self.legal_destinations),
                "may_discover": self.may_discover,
                "overpopulated": [dict(o) for o in self.overpopulated],
                "red_alert_seat": self.red_alert_seat,
                "mistakes": [{"slot": m.slot, "text": m.text} for m in self.mistakes],
                "message": self.message,
                "guidance": None if self.guidance is None else dict(self.guidance),
                "rule": None if self.rule is None else dict(self.rule)}


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
    #: The same position as ``position``, for any number of seats: per system its
    #: ``name``, ``home_of`` (seat or None), ``stars`` and per seat its ``ships`` (piece
    #: texts); what the live map draws when the cooked text cannot hold the seats.
    systems: tuple[Mapping[str, Any], ...] = ()
    #: the seat that played each turn of ``turn_log``
    turn_seats: tuple[int, ...] = ()
    #: the last committed turn: {"number", "seat", "sdg", "before"} (``before``: the
    #: position before it, cooked text), so that a display can show what it did; None when
    #: unknown (no turn yet, a resumed game's first snapshot, after an undo)
    last_turn: Mapping[str, Any] | None = None
    #: the table's admin settings now: {"hint_level", "brightness"} (the admin page)
    settings: Mapping[str, Any] | None = None

    type = "snapshot"

    def to_json(self) -> dict[str, Any]:
        return {"type": "snapshot", "table": self.table, "seq": self.seq, "at": self.at,
                "game": self.game.to_json(), "position": self.position,
                "bank": dict(self.bank), "turn_log": list(self.turn_log),
                "hints": self.hints.to_json(),
                "clocks": None if self.clocks is None else dict(self.clocks),
                "link_up": self.link_up, "turn_in_progress": list(self.turn_in_progress),
                "systems": [dict(system) for system in self.systems],
                "turn_seats": list(self.turn_seats),
                "last_turn": None if self.last_turn is None else dict(self.last_turn),
                "settings": None if self.settings is None else dict(self.settings)}


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
    #: Good/Evil: the alignments revealed at the end of this turn, (seat, alignment).
    revealed: tuple[tuple[int, str], ...] = ()

    type = "turn"

    def to_json(self) -> dict[str, Any]:
        return {"type": "turn", "table": self.table, "seq": self.seq,
                "game_uid": self.game_uid, "number": self.number, "seat": self.seat,
                "sdg": self.sdg, "position": self.position, "committed": self.committed,
                "elapsed_ms": self.elapsed_ms,
                "revealed": [{"seat": seat, "alignment": alignment}
                             for seat, alignment in self.revealed]}


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


#: Threats an analysis may name (``ai.threats.KINDS``), and how many it may carry.
THREAT_KINDS = ("win-in-one", "forced-win", "home-in-danger", "overpopulation")
MAX_THREATS = 32


@dataclass(frozen=True, slots=True)
class AnalysisEvent:
    """The computer's view of a committed position, for spectators (docs/analysis.md):
    ``win`` the probability that each seat wins (by seat, summing to 1), ``threats``
    [{"kind", "seat", "words", "systems", "turn"}], ``suggested`` the computer's turn for
    the player to move ({"seat", "turn"}; None in tournament mode, ``hidden`` then True).
    Made by the display's analysis worker (``web.analysis``), never on the table's loop;
    ``seq`` is the analysed snapshot's, ``position`` its text, so that a page shows an
    analysis only beside the position it belongs to."""

    table: str
    seq: int
    game_uid: str | None
    turn_number: int
    to_move: int
    position: str
    phase: str
    win: tuple[float, ...]
    threats: tuple[Mapping[str, Any], ...]
    suggested: Mapping[str, Any] | None
    hidden: bool
    seconds: float

    type = "analysis"

    def to_json(self) -> dict[str, Any]:
        return {"type": "analysis", "table": self.table, "seq": self.seq,
                "game_uid": self.game_uid, "turn_number": self.turn_number,
                "to_move": self.to_move, "position": self.position, "phase": self.phase,
                "win": list(self.win), "threats": [dict(t) for t in self.threats],
                "suggested": None if self.suggested is None else dict(self.suggested),
                "hidden": self.hidden, "seconds": self.seconds}


FeedEvent = SnapshotEvent | TurnEvent | ResultEvent | AnalysisEvent


def encode(event: FeedEvent) -> str:
    """The event as one line of JSON (what every transport carries)."""
    return json.dumps(event.to_json(), ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------------- reading JSON


#: The most a seat's clock may show (``clock.MAX_REMAINING_S``).
MAX_CLOCK_MS = round(MAX_REMAINING_S * 1000)
#: The longest delay of a turn.
MAX_DELAY_MS = round(MAX_PER_TURN_S * 1000)
#: The most seats a feed's clocks may have.
MAX_CLOCK_SEATS = 8


def _moment(value: float | None, where: str) -> float | None:
    """A moment of the host's steady clock (seconds since the epoch), finite and after
    2000 and before 2200, or None."""
    if value is None:
        return None
    if not (math.isfinite(value) and 946684800 <= value <= 7258118400):
        raise FeedError(f"{where}: {value!r} is not a moment (seconds since 1970, "
                        "2000 to 2200)")
    return float(value)


def _clocks(value: Any, where: str) -> dict[str, Any] | None:
    """The snapshot's game clocks, every value range-checked (a display shows them as
    they come: a negative or absurd clock is refused here, not shown)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise FeedError(f"{where}: {value!r} is not an object")
    seats = value.get("seats")
    if not isinstance(seats, list) or not 1 <= len(seats) <= MAX_CLOCK_SEATS:
        raise FeedError(f"{where}.seats: not a list of 1 to {MAX_CLOCK_SEATS} seats")
    checked = []
    for k, seat in enumerate(seats):
        at = f"{where}.seats[{k}]"
        if not isinstance(seat, dict):
            raise FeedError(f"{at}: {seat!r} is not an object")
        remaining = _get(seat, "remaining_ms", int, at)
        delay = _get(seat, "delay_ms", int, at, optional=True) or 0
        if not 0 <= remaining <= MAX_CLOCK_MS:
            raise FeedError(f"{at}.remaining_ms: {remaining} is out of range (0 to "
                            f"{MAX_CLOCK_MS})")
        if not 0 <= delay <= MAX_DELAY_MS:
            raise FeedError(f"{at}.delay_ms: {delay} is out of range (0 to {MAX_DELAY_MS})")
        checked.append({"remaining_ms": remaining, "running": _get(seat, "running", bool, at),
                        "flagged": _get(seat, "flagged", bool, at), "delay_ms": delay})
        if _get(seat, "left", bool, at, optional=True):  # a player who left the game
            checked[-1]["left"] = True
    paused = value.get("paused")
    if paused is not None and paused not in PAUSE_REASONS:
        raise FeedError(f"{where}.paused: {paused!r} is not one of {', '.join(PAUSE_REASONS)}")
    return {"seats": checked, "paused": paused}


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


def _rule(data: Any, where: str) -> dict[str, str] | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise FeedError(f"{where}: {data!r} is not an object")
    return {key: _get(data, key, str, where)
            for key in ("rule", "title", "quote", "book", "file", "section")}


ALIGNMENT_WORDS = ("good", "evil")
#: The most systems a snapshot may hold (a table has at most a few dozen slots).
MAX_SYSTEMS = 64
_PIECE_TEXTS = frozenset(f"{c}{n}" for c in "rygb" for n in (1, 2, 3))


def _systems(values: Any, where: str) -> tuple[dict[str, Any], ...]:
    """``snapshot.systems``, checked field by field (a page never draws bad data)."""
    if values is None:
        return ()
    if not isinstance(values, list) or len(values) > MAX_SYSTEMS:
        raise FeedError(f"{where}: {str(values)[:40]!r} is not a list of at most "
                        f"{MAX_SYSTEMS} systems")
    out = []
    for k, item in enumerate(values):
        at = f"{where}[{k}]"
        if not isinstance(item, dict):
            raise FeedError(f"{at}: not an object")
        name, home, stars, ships = (item.get("name"), item.get("home_of"), item.get("stars"),
                                    item.get("ships"))
        if not isinstance(name, str) or not 0 < len(name) <= 40:
            raise FeedError(f"{at}.name: {name!r} is not a system name")
        if home is not None and (not isinstance(home, int) or isinstance(home, bool)
                                 or not 0 <= home < 6):
            raise FeedError(f"{at}.home_of: {home!r} is not a seat")
        if not isinstance(stars, list) or not 1 <= len(stars) <= 2 \
                or not all(p in _PIECE_TEXTS for p in stars):
            raise FeedError(f"{at}.stars: {stars!r} is not one or two pieces")
        if not isinstance(ships, list) or not 2 <= len(ships) <= 6 or not all(
                isinstance(f, list) and len(f) <= 36 and all(p in _PIECE_TEXTS for p in f)
                for f in ships):
            raise FeedError(f"{at}.ships: {str(ships)[:40]!r} is not a list of pieces per seat")
        out.append({"name": name, "home_of": home, "stars": list(stars),
                    "ships": [list(f) for f in ships]})
    return tuple(out)


def _revealed_by_seat(values: Any, where: str) -> tuple[str | None, ...]:
    if values is None:
        return ()
    if not isinstance(values, list) or len(values) > 6 or not all(
            v is None or v in ALIGNMENT_WORDS for v in values):
        raise FeedError(f"{where}: {values!r} is not a list of good, evil or null per seat")
    return tuple(values)


def _revealed_now(values: Any, where: str) -> tuple[tuple[int, str], ...]:
    if values is None:
        return ()
    if not isinstance(values, list) or len(values) > 6:
        raise FeedError(f"{where}: {values!r} is not a list of revealed alignments")
    out = []
    for item in values:
        seat = item.get("seat") if isinstance(item, dict) else None
        alignment = item.get("alignment") if isinstance(item, dict) else None
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 6 \
                or alignment not in ALIGNMENT_WORDS:
            raise FeedError(f"{where}: {item!r} is not {{\"seat\": 0-5, \"alignment\": "
                            "\"good\" or \"evil\"}")
        out.append((seat, alignment))
    return tuple(out)


def _result(data: Any, where: str) -> Result | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise FeedError(f"{where}: {data!r} is not an object")
    return Result(_get(data, "kind", str, where), _ints(data.get("winners"), where + ".winners"),
                  _get(data, "text", str, where))


def _last_turn(data: Any, where: str) -> dict[str, Any] | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise FeedError(f"{where}: {data!r} is not an object")
    seat = _get(data, "seat", int, where)
    if not 0 <= seat < MAX_CLOCK_SEATS:
        raise FeedError(f"{where}.seat: {seat} is not a seat")
    return {"number": _get(data, "number", int, where), "seat": seat,
            "sdg": _get(data, "sdg", str, where), "before": _get(data, "before", str, where)}


#: The hint levels a snapshot's settings may name (``hints`` HINT_LEVELS).
SETTING_LEVELS = ("full", "warnings", "minimal")


def _settings(data: Any, where: str) -> dict[str, Any] | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise FeedError(f"{where}: {data!r} is not an object")
    level = _get(data, "hint_level", str, where, optional=True)
    if level is not None and level not in SETTING_LEVELS:
        raise FeedError(f"{where}.hint_level: {level!r} is not one of "
                        f"{', '.join(SETTING_LEVELS)}")
    brightness = _get(data, "brightness", (int, float), where, optional=True)
    if brightness is not None and not 0 <= brightness <= 1:
        raise FeedError(f"{where}.brightness: {brightness!r} is not from 0 to 1")
    return {"hint_level": level, "brightness": brightness}


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
            _moment(_get(g, "turn_started_at", (int, float), "snapshot.game",
                         optional=True), "snapshot.game.turn_started_at"),
            _get(g, "in_setup", bool, "snapshot.game"),
            _result(g.get("result"), "snapshot.game.result"),
            _revealed_by_seat(g.get("revealed"), "snapshot.game.revealed"))
        hints = Hints(
            _get(h, "lifted", dict, "snapshot.hints", optional=True),
            _strings(h.get("legal_destinations", []), "snapshot.hints.legal_destinations"),
            bool(h.get("may_discover", False)),
            tuple(dict(o) for o in over if isinstance(o, dict)),
            _get(h, "red_alert_seat", int, "snapshot.hints", optional=True),
            tuple(Mistake(m["slot"], m["text"]) for m in mistakes),
            h.get("message", "") if isinstance(h.get("message", ""), str) else "",
            _get(h, "guidance", dict, "snapshot.hints", optional=True),
            _rule(h.get("rule"), "snapshot.hints.rule"))
        return SnapshotEvent(
            _get(data, "table", str, "snapshot"), _get(data, "seq", int, "snapshot"),
            _moment(float(_get(data, "at", (int, float), "snapshot")), "snapshot.at") or 0.0,
            game,
            _get(data, "position", str, "snapshot"), dict(bank),
            _strings(data.get("turn_log"), "snapshot.turn_log"), hints,
            _get(data, "link_up", bool, "snapshot"),
            _clocks(data.get("clocks"), "snapshot.clocks"),
            _strings(data.get("turn_in_progress", []), "snapshot.turn_in_progress"),
            _systems(data.get("systems"), "snapshot.systems"),
            _ints(data.get("turn_seats", []), "snapshot.turn_seats"),
            _last_turn(data.get("last_turn"), "snapshot.last_turn"),
            _settings(data.get("settings"), "snapshot.settings"))
    if kind == "turn":
        return TurnEvent(
            _get(data, "table", str, "turn"), _get(data, "seq", int, "turn"),
            _get(data, "game_uid", str, "turn"), _get(data, "number", int, "turn"),
            _get(data, "seat", int, "turn"), _get(data, "sdg", str, "turn"),
            _get(data, "position", str, "turn"), _get(data, "committed", str, "turn"),
            _get(data, "elapsed_ms", int, "turn", optional=True),
            _revealed_now(data.get("revealed"), "turn.revealed"))
    if kind == "result":
        return ResultEvent(
            _get(data, "table", str, "result"), _get(data, "seq", int, "result"),
            _get(data, "game_uid", str, "result"), _get(data, "kind", str, "result"),
            _ints(data.get("winners"), "result.winners"), _get(data, "text", str, "result"),
            _get(data, "after_turn", int, "result"))
    if kind == "analysis":
        return _analysis_from_json(data)
    raise FeedError(f"unknown event type {kind!r} (types: snapshot, turn, result, analysis)")


def _analysis_from_json(data: Mapping[str, Any]) -> AnalysisEvent:
    win = _get(data, "win", list, "analysis")
    if not 1 <= len(win) <= 8 or not all(
            isinstance(p, (int, float)) and not isinstance(p, bool) and 0.0 <= p <= 1.0
            for p in win):
        raise FeedError(f"analysis.win: {win!r} is not a list of probabilities by seat")
    threats = _get(data, "threats", list, "analysis")
    if len(threats) > MAX_THREATS:
        raise FeedError(f"analysis.threats: {len(threats)} threats, more than {MAX_THREATS}")
    checked = []
    for n, t in enumerate(threats):
        where = f"analysis.threats[{n}]"
        if not isinstance(t, dict):
            raise FeedError(f"{where}: {t!r} is not an object")
        kind = _get(t, "kind", str, where)
        if kind not in THREAT_KINDS:
            raise FeedError(f"{where}.kind: {kind!r} is not one of {', '.join(THREAT_KINDS)}")
        checked.append({"kind": kind, "seat": _get(t, "seat", int, where, optional=True),
                        "words": _get(t, "words", str, where),
                        "systems": list(_strings(t.get("systems", []), where + ".systems")),
                        "turn": _get(t, "turn", str, where, optional=True)})
    suggested = _get(data, "suggested", dict, "analysis", optional=True)
    if suggested is not None:
        suggested = {"seat": _get(suggested, "seat", int, "analysis.suggested"),
                     "turn": _get(suggested, "turn", str, "analysis.suggested")}
    return AnalysisEvent(
        _get(data, "table", str, "analysis"), _get(data, "seq", int, "analysis"),
        _get(data, "game_uid", str, "analysis", optional=True),
        _get(data, "turn_number", int, "analysis"), _get(data, "to_move", int, "analysis"),
        _get(data, "position", str, "analysis"), _get(data, "phase", str, "analysis"),
        tuple(float(p) for p in win), tuple(checked), suggested,
        _get(data, "hidden", bool, "analysis"),
        float(_get(data, "seconds", (int, float), "analysis")))


# ---------------------------------------------------------------------- positions


def _position_text(state: GameState) -> str:
    """The feed's ``position``: the cooked text of the position (``store.records``), empty
    when the cooked format cannot hold it (more than two seats)."""
    from homeworlds.store.records import cooked_position, position_to_json

    return cooked_position(position_to_json(state)) or ""


def _systems_of(state: GameState) -> tuple[dict[str, Any], ...]:
    """The feed's ``systems``: the position by system, every seat's ships."""
    from homeworlds.store.records import position_to_json

    return tuple(position_to_json(state)["systems"])


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
                 wall_clock: Callable[[], float] = steady_time,
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
        self._turn_seats: list[int] = []
        #: (record length, cooked position) after the latest commit this producer saw,
        #: and the last turn as the feed tells it (``SnapshotEvent.last_turn``)
        self._after_last: tuple[int, str] | None = None
        self._last_turn: dict[str, Any] | None = None
        self._lifted_cache: tuple[object, tuple[tuple[str, ...], bool]] | None = None
        #: set by an undo (``TableControl``): the withdrawn turn and the position the
        #: players must restore, shown until the table shows it (merged with the session's
        #: restore steps into ``hints.guidance``, see ``guidance_json``)
        self.guidance: dict[str, Any] | None = None
        self.latest: SnapshotEvent | None = None
        self._lock = threading.Lock()

    # ---- game identity ----

    def _game(self, committing: bool = False) -> _GameMarks:
        """This game's marks (new ones for a new game). ``committing``: called for a commit,
        so the record already holds the turn being sent."""
        tracker = self.session.tracker
        uid = self._uid() if self._uid is not None else None
        marks = self._marks
        if marks is None or (uid is not None and uid != marks.uid) or \
                len(tracker.record) < marks.record_length and not tracker.record:
            marks = _GameMarks(uid or uuid.uuid4().hex, self._wall(), len(tracker.record))
            self._marks = marks
            self._turn_log = []
            self._turn_seats = []
            self._after_last = ((0, "") if len(tracker.record) == (1 if committing else 0)
                                else None)
            self._last_turn = None
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
        marks = self._game(committing=True)
        now = self._wall()
        number = len(tracker.record)
        elapsed = round((now - marks.started_at) * 1000) if marks.started_at else None
        timed = getattr(self.session, "last_turn_time", None)
        if timed is not None and timed.seat == commit.seat:
            elapsed = timed.elapsed_ms  # the mover's clock: pauses are not counted
        sdg = turn_to_sdg(commit.turn, tracker.players)
        position = _position_text(commit.state)
        previous = self._after_last
        self._last_turn = ({"number": number, "seat": commit.seat, "sdg": sdg,
                            "before": previous[1]}
                           if previous is not None and previous[0] == number - 1 else None)
        self._after_last = (number, position)
        marks.started_at = now
        marks.record_length = number
        self.guidance = None
        with self._lock:
            event = TurnEvent(self.table, self._next_seq(), marks.uid, number, commit.seat, sdg,
                              position, _iso(now), elapsed,
                              tuple(sorted(getattr(commit, "revealed", {}).items())))
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
        lights = getattr(session, "lights", None)
        key = (getattr(lights, "hint_level", None), getattr(lights, "brightness", None),
               len(tracker.record), tracker.state.to_move, tuple(tracker.state.eliminated),
               tracker.ended_by,
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
        if len(self._turn_log) > len(record):  # an undo
            self._turn_log = []
            self._turn_seats = []
            self._last_turn = None
            self._after_last = None
        for seat, turn in record[len(self._turn_log):]:
            self._turn_log.append(turn_to_sdg(turn, tracker.players))
            self._turn_seats.append(seat)
        last = self._last_turn
        if last is not None and last["number"] != len(record):
            last = None
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
        rule = getattr(status, "rule", None) if status.message else None
        hints = Hints(lifted, destinations, may_discover, overpopulations(shown),
                      view.red_alert_seat, mistakes, status.message, self.guidance_json(),
                      None if rule is None else rule.to_json())
        clocks_feed = getattr(session, "clocks_feed", None)
        clocks = clocks_feed() if clocks_feed is not None else None
        revealed = state.revealed_alignments()
        game = GameInfo(marks.uid, self.rules_name, tuple(tracker.players), tracker.first_seat,
                        state.to_move, len(record) + 1, marks.started_at, state.in_setup,
                        result, tuple(revealed.get(seat) for seat in range(len(tracker.players)))
                        if state.alignments is not None else ())
        with self._lock:
            snapshot = SnapshotEvent(self.table, self._next_seq(), self._wall(), game,
                                _position_text(shown), bank_counts(shown),
                                tuple(self._turn_log), hints, session.link_up, clocks,
                                tuple(str(a) for a in partial.actions)
                                if partial is not None else (), _systems_of(shown),
                                turn_seats=tuple(self._turn_seats), last_turn=last,
                                settings=self._settings())
        self.latest = snapshot
        return snapshot

    def _settings(self) -> dict[str, Any] | None:
        """The admin settings the table runs with (None: a session without lights)."""
        lights = getattr(self.session, "lights", None)
        if lights is None:
            return None
        brightness = getattr(lights, "brightness", None)
        return {"hint_level": getattr(lights, "hint_level", None),
                "brightness": None if brightness is None else float(brightness)}

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
                               if shown.suggestion else f"{who}: {shown.text}" if shown.text
                               else f"{who} (the computer) is thinking…")
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
        #: The latest analysis (sent after the snapshot to a new or resynced subscriber).
        self.latest_analysis: AnalysisEvent | None = None
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
        self._remember(event)
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._deliver, event)
        except RuntimeError:  # the loop closed between the check and the call
            pass

    def publish(self, event: FeedEvent) -> None:
        """Deliver on the hub's loop thread (tests and in-loop producers)."""
        self._remember(event)
        self._deliver(event)

    def _remember(self, event: FeedEvent) -> None:
        if isinstance(event, SnapshotEvent):
            self.latest = event
        elif isinstance(event, AnalysisEvent):
            self.latest_analysis = event

    def _first_events(self) -> list[FeedEvent]:
        """What a new or resynced subscriber gets first: the latest snapshot, and the
        latest analysis when it is of that game."""
        first: list[FeedEvent] = []
        if self.latest is not None:
            first.append(self.latest)
            analysis = self.latest_analysis
            if analysis is not None and analysis.game_uid == self.latest.game.uid:
                first.append(analysis)
        return first

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
        for event in self._first_events():
            sub.queue.put_nowait(event)

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
        """A new subscriber (on the hub's loop); its first event is the latest snapshot
        (then the latest analysis of that game)."""
        sub = Subscription(self, asyncio.Queue(limit))
        self._subscribers.add(sub)
        for event in self._first_events():
            sub.queue.put_nowait(event)
        return sub

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)
