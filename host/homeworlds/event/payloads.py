"""The JSON messages of an event, built from the table's store rows, and checked when the
hub reads them (docs/event.md, "Payloads").

They follow the TABLE FEED shapes (``turn``, ``result``, ``snapshot``) and add what a hub
needs to keep the game without the table: the game's header (``game``: players, rules,
first seat, start) on every turn, the position as the store keeps it (``position_json``)
beside the cooked text. Messages are idempotent: a turn is named by its game's uid and its
number, a result by its game's uid.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from homeworlds.clock import steady_time
from homeworlds.rules import PIECES, GameState, Handicaps, Rules, preset
from homeworlds.store import StoredGame, StoredResult, StoredTurn
from homeworlds.store.records import cooked_position

#: Largest message the hub reads (a whole game's snapshot is a few kB).
MAX_PAYLOAD_BYTES = 256 * 1024


class PayloadError(ValueError):
    """A message that is not one of ours: the reason names the field."""


# ---------------------------------------------------------------------- building


def game_header(game: StoredGame) -> dict[str, Any]:
    """What the hub needs to create the game in its store. Good/Evil alignments are secret
    while the game is played: they are not published."""
    return {"uid": game.uid, "rules": game.rules, "handicaps": game.handicaps,
            "first_seat": game.first_seat, "players": list(game.players),
            "started": game.started}


def turn_message(table: str, game: StoredGame, turn: StoredTurn) -> dict[str, Any]:
    return {"type": "turn", "table": table, "game_uid": game.uid, "number": turn.number,
            "seat": turn.seat, "sdg": turn.sdg, "position": cooked_position(turn.position),
            "position_json": turn.position, "committed": turn.committed,
            "elapsed_ms": None, "game": game_header(game)}


def result_message(table: str, game: StoredGame, result: StoredResult) -> dict[str, Any]:
    return {"type": "result", "table": table, "game_uid": game.uid, "kind": result.kind,
            "winners": list(result.winners), "by_seat": result.by_seat,
            "after_turn": result.after_turn, "at": result.at,
            "text": result_text(game.players, result.kind, result.winners),
            "game": game_header(game)}


def result_text(players: Sequence[str], kind: str, winners: Sequence[int]) -> str:
    if not winners:
        return f"drawn ({kind})"
    names = " and ".join(players[s] if 0 <= s < len(players) else f"seat {s}" for s in winners)
    return f"{names} won ({kind})"


def rules_of(name: str, handicaps: dict[str, Any] | None) -> Rules:
    rules = preset(name)
    if handicaps:
        known = {k: v for k, v in handicaps.items() if k in Handicaps.__dataclass_fields__}
        rules = rules.with_handicaps(**known)
    return rules


def bank_of(state: GameState) -> dict[str, int]:
    return {PIECES[i].to_text(): n for i, n in enumerate(state.bank)}


def snapshot_message(table: str, seq: int, game: StoredGame | None, state: GameState | None,
                     turns: Sequence[StoredTurn], result: StoredResult | None, *,
                     online: bool = True, clocks: dict | None = None) -> dict[str, Any]:
    """The table's retained state: the feed's ``snapshot`` built from the store (hints are
    the live table's; a store has none)."""
    message: dict[str, Any] = {"type": "snapshot", "table": table, "seq": seq,
                               "at": steady_time(), "online": online, "clocks": clocks,
                               "link_up": None, "hints": None}
    if game is None or state is None:
        message.update(game=None, position="", bank={}, turn_log=[])
        return message
    message["game"] = {
        "uid": game.uid, "rules": game.rules, "players": list(game.players),
        "first_seat": game.first_seat, "to_move": state.to_move,
        "turn_number": len(turns) + 1, "turns": len(turns),
        "turn_started_at": None, "in_setup": state.in_setup,
        "result": None if result is None else {
            "kind": result.kind, "winners": list(result.winners),
            "text": result_text(game.players, result.kind, result.winners)}}
    # A snapshot's position is text, as the feed's: empty when the cooked format cannot
    # hold it (more than two seats).
    message["position"] = (cooked_position(turns[-1].position) or "") if turns else ""
    message["bank"] = bank_of(state)
    message["turn_log"] = [t.sdg for t in turns]
    return message


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), sort_keys=True).encode()


# ---------------------------------------------------------------------- reading


