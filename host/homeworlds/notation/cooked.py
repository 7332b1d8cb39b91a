"""The "cooked" text of the C++ engine Quuxplusone/Homeworlds: positions and turns.

A file is a position, one system per line, then whole turns, one per line::

    Evilaxe (0, y2b1) g3-
    Mrstickman (1, b3g2) -y3
    Alpha (b1) r1-
    build g1 at Evilaxe
    sacrifice y1 at Evilaxe; move g1 from Alpha to Lorem (b1); catastrophe green at Lorem
    pass

A system line is ``Name (owner, stars) ships0-ships1`` for a home (owner 0 or
1) and ``Name (stars) ships0-ships1`` otherwise; pieces are packed (``y1b2``),
owner 0's ships before the dash, owner 1's after it. Turns alternate starting
with owner 0. Position files from the engine's test suite add ``# comments``,
bare commands (``count_moves``) and sample turns in the engine's partial
notation with a verdict (``LEGAL capture y1; catastrophe red``); samples are
kept as text because only a position can complete them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from homeworlds.notation.textfile import read_notation_text, small_number
from homeworlds.rules import (
    PIECES,
    Action,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Color,
    Discover,
    Homeworld,
    InvalidNotation,
    Move,
    Pass,
    Piece,
    Sacrifice,
    SetupPick,
    Trade,
)

__all__ = [
    "VERDICTS",
    "CookedGame",
    "CookedSystem",
    "format_cooked_action",
    "format_cooked_turn",
    "format_pieces",
    "parse_cooked_turn",
    "parse_pieces",
    "read_cooked",
    "read_cooked_file",
    "write_cooked",
    "write_position",
]

#: Verdicts of sample turns in the engine's position files.
VERDICTS = ("LEGAL", "ILLEGAL", "AMBIG")

_PIECE_BY_TEXT = {p.to_text(): p for p in PIECES}
_PACKED = re.compile(r"(?:[rygb][123])*")
_SYSTEM = re.compile(r"(?P<name>[^\s()]*) ?\((?:(?P<owner>\d+), ?)?(?P<stars>[^)]*)\) "
                     r"?(?P<ships0>[^\s-]*)-(?P<ships1>[^\s-]*)")
#: What a written system name may be: one word, no parentheses, no ";" (turn separator).
_NAME = re.compile(r"[^\s();]+")
_ACTION_WORDS = ("build", "move", "convert", "capture", "sacrifice", "catastrophe", "pass")
_COMMAND = re.compile(r"[a-z][a-z_]*")
_SAMPLE = re.compile(r"(LEGAL|ILLEGAL|AMBIG)(?: (.*))?")

_BUILD = re.compile(r"build (\w\w) at ([^\s()]+)", re.IGNORECASE)
_MOVE = re.compile(r"move (\w\w) from ([^\s()]+) to ([^\s()]+?)(?: \((\w\w)\))?", re.IGNORECASE)
_CONVERT = re.compile(r"convert (\w\w) to (\w\w) at ([^\s()]+)", re.IGNORECASE)
_CAPTURE = re.compile(r"capture (\w\w) at ([^\s()]+)", re.IGNORECASE)
_SACRIFICE = re.compile(r"sacrifice (\w\w) at ([^\s()]+)", re.IGNORECASE)
_CATASTROPHE = re.compile(r"catastrophe (\w+) at ([^\s()]+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class CookedSystem:
    """One system of a cooked position. ``ships[k]`` are owner k's ships."""

    name: str
    home_of: int | None
    stars: tuple[Piece, ...]
    ships: tuple[tuple[Piece, ...], tuple[Piece, ...]]

    def to_text(self) -> str:
        owner = "" if self.home_of is None else f"{self.home_of}, "
        head = f"{_name(self.name)} (" if self.name else "("
        return (f"{head}{owner}{format_pieces(self.stars)}) "
                f"{format_pieces(self.ships[0])}-{format_pieces(self.ships[1])}")

    @classmethod
    def from_text(cls, text: str) -> CookedSystem:
        match = _SYSTEM.fullmatch(text.strip())
        if match is None:
            raise InvalidNotation(f"not a system line: {text!r} (expected e.g. "
                                  "'Name (0, y1b2) g3-' or 'Name (b1) r1-y2')", text)
        owner = match.group("owner")
        home_of = None if owner is None else small_number(owner, "homeworld owner", text)
        if home_of is not None and home_of not in (0, 1):
            raise InvalidNotation(f"homeworld owner {home_of} in {text!r} (expected 0 or 1)", text)
        stars = parse_pieces(match.group("stars"))
        if not stars:
            raise InvalidNotation(f"system without a star: {text!r}", text)
        return cls(match.group("name"), home_of, stars,
                   (parse_pieces(match.group("ships0")), parse_pieces(match.group("ships1"))))

    def __str__(self) -> str:
        return self.to_text()


