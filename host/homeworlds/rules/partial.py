"""Partial turns: ``sacrifice; capture y2y2`` completed from the position.

The C++ engine's test positions write sample turns with pieces and systems
left out where the position makes them clear (``sacrifice``, ``build at
Player2``, ``move y1 to Waypoint (g1)``, ``convert to b3``, ``catastrophe``),
and with several like actions folded into one (``capture y2y2``, ``build
b1b1 at Player2``, ``move r1r1 to Elsewhere (y1)``). ``match_partial_turn``
finds every legal turn whose actions match the pattern one for one and
compares the positions they lead to: none is ``IllegalAction``, one position
(however many turns reach it) is the answer, several are ``AmbiguousAction``.

The engine itself completes such turns greedily, action by action; matching
whole turns instead also accepts the few turns whose missing parts only the
later actions settle.

Grammar (keywords in lower case, one action per ``;``):

    pass
    catastrophe [COLOUR] [at SYSTEM]      catastrophe SYSTEM COLOUR
    sacrifice [PIECE] [[at] SYSTEM]
    capture [PIECE...] [[at] SYSTEM]      (also: attack)
    move PIECE... [from SYSTEM] to SYSTEM [(STAR)]      move PIECE SYSTEM SYSTEM
    discover PIECE SYSTEM STAR SYSTEM
    build [PIECE...] [[at] SYSTEM]
    convert [PIECE] [at SYSTEM] [to|for] PIECE [[at] SYSTEM]   (also: trade, swap)

where a PIECE may give only its colour (``g``) or only its size (``2``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from homeworlds.rules.actions import (
    Action,
    Build,
    Capture,
    Catastrophe,
    Discover,
    Move,
    Pass,
    Sacrifice,
    Trade,
    Turn,
)
from homeworlds.rules.errors import (
    AmbiguousAction,
    HomeworldsError,
    IllegalAction,
    InvalidNotation,
)
from homeworlds.rules.fast import canonical_key
from homeworlds.rules.moves import fresh_system_name
from homeworlds.rules.pieces import PIECES, Color
from homeworlds.rules.state import GameState, TurnInProgress

__all__ = ["ActionPattern", "match_partial_turn", "parse_partial_turn"]

_PIECE = re.compile(r"([rygb])?([123])?")
_PIECES = re.compile(r"(?:[rygb][123])+")
_COLOURS = {"r": 0, "red": 0, "y": 1, "yellow": 1, "g": 2, "green": 2, "b": 3, "blue": 3}


@dataclass(frozen=True, slots=True)
class ActionPattern:
    """One action with parts left out (None: anything)."""

    kind: str  # pass, catastrophe, sacrifice, capture, move, build, convert
    color: int | None = None
    size: int | None = None
    where: str | None = None
    whither: str | None = None
    #: For a move: the new system's star (a discovery); for a convert: the new piece.
    new_color: int | None = None
    new_size: int | None = None
    #: A move pattern written with a star: the destination is discovered by it.
    discovers: bool = False

    def matches(self, action: Action) -> bool:  # noqa: C901 — one case per kind
        k = self.kind
        if k == "pass":
            return isinstance(action, Pass)
        if k == "catastrophe":
            return (isinstance(action, Catastrophe) and _eq(self.color, int(action.color))
                    and _name_eq(self.where, action.system))
        if k == "sacrifice":
            return isinstance(action, Sacrifice) and self._piece(action.piece) and _name_eq(
                self.where, action.system)
        if k == "capture":
            return isinstance(action, Capture) and self._piece(action.piece) and _name_eq(
                self.where, action.system)
        if k == "build":
            return isinstance(action, Build) and self._piece(action.piece) and _name_eq(
                self.where, action.system)
        if k == "convert":
            return (isinstance(action, Trade) and self._piece(action.old)
                    and _eq(self.new_color, int(action.new.color))
                    and _eq(self.new_size, int(action.new.size))
                    and _name_eq(self.where, action.system))
        if k == "move":
            if self.discovers:
                return (isinstance(action, Discover) and self._piece(action.piece)
                        and _name_eq(self.where, action.origin)
                        and _eq(self.new_color, int(action.star.color))
                        and _eq(self.new_size, int(action.star.size)))
            return (isinstance(action, Move) and self._piece(action.piece)
                    and _name_eq(self.where, action.origin)
                    and _name_eq(self.whither, action.destination))
        return False

    def _piece(self, piece) -> bool:
        return _eq(self.color, int(piece.color)) and _eq(self.size, int(piece.size))


def _eq(want, got) -> bool:
    return want is None or want == got


def _name_eq(want: str | None, got: str) -> bool:
    return want is None or want.casefold() == got.casefold()


# ---- parsing ----------------------------------------------------------------


def _piece(word: str, text: str) -> tuple[int | None, int | None]:
    m = _PIECE.fullmatch(word.lower())
    if m is None or not (m.group(1) or m.group(2)):
        raise InvalidNotation(f"{word!r} is not a piece (expected e.g. g1, g or 1) in {text!r}",
                              text)
    color = "rygb".index(m.group(1)) if m.group(1) else None
    size = int(m.group(2)) if m.group(2) else None
    return color, size


def _is_piece(word: str) -> bool:
    m = _PIECE.fullmatch(word.lower())
    return bool(m and (m.group(1) or m.group(2)))


def _multi(word: str) -> list[tuple[int, int]] | None:
    """``y2y2`` -> two full pieces; None unless the word is two or more full pieces."""
    w = word.lower()
    if not _PIECES.fullmatch(w) or len(w) < 4:
        return None
    return [("rygb".index(w[i]), int(w[i + 1])) for i in range(0, len(w), 2)]


def _where(words: list[str], text: str) -> str | None:
    """The optional trailing ``[at] SYSTEM``."""
    if not words:
        return None
    if words[0].lower() in ("at", "in"):
        words = words[1:]
    if len(words) != 1:
        raise InvalidNotation(f"expected '[at] SYSTEM' at the end of {text!r}", text)
    return words[0]


def _parse_one(text: str) -> list[ActionPattern]:  # noqa: C901 — one case per keyword
    words = text.split()
    if not words:
        raise InvalidNotation("empty action", text)
    head = words[0].lower()
    rest = words[1:]
    if head == "pass":
        if rest:
            raise InvalidNotation(f"'pass' takes nothing after it: {text!r}", text)
        return [ActionPattern("pass")]
    if head in ("catastrophe", "cat"):
        if not rest:
            return [ActionPattern("catastrophe")]
        if rest[0].lower() == "at":
            return [ActionPattern("catastrophe", where=_where(rest, text))]
        if rest[0].lower() in _COLOURS:
            return [ActionPattern("catastrophe", color=_COLOURS[rest[0].lower()],
                                  where=_where(rest[1:], text))]
        if len(rest) == 2 and rest[1].lower() in _COLOURS:
            return [ActionPattern("catastrophe", color=_COLOURS[rest[1].lower()], where=rest[0])]
        raise InvalidNotation(f"expected 'catastrophe [COLOUR] [at SYSTEM]': {text!r}", text)
    if head in ("sacrifice", "sac", "capture", "attack", "build"):
        kind = {"sac": "sacrifice", "attack": "capture"}.get(head, head)
        multi = _multi(rest[0]) if rest and kind != "sacrifice" else None
        if multi:
            where = _where(rest[1:], text)
            return [ActionPattern(kind, color=c, size=s, where=where) for c, s in multi]
        color = size = None
        if rest and _is_piece(rest[0]):
            color, size = _piece(rest[0], text)
            rest = rest[1:]
        elif len(rest) > 1 and rest[0].lower() not in ("at", "in"):
            _piece(rest[0], text)  # a word before "at SYSTEM" must be a piece
        return [ActionPattern(kind, color=color, size=size, where=_where(rest, text))]
    if head == "move":
        if not rest:
            raise InvalidNotation(f"a move needs a piece: {text!r}", text)
        multi = _multi(rest[0])
        pieces: list[tuple[int | None, int | None]] = (list(multi) if multi
                                                        else [_piece(rest[0], text)])
        rest = rest[1:]
        where = whither = None
        star = None
        if rest and rest[0].lower() == "from":
            if len(rest) < 2:
                raise InvalidNotation(f"'from' needs a system: {text!r}", text)
            where = rest[1]
            rest = rest[2:]
            if not rest or rest[0].lower() != "to":
                raise InvalidNotation(f"expected 'to SYSTEM' in {text!r}", text)
        if rest and rest[0].lower() == "to":
            if len(rest) < 2:
                raise InvalidNotation(f"'to' needs a system: {text!r}", text)
            whither = rest[1]
            rest = rest[2:]
            if rest:
                m = re.fullmatch(r"\((\w\w?)\)", "".join(rest))
                if m is None:
                    raise InvalidNotation(f"expected '(STAR)' after the destination: {text!r}",
                                          text)
                star = _piece(m.group(1), text)
        elif len(rest) == 2 and where is None:
            where, whither = rest
        else:
            raise InvalidNotation(f"expected 'move PIECE [from SYSTEM] to SYSTEM [(STAR)]': "
                                  f"{text!r}", text)
        out = []
        for n, (c, s) in enumerate(pieces):
            if star is not None and n == 0:
                out.append(ActionPattern("move", c, s, where, whither, star[0], star[1], True))
            else:
                out.append(ActionPattern("move", c, s, where, whither))
        return out
    if head == "discover":
        if len(rest) != 4:
            raise InvalidNotation(f"expected 'discover PIECE SYSTEM STAR SYSTEM': {text!r}", text)
        c, s = _piece(rest[0], text)
        nc, ns = _piece(rest[2], text)
        return [ActionPattern("move", c, s, rest[1], rest[3], nc, ns, True)]
    if head in ("convert", "trade", "swap"):
        color = size = None
        where = None
        if rest and _is_piece(rest[0]):
            color, size = _piece(rest[0], text)
            rest = rest[1:]
        if rest and rest[0].lower() in ("at", "in") and len(rest) >= 3:
            where = rest[1]
            rest = rest[2:]
        if rest and rest[0].lower() in ("to", "for"):
            rest = rest[1:]
        if not rest or not _is_piece(rest[0]):
            raise InvalidNotation(f"a convert needs the new piece: {text!r}", text)
        new_color, new_size = _piece(rest[0], text)
        rest = rest[1:]
        if rest:
            if where is not None:
                raise InvalidNotation(f"two systems in {text!r}", text)
            where = _where(rest, text)
        if size is None:
            size = new_size
        elif new_size is None:
            new_size = size
        elif size != new_size:
            raise InvalidNotation(f"a convert keeps the size: {text!r}", text)
        return [ActionPattern("convert", color, size, where, None, new_color, new_size)]
    raise InvalidNotation(f"unknown action {words[0]!r} in {text!r} (expected pass, catastrophe, "
                          "sacrifice, capture, move, discover, build or convert)", text)


def parse_partial_turn(text: str) -> tuple[ActionPattern, ...]:
    """Parse a partial turn into one pattern per action."""
    stripped = text.strip()
    if not stripped:
        raise InvalidNotation("empty turn", text)
    out: list[ActionPattern] = []
    for part in stripped.split(";"):
        if not part.strip():
            raise InvalidNotation(f"empty action in {text!r}", text)
        out.extend(_parse_one(part.strip()))
    return tuple(out)


# ---- matching -----------------------------------------------------------------


def _candidates(tip: TurnInProgress, pattern: ActionPattern):
    """Every action the pattern could stand for now (legality is checked by applying it)."""
    st = tip.state
    seat = tip.seat
    k = pattern.kind
    if k == "pass":
        yield Pass()
        return
    for s in st.systems:
        if pattern.where is not None and s.key != pattern.where.casefold():
            continue
        if k == "catastrophe":
            for c in s.overpopulated_colors():
                yield Catastrophe(s.name, Color(c))
            continue
        yield from _candidates_at(st, seat, s, pattern)


def _candidates_at(st: GameState, seat: int, s, pattern: ActionPattern):
    """The pattern's candidate actions at system ``s`` (a power action or a sacrifice)."""
    k = pattern.kind
    mine = [i for i in range(12) if s.ships[seat][i]]
    if k == "sacrifice":
        for i in mine:
            yield Sacrifice(PIECES[i], s.name)
    elif k == "capture":
        for owner in range(st.players):
            if owner != seat:
                for i in range(12):
                    if s.ships[owner][i]:
                        yield Capture(PIECES[i], s.name, owner if st.players > 2 else None)
    elif k == "build":
        for i in range(12):
            yield Build(PIECES[i], s.name)
    elif k == "convert":
        for i in mine:
            for j in range(i % 3, 12, 3):
                if j != i:
                    yield Trade(PIECES[i], PIECES[j], s.name)
    elif k == "move":
        yield from _moves(st, s, mine, pattern)


