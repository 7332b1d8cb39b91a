"""SuperDuperGames (SDG) transcripts: reader and writer.

An SDG transcript is a header (title, ``Variants``, ``Started``,
``Participants``, ``Winner``), a blank line, then numbered turns::

    1) Evilaxe: Homeworld Y2 B1 G3
    <TAB>MrStickman: Hiya.

    2) MrStickman: Homeworld B3 G2 Y3

    3) Evilaxe: Sacrifice G3 Evilaxe
    Build G1 Evilaxe
    Build G1 Evilaxe

Each action is one line; the first may share the ``K) player:`` line. A line
starting with a TAB opens a comment, and every later line of the turn belongs
to that comment, even one that reads exactly like a move (players pasted
orders into comments). The archive never puts an action after a comment.

Actions are read by position, the way SDG itself read them: a keyword (any
prefix of ``Build``/``Construct``/``Move``/``Discover``/``Trade``/
``Sacrifice``/``Attack``/``Catastrophe``/``Homeworld``/``Pass``, case
ignored, single letters as SDG abbreviated them), then a fixed number of
words; words after those are ignored (``Build G1 Foo (s)``,
``Discover G1 Home B1 Centauri Prime`` names the new system ``Centauri``).
``docs/notation.md`` lists every quirk of the archive that this handles.

Beyond what SDG wrote, four extensions carry the variants (docs/replay.md):
``Rules: PRESET`` and ``Alignments: name (good), ...`` header lines, the
alternating setup's single picks ``Star Y1`` / ``Ship G3`` (one per turn),
``Catastrophe Sys Red by Name`` for an overpopulation declared by a
player other than the one whose turn it is, and ``Brain Transference`` for the
handicap's turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from homeworlds.notation.textfile import read_notation_text, small_number
from homeworlds.rules import (
    PIECES,
    PRESETS,
    Action,
    AlignmentError,
    Alignments,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Color,
    Discover,
    Handicaps,
    Homeworld,
    InvalidNotation,
    Move,
    Pass,
    Piece,
    Sacrifice,
    SetupPick,
    Trade,
    check_alignments,
)

__all__ = [
    "SEAT_LETTERS",
    "SdgGame",
    "SdgTurn",
    "format_sdg_action",
    "parse_sdg_action",
    "read_sdg",
    "read_sdg_file",
    "sdg_game",
    "write_sdg",
]

#: Seat letters SDG used, in the order it listed them under ``Participants``.
#: SDG's four letters keep their order; NE, SE, SW and NW are our extension for games of
#: five or six players (the six-seat table), which the archive never had.
SEAT_LETTERS = ("S", "SW", "W", "NW", "N", "NE", "E", "SE")
#: Seats handed out, in setup order, to games that come without seats.
_DEFAULT_SEATS = {2: ("N", "S"), 3: ("N", "E", "S"), 4: ("N", "E", "S", "W"),
                  5: ("N", "NE", "SE", "SW", "NW"), 6: ("N", "NE", "SE", "S", "SW", "NW")}
_SEAT_WORDS = {"n": "N", "s": "S", "e": "E", "w": "W", "ne": "NE", "se": "SE", "sw": "SW",
               "nw": "NW", "north": "N", "south": "S", "east": "E", "west": "W",
               "northeast": "NE", "southeast": "SE", "southwest": "SW", "northwest": "NW"}

_KEYWORDS = ("build", "construct", "move", "discover", "trade", "sacrifice", "attack",
             "catastrophe", "homeworld", "pass", "star", "ship", "brain")
#: Single letters are SDG's own abbreviations; ``C`` is Catastrophe, not Construct.
_LETTERS = {"b": "build", "m": "move", "d": "discover", "t": "trade", "s": "sacrifice",
            "a": "attack", "c": "catastrophe", "h": "homeworld", "p": "pass"}
#: Word count after the keyword (without any seat word or ignored trailing words).
_ARITY = {"build": 2, "construct": 2, "move": 3, "discover": 4, "trade": 3, "sacrifice": 2,
          "attack": 2, "catastrophe": 2, "homeworld": 3, "pass": 0, "star": 1, "ship": 1,
          "brain": 1}

_PIECE_BY_TEXT: dict[str, Piece] = {}
for _each_piece in PIECES:
    _PIECE_BY_TEXT[_each_piece.to_text()] = _each_piece
    _PIECE_BY_TEXT[f"{int(_each_piece.size)}{_each_piece.color.letter}"] = _each_piece
_COLOR_BY_TEXT: dict[str, Color] = {}
for _each_color in Color:
    _COLOR_BY_TEXT[_each_color.letter] = _each_color
    _COLOR_BY_TEXT[_each_color.name.lower()] = _each_color
_COLOR_WORD = {c: c.name.capitalize() for c in Color}

_TITLE = re.compile(r"Homeworlds Online(?: \(SDG# ?(\d+)\))?\s*")
_HEADER = re.compile(r"([A-Za-z]+):\s?(.*)")
_PARTICIPANT = re.compile(r"(\S+) \((NE|NW|SE|SW|[NSEW])\)")
_TURN = re.compile(r"(\d+)\) (\S+):(.*)")
#: A stored game's uid in the ``Game:`` header (the store's are 32 hex digits).
_GAME_UID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ATTACKED = re.compile(r"([RYGBrygb][123])([NnSs][EeWw]|[NSEWnsew])")
_ALIGNED = re.compile(r"(\S+) \(([A-Za-z]+)\)")


@dataclass(frozen=True, slots=True)
class SdgTurn:
    """One numbered turn. ``seat`` indexes ``SdgGame.players`` (setup order)."""

    number: int
    player: str
    seat: int
    actions: tuple[Action, ...]
    texts: tuple[str, ...]
    line: int = 0
    comments: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SdgGame:
    """A whole transcript: header facts and the turns in order.

    ``players`` is the setup order (the order of the Homeworld turns, which is
    not the ``Participants`` order); a participant who never set up follows
    the others in ``Participants`` order.
    """

    number: int | None
    variants: tuple[str, ...]
    participants: tuple[tuple[str, str], ...]
    winner: str | None
    players: tuple[str, ...]
    turns: tuple[SdgTurn, ...]
    source: str | None = None
    started: str | None = None
    #: ``Rules:`` header: the rules preset the game was played under (our extension).
    rules: str | None = None
    #: ``Alignments:`` header: each player's Good/Evil alignment, in setup order.
    alignments: Alignments | None = None
    #: ``Game:`` header: the uid of the stored game a table's export holds (our
    #: extension), so that the export is never taken for another game's.
    game: str | None = None
    #: ``Handicaps:`` header: the novice handicaps the game was played with (our
    #: extension), e.g. ``Handicaps: Bob (junior), brain transference, timewarp 1``.
    handicaps: Handicaps | None = None

    def seat_of(self, name: str) -> int:
        """Setup-order index of a player, matching the name without regard to case."""
        key = name.lower()
        for index, player in enumerate(self.players):
            if player.lower() == key:
                return index
        raise KeyError(name)

    def seat_letters(self) -> dict[str, int]:
        """``{"N": 0, "S": 1, ...}``: each header seat letter to its setup-order index."""
        return {letter: self.seat_of(name) for name, letter in self.participants}

    @classmethod
    def from_text(cls, text: str, source: str | None = None) -> SdgGame:
        return read_sdg(text, source)

    def to_text(self) -> str:
        return write_sdg(self)


# --------------------------------------------------------------------------- actions


def _keyword(word: str) -> str | None:
    key = word.lower()
    if key in _LETTERS:
        return _LETTERS[key]
    matches = [k for k in _KEYWORDS if k.startswith(key)]
    return matches[0] if len(key) >= 2 and len(matches) == 1 else None


def _piece(word: str, text: str, what: str, strict: bool = True) -> Piece:
    # SDG looked at the first two characters only: "Y21", "B1in", "G3!!!" were accepted.
    piece = _PIECE_BY_TEXT.get((word if strict else word[:2]).lower())
    if piece is None:
        raise InvalidNotation(f"{what} {word!r} is not a piece (expected e.g. G1, y3) in {text!r}",
                              text)
    return piece


def _color(word: str, text: str) -> Color:
    color = _COLOR_BY_TEXT.get(word.lower())
    if color is None:
        raise InvalidNotation(f"{word!r} is not a colour (expected R, Y, G, B or a colour name) "
                              f"in {text!r}", text)
    return color


def _owner(letter: str, seats: Mapping[str, int] | None, text: str) -> int:
    if seats is None:
        raise InvalidNotation(f"seat letter {letter!r} in {text!r} but no seats are known", text)
    try:
        return seats[letter]
    except KeyError:
        known = ", ".join(sorted(seats)) or "none"
        raise InvalidNotation(f"no player sits at {letter!r} (seats: {known}) in {text!r}",
                              text) from None


def parse_sdg_action(text: str, *, player: str | None = None,
                     seats: Mapping[str, int] | None = None, strict: bool = False,
                     players: Sequence[str] | None = None) -> Action:
    """Parse one SDG action line such as ``Build G1 Evilaxe`` or ``A Y2N Gamma``.

    ``player`` names a Homeworld (SDG names a home after its player; without
    it, a name written after the three pieces is used). ``seats`` maps seat
    letters (``N``, ``S``, ``E``, ``W``) to seat indices, for attacks that
    name the owner. With ``strict``, words beyond the action's own (other
    than a final ``*``) are an error instead of being ignored as SDG did.
    ``players`` (setup order) lets ``Catastrophe Sys Red by Name`` name its declarer.
    """
    keyword, args = _keyword_and_args(text)
    used = _ARITY[keyword]
    action: Action
    if keyword == "attack":
        action, more = _parse_attack(args, seats, text, strict)
        used += more
    elif keyword in ("build", "construct"):
        action = Build(_piece(args[0], text, "ship", strict), args[1])
    elif keyword == "move":
        action = Move(_piece(args[0], text, "ship", strict), args[1], args[2])
    elif keyword == "discover":
        action = Discover(_piece(args[0], text, "ship", strict), args[1],
                          _piece(args[2], text, "star", strict), args[3])
    elif keyword == "trade":
        action = Trade(_piece(args[0], text, "old ship", strict),
                       _piece(args[1], text, "new ship", strict), args[2])
    elif keyword == "sacrifice":
        action = Sacrifice(_piece(args[0], text, "ship", strict), args[1])
    elif keyword == "catastrophe":
        action, more = _parse_catastrophe(args, player, players, text)
        used += more
    elif keyword == "brain":
        if args[0].lower() != "transference":
            raise InvalidNotation(f"expected 'Brain Transference', got {text!r}", text)
        action = BrainTransference()
    elif keyword in ("star", "ship"):
        action, more = _parse_pick(keyword, args, player, text, strict)
        used += more
    elif keyword == "homeworld":
        action, more = _parse_homeworld(args, player, text, strict)
        used += more
    else:
        action = Pass()
    if strict:
        _refuse_extra_words(args[used:], keyword, text)
    return action


def _keyword_and_args(text: str) -> tuple[str, list[str]]:
    """The action's keyword (canonical) and the words after it, at least as many as it
    needs."""
    words = text.split()
    if not words:
        raise InvalidNotation("empty action", text)
    keyword = _keyword(words[0])
    if keyword is None:
        raise InvalidNotation(f"unknown action {words[0]!r} in {text!r} (expected Build, Move, "
                              "Discover, Trade, Sacrifice, Attack, Catastrophe, Homeworld, Pass, "
                              "Star, Ship or Brain Transference)", text)
    args = words[1:]
    arity = _ARITY[keyword]
    if len(args) < arity:
        raise InvalidNotation(f"{keyword} needs {arity} words after the keyword, got "
                              f"{len(args)}: {text!r}", text)
    return keyword, args


def _parse_pick(keyword: str, args: list[str], player: str | None, text: str,
                strict: bool) -> tuple[Action, int]:
    """The alternating setup's single picks (``Star G3`` / ``Ship B1``); the home is named
    after its player. With the count of words used beyond the keyword's own."""
    name = player
    used = 0
    if name is None:
        if len(args) < 2:
            raise InvalidNotation(f"{keyword} pick {text!r} needs the player's name", text)
        name = args[1]
        used = 1
    return SetupPick(_piece(args[0], text, keyword, strict), keyword, name), used


