"""What two tables of a remote game say to each other (docs/remote-play.md, "Messages").

Each side publishes on its own topic, ``homeworlds/remote/<game id>/<role>``, every
message signed with its key (``homeworlds.identity``): the header line, then one of these
JSON objects. Every field is checked when read; anything else is a ``MessageError`` whose
text is the reason told to both sides.

- ``hello``: who is at this end (its seat, the players, the rules) and how many turns its
  store holds; sent when it connects and after each turn it commits (retained).
- ``turn``: turn ``number`` (1 = the first turn of the game) of ``seat``, in SDG words.
- ``refused``: this side refused a message of the other (``number``: the turn, if any).
- ``offline``: the last will: the broker publishes it when the side's link is lost.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: Largest message read (a turn in SDG is well under 1 KiB).
MAX_BYTES = 16 * 1024
MAX_TURNS = 10_000
MAX_TEXT = 2000
TOPIC_ROOT = "homeworlds/remote"
GAME_ID = re.compile(r"[0-9a-f]{16}")


class MessageError(ValueError):
    """A message that is not a valid remote-game message (the reason is in the text)."""


def topic(game_id: str, role: str) -> str:
    return f"{TOPIC_ROOT}/{game_id}/{role}"


@dataclass(frozen=True)
class Hello:
    game: str
    seat: int
    players: tuple[str, ...]
    rules: str
    turns: int


@dataclass(frozen=True)
class TurnMessage:
    game: str
    number: int
    seat: int
    sdg: str


@dataclass(frozen=True)
class Refusal:
    game: str
    number: int | None
    reason: str


@dataclass(frozen=True)
class Offline:
    game: str


Message = Hello | TurnMessage | Refusal | Offline


def to_payload(message: Message) -> bytes:
    fields = dict(vars(message))
    kind = {Hello: "hello", TurnMessage: "turn", Refusal: "refused",
            Offline: "offline"}[type(message)]
    if isinstance(message, Hello):
        fields["players"] = list(message.players)
    return json.dumps({"type": kind, **fields}, sort_keys=True).encode()


def _int(data: dict, name: str, low: int, high: int) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise MessageError(f"{name}: not a whole number from {low} to {high}")
    return value


def _text(data: dict, name: str, limit: int = MAX_TEXT, *, lines: bool = False) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not 0 < len(value) <= limit:
        raise MessageError(f"{name}: missing, empty or longer than {limit} characters")
    if any(ord(c) < 32 and not (lines and c == "\n") for c in value):
        raise MessageError(f"{name}: holds control characters")
    return value


def _hello(data: dict, game: str) -> Hello:
    players = data.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 6 \
            or not all(isinstance(p, str) and 0 < len(p) <= 40 and p.isprintable()
                       for p in players):
        raise MessageError("players: not a list of 2 to 6 names (printable, at most 40 "
                           "characters)")
    return Hello(game, _int(data, "seat", 0, len(players) - 1), tuple(players),
                 _text(data, "rules", 40), _int(data, "turns", 0, MAX_TURNS))


def _refusal(data: dict, game: str) -> Refusal:
    number = None if data.get("number") is None else _int(data, "number", 1, MAX_TURNS)
    return Refusal(game, number, _text(data, "reason"))


def read_payload(payload: bytes, game_id: str) -> Message:
    """The message in ``payload`` (already verified) for game ``game_id``."""
    if len(payload) > MAX_BYTES:
        raise MessageError(f"{len(payload)} bytes (at most {MAX_BYTES})")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MessageError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise MessageError("not a JSON object")
    if data.get("game") != game_id:
        raise MessageError(f"game: {str(data.get('game'))[:40]!r} is not this game "
                           f"({game_id})")
    kind = data.get("type")
    if kind == "hello":
        return _hello(data, game_id)
    if kind == "turn":
        return TurnMessage(game_id, _int(data, "number", 1, MAX_TURNS),
                           _int(data, "seat", 0, 5), _text(data, "sdg", lines=True))
    if kind == "refused":
        return _refusal(data, game_id)
    if kind == "offline":
        return Offline(game_id)
    raise MessageError(f"type: {str(kind)[:40]!r} is not hello, turn, refused or offline")