def _moves(st: GameState, s, mine: list[int], pattern: ActionPattern):
    """Moves of the mover's ships at ``s``: to a new system when the pattern discovers,
    else to each other system (connection is checked when the move is applied)."""
    for i in mine:
        if pattern.discovers:
            name = pattern.whither or fresh_system_name(st)
            for star in range(12):
                if st.bank[star]:
                    yield Discover(PIECES[i], s.name, PIECES[star], name)
        else:
            for d in st.systems:
                if d is not s:
                    yield Move(PIECES[i], s.name, d.name)


def match_partial_turn(state: GameState, text: str) -> Turn:
    """The one turn (up to its result) that the partial notation ``text`` stands for.

    Raises InvalidNotation (not well-formed), IllegalAction (no legal turn matches),
    AmbiguousAction (legal turns that match lead to different positions; its
    ``candidates`` hold one turn per position).
    """
    patterns = parse_partial_turn(text)
    found: dict[tuple, Turn] = {}
    reasons: list[str] = []

    def walk(tip: TurnInProgress, index: int) -> None:
        if index == len(patterns):
            try:
                after = tip.copy().finish()
            except HomeworldsError as error:
                reasons.append(str(error))
                return
            found.setdefault(canonical_key(after), tuple(tip.actions))
            return
        for action in _candidates(tip, patterns[index]):
            if not patterns[index].matches(action):
                continue
            child = tip.copy()
            try:
                child.apply(action)
            except AmbiguousAction:
                raise
            except HomeworldsError as error:
                reasons.append(str(error))
                continue
            walk(child, index + 1)

    try:
        start = TurnInProgress(state)
    except HomeworldsError as error:
        raise IllegalAction(f"{text}: {error}", text, state) from None
    walk(start, 0)
    if not found:
        why = f" ({reasons[-1]})" if reasons else " (nothing in the position fits it)"
        raise IllegalAction(f"{text}: no legal turn matches{why}", text, state)
    if len(found) > 1:
        options = list(found.values())
        listed = " | ".join("; ".join(map(str, t)) for t in options[:4])
        more = f" and {len(options) - 4} more" if len(options) > 4 else ""
        raise AmbiguousAction(f"{text}: {len(options)} different turns match: {listed}{more}",
                              text, state, tuple(options))
    return next(iter(found.values()))