def _parse_attack(args: list[str], seats: Mapping[str, int] | None, text: str,
                  strict: bool) -> tuple[Action, int]:
    """``Attack G1N Sys`` (the owner's seat glued on) or the old ``Attack G1 Sys N``;
    with the count of words used beyond the keyword's own."""
    owner = None
    used = 0
    glued = _ATTACKED.fullmatch(args[0])
    if glued:
        piece = _piece(glued.group(1), text, "attacked ship")
        owner = _owner(glued.group(2).upper(), seats, text)
    else:
        piece = _piece(args[0], text, "attacked ship", strict)
        # Old form: the owner's seat as a separate word after the system.
        if len(args) > 2 and args[2].lower() in _SEAT_WORDS:
            owner = _owner(_SEAT_WORDS[args[2].lower()], seats, text)
            used = 1
    return Capture(piece, args[1], owner), used


def _parse_catastrophe(args: list[str], player: str | None, players: Sequence[str] | None,
                       text: str) -> tuple[Action, int]:
    """``Catastrophe Sys Red`` or ``Catastrophe Sys Red by Name``; with the count of words
    used beyond the keyword's own."""
    declarer = None
    used = 0
    if len(args) > 3 and args[2].lower() == "by":
        declarer = _declarer(args[3], players, text)
        if player is not None and players is not None \
                and players[declarer].lower() == player.lower():
            declarer = None  # the mover's own declaration, written with its name
        used = 2
    return Catastrophe(args[0], _color(args[1], text), declarer), used


