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
import time
from collections.abc import Sequence
from typing import Any

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
                               "at": time.time(), "online": online, "clocks": clocks,
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


def _field(data: dict, key: str, kind: type | tuple, what: str = "") -> Any:
    if key not in data:
        raise PayloadError(f"{what}{key}: missing")
    value = data[key]
    if isinstance(value, bool) and kind is not bool:
        raise PayloadError(f"{what}{key}: {value!r} is not a {getattr(kind, '__name__', kind)}")
    if not isinstance(value, kind):
        raise PayloadError(f"{what}{key}: {str(value)[:40]!r} has the wrong type "
                           f"({type(value).__name__})")
    return value


def check_header(data: dict) -> dict[str, Any]:
    header = _field(data, "game", dict)
    uid = _field(header, "uid", str, "game.")
    if uid != data.get("game_uid"):
        raise PayloadError(f"game.uid {uid!r} is not the message's game_uid")
    name = _field(header, "rules", str, "game.")
    handicaps = header.get("handicaps") or {}
    if not isinstance(handicaps, dict):
        raise PayloadError("game.handicaps: not an object")
    try:
        rules = rules_of(name, handicaps)
    except (ValueError, TypeError) as exc:
        raise PayloadError(f"game.rules: {exc}") from None
    players = _field(header, "players", list, "game.")
    if not (rules.min_players <= len(players) <= rules.max_players) or \
            not all(isinstance(p, str) and p.strip() for p in players):
        raise PayloadError(f"game.players: {players!r} is not a list of "
                           f"{rules.min_players}-{rules.max_players} names")
    first = _field(header, "first_seat", int, "game.")
    if not 0 <= first < len(players):
        raise PayloadError(f"game.first_seat: no seat {first}")
    _field(header, "started", str, "game.")
    return header


def check_turn(data: dict) -> dict[str, Any]:
    _field(data, "game_uid", str)
    number = _field(data, "number", int)
    if number < 1:
        raise PayloadError(f"number: {number} (turns count from 1)")
    _field(data, "seat", int)
    _field(data, "sdg", str)
    _field(data, "committed", str)
    check_header(data)
    return data


def check_result(data: dict) -> dict[str, Any]:
    _field(data, "game_uid", str)
    _field(data, "kind", str)
    winners = _field(data, "winners", list)
    if not all(isinstance(w, int) and not isinstance(w, bool) for w in winners):
        raise PayloadError(f"winners: {winners!r} is not a list of seats")
    by = data.get("by_seat")
    if by is not None and (not isinstance(by, int) or isinstance(by, bool)):
        raise PayloadError("by_seat: not a seat")
    if _field(data, "after_turn", int) < 0:
        raise PayloadError("after_turn: negative")
    _field(data, "at", str)
    check_header(data)
    return data