@dataclass(frozen=True, slots=True)
class CookedGame:
    """A cooked file: a position, the turns played from it, and any test-suite extras."""

    systems: tuple[CookedSystem, ...]
    turns: tuple[tuple[Action, ...], ...] = ()
    samples: tuple[tuple[str, str], ...] = ()
    commands: tuple[str, ...] = ()
    source: str | None = None
    comments: tuple[str, ...] = ()

    @classmethod
    def from_text(cls, text: str, source: str | None = None) -> CookedGame:
        return read_cooked(text, source)

    def to_text(self) -> str:
        return write_cooked(self)


def parse_pieces(text: str) -> tuple[Piece, ...]:
    """``"y1b2"`` -> (y1, b2); ``""`` -> (). Order is kept as written."""
    key = text.strip().lower()
    if not _PACKED.fullmatch(key):
        raise InvalidNotation(f"not a list of pieces: {text!r} (expected e.g. y1b2g3)", text)
    return tuple(_PIECE_BY_TEXT[key[i:i + 2]] for i in range(0, len(key), 2))


def format_pieces(pieces: Iterable[Piece]) -> str:
    return "".join(p.to_text() for p in pieces)


def _piece(word: str, text: str) -> Piece:
    piece = _PIECE_BY_TEXT.get(word.lower())
    if piece is None:
        raise InvalidNotation(f"{word!r} is not a piece (expected e.g. g1) in {text!r}", text)
    return piece


def _parse_action(text: str) -> Action:
    if m := _BUILD.fullmatch(text):
        return Build(_piece(m.group(1), text), m.group(2))
    if m := _MOVE.fullmatch(text):
        piece = _piece(m.group(1), text)
        if m.group(4):
            return Discover(piece, m.group(2), _piece(m.group(4), text), m.group(3))
        return Move(piece, m.group(2), m.group(3))
    if m := _CONVERT.fullmatch(text):
        return Trade(_piece(m.group(1), text), _piece(m.group(2), text), m.group(3))
    if m := _CAPTURE.fullmatch(text):
        return Capture(_piece(m.group(1), text), m.group(2))
    if m := _SACRIFICE.fullmatch(text):
        return Sacrifice(_piece(m.group(1), text), m.group(2))
    if m := _CATASTROPHE.fullmatch(text):
        try:
            color = Color.from_text(m.group(1))
        except InvalidNotation:
            raise InvalidNotation(f"{m.group(1)!r} is not a colour in {text!r}", text) from None
        return Catastrophe(m.group(2), color)
    if text.lower() == "pass":
        return Pass()
    raise InvalidNotation(f"not a cooked action: {text!r} (expected e.g. 'build g1 at X', "
                          "'move r1 from A to B (b1)', 'convert g1 to y1 at X', "
                          "'capture g1 at X', 'sacrifice y2 at X', 'catastrophe red at X', "
                          "'pass')", text)


def parse_cooked_turn(text: str) -> tuple[Action, ...]:
    """Parse a whole turn in full notation, actions joined by ``"; "``."""
    stripped = text.strip()
    if not stripped:
        raise InvalidNotation("empty turn", text)
    parts = [part.strip() for part in stripped.split(";")]
    if any(not part for part in parts):
        raise InvalidNotation(f"empty action in turn {text!r}", text)
    actions = tuple(_parse_action(part) for part in parts)
    if len(actions) > 1 and any(isinstance(a, Pass) for a in actions):
        raise InvalidNotation(f"'pass' must be the whole turn in cooked notation: {text!r}", text)
    return actions


def _name(name: str) -> str:
    if not _NAME.fullmatch(name) or name.startswith("#"):
        raise InvalidNotation(f"system name {name!r} cannot be written in cooked notation "
                              "(one word without '(', ')' or ';')", name)
    return name