def _parse_homeworld(args: list[str], player: str | None, text: str,
                     strict: bool) -> tuple[Action, int]:
    """``Homeworld Y3 B2 G3 [Name]``; with the count of words used beyond the keyword's."""
    # "-" stands for the missing star of a single-star (handicap) home.
    stars = tuple(_piece(word, text, "star", strict) for word in args[:2] if word != "-")
    if not stars:
        raise InvalidNotation(f"homeworld without a star: {text!r}", text)
    name = player
    named = len(args) > 3 and args[3] != "*"
    if name is None:
        if not named:
            raise InvalidNotation(f"homeworld {text!r} needs the player's name", text)
        name = args[3]
    used = 0
    if named and args[3].lower() == name.lower():
        used = 1  # "H Y3 B2 G3 Dlwillson": the player named their home after themself
    return Homeworld(stars, _piece(args[2], text, "ship", strict), name), used


def _refuse_extra_words(extra: list[str], keyword: str, text: str) -> None:
    """Strict reading: no words after the action's own but a final ``*``."""
    if extra and extra[-1] == "*":
        extra = extra[:-1]
    if extra:
        raise InvalidNotation(f"unexpected words {' '.join(extra)!r} after {keyword} "
                              f"in {text!r}", text)


def _declarer(name: str, players: Sequence[str] | None, text: str) -> int:
    if players is None:
        raise InvalidNotation(f"{text!r} names who declared it, but no players are known", text)
    for seat, player in enumerate(players):
        if player.lower() == name.lower():
            return seat
    raise InvalidNotation(f"{name!r} in {text!r} is not a player ({', '.join(players)})", text)