def decode(payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise PayloadError(f"{len(payload)} bytes: larger than {MAX_PAYLOAD_BYTES}")
    try:
        data = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError:
        raise PayloadError("not UTF-8 text") from None
    except ValueError as exc:
        raise PayloadError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise PayloadError(f"a JSON {type(data).__name__}, not an object")
    return data


#: A game uid (the store makes 32 hex digits; other tables' may differ a little).
UID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")
#: The most turns a game may have at the hub (the archive's longest has a few hundred).
MAX_TURNS = 5000
#: Longest text of one turn (SDG), one player's name, a time stamp, a store fault.
MAX_SDG = 2000
MAX_NAME = 64
MAX_TIME = 40
MAX_FAULT = 300
#: A snapshot's ``at``: seconds since 1970, from 2000 to 2200 (as the feed reads it).
MOMENTS = (946684800, 7258118400)
#: Largest clock reading a table may report: 100 hours.
MAX_CLOCK_MS = 100 * 3600 * 1000
#: How a game may end: what the rules engine decides by replaying the turns, and what a
#: table declares (a player resigned, a draw agreed, a game abandoned, a flag fell).
ENGINE_KINDS = ("opponent-eliminated", "self-eliminated", "draw")
DECLARED_KINDS = ("resigned", "agreed-draw", "abandoned", "flag")
RESULT_KINDS = ENGINE_KINDS + DECLARED_KINDS


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _field(data: dict, key: str, kind: type | tuple, what: str = "") -> Any:
    if key not in data:
        raise PayloadError(f"{what}{key}: missing")
    value = data[key]
    if isinstance(value, bool) and kind is not bool:
        raise PayloadError(f"{what}{key}: {value!r} is not a {getattr(kind, '__name__', kind)}")
    if not isinstance(value, kind):
        raise PayloadError(f"{what}{key}: {_shown(value)} has the wrong type "
                           f"({type(value).__name__})")
    return value


def _number(data: dict, key: str, low: int, high: int, what: str = "",
            optional: bool = False) -> int | None:
    """An integer field within [low, high]."""
    if optional and data.get(key) is None:
        return None
    value = _field(data, key, int, what)
    if not low <= value <= high:
        raise PayloadError(f"{what}{key}: {value} is out of range ({low} to {high})")
    return value


def _text(data: dict, key: str, limit: int, what: str = "", optional: bool = False
          ) -> str | None:
    if optional and data.get(key) is None:
        return None
    value = _field(data, key, str, what)
    if len(value) > limit:
        raise PayloadError(f"{what}{key}: {len(value)} characters (at most {limit})")
    if any(ord(c) < 32 or c == "\x7f" for c in value if c != "\n"):
        raise PayloadError(f"{what}{key}: contains control characters")
    return value


def _time(data: dict, key: str, what: str = "") -> str:
    value = _text(data, key, MAX_TIME, what)
    assert value is not None
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise PayloadError(f"{what}{key}: {_shown(value)} is not an ISO 8601 time") from None
    return value


def _uid(data: dict, key: str, what: str = "") -> str:
    value = _field(data, key, str, what)
    if not UID.fullmatch(value):
        raise PayloadError(f"{what}{key}: {_shown(value)} is not a game uid")
    return value


def check_header(data: dict) -> dict[str, Any]:
    header = _field(data, "game", dict)
    uid = _uid(header, "uid", "game.")
    if uid != data.get("game_uid"):
        raise PayloadError(f"game.uid {uid!r} is not the message's game_uid")
    name = _text(header, "rules", MAX_NAME, "game.")
    handicaps = header.get("handicaps") or {}
    if not isinstance(handicaps, dict) or len(handicaps) > 16:
        raise PayloadError("game.handicaps: not an object of at most 16 handicaps")
    try:
        rules = rules_of(name or "", handicaps)
    except (ValueError, TypeError) as exc:
        raise PayloadError(f"game.rules: {exc}") from None
    players = _field(header, "players", list, "game.")
    if not (rules.min_players <= len(players) <= rules.max_players) or \
            not all(isinstance(p, str) and p.strip() and len(p) <= MAX_NAME and
                    p.isprintable() for p in players):
        raise PayloadError(f"game.players: {_shown(players)} is not a list of "
                           f"{rules.min_players}-{rules.max_players} names (at most "
                           f"{MAX_NAME} characters each)")
    _number(header, "first_seat", 0, len(players) - 1, "game.")
    _time(header, "started", "game.")
    return header


def check_turn(data: dict) -> dict[str, Any]:
    _uid(data, "game_uid")
    header = check_header(data)
    _number(data, "number", 1, MAX_TURNS)
    _number(data, "seat", 0, len(header["players"]) - 1)
    _text(data, "sdg", MAX_SDG)
    _time(data, "committed")
    if data.get("position_json") is not None and not isinstance(data["position_json"], dict):
        raise PayloadError("position_json: not an object")
    _number(data, "elapsed_ms", 0, MAX_CLOCK_MS, optional=True)
    return data


def check_result(data: dict) -> dict[str, Any]:
    """A result's fields (whether it is true is the hub's replay's to say)."""
    _uid(data, "game_uid")
    header = check_header(data)
    seats = len(header["players"])
    kind = _field(data, "kind", str)
    if kind not in RESULT_KINDS:
        raise PayloadError(f"kind: {_shown(kind)} is not a way a game ends "
                           f"({', '.join(RESULT_KINDS)})")
    winners = _field(data, "winners", list)
    if not all(isinstance(w, int) and not isinstance(w, bool) and 0 <= w < seats
               for w in winners) or len(set(winners)) != len(winners):
        raise PayloadError(f"winners: {_shown(winners)} is not a list of different seats "
                           f"(0 to {seats - 1})")
    by = _number(data, "by_seat", 0, seats - 1, optional=True)
    if by is not None and by in winners:
        raise PayloadError(f"by_seat: seat {by} {kind} and is among the winners")
    _number(data, "after_turn", 0, MAX_TURNS)
    _time(data, "at")
    return data


def check_online(data: dict) -> dict[str, Any]:
    _field(data, "online", bool)
    _number(data, "will_seq", 1, 2 ** 63 - 1, optional=True)
    return data


def _check_clocks(clocks: Any) -> dict[str, Any] | None:
    if clocks is None:
        return None
    if not isinstance(clocks, dict):
        raise PayloadError("clocks: not an object or null")
    seats = _field(clocks, "seats", list, "clocks.")
    if len(seats) > 8:
        raise PayloadError(f"clocks.seats: {len(seats)} seats")
    out = []
    for k, seat in enumerate(seats):
        if not isinstance(seat, dict):
            raise PayloadError(f"clocks.seats[{k}]: not an object")
        remaining = _number(seat, "remaining_ms", 0, MAX_CLOCK_MS, f"clocks.seats[{k}].")
        flags = {}
        for name in ("running", "flagged"):
            value = seat.get(name, False)
            if not isinstance(value, bool):
                raise PayloadError(f"clocks.seats[{k}].{name}: not true or false")
            flags[name] = value
        out.append({**seat, "remaining_ms": remaining, **flags})
    # why the clocks are paused (GameClocks.to_json: a reason), or None
    paused = _text(clocks, "paused", MAX_NAME, "clocks.", optional=True)
    return {**clocks, "seats": out, "paused": paused}


def check_snapshot(data: dict) -> dict[str, Any]:
    """A retained state, checked wherever the hub's pages read it: the game's uid, counts
    and players, the clocks, the sensors' link and the store fault. (The live page reads
    the rest through the feed's strict reader.)"""
    game = data.get("game")
    if game is not None:
        if not isinstance(game, dict):
            raise PayloadError("game: not an object or null")
        if game.get("uid") is not None:
            _uid(game, "uid", "game.")
        # Absent from a feed's snapshot; a table's always has them.
        if "turns" in game:
            _number(game, "turns", 0, MAX_TURNS, "game.")
        if "turn_number" in game:
            _number(game, "turn_number", 1, MAX_TURNS + 1, "game.")
        players = game.get("players", [])
        if not isinstance(players, list) or len(players) > 8 or not all(
                isinstance(p, str) and len(p) <= MAX_NAME for p in players):
            raise PayloadError(f"game.players: {_shown(players)} is not a list of names")
        _number(game, "to_move", 0, max(len(players) - 1, 0), "game.", optional=True)
        if game.get("result") is not None and not isinstance(game["result"], dict):
            raise PayloadError("game.result: not an object or null")
    at = data.get("at")
    if at is not None and (not isinstance(at, (int, float)) or isinstance(at, bool) or
                           not math.isfinite(at) or not MOMENTS[0] <= at <= MOMENTS[1]):
        raise PayloadError(f"at: {_shown(at)} is not a moment (seconds since 1970, 2000 to "
                           "2200)")
    data["clocks"] = _check_clocks(data.get("clocks"))
    if data.get("link_up") is not None and not isinstance(data["link_up"], bool):
        raise PayloadError("link_up: not true, false or null")
    _text(data, "store_fault", MAX_FAULT, optional=True)
    return data


def check_event(data: dict) -> dict[str, Any]:
    kind = _text(data, "kind", MAX_NAME)
    if kind == "link" and not isinstance(data.get("up"), bool):
        raise PayloadError("up: not true or false")
    if kind == "store":
        _text(data, "fault", MAX_FAULT, optional=True)
    return data