def format_cooked_action(action: Action) -> str:
    match action:
        case Build(piece=piece, system=system):
            return f"build {piece} at {_name(system)}"
        case Move(piece=piece, origin=origin, destination=destination):
            return f"move {piece} from {_name(origin)} to {_name(destination)}"
        case Discover(piece=piece, origin=origin, star=star, name=name):
            return f"move {piece} from {_name(origin)} to {_name(name)} ({star})"
        case Trade(old=old, new=new, system=system):
            return f"convert {old} to {new} at {_name(system)}"
        case Capture(piece=piece, system=system):
            return f"capture {piece} at {_name(system)}"
        case Sacrifice(piece=piece, system=system):
            return f"sacrifice {piece} at {_name(system)}"
        case Catastrophe(system=system, color=color):
            return f"catastrophe {color.to_text()} at {_name(system)}"
        case Pass():
            return "pass"
        case Homeworld() | SetupPick():
            raise InvalidNotation("the cooked format has no setup action: "
                                  "homeworlds are part of the position")
        case BrainTransference():
            raise InvalidNotation("the cooked format (the C++ engine's) has no Brain "
                                  "Transference: write the game in SDG notation")
    raise TypeError(f"not an action: {action!r}")


def format_cooked_turn(actions: Sequence[Action]) -> str:
    """Full cooked notation of a turn. A Pass among other actions (an unused
    sacrifice action, as SDG writes it) is left out: the engine has no word for it."""
    if not actions:
        raise InvalidNotation("a turn needs at least one action (a pass is (Pass(),))")
    kept: list[Action] = [a for a in actions if not isinstance(a, Pass)] or [Pass()]
    return "; ".join(format_cooked_action(a) for a in kept)


def read_cooked(text: str, source: str | None = None, *, named: bool = False) -> CookedGame:
    """Read a cooked game or position file. Raises InvalidNotation naming the line.

    With ``named``, a system without a name is an error (a position that turns refer to,
    or that is printed, needs every name; the engine's test files sometimes omit them)."""
    systems: list[CookedSystem] = []
    turns: list[tuple[Action, ...]] = []
    samples: list[tuple[str, str]] = []
    commands: list[str] = []
    comments: list[str] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        try:
            if not line:
                continue
            if line.startswith("#"):
                comments.append(line[1:].strip())
                continue
            if _SYSTEM.fullmatch(line):
                if turns or samples or commands:
                    raise InvalidNotation(f"system line {line!r} after the position ended", line)
                system = CookedSystem.from_text(line)
                if named and not system.name:
                    raise InvalidNotation(f"system without a name: {line!r} (write it as "
                                          f"'Name {line}')", line)
                systems.append(system)
                continue
            sample = _SAMPLE.fullmatch(line)
            if sample:
                if not sample.group(2):
                    raise InvalidNotation(f"{sample.group(1)} without a turn", line)
                samples.append((sample.group(1), sample.group(2).strip()))
                continue
            if line.split(None, 1)[0].lower() in _ACTION_WORDS:
                turns.append(parse_cooked_turn(line))
                continue
            if _COMMAND.fullmatch(line):
                commands.append(line)
                continue
            raise InvalidNotation(f"not a system, turn, sample turn or command: {line!r}", line)
        except InvalidNotation as error:
            raise InvalidNotation(str(error), raw, line=number, source=source) from None
    names = [s.name.lower() for s in systems if s.name]
    if len(set(names)) != len(names):
        raise InvalidNotation("two systems share a name", source=source)
    return CookedGame(tuple(systems), tuple(turns), tuple(samples), tuple(commands), source,
                      tuple(comments))


def read_cooked_file(path: str | PathLike[str], *, named: bool = False) -> CookedGame:
    """Read a cooked file (UTF-8, at most ``MAX_NOTATION_BYTES``); see ``read_cooked``."""
    path = Path(path)
    return read_cooked(read_notation_text(path), source=str(path), named=named)


def write_position(systems: Iterable[CookedSystem]) -> str:
    """One system per line, with a final newline."""
    return "".join(system.to_text() + "\n" for system in systems)


def write_cooked(game: CookedGame) -> str:
    """Comments, position, turns, samples, then commands, one per line."""
    out = [f"# {comment}" if comment else "#" for comment in game.comments]
    out.extend(system.to_text() for system in game.systems)
    out.extend(format_cooked_turn(turn) for turn in game.turns)
    for verdict, sample in game.samples:
        if verdict not in VERDICTS:
            raise InvalidNotation(f"unknown verdict {verdict!r} (expected one of {VERDICTS})")
        out.append(f"{verdict} {sample}")
    out.extend(game.commands)
    return "".join(line + "\n" for line in out)