def _check_word(word: str, what: str) -> str:
    if not word or any(ch.isspace() for ch in word):
        raise InvalidNotation(f"{what} {word!r} cannot be written in SDG notation "
                              "(it must be one word without spaces)", word)
    return word


def format_sdg_action(action: Action, *, seat_letters: Mapping[int, str] | None = None,
                      players: Sequence[str] | None = None) -> str:
    """Canonical SDG text of one action, e.g. ``Discover G1 Home B3 Lorem``.

    ``seat_letters`` (seat index -> letter) makes a capture name its owner
    (``Attack G1N Sys``); without it, or when the owner is None, the owner is
    left out, which SDG reads as "the only opponent with that ship there".
    ``players`` (setup order) names the declarer of a catastrophe that has one.
    """
    def p(piece: Piece) -> str:
        return piece.to_text().upper()

    def name(word: str) -> str:
        return _check_word(word, "system name")

    match action:
        case Homeworld(stars=stars, ship=ship):
            return _homeworld_text(stars, ship)
        case Build(piece=piece, system=system):
            return f"Build {p(piece)} {name(system)}"
        case Move(piece=piece, origin=origin, destination=destination):
            return f"Move {p(piece)} {name(origin)} {name(destination)}"
        case Discover(piece=piece, origin=origin, star=star, name=new):
            return f"Discover {p(piece)} {name(origin)} {p(star)} {name(new)}"
        case Trade(old=old, new=new, system=system):
            return f"Trade {p(old)} {p(new)} {name(system)}"
        case Capture(piece=piece, system=system, owner=owner):
            return f"Attack {p(piece)}{_owner_letter(owner, seat_letters)} {name(system)}"
        case Sacrifice(piece=piece, system=system):
            return f"Sacrifice {p(piece)} {name(system)}"
        case Catastrophe(system=system, color=color, declarer=declarer):
            by = f" by {_declarer_name(declarer, players)}" if declarer is not None else ""
            return f"Catastrophe {name(system)} {_COLOR_WORD[color]}{by}"
        case SetupPick(piece=piece, role=role):
            if role not in ("star", "ship"):
                raise InvalidNotation(f"a setup pick is a star or a ship, not {role!r}")
            return f"{role.capitalize()} {p(piece)}"
        case Pass():
            return "Pass"
        case BrainTransference():
            return "Brain Transference"
    raise TypeError(f"not an action: {action!r}")


def _homeworld_text(stars: tuple[Piece, ...], ship: Piece) -> str:
    """``Homeworld Y3 B2 G3``; ``-`` for the missing star of a single-star home."""
    if len(stars) not in (1, 2):
        raise InvalidNotation(f"a homeworld has one or two stars, not {len(stars)}")
    shown = [s.to_text().upper() for s in stars] + (["-"] if len(stars) == 1 else [])
    return f"Homeworld {shown[0]} {shown[1]} {ship.to_text().upper()}"


def _owner_letter(owner: int | None, seat_letters: Mapping[int, str] | None) -> str:
    """The seat letter a capture names its victim by ("" when it names none)."""
    if owner is None or seat_letters is None:
        return ""
    if owner not in seat_letters:
        raise InvalidNotation(f"capture from seat {owner}, which has no seat letter")
    return seat_letters[owner]


def _declarer_name(declarer: int, players: Sequence[str] | None) -> str:
    if players is None or not 0 <= declarer < len(players):
        raise InvalidNotation(f"catastrophe declared by seat {declarer}, who has "
                              "no name to write")
    return players[declarer]


# --------------------------------------------------------------------------- reading


