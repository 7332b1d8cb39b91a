"""What the tables of a remote game say to each other (docs/remote-play.md, "Messages").

Each side publishes on its own topic, ``homeworlds/remote/<game id>/<role>``, every
message signed with its key (``homeworlds.identity``): the header line, then one of these
JSON objects; every other side reads it. Every field is checked when read; anything else
is a ``MessageError`` whose text is the reason told to all sides.

- ``hello``: who is at this end (``seats``: the seats it plays, ``seat`` the first of them;
  the players, the rules, the time control ``clock``) and how many turns (and departures)
  its store holds; sent when it connects and after each turn it commits. ``waiting``: the
  sender is paused until the others answer (it has just connected, or learnt another was
  away); its ``clocks_ms`` are then where its clocks stand still, and an answer carries
  the clocks the sides resume from (each seat's larger reading: the clock stops when the
  first side noticed the cut).
- ``turn``: turn ``number`` (1 = the first turn of the game) of ``seat``, in SDG words;
  in a timed game ``clocks_ms``, each seat's clock in milliseconds as the sending table read
  it at its commit (the receiving table adopts it when it commits the turn); in a game of
  three or more ``departures``, how many departures the sender held before it.
- ``departed``: a player of the sender's seats resigned and left the game, or missed a turn
  (``kind``), after ``after`` turns, the ``index``-th departure of the game (issue 28).
- ``refused``: this side refused a message (``number``: the turn, if any; ``to``: the role
  of the side whose message it was, if known).
- ``offline``: the last will: the broker publishes it when the side's link is lost;
  ``link`` names the connection it was left by (the sender's hellos name its current one).

A Good/Evil game across tables (``remote.deal``) adds:

- ``deal``: side ``side``'s step of the deal (``phase`` ``shuffle`` or ``open``): the
  deck, one number per seat (hexadecimal, below the group's prime);
- ``committed``: the commitment (SHA-256, hexadecimal) to the card of each of its seats;
- ``revealed``: a seat's card and the salt of its commitment (at an elimination, a
  departure, the end);
- ``lock``: the side's exponent, at the end of the game (the audit).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from homeworlds.clock import MAX_REMAINING_S, ClockSpec, ClockSpecError

#: Largest message read (a turn in SDG is well under 1 KiB).
MAX_BYTES = 16 * 1024
MAX_TURNS = 10_000
MAX_TEXT = 2000
TOPIC_ROOT = "homeworlds/remote"
GAME_ID = re.compile(r"[0-9a-f]{16}")
LINK_ID = re.compile(r"[0-9a-f]{16}")


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
    #: every seat this side plays (empty: ``seat`` alone, as the first two-side hellos)
    seats: tuple[int, ...] = ()
    #: departures (resigned, skipped) this side holds
    departures: int = 0
    #: the game's time control (mode "none": untimed); every side must have the same
    clock: ClockSpec = ClockSpec()
    #: the sender waits for an answer (paused: it connected, or another side was away)
    waiting: bool = False
    #: each seat's clock (ms) where it stands still (waiting) or resumes from (an answer)
    clocks_ms: tuple[int, ...] | None = None
    #: the sender's connection to the broker now (its last will names it)
    link: str | None = None

    @property
    def played(self) -> tuple[int, ...]:
        """The seats this side plays."""
        return self.seats or (self.seat,)


@dataclass(frozen=True)
class TurnMessage:
    game: str
    number: int
    seat: int
    sdg: str
    #: each seat's clock (ms) at the sender's commit; None: an untimed game
    clocks_ms: tuple[int, ...] | None = None
    #: departures the sender held when it committed the turn (None: not said, two sides)
    departures: int | None = None


@dataclass(frozen=True)
class Departure:
    game: str
    kind: str
    seat: int
    after: int
    index: int


@dataclass(frozen=True)
class Refusal:
    game: str
    number: int | None
    reason: str
    #: the role of the side whose message was refused (None: not known, or two sides)
    to: str | None = None


@dataclass(frozen=True)
class Offline:
    game: str
    #: the connection whose will it is (its hellos name it too): a will of a connection
    #: given up, or an old one, is told from the current one's
    link: str | None = None


@dataclass(frozen=True)
class DealStep:
    game: str
    phase: str
    side: int
    deck: tuple[str, ...]


@dataclass(frozen=True)
class Commitments:
    game: str
    #: (seat, SHA-256 hex) for each seat of the sender
    cards: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class Reveal:
    game: str
    seat: int
    alignment: str
    salt: str


@dataclass(frozen=True)
class Lock:
    game: str
    exponent: str


Message = Hello | TurnMessage | Departure | Refusal | Offline | DealStep | Commitments \
    | Reveal | Lock
HEX = re.compile(r"[0-9a-f]{1,512}")
SHA = re.compile(r"[0-9a-f]{64}")
SALT = re.compile(r"[0-9a-f]{32}")
DEPARTURE_KINDS = ("resigned", "skipped")
ROLE = re.compile(r"host|guest[1-5]?")


def to_payload(message: Message) -> bytes:
    kind = {Hello: "hello", TurnMessage: "turn", Refusal: "refused", Departure: "departed",
            Offline: "offline", DealStep: "deal", Commitments: "committed",
            Reveal: "revealed", Lock: "lock"}[type(message)]
    fields: dict = {}
    for name, value in vars(message).items():
        if value is None or (name == "seats" and value == ()):
            continue  # optional and not said (the first two-side messages had none)
        if isinstance(value, ClockSpec):
            value = value.to_dict()
        fields[name] = [list(v) if isinstance(v, tuple) else v for v in value] \
            if isinstance(value, tuple) else value
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
    seat = _int(data, "seat", 0, len(players) - 1)
    seats: tuple[int, ...] = ()
    if data.get("seats") is not None:
        value = data["seats"]
        if not isinstance(value, list) or not 1 <= len(value) <= len(players) or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s < len(players)
                for s in value) or len(set(value)) != len(value) or value[0] != seat:
            raise MessageError(f"seats: not a list of 1 to {len(players)} different seats "
                               f"from 0 to {len(players) - 1}, the first {seat}")
        seats = tuple(value)
    departures = 0 if data.get("departures") is None else \
        _int(data, "departures", 0, MAX_TURNS)
    clock = data.get("clock", {"mode": "none"})
    if not isinstance(clock, dict) or len(clock) > 8:
        raise MessageError("clock: not a time control")
    try:
        spec = ClockSpec.from_dict(clock)
    except (ClockSpecError, TypeError, ValueError) as exc:
        raise MessageError(f"clock: {str(exc)[:200]}") from None
    waiting = data.get("waiting", False)
    if not isinstance(waiting, bool):
        raise MessageError("waiting: not true or false")
    return Hello(game, seat, tuple(players), _text(data, "rules", 40),
                 _int(data, "turns", 0, MAX_TURNS), seats, departures, spec, waiting,
                 _clocks(data), _link(data))


def _refusal(data: dict, game: str) -> Refusal:
    number = None if data.get("number") is None else _int(data, "number", 1, MAX_TURNS)
    to = data.get("to")
    if to is not None and (not isinstance(to, str) or not ROLE.fullmatch(to)):
        raise MessageError("to: not a role (host, guest, guest1 to guest5)")
    return Refusal(game, number, _text(data, "reason"), to)


def _departure(data: dict, game: str) -> Departure:
    kind = data.get("kind")
    if kind not in DEPARTURE_KINDS:
        raise MessageError(f"kind: {str(kind)[:40]!r} is not resigned or skipped")
    return Departure(game, kind, _int(data, "seat", 0, 5), _int(data, "after", 0, MAX_TURNS),
                     _int(data, "index", 0, MAX_TURNS))


def _link(data: dict) -> str | None:
    value = data.get("link")
    if value is None:
        return None
    if not isinstance(value, str) or not LINK_ID.fullmatch(value):
        raise MessageError("link: not 16 hexadecimal digits")
    return value


def _clocks(data: dict) -> tuple[int, ...] | None:
    value = data.get("clocks_ms")
    if value is None:
        return None
    most = int(MAX_REMAINING_S * 1000)
    if not isinstance(value, list) or not 2 <= len(value) <= 6 or not all(
            isinstance(ms, int) and not isinstance(ms, bool) and 0 <= ms <= most
            for ms in value):
        raise MessageError(f"clocks_ms: not a list of 2 to 6 clocks, each a whole number of "
                           f"milliseconds from 0 to {most}")
    return tuple(value)


def _deal(data: dict, game: str) -> DealStep:
    phase = data.get("phase")
    if phase not in ("shuffle", "open"):
        raise MessageError(f"phase: {str(phase)[:40]!r} is not shuffle or open")
    deck = data.get("deck")
    if not isinstance(deck, list) or not 2 <= len(deck) <= 6 or not all(
            isinstance(x, str) and HEX.fullmatch(x) for x in deck):
        raise MessageError("deck: not a list of 2 to 6 cards (hexadecimal numbers)")
    return DealStep(game, phase, _int(data, "side", 0, 5), tuple(deck))


def _commitments(data: dict, game: str) -> Commitments:
    cards = data.get("cards")
    if not isinstance(cards, list) or not 1 <= len(cards) <= 6 or not all(
            isinstance(c, list) and len(c) == 2 and isinstance(c[0], int)
            and not isinstance(c[0], bool) and 0 <= c[0] <= 5 and isinstance(c[1], str)
            and SHA.fullmatch(c[1]) for c in cards) or len({c[0] for c in cards}) != len(cards):
        raise MessageError("cards: not a list of 1 to 6 [seat, SHA-256] pairs, one per seat")
    return Commitments(game, tuple((c[0], c[1]) for c in cards))


def _reveal(data: dict, game: str) -> Reveal:
    alignment = data.get("alignment")
    if alignment not in ("good", "evil"):
        raise MessageError(f"alignment: {str(alignment)[:40]!r} is not good or evil")
    salt = data.get("salt")
    if not isinstance(salt, str) or not SALT.fullmatch(salt):
        raise MessageError("salt: not 32 hexadecimal digits")
    return Reveal(game, _int(data, "seat", 0, 5), alignment, salt)


def json_object(payload: bytes, max_bytes: int) -> dict:
    """The JSON object in ``payload`` of at most ``max_bytes``; MessageError naming what is
    wrong (too long, not UTF-8 JSON, not an object)."""
    if len(payload) > max_bytes:
        raise MessageError(f"{len(payload)} bytes (at most {max_bytes})")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MessageError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise MessageError("not a JSON object")
    return data


def read_payload(payload: bytes, game_id: str) -> Message:
    """The message in ``payload`` (already verified) for game ``game_id``."""
    data = json_object(payload, MAX_BYTES)
    if data.get("game") != game_id:
        raise MessageError(f"game: {str(data.get('game'))[:40]!r} is not this game "
                           f"({game_id})")
    kind = data.get("type")
    if kind == "hello":
        return _hello(data, game_id)
    if kind == "turn":
        departures = None if data.get("departures") is None else \
            _int(data, "departures", 0, MAX_TURNS)
        return TurnMessage(game_id, _int(data, "number", 1, MAX_TURNS),
                           _int(data, "seat", 0, 5), _text(data, "sdg", lines=True),
                           _clocks(data), departures)
    if kind == "departed":
        return _departure(data, game_id)
    if kind == "refused":
        return _refusal(data, game_id)
    if kind == "offline":
        return Offline(game_id, _link(data))
    if kind == "deal":
        return _deal(data, game_id)
    if kind == "committed":
        return _commitments(data, game_id)
    if kind == "revealed":
        return _reveal(data, game_id)
    if kind == "lock":
        exponent = data.get("exponent")
        if not isinstance(exponent, str) or not HEX.fullmatch(exponent):
            raise MessageError("exponent: not a hexadecimal number")
        return Lock(game_id, exponent)
    raise MessageError(f"type: {str(kind)[:40]!r} is not hello, turn, departed, refused, "
                       "offline, deal, committed, revealed or lock")