def _fail(message: str, text: str | None, line: int, source: str | None) -> InvalidNotation:
    return InvalidNotation(message, text, line=line, source=source)


def _lines(text: str) -> list[str]:
    # Split on "\n" only: a few comments contain U+0085 or other characters that
    # str.splitlines() would treat as line breaks, which would shift line numbers.
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


@dataclass(slots=True)
class _RawTurn:
    number: int
    player: str
    line: int
    actions: list[tuple[str, int]]
    comments: list[list[str]]


def read_sdg(text: str, source: str | None = None, *, strict: bool = False) -> SdgGame:
    """Read one SDG transcript. Raises InvalidNotation naming the line on any malformed line.

    ``strict`` rejects words after an action's own (see ``parse_sdg_action``).
    """
    lines = _lines(text)
    index = 0
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index == len(lines):
        raise _fail("empty transcript", None, 1, source)
    title = _TITLE.fullmatch(lines[index])
    if title is None:
        raise _fail(f"expected the title 'Homeworlds Online (SDG# N)', got {lines[index]!r}",
                    lines[index], index + 1, source)
    try:
        number = small_number(title.group(1), "game number", lines[index]) \
            if title.group(1) else None
    except InvalidNotation as error:
        raise _fail(str(error), lines[index], index + 1, source) from None
    index += 1

    headers: dict[str, tuple[str, int]] = {}
    while index < len(lines) and lines[index].strip() and not _TURN.fullmatch(lines[index]):
        line = lines[index]
        match = _HEADER.fullmatch(line.strip())
        if match is None:
            raise _fail(f"malformed header line {line!r} (expected 'Key: value')", line,
                        index + 1, source)
        key = match.group(1).lower()
        if key not in ("variants", "started", "participants", "winner", "rules", "alignments",
                       "game", "handicaps"):
            raise _fail(f"unknown header {match.group(1)!r}", line, index + 1, source)
        if key in headers:
            raise _fail(f"header {match.group(1)!r} given twice", line, index + 1, source)
        headers[key] = (match.group(2).strip(), index + 1)
        index += 1

    participants = _read_participants(headers, source)
    variants: tuple[str, ...] = ()
    if "variants" in headers:
        value = headers["variants"][0].strip('"').strip()
        variants = tuple(v.strip() for v in value.split(",") if v.strip())
    winner = (headers["winner"][0] or None) if "winner" in headers else None
    started = (headers["started"][0] or None) if "started" in headers else None

    raw_turns = _split_turns(lines, index, participants, source)
    players, seat_of = _setup_order(raw_turns, participants)
    seats = {letter: seat_of[name.lower()] for name, letter in participants}
    rules = _read_rules(headers, source)
    alignments = _read_alignments(headers, players, source)
    game_uid = _read_game(headers, source)
    handicaps = _read_handicaps(headers, players, source)

    turns = []
    for raw in raw_turns:
        actions = []
        texts = []
        seat = seat_of[raw.player.lower()]
        for action_text, line_number in raw.actions:
            try:
                action = parse_sdg_action(action_text, player=raw.player, seats=seats,
                                          strict=strict, players=players)
            except InvalidNotation as error:
                raise _fail(str(error), action_text, line_number, source) from None
            if isinstance(action, Capture) and action.owner == seat:
                # A few players wrote their own seat (SDG took the enemy ship anyway).
                action = Capture(action.piece, action.system, None)
            actions.append(action)
            texts.append(action_text)
        comments = tuple("\n".join(c).rstrip() for c in raw.comments)
        turns.append(SdgTurn(raw.number, raw.player, seat, tuple(actions), tuple(texts),
                             raw.line, comments))
    return SdgGame(number, variants, participants, winner, players, tuple(turns), source,
                   started, rules, alignments, game_uid, handicaps)


_JUNIOR = re.compile(r"(\S+) \(junior\)")
_TIMEWARP = re.compile(r"timewarp (\d{1,2})")


def _read_handicaps(headers: dict[str, tuple[str, int]], players: tuple[str, ...],
                    source: str | None) -> Handicaps | None:
    """``Handicaps: Bob (junior), brain transference, timewarp 1, red alert``: the novice
    handicaps (000, NOVICE VS. EXPERT) of a two-player game; the junior is named."""
    if "handicaps" not in headers:
        return None
    value, line = headers["handicaps"]
    options: dict[str, object] = {}
    for part in (p.strip().lower() for p in value.split(",")):
        junior = _JUNIOR.fullmatch(part)
        timewarp = _TIMEWARP.fullmatch(part)
        if junior is not None:
            names = [p.lower() for p in players]
            if junior.group(1) not in names:
                raise _fail(f"the junior {junior.group(1)!r} is not a player", value, line,
                            source)
            options["junior_seat"] = names.index(junior.group(1))
        elif timewarp is not None:
            options["timewarp_turns"] = int(timewarp.group(1))
        elif part in ("brain transference", "red alert"):
            options[part.replace(" ", "_")] = True
        else:
            raise _fail(f"unknown handicap {part!r} (handicaps: NAME (junior), brain "
                        "transference, red alert, timewarp N)", value, line, source)
    return Handicaps(**options)  # type: ignore[arg-type]


def handicaps_text(handicaps: Handicaps, players: Sequence[str]) -> str | None:
    """The ``Handicaps:`` header's value (None: no handicap)."""
    parts = []
    if handicaps.brain_transference:
        parts.append("brain transference")
    if handicaps.timewarp_turns:
        parts.append(f"timewarp {handicaps.timewarp_turns}")
    if handicaps.red_alert:
        parts.append("red alert")
    if not parts:
        return None
    if not 0 <= handicaps.junior_seat < len(players):
        raise InvalidNotation(f"handicaps: no junior seat {handicaps.junior_seat} among "
                              f"{len(players)} players")
    return ", ".join([f"{players[handicaps.junior_seat]} (junior)", *parts])


def _read_game(headers: dict[str, tuple[str, int]], source: str | None) -> str | None:
    if "game" not in headers:
        return None
    value, line = headers["game"]
    if not _GAME_UID.fullmatch(value):
        raise _fail(f"malformed game uid {value!r} (expected 1 to 64 letters, digits, '-' "
                    "or '_')", value, line, source)
    return value


def _read_rules(headers: dict[str, tuple[str, int]], source: str | None) -> str | None:
    if "rules" not in headers:
        return None
    value, line = headers["rules"]
    if value not in PRESETS:
        raise _fail(f"unknown rules preset {value!r} (presets: {', '.join(PRESETS)})", value,
                    line, source)
    return value


def _read_alignments(headers: dict[str, tuple[str, int]], players: tuple[str, ...],
                     source: str | None) -> Alignments | None:
    if "alignments" not in headers:
        return None
    value, line = headers["alignments"]
    by_name: dict[str, str] = {}
    for part in value.split(","):
        match = _ALIGNED.fullmatch(part.strip())
        if match is None:
            raise _fail(f"malformed alignment {part.strip()!r} (expected 'name (good)' or "
                        "'name (evil)')", value, line, source)
        if match.group(1).lower() in by_name:
            raise _fail(f"{match.group(1)} has two alignments", value, line, source)
        by_name[match.group(1).lower()] = match.group(2)
    unknown = [n for n in by_name if n not in {p.lower() for p in players}]
    missing = [p for p in players if p.lower() not in by_name]
    if unknown or missing:
        why = (f"{', '.join(unknown)} not among the participants" if unknown
               else f"no alignment for {', '.join(missing)}")
        raise _fail(f"alignments: {why}", value, line, source)
    try:
        return check_alignments((by_name[p.lower()] for p in players), len(players))
    except AlignmentError as error:
        raise _fail(f"alignments: {error}", value, line, source) from None


def _read_participants(headers: dict[str, tuple[str, int]],
                       source: str | None) -> tuple[tuple[str, str], ...]:
    if "participants" not in headers:
        raise _fail("missing 'Participants:' header", None, 1, source)
    value, line = headers["participants"]
    participants = []
    for part in value.split(","):
        match = _PARTICIPANT.fullmatch(part.strip())
        if match is None:
            raise _fail(f"malformed participant {part.strip()!r} (expected 'name (S)')",
                        value, line, source)
        participants.append((match.group(1), match.group(2)))
    names = [n.lower() for n, _ in participants]
    letters = [s for _, s in participants]
    if len(set(names)) != len(names) or len(set(letters)) != len(letters):
        raise _fail(f"participants repeat a name or a seat: {value!r}", value, line, source)
    if len(participants) < 2:
        raise _fail(f"a game needs at least two participants: {value!r}", value, line, source)
    return tuple(participants)


def _split_turns(lines: list[str], index: int, participants: tuple[tuple[str, str], ...],
                 source: str | None) -> list[_RawTurn]:
    names = {name.lower() for name, _ in participants}
    turns: list[_RawTurn] = []
    current: _RawTurn | None = None
    for position in range(index, len(lines)):
        line = lines[position]
        number = position + 1
        match = _TURN.fullmatch(line)
        if match and len(match.group(1)) > 9:
            raise _fail(f"turn number {match.group(1)[:12]}... has {len(match.group(1))} "
                        f"digits: {line[:60]!r}", line, number, source)
        if (match and int(match.group(1)) == len(turns) + 1
                and match.group(2).lower() in names):
            current = _RawTurn(int(match.group(1)), match.group(2), number, [], [])
            turns.append(current)
            first = match.group(3).strip()
            if first:
                current.actions.append((first, number))
            continue
        if current is not None and current.comments:
            # Everything after a turn's first comment line is comment text.
            if line.startswith("\t"):
                current.comments.append([line[1:]])
            else:
                current.comments[-1].append(line)
            continue
        if current is not None and line.startswith("\t"):
            current.comments.append([line[1:]])  # even an empty one
            continue
        if not line.strip():
            continue
        if current is None:
            raise _fail(f"expected turn 1 ('1) player: action'), got {line!r}", line, number,
                        source)
        if match:
            expected = len(turns) + 1
            if int(match.group(1)) != expected:
                why = f"turn number {match.group(1)} where turn {expected} was expected"
            else:
                why = f"{match.group(2)!r} is not a participant"
            raise _fail(f"{why}: {line!r}", line, number, source)
        current.actions.append((line.strip(), number))
    for turn in turns:
        if not turn.actions:
            raise _fail(f"turn {turn.number} of {turn.player} has no action", None, turn.line,
                        source)
    return turns


def _setup_order(turns: list[_RawTurn], participants: tuple[tuple[str, str], ...]
                 ) -> tuple[tuple[str, ...], dict[str, int]]:
    players: list[str] = []
    seat_of: dict[str, int] = {}
    for turn in turns:
        key = turn.player.lower()
        if key in seat_of:
            continue
        for text, _ in turn.actions:
            if _keyword(text.split()[0]) in ("homeworld", "star"):
                seat_of[key] = len(players)
                players.append(turn.player)
                break
    for name, _ in participants:
        if name.lower() not in seat_of:
            seat_of[name.lower()] = len(players)
            players.append(name)
    return tuple(players), seat_of


def read_sdg_file(path: str | PathLike[str], *, strict: bool = False) -> SdgGame:
    """Read an SDG transcript file (UTF-8); the path becomes the game's ``source``."""
    path = Path(path)
    return read_sdg(read_notation_text(path), source=str(path), strict=strict)


# --------------------------------------------------------------------------- writing


def _check_player(name: str) -> str:
    if not name or any(ch.isspace() for ch in name) or any(ch in name for ch in ":(),"):
        raise InvalidNotation(f"player name {name!r} cannot be written in SDG notation "
                              "(one word without ':', '(', ')' or ',')", name)
    return name


def _default_participants(players: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    if len(players) not in _DEFAULT_SEATS:
        raise InvalidNotation(f"SDG notation seats 2 to 6 players, not {len(players)}")
    seats = dict(zip(players, _DEFAULT_SEATS[len(players)], strict=True))
    return tuple(sorted(seats.items(), key=lambda item: SEAT_LETTERS.index(item[1])))


def write_sdg(game: SdgGame) -> str:
    """Canonical SDG text of a game; ``read_sdg`` reads it back to the same actions.

    Captures carry the owner's seat letter only with three or more players
    (with two there is only one owner to take from). An empty ``participants``
    gives the players the seats SDG would have (first to set up sits N).
    """
    players = tuple(_check_player(p) for p in game.players)
    if len({p.lower() for p in players}) != len(players):
        raise InvalidNotation(f"two players share a name: {players}")
    participants = game.participants or _default_participants(players)
    letter_of_seat = _seat_letters(participants, players)
    _check_header_values(game)
    out = ["Homeworlds Online" + (f" (SDG# {game.number})" if game.number is not None else "")]
    if game.variants:
        out.append('Variants: "' + ", ".join(game.variants) + '"')
    if game.rules:
        out.append(f"Rules: {_check_word(game.rules, 'rules preset')}")
    if game.handicaps is not None:
        text = handicaps_text(game.handicaps, players)
        if text is not None:
            out.append(f"Handicaps: {text}")
    if game.started:
        out.append(f"Started: {game.started}")
    if game.game is not None:
        if not _GAME_UID.fullmatch(game.game):
            raise InvalidNotation(f"game uid {game.game!r} cannot be written in the SDG "
                                  "header")
        out.append(f"Game: {game.game}")
    out.append("Participants: " + ", ".join(f"{n} ({s})" for n, s in participants))
    if game.alignments is not None:
        try:
            dealt = check_alignments(game.alignments, len(players))
        except AlignmentError as error:
            raise InvalidNotation(f"alignments: {error}") from None
        out.append("Alignments: " + ", ".join(f"{p} ({a})"
                                              for p, a in zip(players, dealt, strict=True)))
    if game.winner:
        out.append(f"Winner: {game.winner}")
    for position, turn in enumerate(game.turns, start=1):
        out.append("")
        out.extend(_turn_lines(position, turn, players, letter_of_seat))
    return "\n".join(out) + "\n"


def _seat_letters(participants: Sequence[tuple[str, str]], players: tuple[str, ...]
                  ) -> dict[int, str] | None:
    """Seat index -> SDG seat letter, for captures to name their victim (three or more
    players only); the participants checked against the players."""
    for name, letter in participants:
        _check_player(name)
        if letter not in SEAT_LETTERS:
            raise InvalidNotation(f"seat {letter!r} of {name} is not one of "
                                  f"{', '.join(SEAT_LETTERS)}")
    if {n.lower() for n, _ in participants} != {p.lower() for p in players}:
        raise InvalidNotation("participants and players are not the same people: "
                              f"{[n for n, _ in participants]} vs {list(players)}")
    if len(players) <= 2:
        return None
    seat_index = {p.lower(): i for i, p in enumerate(players)}
    return {seat_index[n.lower()]: letter for n, letter in participants}


def _check_header_values(game: SdgGame) -> None:
    """Variants, winner and start date must fit on their header line."""
    for variant in game.variants:
        if not variant.strip() or any(ch in variant for ch in ',"\n\r'):
            raise InvalidNotation(f"variant {variant!r} cannot be written in the SDG header")
    for what, value in (("winner", game.winner), ("start date", game.started)):
        if value is not None and ("\n" in value or "\r" in value):
            raise InvalidNotation(f"{what} {value!r} cannot be written in the SDG header")


def _turn_lines(position: int, turn: SdgTurn, players: tuple[str, ...],
                letter_of_seat: dict[int, str] | None) -> list[str]:
    """``N) Player: first action``, the turn's other actions, its comments."""
    if not turn.actions:
        raise InvalidNotation(f"turn {position} has no action")
    if not 0 <= turn.seat < len(players):
        raise InvalidNotation(f"turn {position} is by seat {turn.seat}, but there are "
                              f"{len(players)} players")
    player = players[turn.seat]
    lines = []
    for action in turn.actions:
        if isinstance(action, (Homeworld, SetupPick)) \
                and action.name.lower() != player.lower():
            raise InvalidNotation(f"SDG names a home after its player: home {action.name!r} "
                                  f"of {player!r} cannot be written")
        lines.append(format_sdg_action(action, seat_letters=letter_of_seat, players=players))
    out = [f"{position}) {player}: {lines[0]}", *lines[1:]]
    for comment in turn.comments:
        out.extend(_comment_lines(comment, position))
    return out


def _comment_lines(comment: str, turn: int) -> list[str]:
    first, *rest = comment.rstrip().split("\n")
    for line in rest:
        # A continuation line must not start a new comment or a new turn when read back.
        if line.startswith("\t") or _TURN.fullmatch(line):
            raise InvalidNotation(f"comment of turn {turn} has a line SDG would misread: "
                                  f"{line!r}", comment)
    return ["\t" + first, *rest]


def sdg_game(players: Iterable[str], turns: Iterable[Sequence[Action]], *,
             seats: Iterable[int] | None = None, number: int | None = None,
             winner: str | None = None, variants: Iterable[str] = (),
             started: str | None = None, rules: str | None = None,
             alignments: Iterable[str] | None = None, game: str | None = None,
             comments: Mapping[int, str] | None = None,
             handicaps: Handicaps | None = None) -> SdgGame:
    """An SdgGame from players (setup order) and whole turns, for writing a game the
    table recorded. ``seats`` gives the seat of each turn; by default players take
    turns in setup order. Seat letters are the ones SDG gave (first to set up: N).
    ``rules`` and ``alignments`` (setup order) become the Rules and Alignments headers,
    ``game`` (a stored game's uid) the Game header, ``handicaps`` the Handicaps header;
    ``comments`` (turn number, 1 = the first, to text) become comment lines after a turn."""
    players = tuple(players)
    participants = _default_participants(players)
    turn_list = [tuple(t) for t in turns]
    seat_list = ([i % len(players) for i in range(len(turn_list))] if seats is None
                 else list(seats))
    if len(seat_list) != len(turn_list):
        raise ValueError(f"{len(seat_list)} seats for {len(turn_list)} turns")
    letters = None
    if len(players) > 2:
        letters = {i: dict(participants)[p] for i, p in enumerate(players)}
    built = []
    for position, (seat, actions) in enumerate(zip(seat_list, turn_list, strict=True)):
        if not 0 <= seat < len(players):
            raise ValueError(f"turn {position + 1}: no seat {seat} among {len(players)} players")
        comment = (comments or {}).get(position + 1)
        built.append(SdgTurn(position + 1, players[seat], seat, actions,
                             tuple(format_sdg_action(a, seat_letters=letters, players=players)
                                   for a in actions),
                             comments=(comment,) if comment else ()))
    dealt = None
    if alignments is not None:
        try:
            dealt = check_alignments(alignments, len(players))
        except AlignmentError as error:
            raise ValueError(f"alignments: {error}") from None
    return SdgGame(number, tuple(variants), participants, winner, players, tuple(built), None,
                   started, rules, dealt, game, handicaps)
